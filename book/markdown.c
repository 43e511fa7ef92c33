/* markdown.c - numbers and text as the book's pages print them. See markdown.h. */
#include "markdown.h"

#include <math.h>
#include <string.h>

int markdown_number(char *text, size_t capacity, double value)
{
    if (!isfinite(value) || value < 0 || value >= 1e15)
        return -1;
    int decimals = value > 0 ? 2 - (int)floor(log10(value)) : 0;
    decimals = decimals < 0 ? 0 : decimals > 9 ? 9 : decimals;
    int length = snprintf(text, capacity, "%.*f", decimals, value);
    return length >= 0 && (size_t)length < capacity ? 0 : -1;
}

void markdown_put(FILE *out, const char *text)
{
    for (; *text; text++) {
        if (strchr("\\`*_[]<>|$&~^@{}#", *text))
            fputc('\\', out);
        fputc(*text, out);
    }
}

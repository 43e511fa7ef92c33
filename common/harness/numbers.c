/* numbers.c - see numbers.h. */
#include "harness/numbers.h"

#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* The value of a run of decimal digits with no leading zero. A run too long
 * for 64 bits is out of range, but only once every character is known to be
 * a digit: "99999999999999999999x" is malformed, not large. */
static whole_number_status magnitude_of(const char *digits, unsigned long long *magnitude)
{
    if (!digits || !*digits || (digits[0] == '0' && digits[1] != '\0'))
        return WHOLE_NUMBER_MALFORMED;
    unsigned long long value = 0;
    int overflow = 0;
    for (const char *c = digits; *c; c++) {
        if (*c < '0' || *c > '9')
            return WHOLE_NUMBER_MALFORMED;
        unsigned digit = (unsigned)(*c - '0');
        if (value > (ULLONG_MAX - digit) / 10)
            overflow = 1;
        else
            value = 10 * value + digit;
    }
    *magnitude = value;
    return overflow ? WHOLE_NUMBER_OUT_OF_RANGE : WHOLE_NUMBER_OK;
}

whole_number_status whole_number_parse(const char *text, long long min, long long max,
                                       long long *value)
{
    int negative = text && text[0] == '-' && min < 0;
    unsigned long long magnitude = 0;
    whole_number_status status = magnitude_of(text ? text + negative : NULL, &magnitude);
    if (status != WHOLE_NUMBER_OK)
        return status;
    if (negative && magnitude == 0)
        return WHOLE_NUMBER_MALFORMED; /* "-0" */
    long long parsed;
    if (negative && magnitude > (unsigned long long)LLONG_MAX + 1)
        return WHOLE_NUMBER_OUT_OF_RANGE;
    else if (negative) /* -(LLONG_MAX + 1) is LLONG_MIN, which no long long negates to */
        parsed = magnitude == (unsigned long long)LLONG_MAX + 1 ? LLONG_MIN : -(long long)magnitude;
    else if (magnitude > (unsigned long long)LLONG_MAX)
        return WHOLE_NUMBER_OUT_OF_RANGE;
    else
        parsed = (long long)magnitude;
    if (parsed < min || parsed > max)
        return WHOLE_NUMBER_OUT_OF_RANGE;
    *value = parsed;
    return WHOLE_NUMBER_OK;
}

whole_number_status whole_number_parse_unsigned(const char *text, unsigned long long max,
                                                unsigned long long *value)
{
    unsigned long long parsed = 0;
    whole_number_status status = magnitude_of(text, &parsed);
    if (status == WHOLE_NUMBER_OK && parsed > max)
        status = WHOLE_NUMBER_OUT_OF_RANGE;
    if (status == WHOLE_NUMBER_OK)
        *value = parsed;
    return status;
}

/* The length of the run of decimal digits at text. */
static size_t digits_at(const char *text)
{
    size_t length = 0;
    while (text[length] >= '0' && text[length] <= '9')
        length++;
    return length;
}

int whole_number_argument(int argc, char **argv, const char *key, int min, int max, int *value)
{
    const size_t length = strlen(key);
    long long parsed;
    for (int k = 1; k < argc; k++) {
        if (strncmp(argv[k], key, length) != 0 || argv[k][length] != '=')
            continue;
        if (whole_number_parse(argv[k] + length + 1, min, max, &parsed) != WHOLE_NUMBER_OK)
            return -1;
        *value = (int)parsed;
        return 1;
    }
    return 0;
}

int decimal_number_parse(const char *text, double *value)
{
    if (!text)
        return -1;
    const char *p = text + (*text == '-');
    size_t whole = digits_at(p);
    if (whole == 0)
        return -1;
    p += whole;
    if (*p == '.') {
        size_t fraction = digits_at(p + 1);
        if (fraction == 0)
            return -1;
        p += 1 + fraction;
    }
    if (*p == 'e' || *p == 'E') {
        p += 1 + (p[1] == '+' || p[1] == '-');
        size_t exponent = digits_at(p);
        if (exponent == 0)
            return -1;
        p += exponent;
    }
    if (*p != '\0')
        return -1;
    /* The spelling is a part of strtod's decimal form, so strtod reads all of
     * it and gives the nearest double; an underflow to a tiny value is no
     * error here (callers check their ranges), an overflow to infinity is. */
    double parsed = strtod(text, NULL);
    if (!isfinite(parsed))
        return -1;
    *value = parsed;
    return 0;
}

/* csv.c - see csv.h. */
#include "csv.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

typedef struct {
    char *buffer;
    size_t capacity, length;
    int overflow;
} text_builder;

static void append(text_builder *text, const char *format, ...)
{
    if (text->overflow)
        return;
    va_list args;
    va_start(args, format);
    int n = vsnprintf(text->buffer + text->length, text->capacity - text->length, format, args);
    va_end(args);
    if (n < 0 || (size_t)n >= text->capacity - text->length)
        text->overflow = 1;
    else
        text->length += (size_t)n;
}

static void append_field(text_builder *text, const char *field)
{
    if (!strpbrk(field, ",\"\r\n")) {
        append(text, "%s,", field);
        return;
    }
    append(text, "\"");
    for (const char *c = field; *c; c++)
        append(text, *c == '"' ? "\"\"" : "%c", *c);
    append(text, "\",");
}

int csv_format_row(char *buffer, size_t capacity, const csv_row *row)
{
    if (!buffer || capacity == 0 || !row->kernel || !row->problem || !row->shape ||
        !row->gpu || !row->cuda || !row->commit || !row->date)
        return -1;
    text_builder text = {buffer, capacity, 0, 0};
    append(&text, "%d,", row->chapter);
    append_field(&text, row->kernel);
    append_field(&text, row->problem);
    append_field(&text, row->shape);
    append(&text, "%.6f,%.6f,%.6f,%.1f,%.1f,", row->median_ms, row->min_ms, row->max_ms,
           row->gflops, row->gbps);
    append_field(&text, row->gpu);
    append_field(&text, row->cuda);
    append_field(&text, row->commit);
    append_field(&text, row->date);
    if (text.overflow)
        return -1;
    buffer[--text.length] = '\0'; /* drop the last comma */
    return (int)text.length;
}

int csv_append(const char *path, const csv_row *row)
{
    char line[2048];
    if (csv_format_row(line, sizeof line, row) < 0) {
        fprintf(stderr, "csv: cannot format the row for %s\n", path);
        return -1;
    }
    FILE *file = fopen(path, "a+");
    if (!file) {
        fprintf(stderr, "csv: cannot open %s: %s\n", path, strerror(errno));
        return -1;
    }
    rewind(file);
    char first[512] = "";
    int empty = !fgets(first, sizeof first, file);
    first[strcspn(first, "\r\n")] = '\0';
    if (!empty && strcmp(first, CSV_HEADER) != 0) {
        fprintf(stderr, "csv: %s does not start with the header\n  %s\n", path, CSV_HEADER);
        fclose(file);
        return -1;
    }
    fseek(file, 0, SEEK_END);
    if (empty)
        fprintf(file, "%s\n", CSV_HEADER);
    fprintf(file, "%s\n", line);
    if (fclose(file) != 0) {
        fprintf(stderr, "csv: cannot write %s: %s\n", path, strerror(errno));
        return -1;
    }
    return 0;
}

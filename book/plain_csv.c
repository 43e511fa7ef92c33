/* plain_csv.c - see plain_csv.h. */
#include "plain_csv.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "harness/csv.h"

int plain_csv_fail(char *error, size_t capacity, const char *path, int line, const char *why)
{
    snprintf(error, capacity, "%s:%d: malformed row: %s", path, line, why);
    return -1;
}

int plain_csv_read(const char *path, const char *header, int fields, plain_csv_row row,
                   void *context, char *error, size_t capacity)
{
    FILE *file = fopen(path, "r");
    if (!file) {
        if (errno == ENOENT)
            return 1;
        snprintf(error, capacity, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    char line[CSV_MAX_LINE + 2], *field[32];
    int number = 0, status = 0;
    if (fields > (int)(sizeof field / sizeof field[0]))
        status = plain_csv_fail(error, capacity, path, 0, "more fields than the reader holds");
    while (status == 0 && fgets(line, sizeof line, file)) {
        number++;
        size_t length = strcspn(line, "\r\n");
        if (line[length] == '\0' && !feof(file)) {
            status = plain_csv_fail(error, capacity, path, number, "a line longer than 2048 bytes");
            break;
        }
        line[length] = '\0';
        if (number == 1) {
            if (strcmp(line, header) != 0) {
                snprintf(error, capacity, "%s:1: the first line is not the header\n  %s", path, header);
                status = -1;
            }
            continue;
        }
        char *cursor = line;
        int count = 0;
        while (cursor && count < fields) {
            field[count++] = cursor;
            if ((cursor = strchr(cursor, ',')) != NULL)
                *cursor++ = '\0';
        }
        if (count != fields || cursor) {
            char why[32];
            snprintf(why, sizeof why, "not %d fields", fields);
            status = plain_csv_fail(error, capacity, path, number, why);
            break;
        }
        status = row(field, path, number, context, error, capacity);
    }
    if (status == 0 && ferror(file)) {
        snprintf(error, capacity, "%s: cannot read: %s", path, strerror(errno));
        status = -1;
    }
    fclose(file);
    return status;
}

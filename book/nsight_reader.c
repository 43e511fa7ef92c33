/* nsight_reader.c - see nsight_reader.h. */
#include "nsight_reader.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { N_KERNEL, N_SHAPE, N_FUNCTION, N_READING, N_VALUE, N_GPU, N_COMMIT, N_DATE, N_FIELDS };

static int fail(char *error, size_t capacity, const char *path, int line, const char *why)
{
    snprintf(error, capacity, "%s:%d: malformed row: %s", path, line, why);
    return -1;
}

static int add_row(nsight_set *set, char *const *field, double value)
{
    nsight_row *bigger = realloc(set->rows, (size_t)(set->count + 1) * sizeof *bigger);
    if (!bigger)
        return -1;
    set->rows = bigger;
    nsight_row *row = &set->rows[set->count];
    row->kernel = strdup(field[N_KERNEL]);
    row->shape = strdup(field[N_SHAPE]);
    row->reading = strdup(field[N_READING]);
    row->gpu = strdup(field[N_GPU]);
    row->date = strdup(field[N_DATE]);
    row->value = value;
    row->order = set->count++;
    return row->kernel && row->shape && row->reading && row->gpu && row->date ? 0 : -1;
}

int nsight_read(const char *data_dir, nsight_set *set, char *error, size_t capacity)
{
    *set = (nsight_set){0};
    char path[4096];
    snprintf(path, sizeof path, "%s/nsight/nsight.csv", data_dir);
    FILE *file = fopen(path, "r");
    if (!file) {
        if (errno == ENOENT)
            return 0;
        snprintf(error, capacity, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    char line[2050];
    int number = 0, status = 0;
    while (status == 0 && fgets(line, sizeof line, file)) {
        number++;
        size_t length = strcspn(line, "\r\n");
        if (line[length] == '\0' && !feof(file)) {
            status = fail(error, capacity, path, number, "a line longer than 2048 bytes");
            break;
        }
        line[length] = '\0';
        if (number == 1) {
            if (strcmp(line, NSIGHT_HEADER) != 0) {
                snprintf(error, capacity, "%s:1: the first line is not the header\n  %s", path,
                         NSIGHT_HEADER);
                status = -1;
            }
            continue;
        }
        char *field[N_FIELDS], *cursor = line, *end;
        int count = 0;
        while (cursor && count < N_FIELDS) {
            field[count++] = cursor;
            if ((cursor = strchr(cursor, ',')) != NULL)
                *cursor++ = '\0';
        }
        if (count != N_FIELDS || cursor) {
            status = fail(error, capacity, path, number, "not 8 fields");
            break;
        }
        for (int k = 0; k < N_FIELDS; k++)
            if (!field[k][0]) {
                status = fail(error, capacity, path, number, "an empty field");
                break;
            }
        if (status)
            break;
        if (strcmp(field[N_READING], "gpu") == 0) {
            status = fail(error, capacity, path, number, "a reading named gpu (the card's name "
                          "is its own column)");
            break;
        }
        errno = 0;
        double value = strtod(field[N_VALUE], &end);
        if (errno || *end || !isfinite(value) || value < 0) {
            status = fail(error, capacity, path, number, "the value is not a number >= 0");
            break;
        }
        if (add_row(set, field, value) != 0) {
            snprintf(error, capacity, "%s: out of memory", path);
            status = -1;
        }
    }
    fclose(file);
    if (status)
        nsight_free(set);
    return status;
}

/* The newest reading of kernel at shape on gpu (any card: NULL), or NULL. */
static const nsight_row *newest(const nsight_set *set, const char *reading, const char *kernel,
                                const char *shape, const char *gpu)
{
    const nsight_row *best = NULL;
    for (int k = 0; k < set->count; k++) {
        const nsight_row *row = &set->rows[k];
        if (strcmp(row->kernel, kernel) == 0 && strcmp(row->shape, shape) == 0 &&
            (!reading || strcmp(row->reading, reading) == 0) &&
            (!gpu || strcmp(row->gpu, gpu) == 0) &&
            (!best || strcmp(row->date, best->date) > 0 ||
             (strcmp(row->date, best->date) == 0 && row->order > best->order)))
            best = row;
    }
    return best;
}

int nsight_placeholder(const nsight_set *set, char *const *part, int count,
                       const char *const *cards, const char *pinned, char *text, size_t capacity)
{
    if (strcmp(part[0], "ncu") != 0)
        return 0;
    if (count != 4) {
        snprintf(text, capacity, "expected {{ncu|READING|KERNEL|SHAPE}}");
        return -1;
    }
    const char *reading = strcmp(part[1], "gpu") == 0 ? NULL : part[1];
    const nsight_row *row = NULL;
    for (int c = 0; cards && cards[c] && !row; c++)
        if (!pinned || strstr(cards[c], pinned))
            row = newest(set, reading, part[2], part[3], cards[c]);
    if (!row) { /* a card that measured no time of this problem */
        const nsight_row *any = newest(set, reading, part[2], part[3], NULL);
        row = any && (!pinned || strstr(any->gpu, pinned)) ? any : NULL;
    }
    if (!row) {
        snprintf(text, capacity, "no Nsight Compute reading%s%s of \"%s\" at shape \"%s\"%s%s in "
                 "nsight/nsight.csv (make nsight on a GPU records them)", reading ? " " : "",
                 reading ? reading : "", part[2], part[3], pinned ? " on a card whose name holds " : "",
                 pinned ? pinned : "");
        return -1;
    }
    if (!reading)
        snprintf(text, capacity, "%s", row->gpu);
    else if (row->value >= 100)
        snprintf(text, capacity, "%.0f", row->value);
    else
        snprintf(text, capacity, "%.3g", row->value);
    return 1;
}

void nsight_free(nsight_set *set)
{
    for (int k = 0; k < set->count; k++) {
        nsight_row *row = &set->rows[k];
        free(row->kernel);
        free(row->shape);
        free(row->reading);
        free(row->gpu);
        free(row->date);
    }
    free(set->rows);
    *set = (nsight_set){0};
}

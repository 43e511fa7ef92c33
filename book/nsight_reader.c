/* nsight_reader.c - see nsight_reader.h. */
#include "nsight_reader.h"

#include "plain_csv.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { N_KERNEL, N_SHAPE, N_FUNCTION, N_READING, N_VALUE, N_GPU, N_COMMIT, N_DATE, N_FIELDS };

static int add_row(nsight_set *set, char **field, double value)
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

/* One row (plain_csv_row): checked, then kept in the set. */
static int keep_row(char **field, const char *path, int number, void *context, char *error,
                    size_t capacity)
{
    for (int k = 0; k < N_FIELDS; k++)
        if (!field[k][0])
            return plain_csv_fail(error, capacity, path, number, "an empty field");
    if (strcmp(field[N_READING], "gpu") == 0)
        return plain_csv_fail(error, capacity, path, number, "a reading named gpu (the card's "
                              "name is its own column)");
    char *end;
    errno = 0;
    double value = strtod(field[N_VALUE], &end);
    if (errno || *end || !isfinite(value) || value < 0)
        return plain_csv_fail(error, capacity, path, number, "the value is not a number >= 0");
    if (add_row(context, field, value) != 0) {
        snprintf(error, capacity, "%s: out of memory", path);
        return -1;
    }
    return 0;
}

int nsight_read(const char *data_dir, nsight_set *set, char *error, size_t capacity)
{
    *set = (nsight_set){0};
    char path[4096];
    snprintf(path, sizeof path, "%s/nsight/nsight.csv", data_dir);
    int status = plain_csv_read(path, NSIGHT_HEADER, N_FIELDS, keep_row, set, error, capacity);
    if (status < 0)
        nsight_free(set);
    return status == 1 ? 0 : status; /* no file: no readings */
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

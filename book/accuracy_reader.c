/* accuracy_reader.c - see accuracy_reader.h. */
#include "accuracy_reader.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/csv.h"
#include "plain_csv.h"

enum { A_CHAPTER, A_KERNEL, A_PROBLEM, A_SHAPE, A_SCALE, A_LOGIT, A_REL_L2, A_MAX_ABS, A_GPU,
       A_CUDA, A_COMMIT, A_DATE, A_FIELDS };

static int number(const char *text, double *value)
{
    char *end;
    errno = 0;
    *value = strtod(text, &end);
    return errno == 0 && end != text && *end == '\0' && *value >= 0 && *value < 1e30 ? 0 : -1;
}

static int valid_date(const char *text)
{
    if (strlen(text) != 10 || text[4] != '-' || text[7] != '-')
        return 0;
    for (int k = 0; k < 10; k++)
        if (k != 4 && k != 7 && (text[k] < '0' || text[k] > '9'))
            return 0;
    return 1;
}

static char *copy_of(const char *text)
{
    char *copy = malloc(strlen(text) + 1);
    if (copy)
        strcpy(copy, text);
    return copy;
}

/* One row (plain_csv_row): checked, then kept in the set (context). */
static int keep_row(char **field, const char *path, int number_of_line, void *context,
                    char *error, size_t capacity)
{
    accuracy_set *set = context;
    accuracy_row row;
    memset(&row, 0, sizeof row);
    if (number(field[A_SCALE], &row.input_scale) || !(row.input_scale > 0) ||
        number(field[A_LOGIT], &row.largest_logit) || number(field[A_REL_L2], &row.rel_l2) ||
        number(field[A_MAX_ABS], &row.max_abs))
        return plain_csv_fail(error, capacity, path, number_of_line,
                              "input_scale, largest_logit, rel_l2 and max_abs must be numbers");
    if (!valid_date(field[A_DATE]) || !*field[A_KERNEL] || !*field[A_SHAPE])
        return plain_csv_fail(error, capacity, path, number_of_line, "a kernel, a shape and a "
                              "date YYYY-MM-DD are needed");
    accuracy_row *grown = realloc(set->rows, (size_t)(set->count + 1) * sizeof *grown);
    if (!grown)
        return plain_csv_fail(error, capacity, path, number_of_line, "out of memory");
    set->rows = grown;
    row.kernel = copy_of(field[A_KERNEL]);
    row.shape = copy_of(field[A_SHAPE]);
    row.gpu = copy_of(field[A_GPU]);
    row.date = copy_of(field[A_DATE]);
    row.file = set->files[set->file_count - 1];
    row.line = number_of_line;
    row.order = set->count;
    set->rows[set->count++] = row;
    return 0;
}

/* One file of the folder (it exists: a vanished one is an error). */
static int read_file(const char *path, accuracy_set *set, char *error, size_t capacity)
{
    int status = plain_csv_read(path, CSV_ACCURACY_HEADER, A_FIELDS, keep_row, set, error, capacity);
    if (status == 1)
        snprintf(error, capacity, "%s: cannot open: %s", path, strerror(ENOENT));
    return status == 0 ? 0 : -1;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int accuracy_read_folder(const char *dir, accuracy_set *set, char *error, size_t capacity)
{
    memset(set, 0, sizeof *set);
    DIR *folder = opendir(dir);
    if (!folder)
        return 0; /* no folder, no rows */
    char **names = NULL;
    int count = 0;
    for (struct dirent *entry; (entry = readdir(folder)) != NULL;) {
        size_t length = strlen(entry->d_name);
        if (length <= 4 || strcmp(entry->d_name + length - 4, ".csv") != 0)
            continue;
        char **grown = realloc(names, (size_t)(count + 1) * sizeof *names);
        if (!grown)
            break;
        names = grown;
        names[count] = malloc(strlen(dir) + length + 2);
        if (names[count])
            sprintf(names[count++], "%s/%s", dir, entry->d_name);
    }
    closedir(folder);
    if (count > 1)
        qsort(names, (size_t)count, sizeof *names, by_name);
    set->files = names;
    for (int k = 0; k < count; k++) {
        set->file_count = k + 1;
        if (read_file(names[k], set, error, capacity) != 0)
            return -1;
    }
    set->file_count = count;
    return 0;
}

int accuracy_read(const char *data_dir, accuracy_set *set, char *error, size_t capacity)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/accuracy", data_dir);
    return accuracy_read_folder(dir, set, error, capacity);
}

int accuracy_placeholder(const accuracy_set *set, char *const *part, int count, char *text,
                         size_t capacity)
{
    const int is_rel = strcmp(part[0], "rel_l2") == 0;
    if (!is_rel && strcmp(part[0], "max_abs") != 0)
        return 0;
    double scale = 1, logit = 0;
    if (count < 3 || count > 5 || (count >= 4 && number(part[3], &scale)) ||
        (count == 5 && number(part[4], &logit))) {
        snprintf(text, capacity, "expected {{%s|KERNEL|SHAPE}}, or with |SCALE or |SCALE|LOGIT",
                 part[0]);
        return -1;
    }
    const accuracy_row *row = accuracy_newest(set, part[1], part[2], scale, logit);
    if (!row) {
        snprintf(text, capacity, "no accuracy row for kernel \"%s\" at shape \"%s\", input scale "
                 "%g, largest logit %g (make bench and --errors write them)", part[1], part[2],
                 scale, logit);
        return -1;
    }
    /* typeset as the prose writes its powers of ten: $1.44 \times 10^{-7}$, never 1.44e-07 */
    const double value = is_rel ? row->rel_l2 : row->max_abs;
    char mantissa[32];
    int exponent = 0;
    snprintf(mantissa, sizeof mantissa, "%.2e", value);
    char *e = strchr(mantissa, 'e');
    if (e) {
        exponent = atoi(e + 1);
        *e = '\0';
    }
    if (value == 0 || !e)
        snprintf(text, capacity, "$%s$", value == 0 ? "0" : mantissa);
    else if (exponent == 0)
        snprintf(text, capacity, "$%s$", mantissa);
    else
        snprintf(text, capacity, "$%s \\times 10^{%d}$", mantissa, exponent);
    return 1;
}

const accuracy_row *accuracy_newest(const accuracy_set *set, const char *kernel,
                                    const char *shape, double input_scale, double largest_logit)
{
    const accuracy_row *best = NULL;
    for (int k = 0; k < set->count; k++) {
        const accuracy_row *row = &set->rows[k];
        if (strcmp(row->kernel, kernel) || strcmp(row->shape, shape) ||
            row->input_scale != input_scale || row->largest_logit != largest_logit)
            continue;
        if (!best || strcmp(row->date, best->date) >= 0)
            best = row;
    }
    return best;
}

void accuracy_free(accuracy_set *set)
{
    for (int k = 0; k < set->count; k++) {
        free(set->rows[k].kernel);
        free(set->rows[k].shape);
        free(set->rows[k].gpu);
        free(set->rows[k].date);
    }
    for (int k = 0; k < set->file_count; k++)
        free(set->files[k]);
    free(set->files);
    free(set->rows);
    memset(set, 0, sizeof *set);
}

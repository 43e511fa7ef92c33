/* csv_reader.c - reads and checks the CSV files of plots/data. See csv_reader.h. */
#include "csv_reader.h"

#include "card_reader.h"


#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "harness/csv.h"
#include "harness/numbers.h"

const char *const result_field_names[RESULT_FIELD_COUNT] = {
    "chapter", "kernel", "problem", "shape", "median_ms", "min_ms", "max_ms",
    "gflops", "gbps", "gpu", "cuda", "commit", "date"};

/* Writes "prefix" and the message into error; returns -1. */
static int fail(char *error, size_t capacity, const char *prefix, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    int used = snprintf(error, capacity, "%s", prefix);
    if (used >= 0 && (size_t)used < capacity)
        vsnprintf(error + used, capacity - (size_t)used, format, args);
    va_end(args);
    return -1;
}

/* A string that grows: one field's text while it is read. */
typedef struct {
    char *text;
    size_t length, room;
} growing_text;

static int append(growing_text *value, const char *text, size_t length)
{
    if (value->length + length + 1 > value->room) {
        size_t room = 2 * (value->length + length) + 32;
        char *bigger = realloc(value->text, room);
        if (!bigger)
            return -1;
        value->text = bigger;
        value->room = room;
    }
    memcpy(value->text + value->length, text, length);
    value->length += length;
    value->text[value->length] = '\0';
    return 0;
}

/* A day of the calendar, YYYY-MM-DD, from 2000 to today (UTC: a row is
 * dated when it is measured, so a later date is a wrong clock or a typed
 * row). NULL, or what is wrong. */
static const char *date_problem(const char *date)
{
    static const int days_in[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (strlen(date) != 10 || date[4] != '-' || date[7] != '-')
        return "is not a date YYYY-MM-DD";
    for (int k = 0; k < 10; k++)
        if (k != 4 && k != 7 && !isdigit((unsigned char)date[k]))
            return "is not a date YYYY-MM-DD";
    int year = atoi(date), month = atoi(date + 5), day = atoi(date + 8);
    int leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    if (year < 2000 || month < 1 || month > 12)
        return "is not a date YYYY-MM-DD from 2000 on";
    if (day < 1 || day > days_in[month - 1] + (month == 2 && leap))
        return "is not a day of the calendar";
    char today[16] = "";
    time_t now = time(NULL);
    struct tm utc;
    if (now != (time_t)-1 && gmtime_r(&now, &utc))
        strftime(today, sizeof today, "%Y-%m-%d", &utc);
    if (*today && strcmp(date, today) > 0)
        return "is after today (UTC): a row is dated when it is measured";
    return NULL;
}

/* "B=8 T=1024 C=768 NH=12": the problem's keys, in order, each = a positive
 * integer, one space between; an MSA shape may end with the mask its inputs
 * were drawn with (" mask=kept"). NULL, or what is wrong. */
static const char *shape_problem(const char *shape, const char *problem)
{
    static const char *const trimul_keys[] = {"B", "T", "C", "NH", NULL};
    static const char *const msa_keys[] = {"B", "S", "N", "D", "H", NULL};
    int is_msa = strcmp(problem, "msa") == 0;
    const char *const *keys = is_msa ? msa_keys : trimul_keys;
    const char *p = shape;
    for (int k = 0; keys[k]; k++) {
        size_t key_length = strlen(keys[k]);
        if (strncmp(p, keys[k], key_length) != 0 || p[key_length] != '=')
            return "its keys are not the problem's keys in order";
        p += key_length + 1;
        /* the programs take every size as an int (common/harness/cli.c reads it so) */
        char *size = strndup(p, strcspn(p, " "));
        long long value;
        whole_number_status status = size ? whole_number_parse(size, 1, INT_MAX, &value)
                                          : WHOLE_NUMBER_MALFORMED;
        int too_large = status == WHOLE_NUMBER_OUT_OF_RANGE && strcmp(size, "0") != 0;
        p += size ? strlen(size) : 0;
        free(size);
        if (too_large)
            return "a size is larger than 2147483647 (the programs take sizes as int)";
        if (status != WHOLE_NUMBER_OK)
            return "a size is not a positive integer (decimal digits, no sign, no leading zero)";
        if (keys[k + 1] && *p++ != ' ')
            return "sizes are separated by one space";
    }
    if (is_msa && (strcmp(p, " mask=drawn") == 0 || strcmp(p, " mask=kept") == 0 ||
                   strcmp(p, " mask=pad") == 0))
        return NULL;
    if (is_msa && strncmp(p, " mask=", 6) == 0)
        return "the mask is drawn, kept or pad";
    return *p ? "it has text after the last size" : NULL;
}

/* Checks the fields of a row that has all 13; fills its numbers. */
static int check_row(result_row *row, const char *stem, const kernel_list *kernels, char *error,
                     size_t capacity)
{
    char where[1100];
    snprintf(where, sizeof where, "%s:%d: malformed row: ", row->file, row->line);
    char **f = row->field;
    for (int k = 0; k < RESULT_FIELD_COUNT; k++) {
        if (!*f[k])
            return fail(error, capacity, where, "%s is empty", result_field_names[k]);
        /* a line break or a tab in the gpu or commit would break the
         * Markdown of the tables it reaches */
        for (const char *c = f[k]; *c; c++)
            if ((unsigned char)*c < 0x20 || *c == 0x7f)
                return fail(error, capacity, where, "%s holds a control character (byte 0x%02x)",
                            result_field_names[k], (unsigned char)*c);
    }

    const char *p = f[RESULT_CHAPTER];
    long long chapter;
    if (whole_number_parse(p, 1, 99, &chapter) != WHOLE_NUMBER_OK)
        return fail(error, capacity, where, "chapter \"%s\" is not a chapter number", p);
    row->chapter = (int)chapter;

    const char *problem = f[RESULT_PROBLEM];
    if (strcmp(problem, "trimul") != 0 && strcmp(problem, "msa") != 0)
        return fail(error, capacity, where, "problem \"%s\" is neither trimul nor msa", problem);
    if ((strcmp(stem, "trimul") == 0 || strcmp(stem, "msa") == 0) && strcmp(stem, problem) != 0)
        return fail(error, capacity, where, "a %s row in %s.csv", problem, stem);

    const char *kernel = f[RESULT_KERNEL];
    if (strspn(kernel, "abcdefghijklmnopqrstuvwxyz0123456789-+") != strlen(kernel) ||
        strstr(kernel, "++") || kernel[0] == '+' || kernel[strlen(kernel) - 1] == '+')
        return fail(error, capacity, where,
                    "kernel \"%s\" is not a kernel name (a-z, 0-9, '-', '+suffix')", kernel);
    row->kernel = kernels ? kernel_list_find(kernels, problem, kernel) : -1;
    if (kernels && row->kernel < 0)
        return fail(error, capacity, where, "kernel \"%s\" is not one of the %s kernels of the "
                    "kernel list (nor one of them with \"+graph\")", kernel, problem);
    /* the chapter that introduces the kernel, whichever program measured it
     * (the PyTorch rows: the list has them in chapter 6) */
    if (kernels && row->chapter != kernels->entries[row->kernel].chapter)
        return fail(error, capacity, where, "chapter %d, but the kernel list introduces %s in "
                    "chapter %d (after a kernel moves, plots/renumber.awk rewrites the column)",
                    row->chapter, kernel, kernels->entries[row->kernel].chapter);

    const char *wrong = shape_problem(f[RESULT_SHAPE], problem);
    if (wrong)
        return fail(error, capacity, where, "shape \"%s\": %s", f[RESULT_SHAPE], wrong);

    /* Bounds no measurement comes near, so that every ratio of two of them
     * prints in a few digits: times from 1 ns to about 3 hours, rates up to
     * an exa-unit per second. */
    double *numbers[] = {&row->median_ms, &row->min_ms, &row->max_ms, &row->gflops, &row->gbps};
    for (int k = 0; k < 5; k++) {
        const char *text = f[RESULT_MEDIAN_MS + k], *name = result_field_names[RESULT_MEDIAN_MS + k];
        double lowest = k < 3 ? 1e-6 : 0, highest = k < 3 ? 1e7 : 1e9;
        if (decimal_number_parse(text, numbers[k]) != 0)
            return fail(error, capacity, where, "%s \"%s\" is not a number", name, text);
        if (*numbers[k] < lowest || *numbers[k] > highest)
            return fail(error, capacity, where, "%s %s is out of range (%g to %g)", name, text,
                        lowest, highest);
    }
    if (!(row->min_ms <= row->median_ms && row->median_ms <= row->max_ms))
        return fail(error, capacity, where, "min_ms <= median_ms <= max_ms does not hold");
    const char *wrong_date = date_problem(f[RESULT_DATE]);
    if (wrong_date)
        return fail(error, capacity, where, "date \"%s\" %s", f[RESULT_DATE], wrong_date);

    if (kernels) { /* a rate above its pipe's peak is a wrong row or a wrong peak */
        const kernel_entry *entry = &kernels->entries[row->kernel];
        double peak = kernel_peak_gflops(entry, f[RESULT_GPU]);
        if (peak > 0 && row->gflops > peak)
            return fail(error, capacity, where, "gflops %s is %.1f%% of the %s peak of the %s "
                        "(%.1f TFLOP/s, common/device/gpu_peaks.c); a share of peak is never above 100%%",
                        f[RESULT_GFLOPS], 100.0 * row->gflops / peak, gpu_pipe_name(entry->pipe),
                        f[RESULT_GPU], peak / 1000.0);
    }
    return 0;
}

static void free_fields(result_row *row)
{
    for (int k = 0; k < RESULT_FIELD_COUNT; k++)
        free(row->field[k]);
}

/* Reads one record from text[*at] (RFC 4180: a quoted field may hold
 * commas, quotes written "" and line breaks). *line counts the lines. */
static int read_record(result_row *row, const char *text, size_t length, size_t *at, int *line,
                       char *error, size_t capacity)
{
    char where[1100];
    snprintf(where, sizeof where, "%s:%d: malformed row: ", row->file, row->line);
    int fields = 0;
    for (;;) {
        growing_text value = {0};
        int broken = append(&value, "", 0);
        if (*at < length && text[*at] == '"') {
            for (++*at;; ++*at) {
                if (*at >= length) {
                    free(value.text);
                    return fail(error, capacity, where, "a quoted field is never closed");
                }
                if (text[*at] == '"' && !(*at + 1 < length && text[*at + 1] == '"'))
                    break;
                *line += text[*at] == '\n';
                broken |= append(&value, text + *at, 1);
                *at += text[*at] == '"'; /* "" is one quote */
            }
            ++*at;
            if (*at < length && !strchr(",\r\n", text[*at])) {
                free(value.text);
                return fail(error, capacity, where, "text after the closing quote of field %d",
                            fields + 1);
            }
        } else {
            size_t start = *at;
            while (*at < length && !strchr(",\r\n", text[*at])) {
                if (text[*at] == '"') {
                    free(value.text);
                    return fail(error, capacity, where, "a quote inside unquoted field %d",
                                fields + 1);
                }
                ++*at;
            }
            broken |= append(&value, text + start, *at - start);
        }
        if (broken) {
            free(value.text);
            return fail(error, capacity, where, "out of memory");
        }
        if (fields < RESULT_FIELD_COUNT)
            row->field[fields] = value.text;
        else
            free(value.text);
        fields++;
        if (*at < length && text[*at] == ',') {
            ++*at;
            continue;
        }
        *at += *at < length && text[*at] == '\r';
        if (*at < length && text[*at] != '\n')
            return fail(error, capacity, where, "a carriage return inside a field");
        ++*at; /* the newline, or past the end */
        ++*line;
        break;
    }
    if (fields == 1 && !*row->field[0])
        return fail(error, capacity, where, "an empty line");
    if (fields != RESULT_FIELD_COUNT)
        return fail(error, capacity, where, "%d fields, the header has %d", fields,
                    RESULT_FIELD_COUNT);
    return 0;
}

int csv_reader_text(result_set *set, const char *path, const char *text, size_t length,
                    const kernel_list *kernels, char *error, size_t capacity)
{
    char prefix[1100];
    snprintf(prefix, sizeof prefix, "%s:1: ", path);
    if (length == 0)
        return fail(error, capacity, prefix, "the file is empty; it needs at least the header");
    if (memchr(text, '\0', length))
        return fail(error, capacity, prefix, "holds a NUL byte; not a text file");
    size_t header_length = strcspn(text, "\n"), compared = header_length;
    compared -= compared > 0 && text[compared - 1] == '\r';
    if (compared != strlen(CSV_HEADER) || strncmp(text, CSV_HEADER, compared) != 0)
        return fail(error, capacity, prefix, "the first line is not the header\n  %s", CSV_HEADER);

    const char *name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    char stem[256];
    snprintf(stem, sizeof stem, "%.*s", (int)strcspn(name, "."), name);
    size_t at = header_length < length ? header_length + 1 : length;
    int line = 2;
    while (at < length) {
        result_row row = {0};
        row.file = path;
        row.line = line;
        if (read_record(&row, text, length, &at, &line, error, capacity) != 0 ||
            check_row(&row, stem, kernels, error, capacity) != 0) {
            free_fields(&row);
            return -1;
        }
        if (set->count == set->capacity) {
            int room = 2 * set->capacity + 64;
            result_row *bigger = realloc(set->rows, (size_t)room * sizeof *bigger);
            if (!bigger) {
                free_fields(&row);
                return fail(error, capacity, prefix, "out of memory");
            }
            set->rows = bigger;
            set->capacity = room;
        }
        row.order = set->count;
        set->rows[set->count++] = row;
    }
    return 0;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The whole file, NUL-ended; NULL (errno set) when it cannot be read. */
static char *read_whole_file(const char *path, size_t *length)
{
    FILE *file = fopen(path, "rb");
    char *text = NULL;
    FILE *content = file ? open_memstream(&text, length) : NULL;
    char chunk[65536];
    size_t got;
    while (content && (got = fread(chunk, 1, sizeof chunk, file)) > 0)
        fwrite(chunk, 1, got, content);
    int failed = !content || ferror(file);
    if (file)
        fclose(file);
    if (content)
        failed |= fclose(content) != 0;
    if (failed) {
        free(text);
        return NULL;
    }
    return text;
}

int csv_reader_folder(const char *dir, const kernel_list *kernels, result_set *set,
                      char *error, size_t capacity)
{
    *set = (result_set){0};
    set->dir = dir;
    DIR *folder = opendir(dir);
    if (!folder)
        return 0;
    struct dirent *entry;
    while ((entry = readdir(folder)) != NULL) {
        size_t length = strlen(entry->d_name);
        if (length <= 4 || strcmp(entry->d_name + length - 4, ".csv") != 0)
            continue;
        char **bigger = realloc(set->files, (size_t)(set->file_count + 1) * sizeof *bigger);
        char *path = malloc(strlen(dir) + length + 2);
        if (!bigger || !path) {
            closedir(folder);
            return fail(error, capacity, dir, ": out of memory");
        }
        sprintf(path, "%s/%s", dir, entry->d_name);
        set->files = bigger;
        set->files[set->file_count++] = path;
    }
    closedir(folder);
    if (set->file_count > 1) /* qsort wants a real array, even of none */
        qsort(set->files, (size_t)set->file_count, sizeof *set->files, by_name);
    /* The cards' facts first: checking a row's share of peak needs its card's peaks. */
    char *cards = malloc(strlen(dir) + sizeof "/cards/cards.csv");
    if (!cards)
        return fail(error, capacity, dir, ": out of memory");
    sprintf(cards, "%s/cards/cards.csv", dir);
    int learned = card_reader_learn(cards, error, capacity);
    free(cards);
    if (learned != 0)
        return -1;
    for (int k = 0; k < set->file_count; k++) {
        size_t length;
        char *text = read_whole_file(set->files[k], &length);
        if (!text)
            return fail(error, capacity, set->files[k], ": cannot read: %s", strerror(errno));
        int status = csv_reader_text(set, set->files[k], text, length, kernels, error, capacity);
        free(text);
        if (status != 0)
            return -1;
    }
    return 0;
}

void csv_reader_free(result_set *set)
{
    for (int k = 0; k < set->count; k++)
        free_fields(&set->rows[k]);
    for (int k = 0; k < set->file_count; k++)
        free(set->files[k]);
    free(set->rows);
    free(set->files);
    *set = (result_set){0};
}

double csv_reader_number(const result_row *row, result_field field)
{
    switch (field) {
    case RESULT_MEDIAN_MS: return row->median_ms;
    case RESULT_MIN_MS: return row->min_ms;
    case RESULT_MAX_MS: return row->max_ms;
    case RESULT_GFLOPS: return row->gflops;
    case RESULT_GBPS: return row->gbps;
    default: return NAN;
    }
}

int csv_reader_newer(const result_row *a, const result_row *b)
{
    int dates = strcmp(a->field[RESULT_DATE], b->field[RESULT_DATE]);
    return dates > 0 || (dates == 0 && a->order > b->order);
}

const result_row *csv_reader_newest(const result_set *set, const char *kernel, const char *shape,
                                    const char *gpu)
{
    const result_row *best = NULL;
    for (int k = 0; k < set->count; k++) {
        const result_row *row = &set->rows[k];
        if (strcmp(row->field[RESULT_KERNEL], kernel) == 0 &&
            strcmp(row->field[RESULT_SHAPE], shape) == 0 &&
            (!gpu || strcmp(row->field[RESULT_GPU], gpu) == 0) &&
            (!best || csv_reader_newer(row, best)))
            best = row;
    }
    return best;
}

const char *csv_reader_newest_gpu(const result_set *set, const char *problem)
{
    const result_row *best = NULL;
    for (int k = 0; k < set->count; k++)
        if (strcmp(set->rows[k].field[RESULT_PROBLEM], problem) == 0 &&
            (!best || csv_reader_newer(&set->rows[k], best)))
            best = &set->rows[k];
    return best ? best->field[RESULT_GPU] : NULL;
}

static int by_kernel_shape_then_age(const void *a, const void *b)
{
    const result_row *x = *(const result_row *const *)a, *y = *(const result_row *const *)b;
    int order = strcmp(x->field[RESULT_KERNEL], y->field[RESULT_KERNEL]);
    order = order ? order : strcmp(x->field[RESULT_SHAPE], y->field[RESULT_SHAPE]);
    return order ? order : csv_reader_newer(x, y) ? 1 : -1;
}

const result_row **csv_reader_newest_each(const result_set *set, const char *problem,
                                          const char *gpu,
                                          int (*keep)(const result_row *row, const void *how),
                                          const void *how, int *count)
{
    const result_row **rows = malloc((size_t)(set->count + 1) * sizeof *rows);
    int candidates = 0;
    *count = 0;
    if (!rows)
        return NULL;
    for (int k = 0; gpu && k < set->count; k++) {
        const result_row *row = &set->rows[k];
        if (strcmp(row->field[RESULT_PROBLEM], problem) == 0 &&
            strcmp(row->field[RESULT_GPU], gpu) == 0 && (!keep || keep(row, how)))
            rows[candidates++] = row;
    }
    if (candidates > 1) /* qsort wants a real array, even of none */
        qsort(rows, (size_t)candidates, sizeof *rows, by_kernel_shape_then_age);
    for (int k = 0; k < candidates; k++) {
        const result_row *row = rows[k], *next = k + 1 < candidates ? rows[k + 1] : NULL;
        if (!next || strcmp(next->field[RESULT_KERNEL], row->field[RESULT_KERNEL]) != 0 ||
            strcmp(next->field[RESULT_SHAPE], row->field[RESULT_SHAPE]) != 0)
            rows[(*count)++] = row; /* no newer row of its kernel and shape follows */
    }
    return rows;
}

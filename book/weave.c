/* book/weave.c - the workbook's weaver: literate .cu chapters in, Markdown
 * for pandoc out, with every number in the prose taken from the measured
 * CSV files in plots/data/.
 *
 * Build (make book does it):
 *
 *   gcc -std=c11 -O2 -Wall -Wextra book/weave.c -o build/book/weave -lm
 *
 * Run:
 *
 *   weave chapter  [OPTIONS] chapters/02-naive/naive.cu   > chapter.md
 *   weave prose    [OPTIONS] book/front.md                 > front.md
 *   weave table    [OPTIONS]                               > results.md
 *   weave plotdata [OPTIONS] --out build/plots             (gnuplot's inputs)
 *   weave check    [OPTIONS]                               (validates the CSVs)
 *
 *   OPTIONS: --data DIR       the CSV files (default plots/data)
 *            --figures DIR    the drawn plots and their captions (default plots/out)
 *            --exercises DIR  chapter: append the chapter's exercises found there
 *            --solutions DIR  chapter: and show each exercise's solution code
 *            --keep-placeholders  leave {{...}} as they are and read no data
 *                             (the faithfulness test's weave; never the book's)
 *
 * The marker and placeholder syntax is described in book/README.md. Every
 * error names the file and line it is about and makes weave exit with 1;
 * nothing is printed on stdout then, so no half-woven chapter is left behind.
 */
#define _POSIX_C_SOURCE 200809L

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CSV_HEADER \
    "chapter,kernel,problem,shape,median_ms,min_ms,max_ms,gflops,gbps,gpu,cuda,commit,date"
#define DEFAULT_TRIMUL_SHAPE "B=8 T=1024 C=768 NH=12"

/* ------------------------------------------------------------ small tools */

static void die(const char *format, ...)
{
    va_list args;
    va_start(args, format);
    vfprintf(stderr, format, args);
    va_end(args);
    fputc('\n', stderr);
    exit(1);
}

static void *grow(void *memory, size_t size)
{
    void *bigger = realloc(memory, size);
    if (!bigger)
        die("weave: out of memory");
    return bigger;
}

static char *copy_of(const char *text, size_t length)
{
    char *copy = grow(NULL, length + 1);
    memcpy(copy, text, length);
    copy[length] = '\0';
    return copy;
}

/* A growing text: everything weave prints is built here first. */
typedef struct {
    char *text;
    size_t length, capacity;
} text_buffer;

static void put_n(text_buffer *out, const char *text, size_t length)
{
    if (out->length + length + 1 > out->capacity) {
        out->capacity = 2 * (out->length + length + 1) + 256;
        out->text = grow(out->text, out->capacity);
    }
    memcpy(out->text + out->length, text, length);
    out->length += length;
    out->text[out->length] = '\0';
}

static void put(text_buffer *out, const char *format, ...)
{
    char small[512];
    va_list args;
    va_start(args, format);
    int length = vsnprintf(small, sizeof small, format, args);
    va_end(args);
    if (length < 0)
        die("weave: cannot format output");
    if ((size_t)length < sizeof small) {
        put_n(out, small, (size_t)length);
        return;
    }
    char *large = grow(NULL, (size_t)length + 1);
    va_start(args, format);
    vsnprintf(large, (size_t)length + 1, format, args);
    va_end(args);
    put_n(out, large, (size_t)length);
    free(large);
}

/* Reads a whole file; NULL (errno set) when it cannot be opened. */
static char *read_file(const char *path, size_t *length)
{
    FILE *file = fopen(path, "rb");
    if (!file)
        return NULL;
    text_buffer content = {0};
    char chunk[65536];
    size_t got;
    while ((got = fread(chunk, 1, sizeof chunk, file)) > 0)
        put_n(&content, chunk, got);
    fclose(file);
    if (!content.text)
        content.text = copy_of("", 0);
    *length = content.length;
    return content.text;
}

static int file_exists(const char *path)
{
    FILE *file = fopen(path, "rb");
    if (file)
        fclose(file);
    return file != NULL;
}

/* A file cut into lines, without their '\n'; lines[0] is line 1. */
typedef struct {
    const char *path;
    char **lines;
    int count;
} source_file;

static source_file load_source(const char *path)
{
    size_t length;
    char *text = read_file(path, &length);
    if (!text)
        die("%s: cannot read: %s", path, strerror(errno));
    if (memchr(text, '\0', length))
        die("%s: holds a NUL byte; not a text file", path);
    source_file source = {path, NULL, 0};
    int capacity = 0;
    char *start = text;
    while (start < text + length) {
        char *end = strchr(start, '\n');
        if (!end)
            end = text + length;
        if (source.count == capacity) {
            capacity = 2 * capacity + 64;
            source.lines = grow(source.lines, (size_t)capacity * sizeof *source.lines);
        }
        *end = '\0';
        source.lines[source.count++] = start;
        start = end + 1;
    }
    return source;
}

/* The line without leading and trailing white space (and a CR), in a
 * scratch copy the caller frees. */
static char *trimmed(const char *line)
{
    while (*line == ' ' || *line == '\t')
        line++;
    size_t length = strlen(line);
    while (length > 0 && isspace((unsigned char)line[length - 1]))
        length--;
    return copy_of(line, length);
}

static int is_blank(const char *line)
{
    for (; *line; line++)
        if (!isspace((unsigned char)*line))
            return 0;
    return 1;
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* chapters/02-naive/naive.cu -> 2 and "naive"; exercises/03-unroll.cu -> 3. */
static int chapter_number_of(const char *path, char *slug, size_t capacity)
{
    const char *name = path;
    for (const char *p = path; *p; p++)
        if (p[0] == '/' && isdigit((unsigned char)p[1]) && isdigit((unsigned char)p[2]) &&
            p[3] == '-')
            name = p + 1;
    if (!(isdigit((unsigned char)name[0]) && isdigit((unsigned char)name[1]) && name[2] == '-'))
        die("%s: cannot tell the chapter number: expected a name like NN-slug", path);
    if (slug) {
        size_t length = strcspn(name + 3, "/.");
        if (length >= capacity)
            length = capacity - 1;
        memcpy(slug, name + 3, length);
        slug[length] = '\0';
    }
    return (name[0] - '0') * 10 + (name[1] - '0');
}

/* ------------------------------------------------------------ the kernels */

typedef struct {
    const char *problem;
    const char *kernel;
} known_kernel;

/* In the order the book meets them: this orders tables and plots. */
static const known_kernel known_kernels[] = {
    {"trimul", "cublas-permute"}, {"trimul", "cublas-direct"}, {"trimul", "cublas-tf32"},
    {"trimul", "naive"},          {"trimul", "registers"},     {"trimul", "vectorized"},
    {"trimul", "shared"},         {"trimul", "tf32"},          {"msa", "unfused"},
    {"msa", "fused"},             {"msa", "fused-tiled"},      {"msa", "fused-tiled-tf32"},
};
#define KNOWN_KERNEL_COUNT ((int)(sizeof known_kernels / sizeof known_kernels[0]))

/* Index of the kernel's base name (before any '+suffix'), or -1. */
static int known_kernel_index(const char *problem, const char *kernel)
{
    size_t base = strcspn(kernel, "+");
    for (int k = 0; k < KNOWN_KERNEL_COUNT; k++)
        if ((!problem || strcmp(problem, known_kernels[k].problem) == 0) &&
            strlen(known_kernels[k].kernel) == base &&
            strncmp(kernel, known_kernels[k].kernel, base) == 0)
            return k;
    return -1;
}

static const char *const shape_keys_trimul[] = {"B", "T", "C", "NH", NULL};
static const char *const shape_keys_msa[] = {"B", "S", "N", "D", "H", NULL};

/* FP32 (not tensor core) peak of a card, in TFLOP/s: SMs x FP32 lanes per SM
 * x 2 (a fused multiply-add is two operations) x boost clock, from the
 * vendor's data sheets. The first entry whose text occurs in the name CUDA
 * reports wins, so the more specific names come first. */
typedef struct {
    const char *name_part;
    double fp32_tflops;
} gpu_peak;

static const gpu_peak gpu_peaks[] = {
    {"H200", 66.9},     /* 132 SMs x 128 x 2 x 1.98 GHz (also GH200) */
    {"H100 PCIe", 51.2}, /* 114 SMs x 128 x 2 x 1.755 GHz */
    {"H100", 66.9},     /* SXM: as H200 */
    {"A100", 19.5},     /* 108 SMs x 64 x 2 x 1.41 GHz */
    {"L40S", 91.6},     /* 142 SMs x 128 x 2 x 2.52 GHz */
    {"L4", 30.3},       /* 58 SMs x 128 x 2 x 2.04 GHz */
    {"RTX 4090", 82.6}, /* 128 SMs x 128 x 2 x 2.52 GHz */
    {"A10", 31.2},      /* 72 SMs x 128 x 2 x 1.695 GHz (after A100) */
    {"T4", 8.1},        /* 40 SMs x 64 x 2 x 1.59 GHz */
};

/* The card's FP32 peak in GFLOP/s, or 0 when the table does not know it. */
static double fp32_peak_gflops(const char *gpu)
{
    for (size_t k = 0; k < sizeof gpu_peaks / sizeof gpu_peaks[0]; k++)
        if (strstr(gpu, gpu_peaks[k].name_part))
            return gpu_peaks[k].fp32_tflops * 1000.0;
    return 0.0;
}

/* ------------------------------------------------------------ the CSV files */

enum {
    F_CHAPTER, F_KERNEL, F_PROBLEM, F_SHAPE, F_MEDIAN, F_MIN, F_MAX, F_GFLOPS, F_GBPS,
    F_GPU, F_CUDA, F_COMMIT, F_DATE, FIELD_COUNT
};
static const char *const field_names[FIELD_COUNT] = {
    "chapter", "kernel", "problem", "shape", "median_ms", "min_ms", "max_ms",
    "gflops", "gbps", "gpu", "cuda", "commit", "date"};

typedef struct {
    char *field[FIELD_COUNT];
    int chapter;
    double median_ms, min_ms, max_ms, gflops, gbps;
    const char *file;
    int line;
    int order; /* position over all files, for "newest" among equal dates */
} result_row;

typedef struct {
    const char *dir;
    char **files; /* the CSV files read, by name */
    int file_count;
    result_row *rows;
    int count, capacity;
} result_set;

static void row_error(const char *file, int line, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    fprintf(stderr, "%s:%d: malformed row: ", file, line);
    vfprintf(stderr, format, args);
    va_end(args);
    fputc('\n', stderr);
    exit(1);
}

static int parse_number(const char *text, double *value)
{
    char *end;
    errno = 0;
    *value = strtod(text, &end);
    return *text && !isspace((unsigned char)*text) && *end == '\0' && errno == 0 &&
           isfinite(*value);
}

static int valid_date(const char *date)
{
    int year, month, day;
    char extra;
    if (strlen(date) != 10 || date[4] != '-' || date[7] != '-')
        return 0;
    for (int k = 0; k < 10; k++)
        if (k != 4 && k != 7 && !isdigit((unsigned char)date[k]))
            return 0;
    if (sscanf(date, "%4d-%2d-%2d%c", &year, &month, &day, &extra) != 3)
        return 0;
    return year >= 2000 && month >= 1 && month <= 12 && day >= 1 && day <= 31;
}

/* "B=8 T=1024 C=768 NH=12": the problem's keys, in order, each = a positive
 * integer, one space between. Returns NULL or what is wrong. */
static const char *shape_problem(const char *shape, const char *problem)
{
    const char *const *keys = strcmp(problem, "msa") == 0 ? shape_keys_msa : shape_keys_trimul;
    const char *p = shape;
    for (int k = 0; keys[k]; k++) {
        size_t key_length = strlen(keys[k]);
        if (strncmp(p, keys[k], key_length) != 0 || p[key_length] != '=')
            return "its keys are not the problem's keys in order";
        p += key_length + 1;
        if (!isdigit((unsigned char)*p) || *p == '0')
            return "a size is not a positive integer";
        while (isdigit((unsigned char)*p))
            p++;
        if (keys[k + 1] && *p++ != ' ')
            return "sizes are separated by one space";
    }
    return *p ? "it has text after the last size" : NULL;
}

static void check_row(result_row *row, const char *stem)
{
    const char *file = row->file;
    int line = row->line;
    char **f = row->field;
    for (int k = 0; k < FIELD_COUNT; k++)
        if (!*f[k])
            row_error(file, line, "%s is empty", field_names[k]);

    const char *p = f[F_CHAPTER];
    if (strlen(p) > 2 || !isdigit((unsigned char)p[0]) || (p[1] && !isdigit((unsigned char)p[1])) ||
        atoi(p) < 1)
        row_error(file, line, "chapter \"%s\" is not a chapter number", p);
    row->chapter = atoi(p);

    if (strcmp(f[F_PROBLEM], "trimul") != 0 && strcmp(f[F_PROBLEM], "msa") != 0)
        row_error(file, line, "problem \"%s\" is neither trimul nor msa", f[F_PROBLEM]);
    if (strcmp(stem, "trimul") == 0 || strcmp(stem, "msa") == 0)
        if (strcmp(stem, f[F_PROBLEM]) != 0)
            row_error(file, line, "a %s row in %s.csv", f[F_PROBLEM], stem);

    const char *kernel = f[F_KERNEL];
    if (strspn(kernel, "abcdefghijklmnopqrstuvwxyz0123456789-+") != strlen(kernel) ||
        strstr(kernel, "++") || kernel[strlen(kernel) - 1] == '+')
        row_error(file, line, "kernel \"%s\" is not a kernel name (a-z, 0-9, '-', '+suffix')",
                  kernel);
    if (known_kernel_index(f[F_PROBLEM], kernel) < 0)
        row_error(file, line, "kernel \"%s\" is not one of the %s kernels DESIGN.md names",
                  kernel, f[F_PROBLEM]);

    const char *wrong = shape_problem(f[F_SHAPE], f[F_PROBLEM]);
    if (wrong)
        row_error(file, line, "shape \"%s\": %s", f[F_SHAPE], wrong);

    /* Bounds no measurement comes near, so that every ratio of two of them
     * prints in a few digits: times from 1 ns to about 3 hours, rates up to
     * an exa-unit per second. */
    double *numbers[] = {&row->median_ms, &row->min_ms, &row->max_ms, &row->gflops, &row->gbps};
    for (int k = 0; k < 5; k++) {
        const char *text = f[F_MEDIAN + k];
        double lowest = k < 3 ? 1e-6 : 0, highest = k < 3 ? 1e7 : 1e9;
        if (!parse_number(text, numbers[k]))
            row_error(file, line, "%s \"%s\" is not a number", field_names[F_MEDIAN + k], text);
        if (*numbers[k] < lowest || *numbers[k] > highest)
            row_error(file, line, "%s %s is out of range (%g to %g)", field_names[F_MEDIAN + k],
                      text, lowest, highest);
    }
    if (!(row->min_ms <= row->median_ms && row->median_ms <= row->max_ms))
        row_error(file, line, "min_ms <= median_ms <= max_ms does not hold");
    if (!valid_date(f[F_DATE]))
        row_error(file, line, "date \"%s\" is not a date YYYY-MM-DD", f[F_DATE]);
}

/* Splits the CSV text into rows (RFC 4180 quoting), checking each. */
static void parse_csv(result_set *set, const char *path, char *text, size_t length)
{
    const char *stem_start = base_name(path);
    char *stem = copy_of(stem_start, strcspn(stem_start, "."));

    size_t header_length = strcspn(text, "\n");
    size_t compared = header_length;
    if (compared > 0 && text[compared - 1] == '\r')
        compared--;
    if (compared != strlen(CSV_HEADER) || strncmp(text, CSV_HEADER, compared) != 0)
        die("%s:1: the first line is not the header\n  %s", path, CSV_HEADER);

    size_t at = header_length < length ? header_length + 1 : length;
    int line = 2;
    while (at < length) {
        result_row row = {0};
        row.file = path;
        row.line = line;
        int fields = 0;
        for (;;) {
            text_buffer value = {0};
            put_n(&value, "", 0);
            if (text[at] == '"') {
                at++;
                for (;;) {
                    if (at >= length)
                        row_error(path, row.line, "a quoted field is never closed");
                    if (text[at] == '"' && at + 1 < length && text[at + 1] == '"') {
                        put_n(&value, "\"", 1);
                        at += 2;
                    } else if (text[at] == '"') {
                        at++;
                        break;
                    } else {
                        if (text[at] == '\n')
                            line++;
                        put_n(&value, text + at, 1);
                        at++;
                    }
                }
                if (at < length && !strchr(",\r\n", text[at]))
                    row_error(path, row.line, "text after the closing quote of field %d",
                              fields + 1);
            } else {
                size_t start = at;
                while (at < length && !strchr(",\r\n", text[at])) {
                    if (text[at] == '"')
                        row_error(path, row.line, "a quote inside unquoted field %d", fields + 1);
                    at++;
                }
                put_n(&value, text + start, at - start);
            }
            if (fields < FIELD_COUNT)
                row.field[fields] = value.text;
            else
                free(value.text);
            fields++;
            if (at < length && text[at] == ',') {
                at++;
                continue;
            }
            if (at < length && text[at] == '\r')
                at++;
            if (at < length && text[at] != '\n')
                row_error(path, row.line, "a carriage return inside a field");
            at++; /* the newline, or past the end */
            line++;
            break;
        }
        if (fields == 1 && !*row.field[0])
            row_error(path, row.line, "an empty line");
        if (fields != FIELD_COUNT)
            row_error(path, row.line, "%d fields, the header has %d", fields, FIELD_COUNT);
        check_row(&row, stem);
        if (set->count == set->capacity) {
            set->capacity = 2 * set->capacity + 64;
            set->rows = grow(set->rows, (size_t)set->capacity * sizeof *set->rows);
        }
        row.order = set->count;
        set->rows[set->count++] = row;
    }
    free(stem);
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every *.csv in dir, in name order. A missing folder holds no rows. */
static result_set load_results(const char *dir)
{
    result_set set = {0};
    set.dir = dir;
    DIR *folder = opendir(dir);
    if (!folder)
        return set;
    struct dirent *entry;
    while ((entry = readdir(folder)) != NULL) {
        size_t length = strlen(entry->d_name);
        if (length > 4 && strcmp(entry->d_name + length - 4, ".csv") == 0) {
            set.files = grow(set.files, (size_t)(set.file_count + 1) * sizeof *set.files);
            char *path = grow(NULL, strlen(dir) + length + 2);
            sprintf(path, "%s/%s", dir, entry->d_name);
            set.files[set.file_count++] = path;
        }
    }
    closedir(folder);
    if (set.file_count > 1) /* qsort wants a real array, even of none */
        qsort(set.files, (size_t)set.file_count, sizeof *set.files, by_name);
    for (int k = 0; k < set.file_count; k++) {
        size_t length;
        char *text = read_file(set.files[k], &length);
        if (!text)
            die("%s: cannot read: %s", set.files[k], strerror(errno));
        if (length == 0)
            die("%s:1: the file is empty; it needs at least the header", set.files[k]);
        parse_csv(&set, set.files[k], text, length);
        free(text);
    }
    return set;
}

/* Is row a newer than row b? By date, then by place in the files. */
static int newer(const result_row *a, const result_row *b)
{
    int dates = strcmp(a->field[F_DATE], b->field[F_DATE]);
    return dates > 0 || (dates == 0 && a->order > b->order);
}

/* The newest row of kernel at shape; gpu NULL means any card. */
static const result_row *newest_row(const result_set *set, const char *kernel, const char *shape,
                                    const char *gpu)
{
    const result_row *best = NULL;
    for (int k = 0; k < set->count; k++) {
        const result_row *row = &set->rows[k];
        if (strcmp(row->field[F_KERNEL], kernel) == 0 && strcmp(row->field[F_SHAPE], shape) == 0 &&
            (!gpu || strcmp(row->field[F_GPU], gpu) == 0) && (!best || newer(row, best)))
            best = row;
    }
    return best;
}

/* The card of the newest row of a problem: tables and plots show one card. */
static const char *newest_gpu(const result_set *set, const char *problem)
{
    const result_row *best = NULL;
    for (int k = 0; k < set->count; k++)
        if (strcmp(set->rows[k].field[F_PROBLEM], problem) == 0 &&
            (!best || newer(&set->rows[k], best)))
            best = &set->rows[k];
    return best ? best->field[F_GPU] : NULL;
}

/* ------------------------------------------------------------ numbers */

/* Three significant digits, never an exponent: 0.0123, 1.23, 12.3, 123, 4567.
 * A value that would not print so (not finite, negative, 1e15 or more) is an
 * error about the row at file:line it was computed from. */
static void format_value(char *text, size_t capacity, double value, const char *file, int line)
{
    if (!isfinite(value) || value < 0 || value >= 1e15)
        die("%s:%d: a value computed from this row, %g, cannot be printed", file, line, value);
    int decimals = 0;
    if (value > 0) {
        decimals = 2 - (int)floor(log10(value));
        if (decimals < 0)
            decimals = 0;
        if (decimals > 9)
            decimals = 9;
    }
    snprintf(text, capacity, "%.*f", decimals, value);
}

/* The dates of a set of rows: "2025-11-29" or "2025-11-28 to 2025-11-29". */
typedef struct {
    char first[16], last[16];
} date_span;

static void widen(date_span *span, const char *date)
{
    if (!*span->first || strcmp(date, span->first) < 0)
        snprintf(span->first, sizeof span->first, "%s", date);
    if (!*span->last || strcmp(date, span->last) > 0)
        snprintf(span->last, sizeof span->last, "%s", date);
}

static void format_span(char *text, size_t capacity, const date_span *span)
{
    if (strcmp(span->first, span->last) == 0)
        snprintf(text, capacity, "%s", span->first);
    else
        snprintf(text, capacity, "%s to %s", span->first, span->last);
}

/* ------------------------------------------------------------ weaving */

typedef struct {
    result_set *results;
    const char *figures_dir;
    int keep_placeholders; /* the faithfulness test's weave: no data needed */
} weave_inputs;

typedef struct {
    const char *path;
    int line;
} place;

static void place_error(place where, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    fprintf(stderr, "%s:%d: ", where.path, where.line);
    vfprintf(stderr, format, args);
    va_end(args);
    fputc('\n', stderr);
    exit(1);
}

static void missing_row(place where, const char *placeholder, const result_set *results,
                        const char *kernel, const char *shape)
{
    char files[1024] = "";
    for (int k = 0; k < results->file_count; k++)
        snprintf(files + strlen(files), sizeof files - strlen(files), "%s%s", k ? ", " : "",
                 results->files[k]);
    place_error(where, "placeholder {{%s}}: no row for kernel \"%s\" at shape \"%s\" in %s%s",
                placeholder, kernel, shape, results->file_count ? files : results->dir,
                results->file_count ? "" : " (no CSV file there)");
}

/* Fills one placeholder (the text between {{ and }}) into out. */
static void fill_placeholder(text_buffer *out, const char *inside, place where,
                             const weave_inputs *inputs)
{
    char *copy = copy_of(inside, strlen(inside));
    char *parts[5];
    int count = 0;
    for (char *p = copy; count < 5; count++) {
        parts[count] = p;
        char *bar = strchr(p, '|');
        if (!bar) {
            count++;
            break;
        }
        *bar = '\0';
        p = bar + 1;
    }
    const char *field = parts[0];
    static const char *const row_fields[] = {"median_ms", "min_ms", "max_ms", "gflops", "gbps",
                                             "gpu", "date", "cuda", "commit", "chapter"};
    int row_field = -1;
    for (int k = 0; k < (int)(sizeof row_fields / sizeof row_fields[0]); k++)
        if (strcmp(field, row_fields[k]) == 0)
            row_field = k;
    int is_speedup = strcmp(field, "speedup") == 0;
    int is_peak = strcmp(field, "peak_pct") == 0;

    if (row_field < 0 && !is_speedup && !is_peak)
        place_error(where, "placeholder {{%s}}: unknown field \"%s\" (see book/README.md)", inside,
                    field);
    if (count != (is_speedup ? 4 : 3))
        place_error(where, "placeholder {{%s}}: expected {{%s}}", inside,
                    is_speedup ? "speedup|KERNEL|BASELINE|SHAPE" : "FIELD|KERNEL|SHAPE");
    const char *kernel = parts[1];
    const char *shape = parts[count - 1];
    const result_row *row = newest_row(inputs->results, kernel, shape, NULL);
    if (!row)
        missing_row(where, inside, inputs->results, kernel, shape);

    char text[256];
    if (is_speedup) {
        /* the baseline measured on the same card: a speedup across cards means nothing */
        const result_row *base = newest_row(inputs->results, parts[2], shape, row->field[F_GPU]);
        if (!base)
            place_error(where, "placeholder {{%s}}: no row for the baseline \"%s\" at shape "
                        "\"%s\" on the %s, the card of %s:%d", inside, parts[2], shape,
                        row->field[F_GPU], row->file, row->line);
        format_value(text, sizeof text, base->median_ms / row->median_ms, row->file, row->line);
    } else if (is_peak) {
        double peak = fp32_peak_gflops(row->field[F_GPU]);
        if (peak == 0)
            place_error(where, "placeholder {{%s}}: no FP32 peak known for GPU \"%s\" (%s:%d); "
                        "add it to gpu_peaks in book/weave.c", inside, row->field[F_GPU],
                        row->file, row->line);
        snprintf(text, sizeof text, "%.1f", 100.0 * row->gflops / peak);
    } else {
        static const int columns[] = {F_MEDIAN, F_MIN, F_MAX, F_GFLOPS, F_GBPS,
                                      F_GPU, F_DATE, F_CUDA, F_COMMIT, F_CHAPTER};
        int column = columns[row_field];
        if (column >= F_MEDIAN && column <= F_GBPS)
            format_value(text, sizeof text, (&row->median_ms)[column - F_MEDIAN], row->file,
                         row->line);
        else
            snprintf(text, sizeof text, "%s", row->field[column]);
    }
    put(out, "%s", text);
    free(copy);
}

/* A prose line with its {{...}} placeholders filled. */
static void fill_line(text_buffer *out, const char *line, place where, const weave_inputs *inputs)
{
    const char *p = line;
    if (inputs->keep_placeholders) {
        put(out, "%s\n", line);
        return;
    }
    for (;;) {
        const char *open = strstr(p, "{{");
        if (!open)
            break;
        const char *close = strstr(open + 2, "}}");
        if (!close)
            place_error(where, "a placeholder opened with {{ is not closed by }} on the same line");
        put_n(out, p, (size_t)(open - p));
        char *inside = copy_of(open + 2, (size_t)(close - open - 2));
        fill_placeholder(out, inside, where, inputs);
        free(inside);
        p = close + 2;
    }
    put(out, "%s\n", p);
}

/* The figures drawn by make plots: plots/out/index lists them in order. */
static int figure_listed(const weave_inputs *inputs, const char *name)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/index", inputs->figures_dir);
    size_t length;
    char *index = read_file(path, &length);
    if (!index)
        return 0;
    int found = 0;
    for (char *line = strtok(index, "\n"); line && !found; line = strtok(NULL, "\n"))
        found = strcmp(line, name) == 0;
    free(index);
    return found;
}

static void put_figure(text_buffer *out, const weave_inputs *inputs, const char *name)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.caption", inputs->figures_dir, name);
    size_t length;
    char *caption = read_file(path, &length);
    if (!caption)
        die("%s: cannot read: %s", path, strerror(errno));
    caption[strcspn(caption, "\n")] = '\0';
    put(out, "![%s](%s/%s.svg){#fig-%s}\n\n", caption, inputs->figures_dir, name, name);
    free(caption);
}

static void put_all_figures(text_buffer *out, const weave_inputs *inputs)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/index", inputs->figures_dir);
    size_t length;
    char *index = read_file(path, &length);
    int shown = 0;
    if (index) {
        char *save;
        for (char *line = strtok_r(index, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
            put_figure(out, inputs, line);
            shown++;
        }
        free(index);
    }
    if (!shown)
        put(out, "*No plots yet: there are no measurements in `%s`.*\n\n", inputs->results->dir);
}

static void put_results_table(text_buffer *out, const result_set *results);

/* Whole-line directives of prose: {{results_table}}, {{figures}},
 * {{figure|NAME}}. Returns 1 when the line was one. */
static int directive(text_buffer *out, const char *line, place where, const weave_inputs *inputs)
{
    if (inputs->keep_placeholders)
        return 0;
    char *bare = trimmed(line);
    int done = 1;
    if (strcmp(bare, "{{results_table}}") == 0) {
        put_results_table(out, inputs->results);
    } else if (strcmp(bare, "{{figures}}") == 0) {
        put_all_figures(out, inputs);
    } else if (strncmp(bare, "{{figure|", 9) == 0 && strlen(bare) > 11 &&
               strcmp(bare + strlen(bare) - 2, "}}") == 0) {
        bare[strlen(bare) - 2] = '\0';
        const char *name = bare + 9;
        if (!figure_listed(inputs, name))
            place_error(where, "placeholder {{figure|%s}}: no such plot in %s/index (make plots "
                        "draws a plot only when plots/data has rows for it)", name,
                        inputs->figures_dir);
        put(out, "\n");
        put_figure(out, inputs, name);
    } else {
        done = 0;
    }
    free(bare);
    return done;
}

/* What the marker scan finds in a literate .cu file. */
typedef enum { PIECE_CODE, PIECE_PROSE, PIECE_HIDDEN } piece_kind;

typedef struct {
    piece_kind kind;
    int first, last; /* 1-based lines of the content (prose: inside the markers) */
} piece;

typedef struct {
    piece *pieces;
    int count;
} piece_list;

static void add_piece(piece_list *list, piece_kind kind, int first, int last)
{
    if (last < first)
        return;
    list->pieces = grow(list->pieces, (size_t)(list->count + 1) * sizeof *list->pieces);
    list->pieces[list->count++] = (piece){kind, first, last};
}

static int mentions_marker(const char *line)
{
    return strstr(line, "book:hide") || strstr(line, "book:show");
}

/* Cuts a literate source into code, prose and hidden pieces; any marker
 * that is not well formed stops here with its file and line. */
static piece_list scan_markers(const source_file *source)
{
    enum { IN_CODE, IN_PROSE, IN_HIDDEN } state = IN_CODE;
    piece_list list = {0};
    int opened = 0; /* the line of the open /\*md or book:hide */
    int code_start = 1;
    for (int n = 1; n <= source->count; n++) {
        const char *line = source->lines[n - 1];
        place where = {source->path, n};
        char *bare = trimmed(line);
        int opens_prose = strcmp(bare, "/*md") == 0;
        int hide = strcmp(bare, "// book:hide") == 0;
        int show = strcmp(bare, "// book:show") == 0;
        switch (state) {
        case IN_CODE:
            if (opens_prose || hide) {
                add_piece(&list, PIECE_CODE, code_start, n - 1);
                state = opens_prose ? IN_PROSE : IN_HIDDEN;
                opened = n;
            } else if (strncmp(bare, "/*md", 4) == 0) {
                place_error(where, "a prose block opens with a line that is exactly /*md, "
                            "with nothing after it");
            } else if (show) {
                place_error(where, "// book:show without an open // book:hide before it");
            } else if (mentions_marker(line)) {
                place_error(where, "malformed marker: write exactly // book:hide or "
                            "// book:show, alone on its line");
            }
            break;
        case IN_PROSE:
            if (strcmp(bare, "*/") == 0) {
                add_piece(&list, PIECE_PROSE, opened + 1, n - 1);
                state = IN_CODE;
                code_start = n + 1;
            } else if (strstr(line, "*/")) {
                place_error(where, "*/ inside the prose block opened at line %d: the compiler "
                            "ends the comment here; the closing */ must stand alone on its line",
                            opened);
            } else if (opens_prose) {
                place_error(where, "/*md inside the prose block opened at line %d, which is not "
                            "closed", opened);
            }
            break;
        case IN_HIDDEN:
            if (show) {
                add_piece(&list, PIECE_HIDDEN, opened, n);
                state = IN_CODE;
                code_start = n + 1;
            } else if (hide) {
                place_error(where, "// book:hide inside the hidden region opened at line %d",
                            opened);
            } else if (opens_prose) {
                place_error(where, "a prose block inside the hidden region opened at line %d",
                            opened);
            } else if (mentions_marker(line)) {
                place_error(where, "malformed marker: write exactly // book:show alone on its "
                            "line");
            }
            break;
        }
        free(bare);
    }
    if (state == IN_PROSE)
        place_error((place){source->path, opened},
                    "this /*md block is never closed by a line that is exactly */");
    if (state == IN_HIDDEN)
        place_error((place){source->path, opened},
                    "this // book:hide is never closed by // book:show");
    add_piece(&list, PIECE_CODE, code_start, source->count);
    return list;
}

/* A fenced CUDA block of source lines first..last (blank edges trimmed).
 * startFrom keeps the file's line numbers; source names the file, so the
 * faithfulness test can put every line back where it came from. */
static void put_code(text_buffer *out, const source_file *source, int first, int last)
{
    while (first <= last && is_blank(source->lines[first - 1]))
        first++;
    while (last >= first && is_blank(source->lines[last - 1]))
        last--;
    if (first > last)
        return;
    int longest = 0; /* the fence must be longer than any run of backticks */
    for (int n = first; n <= last; n++) {
        int run = 0;
        for (const char *c = source->lines[n - 1]; *c; c++) {
            run = *c == '`' ? run + 1 : 0;
            if (run > longest)
                longest = run;
        }
    }
    int fence = longest >= 3 ? longest + 1 : 3;
    put(out, "\n%.*s {.cuda .numberLines startFrom=\"%d\" source=\"%s\"}\n", fence,
        "````````````````````````````````", first, source->path);
    for (int n = first; n <= last; n++)
        put(out, "%s\n", source->lines[n - 1]);
    put(out, "%.*s\n\n", fence, "````````````````````````````````");
}

static void put_hidden_note(text_buffer *out, const source_file *source, const piece *hidden)
{
    put(out, "\n::: hidden-code\n*Lines %d to %d of `%s` (helper code the story does not need) "
        "are left out here.*\n:::\n\n", hidden->first, hidden->last, base_name(source->path));
}

static int heading_level(const char *line)
{
    int level = 0;
    while (line[level] == '#')
        level++;
    return level >= 1 && level <= 6 && (line[level] == ' ' || line[level] == '\0') ? level : 0;
}

static int is_fence(const char *line)
{
    int indent = 0;
    while (line[indent] == ' ' && indent < 3)
        indent++;
    return strncmp(line + indent, "```", 3) == 0 || strncmp(line + indent, "~~~", 3) == 0;
}

/* A chapter: its pieces in order, the title heading first. */
static void weave_chapter_body(text_buffer *out, const source_file *source,
                               const weave_inputs *inputs)
{
    piece_list list = scan_markers(source);
    text_buffer before_title = {0}; /* what comes before the '# Title' line */
    put_n(&before_title, "", 0);
    text_buffer *target = &before_title;
    int title_line = 0;
    for (int k = 0; k < list.count; k++) {
        const piece *part = &list.pieces[k];
        if (part->kind == PIECE_CODE) {
            put_code(target, source, part->first, part->last);
        } else if (part->kind == PIECE_HIDDEN) {
            put_hidden_note(target, source, part);
        } else {
            int in_fence = 0;
            put(target, "\n");
            for (int n = part->first; n <= part->last; n++) {
                const char *line = source->lines[n - 1];
                place where = {source->path, n};
                if (is_fence(line))
                    in_fence = !in_fence;
                if (!in_fence && heading_level(line) == 1) {
                    if (title_line)
                        place_error(where, "a second '# ' heading (the first is at line %d): a "
                                    "chapter has one title; use '## ' for its sections",
                                    title_line);
                    title_line = n;
                    fill_line(out, line, where, inputs);
                    put(out, "\n::: source-file\nThe code of this chapter is `%s`; the line "
                        "numbers below are the file's.\n:::\n", source->path);
                    put_n(out, before_title.text, before_title.length);
                    target = out;
                    continue;
                }
                if (!in_fence && directive(target, line, where, inputs))
                    continue;
                fill_line(target, line, where, inputs);
            }
            put(target, "\n");
        }
    }
    if (!title_line) {
        char slug[128];
        chapter_number_of(source->path, slug, sizeof slug);
        slug[0] = (char)toupper((unsigned char)slug[0]);
        fprintf(stderr, "%s: warning: no '# Title' heading in its prose; titled \"%s\"\n",
                source->path, slug);
        put(out, "# %s\n", slug);
        put_n(out, before_title.text, before_title.length);
    }
    free(before_title.text);
    free(list.pieces);
}

/* An exercise: its statement (the first prose block), headings moved under
 * the chapter's "## Exercises"; with a solution, the solution's code. */
static void weave_exercise(text_buffer *out, const char *exercise_path, const char *solution_path,
                           const weave_inputs *inputs)
{
    source_file exercise = load_source(exercise_path);
    piece_list list = scan_markers(&exercise);
    const piece *statement = NULL;
    for (int k = 0; k < list.count && !statement; k++)
        if (list.pieces[k].kind == PIECE_PROSE)
            statement = &list.pieces[k];
    if (!statement)
        place_error((place){exercise_path, 1},
                    "no /*md block: an exercise's first one is its statement");

    int top = 7, in_fence = 0;
    for (int n = statement->first; n <= statement->last; n++) {
        const char *line = exercise.lines[n - 1];
        if (is_fence(line))
            in_fence = !in_fence;
        if (!in_fence && heading_level(line) && heading_level(line) < top)
            top = heading_level(line);
    }
    int shift = top <= 6 ? 3 - top : 0;
    int names_its_file = 0;
    put(out, "\n");
    if (top > 6)
        put(out, "### Exercise `%s` {.unnumbered}\n\n", base_name(exercise_path));
    in_fence = 0;
    for (int n = statement->first; n <= statement->last; n++) {
        const char *line = exercise.lines[n - 1];
        place where = {exercise_path, n};
        if (is_fence(line))
            in_fence = !in_fence;
        int level = in_fence ? 0 : heading_level(line);
        if (level && level + shift > 6)
            place_error(where, "heading too deep for an exercise (at most ### inside it)");
        if (level && shift > 0)
            put(out, "%.*s", shift, "######");
        else if (level && shift < 0)
            line -= shift;
        if (strstr(line, exercise_path))
            names_its_file = 1;
        if (level && line[strlen(line) - 1] != '}') {
            /* the exercise numbers itself ("Exercise 2.1"); pandoc must not */
            fill_line(out, line, where, inputs);
            out->length--;
            put(out, " {.unnumbered}\n");
        } else if (in_fence || !directive(out, line, where, inputs)) {
            fill_line(out, line, where, inputs);
        }
    }
    if (!names_its_file)
        put(out, "\n::: exercise-file\nThe starting code is `%s`.\n:::\n", exercise_path);
    free(list.pieces);

    if (solution_path) {
        source_file solution = load_source(solution_path);
        piece_list parts = scan_markers(&solution);
        put(out, "\n#### Solution {.unnumbered}\n\nThe code of `%s`:\n", solution_path);
        for (int k = 0; k < parts.count; k++) {
            if (parts.pieces[k].kind == PIECE_CODE)
                put_code(out, &solution, parts.pieces[k].first, parts.pieces[k].last);
            else if (parts.pieces[k].kind == PIECE_HIDDEN)
                put_hidden_note(out, &solution, &parts.pieces[k]);
        }
        free(parts.pieces);
    }
}

/* An exercise's place among its chapter's: the "Exercise 2.1" of its
 * title when it has one (so 2.10 comes after 2.9), else after those. */
typedef struct {
    char *name;
    int major, minor;
} exercise_entry;

static exercise_entry exercise_entry_of(const char *dir, const char *name)
{
    exercise_entry entry = {copy_of(name, strlen(name)), 1000, 1000};
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    size_t length;
    char *text = read_file(path, &length);
    const char *title = text ? strstr(text, "Exercise ") : NULL;
    if (title)
        sscanf(title, "Exercise %d.%d", &entry.major, &entry.minor);
    free(text);
    return entry;
}

static int by_exercise_number(const void *a, const void *b)
{
    const exercise_entry *x = a, *y = b;
    if (x->major != y->major)
        return x->major - y->major;
    if (x->minor != y->minor)
        return x->minor - y->minor;
    return strcmp(x->name, y->name);
}

static exercise_entry *exercises_of(const char *dir, int chapter, int *count)
{
    exercise_entry *entries = NULL;
    *count = 0;
    DIR *folder = opendir(dir);
    if (!folder)
        return NULL;
    char prefix[8];
    snprintf(prefix, sizeof prefix, "%02d-", chapter);
    struct dirent *entry;
    while ((entry = readdir(folder)) != NULL) {
        size_t length = strlen(entry->d_name);
        if (strncmp(entry->d_name, prefix, 3) == 0 && length > 3 &&
            strcmp(entry->d_name + length - 3, ".cu") == 0) {
            entries = grow(entries, (size_t)(*count + 1) * sizeof *entries);
            entries[(*count)++] = exercise_entry_of(dir, entry->d_name);
        }
    }
    closedir(folder);
    if (*count > 1) /* qsort wants a real array, even of none */
        qsort(entries, (size_t)*count, sizeof *entries, by_exercise_number);
    return entries;
}

static void weave_chapter(text_buffer *out, const char *path, const weave_inputs *inputs,
                          const char *exercises_dir, const char *solutions_dir)
{
    source_file source = load_source(path);
    int chapter = chapter_number_of(path, NULL, 0);
    weave_chapter_body(out, &source, inputs);
    put(out, "\n");
    if (!exercises_dir)
        return;
    int count;
    exercise_entry *entries = exercises_of(exercises_dir, chapter, &count);
    if (count > 0)
        put(out, "\n## Exercises\n");
    for (int k = 0; k < count; k++) {
        char exercise[4096], solution[4096];
        snprintf(exercise, sizeof exercise, "%s/%s", exercises_dir, entries[k].name);
        if (solutions_dir) {
            snprintf(solution, sizeof solution, "%s/%s", solutions_dir, entries[k].name);
            if (!file_exists(solution))
                die("%s: no solution %s for it", exercise, solution);
        }
        weave_exercise(out, exercise, solutions_dir ? solution : NULL, inputs);
        free(entries[k].name);
    }
    free(entries);
    put(out, "\n");
}

static void weave_prose(text_buffer *out, const char *path, const weave_inputs *inputs)
{
    source_file source = load_source(path);
    int in_fence = 0;
    for (int n = 1; n <= source.count; n++) {
        const char *line = source.lines[n - 1];
        place where = {path, n};
        if (is_fence(line))
            in_fence = !in_fence;
        if (in_fence || !directive(out, line, where, inputs))
            fill_line(out, line, where, inputs);
    }
}

/* ------------------------------------------------------------ tables */

/* The rows a table or plot shows: one card (the newest row's), the newest
 * row of each kernel and shape, ordered by shape size then kernel. */
typedef struct {
    const result_row **rows;
    int count;
    const char *gpu;
    date_span dates;
} row_selection;

static double shape_size(const char *shape)
{
    double size = 1;
    for (const char *p = strchr(shape, '='); p; p = strchr(p + 1, '='))
        size *= atof(p + 1);
    return size;
}

static int kernel_rank(const result_row *row)
{
    return known_kernel_index(row->field[F_PROBLEM], row->field[F_KERNEL]);
}

static int by_shape_then_kernel(const void *a, const void *b)
{
    const result_row *x = *(const result_row *const *)a, *y = *(const result_row *const *)b;
    double sx = shape_size(x->field[F_SHAPE]), sy = shape_size(y->field[F_SHAPE]);
    if (sx != sy)
        return sx < sy ? -1 : 1;
    int shapes = strcmp(x->field[F_SHAPE], y->field[F_SHAPE]);
    if (shapes)
        return shapes;
    if (kernel_rank(x) != kernel_rank(y))
        return kernel_rank(x) - kernel_rank(y);
    return strcmp(x->field[F_KERNEL], y->field[F_KERNEL]);
}

/* shape NULL: every shape; shape_pattern: a shape with T=* matches any T. */
static int shape_matches(const char *shape, const char *pattern)
{
    const char *star = strstr(pattern, "=*");
    if (!star)
        return strcmp(shape, pattern) == 0;
    size_t head = (size_t)(star - pattern) + 1;
    if (strncmp(shape, pattern, head) != 0)
        return 0;
    const char *after = shape + head;
    while (isdigit((unsigned char)*after))
        after++;
    return after > shape + head && strcmp(after, star + 2) == 0;
}

/* Rows of one kernel and shape together, oldest first: the newest of each
 * is the last of its run. Sorting keeps the selection n log n in the rows. */
static int by_kernel_shape_then_age(const void *a, const void *b)
{
    const result_row *x = *(const result_row *const *)a, *y = *(const result_row *const *)b;
    int order = strcmp(x->field[F_KERNEL], y->field[F_KERNEL]);
    if (!order)
        order = strcmp(x->field[F_SHAPE], y->field[F_SHAPE]);
    return order ? order : newer(x, y) ? 1 : -1;
}

static row_selection select_rows(const result_set *set, const char *problem, const char *pattern)
{
    row_selection selection = {0};
    selection.gpu = newest_gpu(set, problem);
    if (!selection.gpu)
        return selection;
    const result_row **candidates = grow(NULL, (size_t)(set->count + 1) * sizeof *candidates);
    int count = 0;
    for (int k = 0; k < set->count; k++) {
        const result_row *row = &set->rows[k];
        if (strcmp(row->field[F_PROBLEM], problem) == 0 &&
            strcmp(row->field[F_GPU], selection.gpu) == 0 &&
            (!pattern || shape_matches(row->field[F_SHAPE], pattern)))
            candidates[count++] = row;
    }
    qsort(candidates, (size_t)count, sizeof *candidates, by_kernel_shape_then_age);
    selection.rows = grow(NULL, (size_t)(count + 1) * sizeof *selection.rows);
    for (int k = 0; k < count; k++) {
        const result_row *row = candidates[k], *next = k + 1 < count ? candidates[k + 1] : NULL;
        if (next && strcmp(next->field[F_KERNEL], row->field[F_KERNEL]) == 0 &&
            strcmp(next->field[F_SHAPE], row->field[F_SHAPE]) == 0)
            continue; /* a newer row of this kernel and shape follows */
        selection.rows[selection.count++] = row;
        widen(&selection.dates, row->field[F_DATE]);
    }
    free(candidates);
    qsort(selection.rows, (size_t)selection.count, sizeof *selection.rows, by_shape_then_kernel);
    return selection;
}

/* The selected row of kernel at the shape of selection->rows[near]: rows of
 * one shape are side by side, so only that shape's few rows are searched. */
static const result_row *selected(const row_selection *selection, const char *kernel, int near)
{
    const char *shape = selection->rows[near]->field[F_SHAPE];
    int first = near;
    while (first > 0 && strcmp(selection->rows[first - 1]->field[F_SHAPE], shape) == 0)
        first--;
    for (int k = first; k < selection->count && strcmp(selection->rows[k]->field[F_SHAPE], shape) == 0;
         k++)
        if (strcmp(selection->rows[k]->field[F_KERNEL], kernel) == 0)
            return selection->rows[k];
    return NULL;
}

/* The commits the rows were measured at, each named once: "commit abc",
 * "commits abc and def", "commits abc, def and ghi", or "N commits" past four. */
static void format_commits(char *text, size_t capacity, const row_selection *selection)
{
    const char *seen[4];
    int count = 0, more = 0;
    for (int k = 0; k < selection->count; k++) {
        const char *commit = selection->rows[k]->field[F_COMMIT];
        int known = 0;
        for (int i = 0; i < count; i++)
            known |= strcmp(seen[i], commit) == 0;
        if (known)
            continue;
        if (count < 4)
            seen[count++] = commit;
        else
            more++;
    }
    if (more) {
        snprintf(text, capacity, "%d commits", count + more);
        return;
    }
    snprintf(text, capacity, "%s", count == 1 ? "commit " : "commits ");
    for (int i = 0; i < count; i++) {
        const char *separator = i == 0 ? "" : i == count - 1 ? " and " : ", ";
        size_t used = strlen(text);
        snprintf(text + used, capacity - used, "%s%s", separator, seen[i]);
    }
}

static void put_measured_on(text_buffer *out, const row_selection *selection)
{
    char dates[64], cuda[64] = "", commits[160];
    format_span(dates, sizeof dates, &selection->dates);
    for (int k = 0; k < selection->count; k++) {
        const result_row *row = selection->rows[k];
        if (!*cuda)
            snprintf(cuda, sizeof cuda, "%s", row->field[F_CUDA]);
        else if (strcmp(cuda, row->field[F_CUDA]) != 0)
            snprintf(cuda, sizeof cuda, "several versions");
    }
    format_commits(commits, sizeof commits, selection);
    put(out, "%s, CUDA %s, measured %s (%s).", selection->gpu, cuda, dates, commits);
}

static void put_table_rows(text_buffer *out, const row_selection *selection, const char *baseline,
                           int show_shape)
{
    double peak = fp32_peak_gflops(selection->gpu);
    put(out, "\n|%s Ch. | Kernel | Median ms | Min–max ms | GFLOP/s |%s vs %s |\n",
        show_shape ? " Shape |" : "", peak > 0 ? " % of FP32 peak |" : "", baseline);
    put(out, "|%s---:|:---|---:|---:|---:|%s---:|\n", show_shape ? ":---|" : "",
        peak > 0 ? "---:|" : "");
    for (int k = 0; k < selection->count; k++) {
        const result_row *row = selection->rows[k];
        char median[32], low[32], high[32], gflops[32], ratio[32], speedup[40] = "-";
        format_value(median, sizeof median, row->median_ms, row->file, row->line);
        format_value(low, sizeof low, row->min_ms, row->file, row->line);
        format_value(high, sizeof high, row->max_ms, row->file, row->line);
        format_value(gflops, sizeof gflops, row->gflops, row->file, row->line);
        const result_row *base = selected(selection, baseline, k);
        if (base) {
            format_value(ratio, sizeof ratio, base->median_ms / row->median_ms, row->file,
                         row->line);
            snprintf(speedup, sizeof speedup, "%sx", ratio);
        }
        if (show_shape)
            put(out, "| %s ", row->field[F_SHAPE]);
        put(out, "| %d | %s | %s | %s–%s | %s |", row->chapter, row->field[F_KERNEL], median,
            low, high, gflops);
        if (peak > 0)
            put(out, " %.1f |", 100.0 * row->gflops / peak);
        put(out, " %s |\n", speedup);
    }
    put(out, "\n");
}

/* One problem's part of the results table: a heading, where and when the
 * rows were measured, and the rows; or a note that nothing is measured yet. */
static void put_problem_results(text_buffer *out, const row_selection *selection,
                                const char *heading, const char *csv, const char *against,
                                const char *baseline, int show_shape)
{
    put(out, "%s", heading);
    if (selection->count == 0) {
        put(out, "*No measurement yet: `make bench` on a GPU writes `plots/data/%s`.*\n\n", csv);
        return;
    }
    put_measured_on(out, selection);
    put(out, " Speedups are against %s.\n", against);
    put_table_rows(out, selection, baseline, show_shape);
}

static void put_results_table(text_buffer *out, const result_set *results)
{
    row_selection triangle = select_rows(results, "trimul", DEFAULT_TRIMUL_SHAPE);
    put_problem_results(out, &triangle,
                        "\n**The triangle** at the default size, " DEFAULT_TRIMUL_SHAPE ". ",
                        "trimul.csv", "cuBLAS with its permute (>1 is faster)", "cublas-permute",
                        0);
    row_selection msa = select_rows(results, "msa", NULL);
    put_problem_results(out, &msa, "**MSA gated attention**. ", "msa.csv",
                        "the unfused baseline at the same size", "unfused", 1);
    const char *gpu = triangle.gpu ? triangle.gpu : msa.gpu;
    if (gpu && fp32_peak_gflops(gpu) > 0)
        put(out, "The FP32 peak of the %s is taken as %.1f TFLOP/s (SMs x FP32 lanes x 2 x boost "
            "clock; the table is in `book/weave.c`); GFLOP/s count only the useful work, so "
            "cuBLAS, which also computes the masked half of the triangle, is not credited for "
            "it. TF32 kernels run on tensor cores and are not bound by the FP32 peak.\n\n",
            gpu, fp32_peak_gflops(gpu) / 1000.0);
    else if (gpu)
        put(out, "The FP32 peak of the %s is not in the table of `book/weave.c`, so no "
            "percentage of peak is shown.\n\n", gpu);
    free(triangle.rows);
    free(msa.rows);
}

/* ------------------------------------------------------------ plot data */

/* gnuplot single-quoted string: no escapes but '' for a quote. */
static void put_gnuplot_string(FILE *file, const char *name, const char *value)
{
    fprintf(file, "%s = '", name);
    for (const char *c = value; *c; c++)
        fputs(*c == '\'' ? "''" : (char[]){*c, '\0'}, file);
    fprintf(file, "'\n");
}

static FILE *open_output(const char *dir, const char *name, const char *suffix)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s%s", dir, name, suffix);
    FILE *file = fopen(path, "w");
    if (!file)
        die("%s: cannot write: %s", path, strerror(errno));
    return file;
}

static void write_caption(const char *dir, const char *name, const char *caption,
                          const row_selection *selection)
{
    char dates[64];
    format_span(dates, sizeof dates, &selection->dates);
    FILE *file = open_output(dir, name, ".caption");
    fprintf(file, "%s Measured on the %s, %s.\n", caption, selection->gpu, dates);
    fclose(file);
    file = open_output(dir, name, ".vars.gp");
    put_gnuplot_string(file, "gpu", selection->gpu);
    put_gnuplot_string(file, "date", dates);
    fclose(file);
}

static void append_vars(const char *dir, const char *name, const char *format, ...)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.vars.gp", dir, name);
    FILE *file = fopen(path, "a");
    if (!file)
        die("%s: cannot write: %s", path, strerror(errno));
    va_list args;
    va_start(args, format);
    vfprintf(file, format, args);
    va_end(args);
    fclose(file);
}

/* 1: cuBLAS, 2: our FP32 kernels, 3: tensor cores (TF32). */
static int kernel_colour(const char *kernel)
{
    if (strstr(kernel, "tf32"))
        return 3;
    return strncmp(kernel, "cublas", 6) == 0 ? 1 : 2;
}

static int plot_default_size(const result_set *results, const char *dir, FILE *index)
{
    row_selection selection = select_rows(results, "trimul", DEFAULT_TRIMUL_SHAPE);
    if (selection.count == 0) {
        fprintf(stderr, "weave: no trimul rows at " DEFAULT_TRIMUL_SHAPE
                "; the plots time-default and peak are left out\n");
        return 0;
    }
    FILE *data = open_output(dir, "time-default", ".dat");
    fprintf(data, "# position kernel median_ms min_ms max_ms colour\n");
    for (int k = 0; k < selection.count; k++) {
        const result_row *row = selection.rows[k];
        fprintf(data, "%d \"%s\" %.6g %.6g %.6g %d\n", k, row->field[F_KERNEL], row->median_ms,
                row->min_ms, row->max_ms, kernel_colour(row->field[F_KERNEL]));
    }
    fclose(data);
    write_caption(dir, "time-default",
                  "Time per kernel at the default size " DEFAULT_TRIMUL_SHAPE
                  " (median of the repetitions, log scale); the dashed lines are the two cuBLAS "
                  "champions.", &selection);
    const result_row *permute = selected(&selection, "cublas-permute", 0);
    const result_row *direct = selected(&selection, "cublas-direct", 0);
    append_vars(dir, "time-default", "shape = '%s'\npermute_ms = %.6g\ndirect_ms = %.6g\n",
                DEFAULT_TRIMUL_SHAPE, permute ? permute->median_ms : NAN,
                direct ? direct->median_ms : NAN);
    fprintf(index, "time-default\n");

    double peak = fp32_peak_gflops(selection.gpu);
    if (peak == 0) {
        fprintf(stderr, "weave: no FP32 peak known for \"%s\" (gpu_peaks in book/weave.c); the "
                "plot peak is left out\n", selection.gpu);
    } else {
        data = open_output(dir, "peak", ".dat");
        fprintf(data, "# position kernel percent_of_fp32_peak colour\n");
        for (int k = 0; k < selection.count; k++) {
            const result_row *row = selection.rows[k];
            fprintf(data, "%d \"%s\" %.4f %d\n", k, row->field[F_KERNEL],
                    100.0 * row->gflops / peak, kernel_colour(row->field[F_KERNEL]));
        }
        fclose(data);
        char caption[512];
        snprintf(caption, sizeof caption,
                 "Share of the FP32 peak (%.1f TFLOP/s) each kernel reaches at the default size, "
                 "counting only the useful work of the triangle. TF32 kernels use tensor cores, "
                 "whose ceiling is higher.", peak / 1000.0);
        write_caption(dir, "peak", caption, &selection);
        append_vars(dir, "peak", "shape = '%s'\npeak_tflops = %.1f\n", DEFAULT_TRIMUL_SHAPE,
                    peak / 1000.0);
        fprintf(index, "peak\n");
    }
    free(selection.rows);
    return 1;
}

/* The distinct kernels of a selection, in book order (rank, then name). */
static int by_kernel_order(const void *a, const void *b)
{
    const result_row *x = *(const result_row *const *)a, *y = *(const result_row *const *)b;
    if (kernel_rank(x) != kernel_rank(y))
        return kernel_rank(x) - kernel_rank(y);
    return strcmp(x->field[F_KERNEL], y->field[F_KERNEL]);
}

static int distinct_kernels(const row_selection *selection, const result_row **firsts)
{
    int distinct = 0;
    for (int k = 0; k < selection->count; k++) {
        int seen = 0;
        for (int j = 0; j < distinct; j++)
            seen |= strcmp(firsts[j]->field[F_KERNEL], selection->rows[k]->field[F_KERNEL]) == 0;
        if (!seen)
            firsts[distinct++] = selection->rows[k];
    }
    qsort(firsts, (size_t)distinct, sizeof *firsts, by_kernel_order);
    return distinct;
}

static int plot_sweep(const result_set *results, const char *dir, FILE *index)
{
    row_selection selection = select_rows(results, "trimul", "B=8 T=* C=768 NH=12");
    int sizes = 0; /* a sweep needs two sizes at least */
    for (int k = 1; k < selection.count; k++)
        if (strcmp(selection.rows[k]->field[F_SHAPE], selection.rows[0]->field[F_SHAPE]) != 0)
            sizes = 2;
    if (sizes < 2) {
        fprintf(stderr, "weave: fewer than two sizes T at B=8 C=768 NH=12; the plot sweep is "
                "left out\n");
        free(selection.rows);
        return 0;
    }
    /* one block per kernel (gnuplot's index), its rows by T */
    const result_row **kernels = grow(NULL, (size_t)selection.count * sizeof *kernels);
    int kernel_count = distinct_kernels(&selection, kernels);
    FILE *data = open_output(dir, "sweep", ".dat");
    char names[4096] = "";
    for (int j = 0; j < kernel_count; j++) {
        const char *kernel = kernels[j]->field[F_KERNEL];
        fprintf(data, "%s# %s\n# T median_ms min_ms max_ms colour\n", j ? "\n\n" : "", kernel);
        for (int k = 0; k < selection.count; k++) {
            const result_row *row = selection.rows[k];
            if (strcmp(row->field[F_KERNEL], kernel) != 0)
                continue;
            const char *t = strstr(row->field[F_SHAPE], " T=") + 3;
            fprintf(data, "%d %.6g %.6g %.6g %d\n", atoi(t), row->median_ms, row->min_ms,
                    row->max_ms, kernel_colour(kernel));
        }
        snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", j ? " " : "",
                 kernel);
    }
    fclose(data);
    write_caption(dir, "sweep",
                  "Time against the sequence length T at B=8 C=768 NH=12 (log-log; the causal "
                  "triangle's work grows as T squared).", &selection);
    append_vars(dir, "sweep", "kernels = '%s'\nfixed = 'B=8 C=768 NH=12'\n", names);
    fprintf(index, "sweep\n");
    free(kernels);
    free(selection.rows);
    return 1;
}

static int plot_msa(const result_set *results, const char *dir, FILE *index)
{
    row_selection selection = select_rows(results, "msa", NULL);
    if (selection.count == 0) {
        fprintf(stderr, "weave: no msa rows; the plot msa is left out\n");
        return 0;
    }
    /* columns: the kernels in book order; rows: the shapes, smallest first */
    const result_row **kernels = grow(NULL, (size_t)selection.count * sizeof *kernels);
    int kernel_count = distinct_kernels(&selection, kernels);
    FILE *data = open_output(dir, "msa", ".dat");
    fprintf(data, "shape");
    for (int j = 0; j < kernel_count; j++)
        fprintf(data, " \"%s\"", kernels[j]->field[F_KERNEL]);
    fprintf(data, "\n");
    for (int k = 0; k < selection.count; k++) {
        const char *shape = selection.rows[k]->field[F_SHAPE];
        if (k > 0 && strcmp(shape, selection.rows[k - 1]->field[F_SHAPE]) == 0)
            continue;
        fprintf(data, "\"%s\"", shape);
        for (int j = 0; j < kernel_count; j++) {
            const result_row *row = selected(&selection, kernels[j]->field[F_KERNEL], k);
            if (row)
                fprintf(data, " %.6g", row->median_ms);
            else
                fprintf(data, " NaN");
        }
        fprintf(data, "\n");
    }
    fclose(data);
    write_caption(dir, "msa",
                  "MSA gated attention: the fused kernels against the unfused baseline at each "
                  "size (median time, log scale; a missing bar is a size that kernel was not "
                  "run at).", &selection);
    append_vars(dir, "msa", "kernel_count = %d\n", kernel_count);
    fprintf(index, "msa\n");
    free(kernels);
    free(selection.rows);
    return 1;
}

static void write_plot_data(const result_set *results, const char *dir)
{
    FILE *index = open_output(dir, "index", "");
    plot_default_size(results, dir, index);
    plot_sweep(results, dir, index);
    plot_msa(results, dir, index);
    fclose(index);
}

/* ------------------------------------------------------------ main */

static void usage(void)
{
    fprintf(stderr,
            "usage: weave chapter  [OPTIONS] SOURCE.cu    a literate chapter as Markdown\n"
            "       weave prose    [OPTIONS] FILE.md      Markdown with placeholders filled\n"
            "       weave table    [OPTIONS]              the results table\n"
            "       weave plotdata [OPTIONS] --out DIR    data and captions for plots/*.gp\n"
            "       weave check    [OPTIONS]              validate the CSV files\n"
            "options: --data DIR (plots/data) --figures DIR (plots/out)\n"
            "         --exercises DIR --solutions DIR (chapter: its exercises, solutions)\n"
            "         --keep-placeholders (chapter, prose: leave {{...}} unfilled, read no\n"
            "           data; for the faithfulness test, never for the book)\n");
    exit(2);
}

int main(int argc, char **argv)
{
    if (argc < 2)
        usage();
    const char *command = argv[1];
    const char *data_dir = "plots/data", *figures_dir = "plots/out", *out_dir = NULL;
    const char *exercises_dir = NULL, *solutions_dir = NULL, *input = NULL;
    int keep_placeholders = 0;
    for (int k = 2; k < argc; k++) {
        if (strcmp(argv[k], "--keep-placeholders") == 0) {
            keep_placeholders = 1;
            continue;
        }
        const char **option = strcmp(argv[k], "--data") == 0        ? &data_dir
                              : strcmp(argv[k], "--figures") == 0   ? &figures_dir
                              : strcmp(argv[k], "--out") == 0       ? &out_dir
                              : strcmp(argv[k], "--exercises") == 0 ? &exercises_dir
                              : strcmp(argv[k], "--solutions") == 0 ? &solutions_dir
                                                                    : NULL;
        if (option) {
            if (k + 1 >= argc)
                usage();
            *option = argv[++k];
        } else if (argv[k][0] == '-' || input) {
            usage();
        } else {
            input = argv[k];
        }
    }
    int wants_input = strcmp(command, "chapter") == 0 || strcmp(command, "prose") == 0;
    if (wants_input != (input != NULL))
        usage();

    result_set results = {0};
    results.dir = data_dir;
    if (!keep_placeholders)
        results = load_results(data_dir);
    weave_inputs inputs = {&results, figures_dir, keep_placeholders};
    text_buffer out = {0};
    put_n(&out, "", 0);
    if (strcmp(command, "chapter") == 0) {
        weave_chapter(&out, input, &inputs, exercises_dir, solutions_dir);
    } else if (strcmp(command, "prose") == 0) {
        weave_prose(&out, input, &inputs);
    } else if (strcmp(command, "table") == 0) {
        put_results_table(&out, &results);
    } else if (strcmp(command, "plotdata") == 0) {
        if (!out_dir)
            usage();
        write_plot_data(&results, out_dir);
    } else if (strcmp(command, "check") == 0) {
        put(&out, "%s: %d rows in %d files, all well formed\n", data_dir, results.count,
            results.file_count);
    } else {
        usage();
    }
    fputs(out.text, stdout);
    return ferror(stdout) ? 1 : 0;
}

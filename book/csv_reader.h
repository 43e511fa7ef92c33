/* csv_reader.h - reads and checks the measured results, the CSV files of plots/data
 * (the rows common/harness/csv.c writes: RFC 4180, the header CSV_HEADER), for the
 * tools that make the book, its tables and its plots from them. Every row
 * is checked; the first one that is wrong stops the reading with
 * "file:line: malformed row: why".
 *
 *   kernel_list kernels;      (tools/kernel_list.h; NULL skips the kernel check)
 *   result_set results;
 *   char error[1024];
 *   if (csv_reader_folder("plots/data", &kernels, &results, error, sizeof error) != 0)
 *       fprintf(stderr, "%s\n", error);
 *
 * Host C11; tested by tests/test_csv_reader.c (make test).
 */
#ifndef WORKBOOK_CSV_READER_H
#define WORKBOOK_CSV_READER_H

#include <stddef.h>
#include <stdio.h>

#include "kernel_list.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The columns, in the header's order. */
typedef enum {
    RESULT_CHAPTER, RESULT_KERNEL, RESULT_PROBLEM, RESULT_SHAPE, RESULT_MEDIAN_MS,
    RESULT_MIN_MS, RESULT_MAX_MS, RESULT_GFLOPS, RESULT_GBPS, RESULT_GPU, RESULT_CUDA,
    RESULT_COMMIT, RESULT_DATE, RESULT_FIELD_COUNT
} result_field;

extern const char *const result_field_names[RESULT_FIELD_COUNT];

typedef struct {
    char *field[RESULT_FIELD_COUNT]; /* every column as written */
    int chapter;
    double median_ms, min_ms, max_ms, gflops, gbps;
    int kernel;       /* its entry in the kernel list, -1 when read without one */
    const char *file; /* where it was read, for messages */
    int line;
    int order;        /* its place over all the files read, the later the newer */
} result_row;

typedef struct {
    const char *dir;
    char **files;     /* the files read, in name order */
    int file_count;
    result_row *rows;
    int count, capacity;
} result_set;

/* Every *.csv of dir, in name order (a missing folder holds no rows), or
 * one file's text (path names it in messages): 0, or -1 with the message
 * in error. The kernel of a row must be one of kernels for its problem,
 * and its share of the peak of that kernel's pipe at most 100%. */
int csv_reader_folder(const char *dir, const kernel_list *kernels, result_set *set,
                      char *error, size_t capacity);
int csv_reader_text(result_set *set, const char *path, const char *text, size_t length,
                    const kernel_list *kernels, char *error, size_t capacity);
void csv_reader_free(result_set *set);

/* A numeric column of a row (RESULT_MEDIAN_MS to RESULT_GBPS). */
double csv_reader_number(const result_row *row, result_field field);

/* Is row a newer than row b? By date, then by place in the files. */
int csv_reader_newer(const result_row *a, const result_row *b);

/* The newest row of kernel at shape, on the card gpu (NULL: any); NULL if none. */
const result_row *csv_reader_newest(const result_set *set, const char *kernel, const char *shape,
                                    const char *gpu);

/* The card of the newest row of a problem, or NULL. */
const char *csv_reader_newest_gpu(const result_set *set, const char *problem);

/* The newest row of each kernel and shape of a problem on the card gpu,
 * among the rows keep accepts (NULL: all): *count of them, in no particular
 * order, in an array the caller frees. n log n in the rows. */
const result_row **csv_reader_newest_each(const result_set *set, const char *problem,
                                          const char *gpu,
                                          int (*keep)(const result_row *row, const void *how),
                                          const void *how, int *count);

#ifdef __cplusplus
}
#endif

#endif

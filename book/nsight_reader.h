/* nsight_reader.h - reads the Nsight Compute readings `make nsight` records
 * (plots/data/nsight/nsight.csv, written by bench/nsight_rows.py for the
 * kernels of plots/nsight.list) for the weaver's {{ncu|READING|KERNEL|SHAPE}}:
 * what the book quotes from the profiler is measured data, the card named.
 *
 *   nsight_set readings;
 *   if (nsight_read("plots/data", &readings, error, sizeof error) != 0) ...
 *
 * Every row is checked; the first that is wrong stops the reading with
 * "file:line: malformed row: why". Host C11; tests/test_nsight_reader.c.
 */
#ifndef WORKBOOK_NSIGHT_READER_H
#define WORKBOOK_NSIGHT_READER_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define NSIGHT_HEADER "kernel,shape,function,reading,value,gpu,commit,date"

typedef struct {
    char *kernel, *shape, *reading, *gpu, *date;
    double value;
    int order; /* its place in the file, the later the newer */
} nsight_row;

typedef struct {
    nsight_row *rows;
    int count;
} nsight_set;

/* data_dir/nsight/nsight.csv (a missing file holds no rows): 0, or -1 with
 * the message in error. */
int nsight_read(const char *data_dir, nsight_set *set, char *error, size_t capacity);

/* A placeholder's parts, split at '|': {{ncu|READING|KERNEL|SHAPE}}, where
 * READING is one the file holds (time_ms, dram_tbs, dram_pct, issue_pct,
 * eligible_warps, tensor_pct, l1_pct, instructions_m) or `gpu`, the name of
 * the card it was read on. The card is the first of `cards` (the book's
 * order) with a reading of the kernel at the shape, else the newest reading's
 * card; with `pinned`, only a card whose name holds it. Returns 0 when
 * part[0] is not "ncu"; 1 with the text (numbers in 3 significant digits);
 * -1 with the reason in text. */
int nsight_placeholder(const nsight_set *set, char *const *part, int count,
                       const char *const *cards, const char *pinned, char *text, size_t capacity);

void nsight_free(nsight_set *set);

#ifdef __cplusplus
}
#endif

#endif

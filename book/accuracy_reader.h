/* accuracy_reader.h - reads the accuracy rows of the CSV files in plots/data/accuracy/
 * (what a chapter program's --errors appends: CSV_ACCURACY_HEADER in csv.h),
 * for the weaver's {{rel_l2|...}} and {{max_abs|...}} placeholders. Every
 * row is checked; the first that is wrong stops the reading with
 * "file:line: malformed row: why". Host C11; tests/test_accuracy_reader.c.
 */
#ifndef WORKBOOK_ACCURACY_READER_H
#define WORKBOOK_ACCURACY_READER_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    char *kernel, *shape, *gpu, *date;
    double input_scale, largest_logit, rel_l2, max_abs;
    const char *file;
    int line;
    int order; /* its place over all the files read, the later the newer */
} accuracy_row;

typedef struct {
    accuracy_row *rows;
    int count;
    char **files; /* the names read, owned by the set */
    int file_count;
} accuracy_set;

/* Every *.csv of dir (a missing folder holds no rows): 0, or -1 with the
 * message in error. accuracy_read reads data_dir/accuracy/. */
int accuracy_read_folder(const char *dir, accuracy_set *set, char *error, size_t capacity);
int accuracy_read(const char *data_dir, accuracy_set *set, char *error, size_t capacity);

/* A placeholder's parts, split at '|': {{rel_l2|KERNEL|SHAPE}} or
 * {{max_abs|KERNEL|SHAPE}}, with an optional |SCALE (the input scale, 1 when
 * left out; a row of --logits L is named |1|L). Returns 0 when part[0] names
 * neither field; 1 with the number (as the checks print it, 3 digits) in
 * text; -1 with the reason in text. */
int accuracy_placeholder(const accuracy_set *set, char *const *part, int count, char *text,
                         size_t capacity);

/* The newest row (by date, then by place) of kernel at shape with that input
 * scale and largest logit, or NULL. */
const accuracy_row *accuracy_newest(const accuracy_set *set, const char *kernel,
                                    const char *shape, double input_scale,
                                    double largest_logit);

void accuracy_free(accuracy_set *set);

#ifdef __cplusplus
}
#endif

#endif

/* results_rows.c - the rows the results tool shows: the state it read, the
 * problems, the kernels' facts, the selection of rows and cards. See results.h. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "results.h"

#include "headline.h"

result_set results;
kernel_list kernels;

const problem_info problems[RESULTS_PROBLEMS] = {
    {"trimul", "The triangle", "cuBLAS", "cuBLAS's calls"},
    {"msa", "MSA gated attention", "unfused/PyTorch", "the unfused layer and PyTorch"},
};

void die(const char *format, ...)
{
    va_list args;
    va_start(args, format);
    vfprintf(stderr, format, args);
    va_end(args);
    fputc('\n', stderr);
    exit(1);
}

const kernel_entry *entry_of(const result_row *row)
{
    return &kernels.entries[row->kernel];
}

/* What a plot colours a kernel by: 1 a champion on the FP32 pipe (cuBLAS, the
 * unfused layer, PyTorch), 2 one on the tensor cores, 3 the book's FP32
 * kernels, 4 its tensor-core ones. */
int kind_of(const result_row *row)
{
    kernel_role role = entry_of(row)->role;
    int champion = role == KERNEL_CHAMPION || role == KERNEL_TORCH;
    return (champion ? 1 : 3) + (entry_of(row)->pipe == GPU_PIPE_TENSOR);
}

/* The share of its pipe's peak, or -1 when that peak is not known. */
double peak_share(const result_row *row)
{
    double peak = kernel_peak_gflops(entry_of(row), row->field[RESULT_GPU]);
    return peak > 0 ? 100.0 * row->gflops / peak : -1;
}

/* The first champion of a problem in the list. */
const char *baseline_of(const char *problem)
{
    for (int k = 0; k < kernels.count; k++)
        if (kernels.entries[k].role == KERNEL_CHAMPION && strcmp(kernels.entries[k].problem, problem) == 0)
            return kernels.entries[k].name;
    return "";
}

/* What the speedups of a table are against: the fastest champion (PyTorch's
 * too) among the chosen rows at shape, the rule the race charts draw by
 * (plots/race.gp), so that a table and a chart of one size and card name one
 * baseline; the list's first champion where no champion has a row there. */
const char *strongest_champion(const selection *chosen, const char *problem, const char *shape)
{
    const result_row *best = NULL;
    for (int k = 0; k < chosen->count; k++) {
        const result_row *row = chosen->rows[k];
        kernel_role role = entry_of(row)->role;
        if ((role == KERNEL_CHAMPION || role == KERNEL_TORCH) &&
            strcmp(entry_of(row)->name, row->field[RESULT_KERNEL]) == 0 &&
            strcmp(row->field[RESULT_SHAPE], shape) == 0 && (!best || row->median_ms < best->median_ms))
            best = row;
    }
    return best ? best->field[RESULT_KERNEL] : baseline_of(problem);
}

static int wanted(const result_row *row, const void *how)
{
    const row_filter *filter = how;
    kernel_role role = entry_of(row)->role;
    int replay = strcmp(entry_of(row)->name, row->field[RESULT_KERNEL]) != 0;
    const char *shape = row->field[RESULT_SHAPE];
    return (!filter->shape || strcmp(shape, filter->shape) == 0) &&
           (!filter->headline || (role != KERNEL_STEP && role != KERNEL_TRIED && !replay)) &&
           (!filter->story || (role != KERNEL_TRIED && !replay && !strstr(shape, "mask=drawn") &&
                               !strstr(shape, "mask=pad")));
}

/* Story order: the list's, a "+graph" replay right after its kernel. */
static int by_kernel(const void *a, const void *b)
{
    const result_row *x = *(const result_row *const *)a, *y = *(const result_row *const *)b;
    return x->kernel != y->kernel ? x->kernel - y->kernel
                                  : strcmp(x->field[RESULT_KERNEL], y->field[RESULT_KERNEL]);
}

static double size_of(const char *shape)
{
    double size = 1;
    for (const char *p = strchr(shape, '='); p; p = strchr(p + 1, '='))
        size *= atof(p + 1) > 0 ? atof(p + 1) : 1; /* mask=kept counts 1 */
    return size;
}

/* Shapes by their product of sizes, the smallest first, then story order. */
static int by_shape_then_kernel(const void *a, const void *b)
{
    const char *x = (*(const result_row *const *)a)->field[RESULT_SHAPE];
    const char *y = (*(const result_row *const *)b)->field[RESULT_SHAPE];
    double size_x = size_of(x), size_y = size_of(y);
    return size_x != size_y ? (size_x < size_y ? -1 : 1) : strcmp(x, y) ? strcmp(x, y) : by_kernel(a, b);
}

/* The cards of a problem in the book's order (headline_cards), with how
 * many of them lead with a full headline; a NULL-ended array to free. */
const char **cards_of(const char *problem, int *count, int *full)
{
    const char **cards;
    *count = headline_cards(&results, &kernels, problem, &cards, full);
    if (*count < 0)
        die("results: out of memory");
    return cards;
}

/* The rows of a problem on a card that a table or plot shows, by shape
 * then kernel. */
selection select_rows(const char *problem, const char *gpu, row_filter filter)
{
    selection chosen = {NULL, 0, gpu};
    chosen.rows = csv_reader_newest_each(&results, problem, chosen.gpu, wanted, &filter, &chosen.count);
    if (!chosen.rows)
        die("results: out of memory");
    if (chosen.count > 1)
        qsort(chosen.rows, (size_t)chosen.count, sizeof *chosen.rows, by_shape_then_kernel);
    return chosen;
}

/* The row of kernel at the shape of rows[near]: rows of one shape are side
 * by side, so only that shape's few rows are searched. */
const result_row *at_same_shape(const selection *chosen, const char *kernel, int near)
{
    const char *shape = chosen->rows[near]->field[RESULT_SHAPE];
    while (near > 0 && strcmp(chosen->rows[near - 1]->field[RESULT_SHAPE], shape) == 0)
        near--;
    for (; near < chosen->count && strcmp(chosen->rows[near]->field[RESULT_SHAPE], shape) == 0; near++)
        if (strcmp(chosen->rows[near]->field[RESULT_KERNEL], kernel) == 0)
            return chosen->rows[near];
    return NULL;
}

/* "2025-11-29", or "2025-11-28 to 2025-11-29". */
void format_dates(char *text, size_t capacity, const selection *chosen)
{
    const char *first = chosen->rows[0]->field[RESULT_DATE], *last = first;
    for (int k = 1; k < chosen->count; k++) {
        const char *date = chosen->rows[k]->field[RESULT_DATE];
        first = strcmp(date, first) < 0 ? date : first;
        last = strcmp(date, last) > 0 ? date : last;
    }
    snprintf(text, capacity, strcmp(first, last) ? "%s to %s" : "%s", first, last);
}


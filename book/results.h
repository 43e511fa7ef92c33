/* results.h - what the results tool's files share (book/results.c says what
 * each holds). Host C11; built by book/book.mk as build/book/results.
 */
#ifndef WORKBOOK_RESULTS_H
#define WORKBOOK_RESULTS_H

#include <stdio.h>

#include "csv_reader.h"
#include "kernel_list.h"

/* The rows and the kernel list, read once by main. */
extern result_set results;
extern kernel_list kernels;

/* What the tables and plots call each problem (its default size is
 * headline_default_shape's). */
typedef struct {
    const char *name, *title, *champions; /* champions: as a plot's legend names them */
    const char *champions_prose;          /* and as a sentence does */
} problem_info;

#define RESULTS_PROBLEMS 2
extern const problem_info problems[RESULTS_PROBLEMS];

/* The headline table stays short: the rest is in the appendix. 12 rows hold
 * the triangle's four champions and the best of each of its seven chapters. */
#define HEADLINE_ROWS 12

/* Which rows: shape NULL for all, or that shape;
 * headline keeps the champions (PyTorch's too) and the chapters' best; story
 * (the plots) every kernel but those a chapter tried and dropped, and only
 * the MSA rows with every key kept (or untagged); neither keeps graph
 * replays (the tables of all results have them). */
typedef struct {
    const char *shape;
    int headline, story;
} row_filter;

typedef struct {
    const result_row **rows;
    int count;
    const char *gpu;
} selection;

/* The message on stderr; exits 1. */
void die(const char *format, ...) __attribute__((format(printf, 1, 2), noreturn));

/* The list's entry of a row's kernel. */
const kernel_entry *entry_of(const result_row *row);

/* What a plot colours a kernel by: 1 a champion on the FP32 pipe (cuBLAS, the
 * unfused layer, PyTorch), 2 one on the tensor cores, 3 the book's FP32
 * kernels, 4 its tensor-core ones. */
int kind_of(const result_row *row);

/* The share of its pipe's peak, or -1 when that peak is not known. */
double peak_share(const result_row *row);

/* The first champion of a problem in the list. */
const char *baseline_of(const char *problem);
/* The fastest champion of the chosen rows at shape (the race charts' rule). */
const char *strongest_champion(const selection *chosen, const char *problem, const char *shape);

/* The cards of a problem in the book's order (headline_cards), with how
 * many of them lead with a full headline; a NULL-ended array to free. */
const char **cards_of(const char *problem, int *count, int *full);

/* The rows of a problem on a card that a table or plot shows, by shape
 * then kernel. */
selection select_rows(const char *problem, const char *gpu, row_filter filter);

/* The row of kernel at the shape of rows[near]: rows of one shape are side
 * by side, so only that shape's few rows are searched. */
const result_row *at_same_shape(const selection *chosen, const char *kernel, int near);

/* "2025-11-29", or "2025-11-28 to 2025-11-29". */
void format_dates(char *text, size_t capacity, const selection *chosen);

/* A problem's tables: in the headline, one per card with a full headline
 * (or the best-measured card's alone, when none has one); in the table of
 * all results, one per card. */
void put_tables(FILE *out, const problem_info *problem, int all);

/* A problem's summaries: one per card with a full headline (or the
 * best-measured card's alone), as the headline shows them. */
void put_summaries(FILE *out, const problem_info *problem);

/* DIR/NAME SUFFIX opened for writing, or a stop. */
FILE *open_output(const char *dir, const char *name, const char *suffix);

/* What a problem's plots draw from. Each plot is drawn from the first card,
 * in the book's order (headline_cards: the student's card after `make
 * bench`), whose rows can draw it; a plot that card cannot draw (a T4 runs
 * no chapter 8 kernel, an RTX 4090 no chapter 10 one) is drawn from the
 * next card that can, the reference card, and says so in its caption.
 * The first card's files go into DIR, the K-th's into DIR/PROBLEM-cardK/;
 * a line of the index is NAME, or NAME and that folder, and a plot drawn
 * from another card than the first has DIR/PROBLEM-cardK/NAME.note, the
 * sentence its caption ends with. */
void write_plot_data(const char *dir, FILE *index, const problem_info *problem);

#endif

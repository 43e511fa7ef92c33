/* cli.h - the command line every chapter program shares.
 *
 *   chapterN [KEY=VALUE ...] [--kernel NAME|NUMBER] [--reps N] [--csv FILE]
 *            [--check-only] [--only-new] [--seed N] [--list] [--load DIR] [--save DIR]
 *            [--errors FILE] [--input-scale X] [--logits L] [--emit-output]
 *            [--judge-output] [--help]
 *
 * Sizes are given as KEY=VALUE, the same spelling as the `shape` column of
 * the CSV (B=8 T=1024 C=768 NH=12), so a row can be re-run by pasting its
 * shape. A program may also take one choice written the same way after
 * the sizes (the MSA programs: mask=drawn|kept|pad), which the shape then
 * ends with. Each option and each size is given once. Whole numbers are
 * read by common/harness/numbers.h (decimal digits only: no sign, blank or leading
 * zero). Anything unknown, malformed or repeated is refused with a message;
 * the program then exits with status 2.
 */
#ifndef WORKBOOK_CLI_H
#define WORKBOOK_CLI_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CLI_MAX_SIZES 8
#define CLI_DEFAULT_REPS 50
#define CLI_MIN_REPS 20

typedef struct {
    const char *program;                    /* "chapter2" */
    const char *summary;                    /* one line: what the program does */
    int size_count;
    const char *size_names[CLI_MAX_SIZES];  /* "B", "T", "C", "NH" */
    long size_defaults[CLI_MAX_SIZES];
    int allows_files;                       /* accepts --load and --save */
    /* One choice KEY=NAME, or NULL: the MSA programs' mask kind. */
    const char *choice_key;
    const char *const *choice_names;
    int choice_count, choice_default;
    int scales_inputs;                      /* accepts --input-scale (the triangle) */
    int scales_logits;                      /* accepts --logits (the MSA layer) */
} cli_spec;

typedef struct {
    long sizes[CLI_MAX_SIZES];   /* in the order of cli_spec.size_names */
    int size_given[CLI_MAX_SIZES]; /* 1 where KEY=VALUE was on the command line */
    const char *kernel;          /* NULL: every kernel of the program */
    int reps;
    const char *csv_path;        /* NULL: no CSV rows */
    int check_only;
    int only_new;                /* only the kernels this chapter introduces */
    /* The grader's two ends of one check (race.h): --emit-output runs the
     * kernels and writes their outputs to descriptor 3, checking nothing;
     * --judge-output runs no kernel and needs no GPU: it checks the outputs
     * read from standard input against the CPU referee. Each implies
     * --check-only. */
    int emit_output, judge_output;
    int list;
    uint64_t seed;
    const char *load_dir, *save_dir;
    int choice;                  /* an index into cli_spec.choice_names */
    int choice_given;
    const char *errors_path;     /* NULL: no accuracy rows */
    const char *card_path;       /* NULL: the card's facts are not recorded */
    double input_scale;          /* the triangle's inputs are drawn in +-input_scale (1) */
    double logits;               /* 0, or the largest logit (+L) the MSA weights are scaled to */
} cli_options;

typedef enum {
    CLI_RUN = 0,       /* options parsed; go on */
    CLI_DONE = 1,      /* --help was printed; exit 0 */
    CLI_ERROR = 2      /* message holds the reason; exit 2 */
} cli_status;

cli_status cli_parse(const cli_spec *spec, int argc, char **argv, cli_options *options,
                     char *message, size_t capacity);
void cli_print_usage(const cli_spec *spec, FILE *out);

/* Finds a kernel by name or by its 1-based number in the program's list.
 * Returns its index, or -1 with a message naming the choices. */
int cli_find_kernel(const char *wanted, const char *const *names, int count,
                    char *message, size_t capacity);

/* The most contenders one chapter program may race. */
#define CLI_MAX_KERNELS 32

/* The kernels a run races, from --list and --kernel. An unknown --kernel
 * prints why and returns 2, with --list or without; with --list, prints
 * "number name (chapter N)" for each kernel chosen, followed by where its
 * code is when wheres (may be NULL) gives it, and returns 0; otherwise
 * returns -1 (go on) with the range to run in [*first, *last]: one kernel,
 * or all of them. */
int cli_choose_kernels(const char *program, const cli_options *options,
                       const char *const *names, const int *chapters, const char *const *wheres,
                       int count, int *first, int *last);

/* Whether a kernel of chapter `kernel_chapter` runs in the program of
 * chapter `chapter`: every kernel does, or with --only-new only that
 * chapter's own. A kernel that does not run has no say over the sizes. */
int cli_runs_kernel(const cli_options *options, int kernel_chapter, int chapter);

/* The start every chapter program shares: parses the command line (a bad
 * one is explained on stderr), checks that --csv and --errors could be
 * written (common/harness/csv.h), then chooses the kernels as cli_choose_kernels
 * does. Returns -1 to go on, with *options and [*first, *last] set;
 * otherwise the exit status: 0 after --help or --list, 2 for a bad command
 * line, a destination that cannot be written or an unknown kernel. */
int cli_start(const cli_spec *spec, int argc, char **argv, const char *const *names,
              const int *chapters, const char *const *wheres, int count, cli_options *options,
              int *first, int *last);

/* Formats the sizes (and the choice, if the program has one) as the CSV's
 * shape column: "B=8 T=1024 C=768 NH=12", "B=1 S=512 N=256 D=256 H=8 mask=kept". */
void cli_format_shape(const cli_spec *spec, const cli_options *options, char *buffer,
                      size_t capacity);

#ifdef __cplusplus
}
#endif

#endif

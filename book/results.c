/* book/results.c - the measured results as the book and the README show
 * them: the tables (a short headline, and all of them) and the data gnuplot
 * draws the plots from, all read from the CSV files of plots/data.
 *
 * Built by book/book.mk (with book/csv_reader.c, card_reader.c, kernel_list.c, gpu_peaks.c).
 *
 *   results table headline  > headline.md   the champions and each chapter's best, default sizes
 *   results table all       > all.md        every kernel at every size
 *   results table summary   > summary.md    each chapter's best at every size, with the
 *                                           floors and the champions (the printed appendix)
 *   results plotdata --out DIR              what plots/NAME.gp reads, and the captions
 *   results check                           validates the CSV files
 *   options: --data DIR (plots/data) --kernels FILE (chapters/kernels.list)
 *
 * A table shows one card, and on it the newest row of each kernel and
 * shape: kernels in the order of the kernel list (the story's), shapes
 * smallest first. The cards come in the order headline_cards gives: each
 * card with a full headline, the newest first (after `make bench` on a
 * student's card, that card, then the H200 the book was measured on, for
 * comparison), then the others. The headline shows the cards with a full
 * headline (when none has one, the card with the most headline rows), the
 * table of all results every card; a plot draws the first card that can
 * draw it. A share
 * of peak is against the peak of the pipe the kernel runs on. An error
 * names its file and line and makes results exit with 1.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "card_reader.h"
#include "csv_reader.h"
#include "headline.h"
#include "markdown.h"
#include "kernel_list.h"

static result_set results;
static kernel_list kernels;

/* What the tables and plots call each problem (its default size is
 * headline_default_shape's). */
typedef struct {
    const char *name, *title, *champions; /* champions: as a plot's legend names them */
    const char *champions_prose;          /* and as a sentence does */
} problem_info;

static const problem_info problems[] = {
    {"trimul", "The triangle", "cuBLAS", "cuBLAS's calls"},
    {"msa", "MSA gated attention", "unfused/PyTorch", "the unfused layer and PyTorch"},
};

/* The headline table stays short: the rest is in the appendix. 12 rows hold
 * the triangle's four champions and the best of each of its seven chapters. */
#define HEADLINE_ROWS 12

static void die(const char *format, ...)
{
    va_list args;
    va_start(args, format);
    vfprintf(stderr, format, args);
    va_end(args);
    fputc('\n', stderr);
    exit(1);
}

static const kernel_entry *entry_of(const result_row *row)
{
    return &kernels.entries[row->kernel];
}

/* What a plot colours a kernel by: 1 a champion on the FP32 pipe (cuBLAS, the
 * unfused layer, PyTorch), 2 one on the tensor cores, 3 the book's FP32
 * kernels, 4 its tensor-core ones. */
static int kind_of(const result_row *row)
{
    kernel_role role = entry_of(row)->role;
    int champion = role == KERNEL_CHAMPION || role == KERNEL_TORCH;
    return (champion ? 1 : 3) + (entry_of(row)->pipe == GPU_PIPE_TENSOR);
}

/* The share of its pipe's peak, or -1 when that peak is not known. */
static double peak_share(const result_row *row)
{
    double peak = kernel_peak_gflops(entry_of(row), row->field[RESULT_GPU]);
    return peak > 0 ? 100.0 * row->gflops / peak : -1;
}

/* The first champion of a problem in the list: speedups are against it. */
static const char *baseline_of(const char *problem)
{
    for (int k = 0; k < kernels.count; k++)
        if (kernels.entries[k].role == KERNEL_CHAMPION && strcmp(kernels.entries[k].problem, problem) == 0)
            return kernels.entries[k].name;
    return "";
}

/* ------------------------------------------------------------ selecting rows */

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
static const char **cards_of(const char *problem, int *count, int *full)
{
    const char **cards;
    *count = headline_cards(&results, &kernels, problem, &cards, full);
    if (*count < 0)
        die("results: out of memory");
    return cards;
}

/* The rows of a problem on a card that a table or plot shows, by shape
 * then kernel. */
static selection select_rows(const char *problem, const char *gpu, row_filter filter)
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
static const result_row *at_same_shape(const selection *chosen, const char *kernel, int near)
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
static void format_dates(char *text, size_t capacity, const selection *chosen)
{
    const char *first = chosen->rows[0]->field[RESULT_DATE], *last = first;
    for (int k = 1; k < chosen->count; k++) {
        const char *date = chosen->rows[k]->field[RESULT_DATE];
        first = strcmp(date, first) < 0 ? date : first;
        last = strcmp(date, last) > 0 ? date : last;
    }
    snprintf(text, capacity, strcmp(first, last) ? "%s to %s" : "%s", first, last);
}

/* ------------------------------------------------------------ tables */

/* "NVIDIA H200, CUDA 13.0, measured 2025-01-02 (commits abc and def)." */
static void put_measured_on(FILE *out, const selection *chosen)
{
    const char *cuda = chosen->rows[0]->field[RESULT_CUDA], *seen[5];
    int commits = 0;
    for (int k = 0; k < chosen->count; k++) {
        const result_row *row = chosen->rows[k];
        cuda = strcmp(cuda, row->field[RESULT_CUDA]) ? "of several versions" : cuda;
        int known = 0;
        for (int i = 0; i < commits && i < 5; i++)
            known |= strcmp(seen[i], row->field[RESULT_COMMIT]) == 0;
        if (!known && commits++ < 5)
            seen[commits - 1] = row->field[RESULT_COMMIT];
    }
    char dates[64];
    format_dates(dates, sizeof dates, chosen);
    /* the card, CUDA version and commits are text from the CSV: Markdown-escaped */
    markdown_put(out, chosen->gpu);
    fprintf(out, ", CUDA ");
    markdown_put(out, cuda);
    fprintf(out, ", measured %s (%s", dates,
            commits == 1 ? "commit " : commits <= 4 ? "commits " : "");
    for (int i = 0; commits <= 4 && i < commits; i++) {
        fprintf(out, "%s", i == 0 ? "" : i == commits - 1 ? " and " : ", ");
        markdown_put(out, seen[i]);
    }
    if (commits > 4) /* 5 stands for "more than four" */
        fprintf(out, "more than four commits");
    fprintf(out, ").");
}

/* What each share of peak is against, on the card: once per card. */
static void put_peaks_note(FILE *out, const char *gpu)
{
    static const char *noted[16];
    static int noted_count;
    for (int k = 0; k < noted_count; k++)
        if (strcmp(noted[k], gpu) == 0)
            return;
    if (noted_count < 16)
        noted[noted_count++] = gpu;
    double fp32 = gpu_card_peak_gflops(gpu, GPU_PIPE_SIMT);
    char tensor[64] = "which is not known";
    if (gpu_card_peak_gflops(gpu, GPU_PIPE_TENSOR) > 0)
        snprintf(tensor, sizeof tensor, "%.1f TFLOP/s", gpu_card_peak_gflops(gpu, GPU_PIPE_TENSOR) / 1000);
    if (fp32 > 0) {
        fprintf(out, "Each share of peak is against the pipe its kernel runs on: FP32 kernels "
                "against the FP32 peak of the ");
        markdown_put(out, gpu);
        char source[256];
        fprintf(out, ", %.1f TFLOP/s, tensor-core kernels against its dense TF32 peak, %s; both "
                "derived from ", fp32 / 1000, tensor);
        markdown_put(out, card_reader_source(gpu, source, sizeof source));
        fprintf(out, ".\n\n");
    } else {
        fprintf(out, "The ");
        markdown_put(out, gpu);
        fprintf(out, " recorded no facts (`plots/data/cards/cards.csv`, which `make bench` "
                "writes) and has no data sheet in `common/device/gpu_peaks.c`, so no share of "
                "peak is shown.\n\n");
    }
}

/* One problem's table on one card (the place-th shown): a heading, where
 * and when its rows were measured, the rows; or a note that nothing is
 * measured yet. */
static void put_table(FILE *out, const problem_info *problem, int all, const char *gpu, int place)
{
    const char *baseline = baseline_of(problem->name);
    char shape[128], cell[5][32];
    headline_shape(&results, &kernels, problem->name, shape);
    selection chosen = select_rows(problem->name, gpu, (row_filter){all ? NULL : shape, !all, 0});
    if (place == 0)
        fprintf(out, all ? "\n**%s**, every kernel at every size. "
                         : "\n**%s** at %s, the champions and each chapter's best kernel. ",
                problem->title, shape);
    else
        fprintf(out, all ? "\n**%s**, every kernel at every size, on another card. "
                         : "\n**%s** at %s on another card, for comparison. ", problem->title, shape);
    if (chosen.count == 0) {
        fprintf(out, "*No measurement yet: `make bench` on a GPU writes `plots/data/%s.csv`.*\n\n",
                problem->name);
        free(chosen.rows);
        return;
    }
    int peaks = gpu_card_peak_gflops(chosen.gpu, GPU_PIPE_SIMT) > 0;
    int shown = all || chosen.count <= HEADLINE_ROWS ? chosen.count : HEADLINE_ROWS;
    put_measured_on(out, &chosen);
    fprintf(out, " Speedups are %s's median time over the kernel's, at the same size (>1 is "
            "faster).\n\n|%s Ch. | Kernel | Median ms |%s GFLOP/s |%s vs %s |\n"
            "|%s---:|:---|---:|%s---:|%s---:|\n", baseline, all ? " Shape |" : "",
            all ? " Min–max ms |" : "", peaks ? " % of peak |" : "", baseline, all ? ":---|" : "",
            all ? "---:|" : "", peaks ? "---:|" : "");
    for (int k = 0; k < shown; k++) {
        const result_row *row = chosen.rows[k], *base = at_same_shape(&chosen, baseline, k);
        double values[5] = {row->median_ms, row->min_ms, row->max_ms, row->gflops,
                            base ? base->median_ms / row->median_ms : 0};
        for (int c = 0; c < 5; c++)
            if (markdown_number(cell[c], sizeof cell[c], values[c]) != 0)
                die("%s:%d: a value computed from this row, %g, cannot be printed", row->file,
                    row->line, values[c]);
        fprintf(out, all ? "| %s | %d | %s | %s | %s–%s | %s |" : "|%.0s %d | %s | %s |%.0s%.0s %s |",
                row->field[RESULT_SHAPE], row->chapter, row->field[RESULT_KERNEL], cell[0],
                cell[1], cell[2], cell[3]);
        if (peaks && peak_share(row) >= 0)
            fprintf(out, " %.1f (%s) |", peak_share(row),
                    entry_of(row)->pipe == GPU_PIPE_TENSOR ? "TF32" : "FP32");
        else if (peaks)
            fprintf(out, " - |");
        fprintf(out, " %s%s |\n", base ? cell[4] : "-", base ? "x" : "");
    }
    if (shown < chosen.count)
        fprintf(out, "\n*And %d more in* All measured results.\n", chosen.count - shown);
    fputc('\n', out);
    put_peaks_note(out, chosen.gpu);
    free(chosen.rows);
}

/* A problem's tables: in the headline, one per card with a full headline
 * (or the best-measured card's alone, when none has one); in the table of
 * all results, one per card. */
static void put_tables(FILE *out, const problem_info *problem, int all)
{
    int count, full;
    const char **cards = cards_of(problem->name, &count, &full);
    int shown = all ? count : full > 0 ? full : count > 0;
    for (int c = 0; c < shown || c == 0; c++) /* no card: the note that nothing is measured */
        put_table(out, problem, all, cards[c], c);
    free(cards);
}

/* ------------------------------------------------------------ the summary */

/* The summary's columns: the floors, the fastest champion on each pipe, then
 * each chapter's fastest kernel (its steps and best, no replay, no road not
 * taken), so a page shows how the story went at every size. */
#define SUMMARY_CHAPTERS 16

/* The fastest of the rows of chosen at the shape of rows[first] (a run of
 * `count` rows) that pass the test, or NULL. */
static const result_row *fastest(const selection *chosen, int first, int count,
                                 int (*test)(const result_row *, int), int argument)
{
    const result_row *best = NULL;
    for (int k = first; k < first + count; k++)
        if (test(chosen->rows[k], argument) && (!best || chosen->rows[k]->median_ms < best->median_ms))
            best = chosen->rows[k];
    return best;
}

static int is_champion_on(const result_row *row, int pipe)
{
    kernel_role role = entry_of(row)->role;
    return (role == KERNEL_CHAMPION || role == KERNEL_TORCH) && (int)entry_of(row)->pipe == pipe;
}

static int is_of_chapter(const result_row *row, int chapter)
{
    kernel_role role = entry_of(row)->role;
    return (role == KERNEL_STEP || role == KERNEL_BEST) && row->chapter == chapter;
}

/* A shape's sizes that every shape of the table shares ("B=8", "C=768") go
 * to the caption; the cell keeps the rest. Whether word (one "KEY=VALUE")
 * is in every shape: */
static int in_every_shape(const selection *chosen, const char *word, size_t length)
{
    for (int k = 0; k < chosen->count; k++) {
        const char *shape = chosen->rows[k]->field[RESULT_SHAPE], *at = shape;
        int found = 0;
        while (!found && (at = strstr(at, word)) != NULL) {
            found = (at == shape || at[-1] == ' ') && (at[length] == ' ' || at[length] == '\0');
            at += length;
        }
        if (!found)
            return 0;
    }
    return 1;
}

/* The words of shape that every shape shares (shared 1) or not (0), to out
 * when it is not NULL; returns how many. */
static int put_shape_words(FILE *out, const selection *chosen, const char *shape, int shared)
{
    int count = 0;
    for (const char *word = shape; *word;) {
        size_t length = strcspn(word, " ");
        char piece[64];
        snprintf(piece, sizeof piece, "%.*s", (int)length, word);
        if (in_every_shape(chosen, piece, length) == shared) {
            if (out)
                fprintf(out, "%s%s", count ? " " : "", piece);
            count++;
        }
        word += length + (word[length] == ' ');
    }
    return count;
}

static void put_ms(FILE *out, const result_row *row, double ms)
{
    char cell[32];
    if (ms <= 0) {
        fprintf(out, " - |");
        return;
    }
    if (markdown_number(cell, sizeof cell, ms) != 0)
        die("%s:%d: a time computed from this row, %g, cannot be printed", row->file, row->line, ms);
    fprintf(out, " %s |", cell);
}

/* One problem's summary on one card: a row per shape (the story's rows:
 * every key kept where the mask is named), its floors, its champions and
 * each chapter's best. */
static void put_summary(FILE *out, const problem_info *problem, const char *gpu, int place)
{
    selection chosen = select_rows(problem->name, gpu, (row_filter){NULL, 0, 1});
    fprintf(out, "\n**%s**%s, the fastest kernel of each chapter at every size measured. ",
            problem->title, place ? " on another card" : "");
    if (chosen.count == 0) {
        fprintf(out, "*No measurement yet: `make bench` on a GPU writes `plots/data/%s.csv`.*\n\n",
                problem->name);
        free(chosen.rows);
        return;
    }
    int chapters[SUMMARY_CHAPTERS], chapter_count = 0;
    for (int k = 0; k < kernels.count; k++) {
        const kernel_entry *entry = &kernels.entries[k];
        int seen = 0;
        if (strcmp(entry->problem, problem->name) != 0 ||
            (entry->role != KERNEL_STEP && entry->role != KERNEL_BEST))
            continue;
        for (int c = 0; c < chapter_count; c++)
            seen |= chapters[c] == entry->chapter;
        if (!seen && chapter_count < SUMMARY_CHAPTERS)
            chapters[chapter_count++] = entry->chapter;
    }
    double fp32 = gpu_card_peak_gflops(gpu, GPU_PIPE_SIMT), tf32 = gpu_card_peak_gflops(gpu, GPU_PIPE_TENSOR);
    double bandwidth = gpu_card_memory_gbps(gpu);
    int floors = fp32 > 0 && tf32 > 0 && bandwidth > 0;
    put_measured_on(out, &chosen);
    fprintf(out, " Median ms");
    if (put_shape_words(NULL, &chosen, chosen.rows[0]->field[RESULT_SHAPE], 1) > 0) {
        fprintf(out, ". Every shape here has ");
        put_shape_words(out, &chosen, chosen.rows[0]->field[RESULT_SHAPE], 1);
    }
    fprintf(out, "%s", floors ? "; a floor is the larger of the time the card's peak needs for "
                                "the dense work on that pipe and the time its memory needs for "
                                "the compulsory traffic" : "");
    fprintf(out, ". Every kernel at every size is in the HTML edition's appendix and in "
            "`plots/data/%s.csv`. The champions are %s.\n\n| Shape |%s Champion FP32 | "
            "Champion TF32 |", problem->name, problem->champions_prose, floors ? " FP32 floor | TF32 floor |" : "");
    for (int c = 0; c < chapter_count; c++)
        fprintf(out, " Ch. %d |", chapters[c]);
    fprintf(out, "\n|:---|%s---:|---:|", floors ? "---:|---:|" : "");
    for (int c = 0; c < chapter_count; c++)
        fprintf(out, "---:|");
    fputc('\n', out);
    for (int first = 0, count; first < chosen.count; first += count) {
        const result_row *row = chosen.rows[first];
        for (count = 1; first + count < chosen.count &&
                        strcmp(chosen.rows[first + count]->field[RESULT_SHAPE], row->field[RESULT_SHAPE]) == 0;
             count++)
            ;
        fprintf(out, "| ");
        put_shape_words(out, &chosen, row->field[RESULT_SHAPE], 0);
        fprintf(out, " |");
        if (floors) {
            /* the dense work and the compulsory bytes, from the row's own rates */
            double gflop = row->gflops * row->median_ms / 1000, gigabytes = row->gbps * row->median_ms / 1000;
            double memory_ms = 1000 * gigabytes / bandwidth;
            put_ms(out, row, fmax(1000 * gflop / fp32, memory_ms));
            put_ms(out, row, fmax(1000 * gflop / tf32, memory_ms));
        }
        for (int pipe = GPU_PIPE_SIMT; pipe <= GPU_PIPE_TENSOR; pipe++) {
            const result_row *best = fastest(&chosen, first, count, is_champion_on, pipe);
            put_ms(out, row, best ? best->median_ms : 0);
        }
        for (int c = 0; c < chapter_count; c++) {
            const result_row *best = fastest(&chosen, first, count, is_of_chapter, chapters[c]);
            put_ms(out, row, best ? best->median_ms : 0);
        }
        fputc('\n', out);
    }
    fputc('\n', out);
    free(chosen.rows);
}

/* A problem's summaries: one per card with a full headline (or the
 * best-measured card's alone), as the headline shows them. */
static void put_summaries(FILE *out, const problem_info *problem)
{
    int count, full;
    const char **cards = cards_of(problem->name, &count, &full);
    int shown = full > 0 ? full : count > 0;
    for (int c = 0; c < shown || c == 0; c++)
        put_summary(out, problem, cards[c], c);
    free(cards);
}

/* ------------------------------------------------------------ plot data */

static FILE *open_output(const char *dir, const char *name, const char *suffix)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s%s", dir, name, suffix);
    FILE *file = fopen(path, "w");
    if (!file)
        die("%s: cannot write: %s", path, strerror(errno));
    return file;
}

/* The race charts of a problem: race-chapterN for each chapter N that has a
 * kernel of this problem (the closing chapter, book/closing.md, has none: it
 * shows the whole progress instead). A chapter's chart
 * shows the kernels of chapters 1 to N only, never one the reader has not
 * met yet. It is drawn at the default size when a kernel of chapter N was
 * measured there, else at the size with the most rows of chapters 1 to N
 * among those where one of chapter N's was (the larger on a tie); a kernel
 * of chapter N means one of its story (step or best) when it has one, so
 * that chapter 6's chart shows its fused kernel and not only its champions. Each gets
 * DIR/race-chapterN.vars.gp (problem, upto = N, race_shape, tensor_met: 1
 * once a chapter's own kernel up to N runs on the tensor cores, so that the
 * TF32 floor is drawn) and a line in the index; plots/race.gp draws it.
 * Sets drawn[N] for each chapter N drawn (drawn has room for chapters 0 to
 * KERNEL_LIST_MAX_CHAPTER). */
static void write_races(const char *dir, FILE *index, const problem_info *problem,
                        const selection *chosen, const char *default_shape, int *drawn)
{
    int last_chapter = 0;
    for (int k = 0; k < kernels.count; k++)
        if (kernels.entries[k].chapter > last_chapter)
            last_chapter = kernels.entries[k].chapter;
    for (int n = 1; n <= last_chapter; n++) {
        int tensor_met = 0, own = 0, own_story = 0;
        for (int k = 0; k < kernels.count; k++) {
            const kernel_entry *entry = &kernels.entries[k];
            int story = entry->role == KERNEL_STEP || entry->role == KERNEL_BEST;
            if (strcmp(entry->problem, problem->name) != 0 || entry->chapter > n || entry->role == KERNEL_TRIED)
                continue;
            own |= entry->chapter == n;
            own_story |= entry->chapter == n && story;
            tensor_met |= story && entry->pipe == GPU_PIPE_TENSOR;
        }
        if (!own)
            continue;
        const char *best = NULL;
        int best_count = 0;
        for (int k = 0, first = 0; k <= chosen->count; k++) { /* a run of rows per shape */
            if (k < chosen->count && strcmp(chosen->rows[k]->field[RESULT_SHAPE],
                                            chosen->rows[first]->field[RESULT_SHAPE]) == 0)
                continue;
            int count = 0, mine = 0;
            for (int r = first; r < k; r++) {
                count += entry_of(chosen->rows[r])->chapter <= n;
                kernel_role role = entry_of(chosen->rows[r])->role;
                mine |= entry_of(chosen->rows[r])->chapter == n &&
                        (!own_story || role == KERNEL_STEP || role == KERNEL_BEST);
            }
            const char *shape_r = chosen->rows[first]->field[RESULT_SHAPE];
            int is_default = strcmp(shape_r, default_shape) == 0;
            if (mine && (is_default || !best || (strcmp(best, default_shape) != 0 && count >= best_count)))
                best = shape_r, best_count = count;
            first = k;
        }
        if (!best)
            continue;
        char name[32];
        snprintf(name, sizeof name, "race-chapter%d", n);
        FILE *vars = open_output(dir, name, ".vars.gp");
        fprintf(vars, "problem = '%s'\nupto = %d\nrace_shape = '%s'\ntensor_met = %d\n", problem->name, n,
                best, tensor_met);
        fclose(vars);
        fprintf(index, "%s\n", name);
        drawn[n] = 1;
    }
}

/* What the plots of a problem draw from, in DIR: PROBLEM.dat, a line per row
 * of the story (no tried kernel, no replay, no drawn or padded mask), by
 * shape (smallest first) then in story order: its place among its shape's
 * rows, kernel, the shape's second size (T), median, min and max ms, kind
 * (kind_of), role (kernel_list.h's), share of its pipe's peak (NaN: not
 * known), the shape's place among the shapes, the shape, GFLOP/s and GB/s
 * (from which a plot computes the floors) and the chapter that introduces
 * the kernel (a chapter's race chart draws none of a later one);
 * PROBLEM.vars.gp, the card, the
 * dates and the problem's facts; and in the index, the plots these rows can
 * draw (plots/draw.sh draws those): race-chapterN (write_races),
 * progress-PROBLEM (its default size),
 * peak (the triangle's shares of the FP32 peak) and sweep-chapterN (its
 * times over T), msa-chapterN (a panel per MSA size that three kernels or
 * more were measured at). */
static void write_card_plot_data(const char *dir, FILE *index, const problem_info *problem,
                                 const char *gpu)
{
    char shape[128], dates[64];
    selection chosen = select_rows(problem->name, gpu, (row_filter){NULL, 0, 1});
    if (chosen.count == 0) {
        free(chosen.rows);
        return;
    }
    headline_shape(&results, &kernels, problem->name, shape);
    FILE *data = open_output(dir, problem->name, ".dat");
    int at_default = 0, shapes = 0, panels = 0, run = 0;
    for (int k = 0, first = 0; k < chosen.count; k++) {
        const result_row *row = chosen.rows[k];
        const char *shape_k = row->field[RESULT_SHAPE], *size = strchr(shape_k, ' ');
        if (k > 0 && strcmp(shape_k, chosen.rows[k - 1]->field[RESULT_SHAPE]) != 0)
            shapes++, first = k;
        run = k == first ? 1 : run + 1;
        panels += run == 3;
        at_default += strcmp(shape_k, shape) == 0;
        fprintf(data, "%d \"%s\" %ld %.6g %.6g %.6g %d %d %.4f %d \"%s\" %.6g %.6g %d\n", k - first,
                row->field[RESULT_KERNEL], size ? atol(strchr(size, '=') + 1) : 0, row->median_ms,
                row->min_ms, row->max_ms, kind_of(row), (int)entry_of(row)->role,
                peak_share(row) >= 0 ? peak_share(row) : NAN, shapes, shape_k, row->gflops, row->gbps,
                entry_of(row)->chapter);
    }
    fclose(data);
    FILE *vars = open_output(dir, problem->name, ".vars.gp");
    format_dates(dates, sizeof dates, &chosen);
    fprintf(vars, "gpu = '");
    for (const char *c = chosen.gpu; *c; c++) /* a gnuplot '' string: a quote is doubled */
        fputs(*c == '\'' ? "''" : (char[]){*c, '\0'}, vars);
    char memory_tbs[32] = "NaN"; /* the card's memory bandwidth, NaN when not known */
    if (gpu_card_memory_gbps(chosen.gpu) > 0)
        snprintf(memory_tbs, sizeof memory_tbs, "%.3f", gpu_card_memory_gbps(chosen.gpu) / 1000);
    /* where the peaks and the bandwidth come from, for the captions */
    const gpu_card *card = gpu_card_find(chosen.gpu);
    const char *peaks_from = !card ? "" : card->reported ? "what CUDA reports on the card"
                                                         : "the card's data sheet";
    fprintf(vars, "'\ndate = '%s'\nshape = '%s'\ntitle = '%s'\nchampions = '%s'\nfp32_tflops = "
            "%.1f\ntensor_tflops = %.1f\nmemory_tbs = %s\npeaks_from = \"%s\"\n", dates, shape,
            problem->title, problem->champions, gpu_card_peak_gflops(chosen.gpu, GPU_PIPE_SIMT) / 1000,
            gpu_card_peak_gflops(chosen.gpu, GPU_PIPE_TENSOR) / 1000, memory_tbs, peaks_from);
    fclose(vars);
    int is_trimul = strcmp(problem->name, "trimul") == 0;
    /* the plots over every size, sweep and msa, one for each chapter with a
     * race chart: named NAME-chapterN, they show the kernels of chapters 1
     * to N only (plots/style.gp reads N from the name); a chapter places the
     * one it discusses, and the appendix leaves the others out */
    int drawn[KERNEL_LIST_MAX_CHAPTER + 1] = {0};
    write_races(dir, index, problem, &chosen, shape, drawn);
    fprintf(index, at_default ? "progress-%s\n" : "", problem->name);
    int peaks = gpu_card_peak_gflops(chosen.gpu, GPU_PIPE_SIMT) > 0;
    fputs(is_trimul && at_default && peaks ? "peak\n" : "", index);
    for (int n = 1; n <= KERNEL_LIST_MAX_CHAPTER; n++)
        if (drawn[n])
            fprintf(index, is_trimul && shapes > 0 ? "sweep-chapter%d\n" : !is_trimul && panels ? "msa-chapter%d\n" : "", n);
    free(chosen.rows);
}

/* A plot's place in the index: the races by chapter, the closing chapter's
 * progress, the peak plot, then the plots over every size by chapter. */
static long plot_rank(const char *name)
{
    const char *chapter = strstr(name, "-chapter");
    long n = chapter ? atol(chapter + 8) : 0;
    return strncmp(name, "race-", 5) == 0 ? n : strncmp(name, "progress-", 9) == 0 ? 1000
           : strcmp(name, "peak") == 0                                              ? 2000
                                                                                    : 3000 + n;
}

typedef struct {
    char name[64];
    int card;
} plot_choice;

static int by_plot_rank(const void *a, const void *b)
{
    long x = plot_rank(((const plot_choice *)a)->name), y = plot_rank(((const plot_choice *)b)->name);
    return x < y ? -1 : x > y;
}

/* What a problem's plots draw from. Each plot is drawn from the first card,
 * in the book's order (headline_cards: the student's card after `make
 * bench`), whose rows can draw it; a plot that card cannot draw (a T4 runs
 * no chapter 8 kernel, an RTX 4090 no chapter 10 one) is drawn from the
 * next card that can, the reference card, and says so in its caption.
 * The first card's files go into DIR, the K-th's into DIR/PROBLEM-cardK/;
 * a line of the index is NAME, or NAME and that folder, and a plot drawn
 * from another card than the first has DIR/PROBLEM-cardK/NAME.note, the
 * sentence its caption ends with. */
static void write_plot_data(const char *dir, FILE *index, const problem_info *problem)
{
    int count, full;
    const char **cards = cards_of(problem->name, &count, &full);
    if (count == 0) {
        fprintf(stderr, "results: no %s rows; its plots are left out\n", problem->name);
        free(cards);
        return;
    }
    plot_choice choices[4 * (KERNEL_LIST_MAX_CHAPTER + 2)];
    int chosen = 0;
    for (int c = 0; c < count; c++) {
        char card_dir[4096], *names = NULL, line[64];
        size_t size = 0;
        snprintf(card_dir, sizeof card_dir, c ? "%s/%s-card%d" : "%s", dir, problem->name, c);
        if (c && mkdir(card_dir, 0777) != 0 && errno != EEXIST)
            die("%s: cannot make the folder: %s", card_dir, strerror(errno));
        FILE *card_index = open_memstream(&names, &size);
        if (!card_index)
            die("results: out of memory");
        write_card_plot_data(card_dir, card_index, problem, cards[c]);
        fclose(card_index);
        FILE *lines = fmemopen(names, size ? size : 1, "r");
        while (size && lines && fscanf(lines, "%63s", line) == 1) {
            int known = 0;
            for (int k = 0; k < chosen; k++)
                known |= strcmp(choices[k].name, line) == 0;
            if (known || chosen == (int)(sizeof choices / sizeof choices[0]))
                continue;
            snprintf(choices[chosen].name, sizeof choices[chosen].name, "%s", line);
            choices[chosen++].card = c;
            if (c) {
                FILE *note = open_output(card_dir, line, ".note");
                fprintf(note, "Drawn from the %s's measurements: the %s, whose numbers this book "
                        "shows first, has none this plot can show.\n", cards[c], cards[0]);
                fclose(note);
            }
        }
        if (lines)
            fclose(lines);
        free(names);
    }
    qsort(choices, (size_t)chosen, sizeof *choices, by_plot_rank);
    for (int k = 0; k < chosen; k++)
        if (choices[k].card)
            fprintf(index, "%s %s-card%d\n", choices[k].name, problem->name, choices[k].card);
        else
            fprintf(index, "%s\n", choices[k].name);
    free(cards); /* after the notes: the names are the rows' own */
}

/* ------------------------------------------------------------ main */

int main(int argc, char **argv)
{
    const char *data_dir = "plots/data", *kernels_path = "chapters/kernels.list", *out_dir = NULL;
    const char *command = NULL, *which = NULL; /* "table all", "plotdata", ... */
    for (int k = 1; k < argc; k++) {
        const char **option = strcmp(argv[k], "--data") == 0      ? &data_dir
                              : strcmp(argv[k], "--kernels") == 0 ? &kernels_path
                              : strcmp(argv[k], "--out") == 0     ? &out_dir
                                                                  : NULL;
        if (option && k + 1 < argc)
            *option = argv[++k];
        else if (!option && !which && argv[k][0] != '-')
            *(command ? &which : &command) = argv[k];
        else
            command = "";
    }
    command = command ? command : "";
    int is_table = strcmp(command, "table") == 0;
    int is_summary = is_table && which && strcmp(which, "summary") == 0;
    if (is_table ? !which || (strcmp(which, "headline") != 0 && strcmp(which, "all") != 0 && !is_summary)
                 : which || (strcmp(command, "plotdata") == 0) != (out_dir != NULL) ||
                       (strcmp(command, "plotdata") != 0 && strcmp(command, "check") != 0)) {
        fprintf(stderr, "usage: results table headline|all|summary | plotdata --out DIR | check, with "
                "--data DIR --kernels FILE (see book/results.c)\n");
        return 2;
    }

    char error[2048];
    if (kernel_list_read(kernels_path, &kernels, error, sizeof error) != 0 ||
        csv_reader_folder(data_dir, &kernels, &results, error, sizeof error) != 0)
        die("%s", error);
    if (strcmp(command, "check") == 0) {
        printf("%s: %d rows in %d files, all well formed\n", data_dir, results.count,
               results.file_count);
    } else if (out_dir) {
        FILE *index = open_output(out_dir, "index", "");
        for (size_t k = 0; k < sizeof problems / sizeof problems[0]; k++)
            write_plot_data(out_dir, index, &problems[k]);
        fclose(index);
    } else { /* an error midway stops it: book/build.sh and readme.sh then keep nothing */
        for (size_t k = 0; k < sizeof problems / sizeof problems[0]; k++)
            if (is_summary)
                put_summaries(stdout, &problems[k]);
            else
                put_tables(stdout, &problems[k], strcmp(which, "all") == 0);
        if (!is_summary)
            printf("GFLOP/s count the work the layer defines, whatever a kernel skips or adds: the "
                   "products of the causal triangle (key j up to query i), and every key of the MSA "
                   "layer, masked or not.\n");
    }
    return ferror(stdout) || fflush(stdout) != 0 ? 1 : 0;
}

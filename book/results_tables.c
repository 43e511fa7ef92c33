/* results_tables.c - the results tables: the headline, all results, and the
 * printed summary. See results.h. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "results.h"

#include "headline.h"
#include "markdown.h"
#include "card_reader.h"

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
    char shape[128], cell[5][32];
    headline_shape(&results, &kernels, problem->name, shape);
    selection chosen = select_rows(problem->name, gpu, (row_filter){all ? NULL : shape, !all, 0});
    const char *baseline = strongest_champion(&chosen, problem->name, shape);
    /* the caption, a lead-in that book.css keeps on the table's page */
    fputs("\n::: lead-in", out);
    if (place == 0)
        fprintf(out, all ? "\n**%s**, every kernel at every size. "
                         : "\n**%s** at %s, the champions and each chapter's best kernel. ",
                problem->title, shape);
    else
        fprintf(out, all ? "\n**%s**, every kernel at every size, on another card. "
                         : "\n**%s** at %s on another card, for comparison. ", problem->title, shape);
    if (chosen.count == 0) {
        fprintf(out, "*No measurement yet: `make bench` on a GPU writes `plots/data/%s.csv`.*\n:::\n\n",
                problem->name);
        free(chosen.rows);
        return;
    }
    int peaks = gpu_card_peak_gflops(chosen.gpu, GPU_PIPE_SIMT) > 0;
    int shown = all || chosen.count <= HEADLINE_ROWS ? chosen.count : HEADLINE_ROWS;
    put_measured_on(out, &chosen);
    fprintf(out, " Speedups are %s's median time over the kernel's, at the same size (>1 is "
            "faster).\n:::\n\n|%s Ch. | Kernel | Median ms |%s GFLOP/s |%s vs %s |\n"
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
void put_tables(FILE *out, const problem_info *problem, int all)
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
void put_summaries(FILE *out, const problem_info *problem)
{
    int count, full;
    const char **cards = cards_of(problem->name, &count, &full);
    int shown = full > 0 ? full : count > 0;
    for (int c = 0; c < shown || c == 0; c++)
        put_summary(out, problem, cards[c], c);
    free(cards);
}


/* plot_data.c - what plots/NAME.gp draws from: the rows of each plot, by
 * card and kernel, and the captions. See results.h. */
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

FILE *open_output(const char *dir, const char *name, const char *suffix)
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
void write_plot_data(const char *dir, FILE *index, const problem_info *problem)
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


/* placeholders.c - the weaver's placeholder engine. See placeholders.h. */
#include "placeholders.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accuracy_reader.h"
#include "card_reader.h"
#include "csv_reader.h"
#include "headline.h"
#include "markdown.h"
#include "nsight_reader.h"
#include "shape_count.h"
#include "weave.h"

static result_set results;
static accuracy_set accuracy;
static nsight_set nsight;
static kernel_list kernels;

int placeholders_read(const char *kernels_path, const char *data_dir, char *error, size_t capacity)
{
    results.dir = data_dir;
    return kernel_list_read(kernels_path, &kernels, error, capacity) ||
                   csv_reader_folder(data_dir, &kernels, &results, error, capacity) ||
                   accuracy_read(data_dir, &accuracy, error, capacity) ||
                   nsight_read(data_dir, &nsight, error, capacity)
               ? -1
               : 0;
}

/* The cards that measured a problem, in the order the book shows them
 * (headline_cards: the newest card measured in full first); read once. */
static const char *const *cards_of(const char *problem)
{
    static struct {
        const char *problem;
        const char **cards;
    } known[4];
    int k = 0, full;
    while (k < 4 && known[k].problem && strcmp(known[k].problem, problem) != 0)
        k++;
    if (k == 4)
        die_at("weave", 0, "more problems than the weaver keeps cards for");
    if (!known[k].problem && headline_cards(&results, &kernels, problem, &known[k].cards, &full) < 0)
        die_at("weave", 0, "out of memory");
    known[k].problem = problem;
    return known[k].cards;
}

/* The race's baseline at shape on card: the fastest champion (PyTorch's
 * too) of problem with a row there, the rule the tables and the race charts
 * follow (book/results_rows.c, plots/race.gp); NULL when none has one. So
 * {{speedup|KERNEL|champion|SHAPE}} is against the baseline the chart
 * beside it draws, on whatever card the book shows, and {{champion|KERNEL|
 * SHAPE}} names it. */
static const result_row *fastest_champion(const char *problem, const char *shape, const char *card)
{
    const result_row *best = NULL;
    for (int k = 0; k < kernels.count; k++) {
        const kernel_entry *entry = &kernels.entries[k];
        if ((entry->role != KERNEL_CHAMPION && entry->role != KERNEL_TORCH) ||
            strcmp(entry->problem, problem) != 0)
            continue;
        const result_row *row = csv_reader_newest(&results, entry->name, shape, card);
        if (row && (!best || row->median_ms < best->median_ms))
            best = row;
    }
    return best;
}

/* A measured number that comes from another card than the one the book
 * shows (that card lacks the row, or the baseline's, or the peak) says so
 * in a footnote: the reader of a book measured on a Tesla T4 learns that a
 * tensor-core kernel's time is the H200's. */
static void put_other_card_note(FILE *out, const result_row *row, const char *book_card,
                                const char *kernel, const char *baseline, const char *shape,
                                const char *lacks)
{
    const char *missing = kernel; /* what the book's card lacks */
    if (baseline && csv_reader_newest(&results, kernel, shape, book_card))
        missing = strcmp(baseline, "champion") == 0 ? "any champion" : baseline;
    fputs("^[Measured on the ", out);
    markdown_put(out, row->field[RESULT_GPU]);
    fputs("; the ", out);
    markdown_put(out, book_card);
    fputs(", whose numbers this book shows, ", out);
    if (lacks && csv_reader_newest(&results, kernel, shape, book_card)) {
        fprintf(out, "has no %s.]", lacks);
    } else {
        fputs("has no row of ", out);
        markdown_put(out, missing);
        fputs(" at ", out);
        markdown_put(out, shape);
        fputs(".]", out);
    }
}

/* The facts of a card the prose may quote, each from common/device/
 * gpu_peaks.c (derived from the card's SMs, clock and capability; the
 * memory bandwidth from its data sheet): {{FACT|KERNEL|SHAPE}} gives the
 * fact of the card whose row of KERNEL at SHAPE the book shows, so that a
 * sentence of analysis is the student's card's after `make bench`. A
 * floor is the time that row's work (its GFLOP/s times its time) or its
 * compulsory bytes take at the card's peak; the balance, the FP32 operations
 * per byte of memory traffic the card needs to keep its FP32 lanes busy;
 * larger_floor, which of the FP32 and memory floors is the larger ("the
 * arithmetic" or "the memory traffic": 1 or 2); memory_pct, the row's
 * compulsory traffic as a percentage of the card's bandwidth; the shared
 * memory a block may opt in to; card_source, where the card's facts come
 * from (book/card_reader.h: what CUDA reported on it, or its data sheet);
 * card_sfu_tops, the special-function unit's results per second (10^12).
 * A part of the work has its count written as a formula of the shape's
 * sizes (book/shape_count.h): part_ms, the time that count takes on one
 * pipe of the card (operations at the FP32 or dense TF32 peak, results at
 * the special-function unit's rate, bytes at the memory bandwidth), so
 * that no sentence types a floor of the projections alone or of an
 * intermediate's traffic; count and count_giga print the count itself.
 * 0: not known on that card. */
typedef enum { FACT_NONE, FACT_FP32_TFLOPS, FACT_TF32_TFLOPS, FACT_MEMORY_TBS, FACT_SMS,
               FACT_FP32_LANES, FACT_CLOCK_GHZ, FACT_BALANCE, FACT_FLOOR_FP32_MS,
               FACT_FLOOR_TF32_MS, FACT_FLOOR_MEMORY_MS, FACT_LARGER_FLOOR, FACT_MEMORY_PCT,
               FACT_SHARED_KB, FACT_SOURCE, FACT_WORK_GFLOP, FACT_SFU_TOPS, FACT_PART_MS,
               FACT_COUNT, FACT_COUNT_GIGA } card_fact;
static const struct {
    const char *name, *lacks; /* lacks: what a card the fact is not known on has no */
} card_facts[] = {
    [FACT_FP32_TFLOPS] = {"card_fp32_tflops", "known FP32 peak"},
    [FACT_TF32_TFLOPS] = {"card_tf32_tflops", "known dense TF32 peak"},
    [FACT_MEMORY_TBS] = {"card_memory_tbs", "known memory bandwidth"},
    [FACT_SMS] = {"card_sms", "known SM count"},
    [FACT_FP32_LANES] = {"card_fp32_lanes", "known FP32 lanes per SM"},
    [FACT_CLOCK_GHZ] = {"card_clock_ghz", "known boost clock"},
    [FACT_BALANCE] = {"card_balance", "known FP32 peak and memory bandwidth"},
    [FACT_FLOOR_FP32_MS] = {"floor_fp32_ms", "known FP32 peak"},
    [FACT_FLOOR_TF32_MS] = {"floor_tf32_ms", "known dense TF32 peak"},
    [FACT_FLOOR_MEMORY_MS] = {"floor_memory_ms", "known memory bandwidth"},
    [FACT_LARGER_FLOOR] = {"larger_floor", "known FP32 peak and memory bandwidth"},
    [FACT_MEMORY_PCT] = {"memory_pct", "known memory bandwidth"},
    [FACT_SHARED_KB] = {"card_shared_kb", "known shared memory per block"},
    [FACT_SOURCE] = {"card_source", "known facts"},
    [FACT_WORK_GFLOP] = {"work_gflop", "known facts"},
    [FACT_SFU_TOPS] = {"card_sfu_tops", "known SM count and clock"},
    [FACT_PART_MS] = {"part_ms", NULL}, /* what it lacks: the pipe's (part_pipes) */
    [FACT_COUNT] = {"count", "known facts"},
    [FACT_COUNT_GIGA] = {"count_giga", "known facts"},
};

/* The pipes of {{part_ms|PIPE|COUNT|KERNEL|SHAPE}}: what the count is of,
 * and what a card where that rate is not known lacks. */
typedef enum { PART_FP32, PART_TF32, PART_SFU, PART_MEMORY, PART_PIPES } part_pipe;
static const struct {
    const char *name, *lacks;
} part_pipes[PART_PIPES] = {
    [PART_FP32] = {"fp32", "known FP32 peak"},
    [PART_TF32] = {"tf32", "known dense TF32 peak"},
    [PART_SFU] = {"sfu", "known SM count and clock"},
    [PART_MEMORY] = {"memory", "known memory bandwidth"},
};

/* A part of the work: its count and, for part_ms, the pipe that does it. */
typedef struct {
    part_pipe pipe;
    double count;
} work_part;

static card_fact card_fact_named(const char *name)
{
    for (int k = 1; k < (int)(sizeof card_facts / sizeof card_facts[0]); k++)
        if (strcmp(name, card_facts[k].name) == 0)
            return (card_fact)k;
    return FACT_NONE;
}

/* The fact on the card of `row` (row's work for a floor, part's count for
 * part_ms); 0 when not known. */
static double card_fact_value(card_fact fact, const result_row *row, const work_part *part)
{
    const char *gpu = row->field[RESULT_GPU];
    const gpu_card *card = gpu_card_find(gpu);
    double fp32 = gpu_card_peak_gflops(gpu, GPU_PIPE_SIMT), tf32 = gpu_card_peak_gflops(gpu, GPU_PIPE_TENSOR);
    double memory = gpu_card_memory_gbps(gpu), work = row->gflops * row->median_ms; /* MFLOP */
    double bytes = row->gbps * row->median_ms;                                          /* MB */
    double sfu = card ? card->sm_count * (double)gpu_sfu_per_sm_per_clock(card->major, card->minor) *
                            card->clock_mhz * 1e6
                      : 0; /* results per second */
    double part_rate = !part ? 0 /* per millisecond: operations, results or bytes */
                       : part->pipe == PART_FP32 ? fp32 * 1e6
                       : part->pipe == PART_TF32 ? tf32 * 1e6
                       : part->pipe == PART_SFU  ? sfu / 1e3
                                                 : memory * 1e6;
    switch (fact) {
    case FACT_FP32_TFLOPS: return fp32 / 1000;
    case FACT_TF32_TFLOPS: return tf32 / 1000;
    case FACT_MEMORY_TBS: return memory / 1000;
    case FACT_SMS: return card ? card->sm_count : 0;
    case FACT_FP32_LANES: return card ? gpu_fp32_lanes_per_sm(card->major, card->minor) : 0;
    case FACT_CLOCK_GHZ: return card ? card->clock_mhz / 1000 : 0;
    case FACT_BALANCE: return fp32 > 0 && memory > 0 ? fp32 / memory : 0;
    case FACT_FLOOR_FP32_MS: return fp32 > 0 ? work / fp32 : 0;
    case FACT_FLOOR_TF32_MS: return tf32 > 0 ? work / tf32 : 0;
    case FACT_FLOOR_MEMORY_MS: return memory > 0 && bytes > 0 ? bytes / memory : 0;
    case FACT_LARGER_FLOOR:
        return fp32 > 0 && memory > 0 && bytes > 0 ? (work / fp32 >= bytes / memory ? 1 : 2) : 0;
    case FACT_MEMORY_PCT: return memory > 0 && row->gbps > 0 ? 100 * row->gbps / memory : 0;
    case FACT_SHARED_KB:
        return card ? (double)gpu_shared_per_block_optin(card->major, card->minor) / 1024 : 0;
    case FACT_SOURCE: return card ? 1 : 0;
    case FACT_WORK_GFLOP: return work / 1000; /* the row's dense work: its GFLOP/s times its time */
    case FACT_SFU_TOPS: return sfu / 1e12;
    case FACT_PART_MS: return part_rate > 0 ? part->count / part_rate : 0;
    case FACT_COUNT: return part->count;
    case FACT_COUNT_GIGA: return part->count / 1e9;
    default: return 0;
    }
}

/* Fills one placeholder, the text between {{ and }}, into out. */
static void fill_placeholder(FILE *out, const char *inside, const char *path, int line)
{
    char *copy = copy_of(inside, strlen(inside)), *part[6], *p = copy;
    int count = 0, column = -1;
    while (p && count < 6) {
        part[count++] = p;
        if ((p = strchr(p, '|')) != NULL)
            *p++ = '\0';
    }
    count += p != NULL; /* more parts than any placeholder has */
    /* a last part card=NAME pins the card: one whose name holds NAME (a
     * sentence that compares two cards), never another one */
    const char *pinned = count > 1 && count <= 6 && strncmp(part[count - 1], "card=", 5) == 0
                             ? part[--count] + 5
                             : NULL;
    int is_speedup = strcmp(part[0], "speedup") == 0, is_peak = strcmp(part[0], "peak_pct") == 0;
    int is_champion = strcmp(part[0], "champion") == 0; /* the baseline's name */
    card_fact fact = card_fact_named(part[0]);
    for (int k = 0; k < RESULT_FIELD_COUNT; k++)
        column = strcmp(part[0], result_field_names[k]) == 0 ? k : column;
    if (strcmp(part[0], "ncu") == 0) { /* a profiler's reading, on the card it names */
        const char *problem = NULL;
        for (int k = 0; count > 2 && k < kernels.count && !problem; k++)
            if (strcmp(kernels.entries[k].name, part[2]) == 0)
                problem = kernels.entries[k].problem;
        if (count > 2 && !problem)
            die_at(path, line, "placeholder {{%s}}: no kernel \"%s\" in the list", inside, part[2]);
        char reading[512];
        if (nsight_placeholder(&nsight, part, count, problem ? cards_of(problem) : NULL, pinned,
                               reading, sizeof reading) < 0)
            die_at(path, line, "placeholder {{%s}}: %s", inside, reading);
        markdown_put(out, reading);
        free(copy);
        return;
    }
    char measured[512]; /* an error of a check: {{rel_l2|...}}, {{max_abs|...}} */
    int accuracy_field = accuracy_placeholder(&accuracy, part, count, measured, sizeof measured);
    if (accuracy_field < 0)
        die_at(path, line, "placeholder {{%s}}: %s", inside, measured);
    if (accuracy_field > 0 && pinned)
        die_at(path, line, "placeholder {{%s}}: card= pins the card of a measurement or a card's "
               "fact, not of an error", inside);
    if (accuracy_field > 0)
        return (void)fputs(measured, out), free(copy);
    if (column < 0 && !is_speedup && !is_peak && !fact && !is_champion)
        die_at(path, line, "placeholder {{%s}}: unknown field \"%s\" (see book/README.md)", inside,
               part[0]);
    /* a part of the work: {{part_ms|PIPE|COUNT|KERNEL|SHAPE}}, {{count|COUNT|KERNEL|SHAPE}} */
    const int is_part = fact == FACT_PART_MS, is_count = fact == FACT_COUNT || fact == FACT_COUNT_GIGA;
    const int expected = is_speedup || is_count ? 4 : is_part ? 5 : 3;
    if (count != expected)
        die_at(path, line, "placeholder {{%s}}: expected {{%s}}", inside,
               is_speedup ? "speedup|KERNEL|BASELINE|SHAPE"
               : is_part  ? "part_ms|PIPE|COUNT|KERNEL|SHAPE"
               : is_count ? "FIELD|COUNT|KERNEL|SHAPE"
                          : "FIELD|KERNEL|SHAPE");
    const char *shape = part[count - 1], *kernel = part[count - 2 - is_speedup];
    work_part work = {PART_FP32, 0};
    if (is_part) {
        work.pipe = PART_PIPES;
        for (int k = 0; k < PART_PIPES; k++)
            work.pipe = strcmp(part[1], part_pipes[k].name) == 0 ? (part_pipe)k : work.pipe;
        if (work.pipe == PART_PIPES)
            die_at(path, line, "placeholder {{%s}}: unknown pipe \"%s\" (fp32, tf32, sfu or memory)",
                   inside, part[1]);
    }
    char why[160];
    if ((is_part || is_count) && shape_count(part[count - 3], shape, &work.count, why, sizeof why) < 0)
        die_at(path, line, "placeholder {{%s}}: the count \"%s\": %s", inside, part[count - 3], why);
    if ((is_part || is_count) && work.count <= 0)
        die_at(path, line, "placeholder {{%s}}: the count \"%s\" is %g at %s, not a positive "
               "number", inside, part[count - 3], work.count, shape);
    const char *lacks = is_part ? part_pipes[work.pipe].lacks : fact ? card_facts[fact].lacks : NULL;
    const result_row *any = csv_reader_newest(&results, kernel, shape, NULL);
    if (!any)
        die_at(path, line, "placeholder {{%s}}: no row for kernel \"%s\" at shape \"%s\" in %s%s",
               inside, kernel, shape, results.dir, results.file_count ? "" : " (no CSV file there)");

    /* The card: the first in the book's order of the kernel's problem that
     * has what the placeholder needs (the row; for a speedup the baseline's
     * row too, on the same card: a speedup across cards means nothing; for a
     * share of peak, a known peak of the kernel's pipe). */
    const char *const *cards = cards_of(any->field[RESULT_PROBLEM]);
    const int against_champion = is_champion || (is_speedup && strcmp(part[2], "champion") == 0);
    const kernel_entry *entry = &kernels.entries[any->kernel];
    const result_row *row = NULL, *base = NULL;
    for (int c = 0; cards[c] && !row; c++) {
        if (pinned && !strstr(cards[c], pinned))
            continue;
        row = csv_reader_newest(&results, kernel, shape, cards[c]);
        base = !row               ? NULL
               : against_champion ? fastest_champion(any->field[RESULT_PROBLEM], shape, cards[c])
               : is_speedup       ? csv_reader_newest(&results, part[2], shape, cards[c])
                                  : NULL;
        if (((is_speedup || is_champion) && !base) ||
            (is_peak && row && kernel_peak_gflops(entry, cards[c]) == 0) ||
            (fact && row && card_fact_value(fact, row, &work) <= 0))
            row = NULL;
    }
    if (!row && pinned)
        die_at(path, line, "placeholder {{%s}}: no card whose name holds \"%s\" has what it needs "
               "(the row of \"%s\" at shape \"%s\"%s)", inside, pinned, kernel, shape,
               is_speedup ? " and its baseline's" : is_peak || fact ? " and a known peak" : "");
    if (!row && against_champion)
        die_at(path, line, "placeholder {{%s}}: no card has rows of both \"%s\" and a champion at "
               "shape \"%s\"", inside, kernel, shape);
    if (!row && is_speedup)
        die_at(path, line, "placeholder {{%s}}: no card has rows of both \"%s\" and the baseline "
               "\"%s\" at shape \"%s\" (the newest \"%s\" is %s:%d, on the %s)", inside, part[1],
               part[2], shape, part[1], any->file, any->line, any->field[RESULT_GPU]);
    if (!row && fact)
        die_at(path, line, "placeholder {{%s}}: no card with a row of \"%s\" at shape \"%s\" has a "
               "%s (common/device/gpu_peaks.c lists the cards)", inside, kernel, shape, lacks);
    if (!row)
        die_at(path, line, "placeholder {{%s}}: no %s peak known for the \"%s\" of %s:%d "
               "(common/device/gpu_peaks.c lists the cards)", inside, gpu_pipe_name(entry->pipe),
               any->field[RESULT_GPU], any->file, any->line);

    double value = -1; /* a number to print as the book prints measurements */
    if (is_speedup) {
        value = base->median_ms / row->median_ms;
    } else if (is_champion) {
        markdown_put(out, base->field[RESULT_KERNEL]);
    } else if (fact == FACT_LARGER_FLOOR) {
        fputs(card_fact_value(fact, row, &work) == 1 ? "the arithmetic" : "the memory traffic", out);
    } else if (fact == FACT_SOURCE) {
        char source[256];
        markdown_put(out, card_reader_source(row->field[RESULT_GPU], source, sizeof source));
    } else if (fact == FACT_SMS || fact == FACT_FP32_LANES || fact == FACT_SHARED_KB) {
        fprintf(out, "%.0f", card_fact_value(fact, row, &work)); /* counts */
    } else if ((fact >= FACT_FP32_TFLOPS && fact <= FACT_BALANCE) || fact == FACT_SFU_TOPS) {
        fprintf(out, "%.3g", card_fact_value(fact, row, &work)); /* rates as data sheets write them: 4.8 */
    } else if (fact == FACT_COUNT) { /* a count of the shape, typeset: $3.36 \times 10^{7}$ */
        int exponent = (int)floor(log10(work.count));
        double mantissa = work.count / pow(10, exponent);
        if (mantissa >= 9.995) /* 9.996e7 prints as 10.0 */
            mantissa /= 10, exponent++;
        if (exponent)
            fprintf(out, "$%.2f \\times 10^{%d}$", mantissa, exponent);
        else
            fprintf(out, "$%.2f$", mantissa);
    } else if (fact) {
        value = card_fact_value(fact, row, &work);
    } else if (is_peak) { /* against the peak of the kernel's own pipe */
        double peak = kernel_peak_gflops(entry, row->field[RESULT_GPU]);
        fprintf(out, "%.1f", 100.0 * row->gflops / peak); /* at most 100: the reader checks */
    } else if (column >= RESULT_MEDIAN_MS && column <= RESULT_GBPS) {
        value = csv_reader_number(row, (result_field)column);
    } else { /* text from the CSV (a card's name, a commit): never markup */
        markdown_put(out, row->field[column]);
    }
    char number[32];
    if (value >= 0 && markdown_number(number, sizeof number, value) != 0)
        die_at(path, line, "placeholder {{%s}}: %g, from %s:%d, cannot be printed", inside, value,
               row->file, row->line);
    fputs(value >= 0 ? number : "", out);
    if ((value >= 0 || is_peak || fact || is_champion) && !is_count && !pinned &&
        strcmp(row->field[RESULT_GPU], cards[0]) != 0)
    {
        char peak_lacked[64];
        snprintf(peak_lacked, sizeof peak_lacked, "known %s peak", gpu_pipe_name(entry->pipe));
        put_other_card_note(out, row, cards[0], kernel,
                            is_speedup ? part[2] : is_champion ? "champion" : NULL, shape,
                            is_peak ? peak_lacked : lacks);
    }
    free(copy);
}

void placeholders_fill_line(FILE *out, const char *text, const char *path, int line,
                            const char *ending)
{
    for (const char *open; (open = strstr(text, "{{")) != NULL;) {
        const char *close = strstr(open + 2, "}}");
        if (!close)
            die_at(path, line, "a placeholder opened with {{ is not closed by }} on the same line");
        fwrite(text, 1, (size_t)(open - text), out);
        char *inside = copy_of(open + 2, (size_t)(close - open - 2));
        fill_placeholder(out, inside, path, line);
        free(inside);
        text = close + 2;
    }
    fprintf(out, "%s%s", text, ending);
}

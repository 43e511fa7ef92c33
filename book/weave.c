/* book/weave.c - the workbook's weaver: literate .cu files in, Markdown for
 * pandoc out. It splits each file into prose and code (fenced blocks with the
 * file's line numbers), fills the prose's {{placeholders}} from the measured
 * CSV files, puts each chapter's exercises after it, and weaves the tried
 * variants into the appendix "Roads not taken". Built by book/book.mk.
 *
 *   weave chapter|prose|tried [OPTIONS] FILE...   > woven.md
 *
 * OPTIONS: --data DIR (plots/data) --kernels FILE (chapters/kernels.list) --figures
 * DIR (plots/out) --tables DIR (build/book/tables); chapter: --exercises DIR and
 * --solutions DIR; --keep-placeholders fills nothing and reads no data (the
 * faithfulness test's weave). book/README.md describes the markers,
 * placeholders and directives. A chapter is NN-slug/slug.cu, then the folder's
 * other .cu files that hold prose, in name order. Every error names its file
 * and line and makes weave exit 1 having printed nothing.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "accuracy_reader.h"
#include "card_reader.h"
#include "csv_reader.h"
#include "kernel_list.h"
#include "nsight_reader.h"

static result_set results;
static accuracy_set accuracy;
static nsight_set nsight;
static kernel_list kernels;
static const char *figures_dir = "plots/out", *tables_dir = "build/book/tables";
static int keep_placeholders; /* the faithfulness test's weave: no data is read */

/* ------------------------------------------------------------ small tools */

/* "path:line: message" (line 0: "path: message") on stderr; exits 1. */
static void die_at(const char *path, int line, const char *format, ...)
{
    fprintf(stderr, line > 0 ? "%s:%d: " : "%s: ", path, line);
    va_list args;
    va_start(args, format);
    vfprintf(stderr, format, args);
    va_end(args);
    fputc('\n', stderr);
    exit(1);
}

static void *grown(void *memory, size_t size)
{
    void *bigger = realloc(memory, size);
    if (!bigger)
        die_at("weave", 0, "out of memory");
    return bigger;
}

static char *copy_of(const char *text, size_t length)
{
    char *copy = grown(NULL, length + 1);
    memcpy(copy, text, length);
    copy[length] = '\0';
    return copy;
}

/* A file cut into lines, without their '\n'; lines[0] is line 1. */
typedef struct {
    const char *path;
    char **lines;
    int count;
} source_file;

/* 0, or -1 (errno set) when the file cannot be opened. Lines end in LF or
 * CRLF (an editor on Windows saves CRLF; both read alike), and a UTF-8
 * byte-order mark before the first line is dropped: kept, it would hide a
 * first line's /\*md or # Title. A carriage return anywhere else (a file
 * with CR-only line endings is one long line of them) is refused, as the
 * lines could only be guessed. */
static int read_lines(const char *path, source_file *source)
{
    *source = (source_file){path, NULL, 0};
    FILE *file = fopen(path, "r");
    char *line = NULL;
    size_t room = 0;
    ssize_t length;
    while (file && (length = getline(&line, &room, file)) >= 0) {
        int number = source->count + 1;
        if ((size_t)length != strlen(line))
            die_at(path, number, "holds a NUL byte; not a text file");
        length -= length > 0 && line[length - 1] == '\n';
        length -= length > 0 && line[length - 1] == '\r';
        const char *text = line;
        if (number == 1 && strncmp(text, "\xEF\xBB\xBF", 3) == 0)
            text += 3, length -= 3;
        const char *stray = memchr(text, '\r', (size_t)length);
        if (stray)
            die_at(path, number, "a carriage return that does not end a line (column %d): "
                   "line endings are LF or CRLF; a file saved with CR alone (classic Mac) "
                   "must be saved again with LF", (int)(stray - text) + 1);
        if ((source->count & (source->count - 1)) == 0) /* at 0, 1, 2, 4...: double the room */
            source->lines = grown(source->lines, (2 * (size_t)source->count + 1) * sizeof(char *));
        source->lines[source->count++] = copy_of(text, (size_t)length);
    }
    free(line);
    return file && fclose(file) == 0 ? 0 : -1;
}

static source_file load_source(const char *path)
{
    source_file source;
    if (read_lines(path, &source) != 0)
        die_at(path, 0, "cannot read: %s", strerror(errno));
    return source;
}

/* Is the line exactly text, with only blanks around it? */
static int line_is(const char *line, const char *text)
{
    line += strspn(line, " \t");
    size_t length = strlen(text);
    return strncmp(line, text, length) == 0 && line[length + strspn(line + length, " \t\r")] == '\0';
}

static const char *base_name(const char *path)
{
    return strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
}

/* chapters/02-naive/naive.cu -> 2 and "Naive"; exercises/03-unroll.cu -> 3. */
static int chapter_number_of(const char *path, char *slug, size_t capacity)
{
    const char *name = path;
    for (const char *p = path; *p; p++)
        if (p[0] == '/' && isdigit((unsigned char)p[1]) && isdigit((unsigned char)p[2]) && p[3] == '-')
            name = p + 1;
    if (!isdigit((unsigned char)name[0]) || !isdigit((unsigned char)name[1]) || name[2] != '-')
        die_at(path, 0, "cannot tell the chapter number: expected a name like NN-slug");
    snprintf(slug, capacity, "%.*s", (int)strcspn(name + 3, "/."), name + 3);
    slug[0] = (char)toupper((unsigned char)slug[0]);
    return (name[0] - '0') * 10 + (name[1] - '0');
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names in dir that start with prefix and end with suffix, sorted; a
 * missing folder has none. */
static int list_files(const char *dir, const char *prefix, const char *suffix, char ***names)
{
    int count = 0;
    DIR *folder = opendir(*dir ? dir : ".");
    *names = NULL;
    for (struct dirent *entry; folder && (entry = readdir(folder)) != NULL;) {
        size_t length = strlen(entry->d_name), tail = strlen(suffix);
        if (length > tail && strncmp(entry->d_name, prefix, strlen(prefix)) == 0 &&
            strcmp(entry->d_name + length - tail, suffix) == 0) {
            *names = grown(*names, (size_t)(count + 1) * sizeof **names);
            (*names)[count++] = copy_of(entry->d_name, length);
        }
    }
    if (folder)
        closedir(folder);
    if (count > 1) /* qsort wants a real array, even of none */
        qsort(*names, (size_t)count, sizeof **names, by_name);
    return count;
}

/* A folder's sources, .cu and .cuh, in name order. */
static int list_sources(const char *dir, char ***names)
{
    char **headers;
    int count = list_files(dir, "", ".cu", names), more = list_files(dir, "", ".cuh", &headers);
    *names = grown(*names, (size_t)(count + more + 1) * sizeof **names);
    for (int k = 0; k < more; k++)
        (*names)[count++] = headers[k];
    free(headers);
    if (count > 1)
        qsort(*names, (size_t)count, sizeof **names, by_name);
    return count;
}

/* A chapter's story: chapters/NN-slug/slug.cuh where the chapter's code is
 * a header (later chapters, its tried/ files and the figures include it),
 * else chapters/NN-slug/slug.cu. */
static const char *story_of(const char *path, char *story, size_t capacity)
{
    size_t length = strlen(path);
    if (length > 3 && strcmp(path + length - 3, ".cu") == 0 &&
        (size_t)snprintf(story, capacity, "%sh", path) < capacity && access(story, R_OK) == 0)
        return story;
    return path;
}

/* A line that opens or closes a fenced block of Markdown (``` or ~~~). */
static int is_fence(const char *line)
{
    line += strspn(line, " ") < 3 ? strspn(line, " ") : 3;
    return strncmp(line, "```", 3) == 0 || strncmp(line, "~~~", 3) == 0;
}

/* Prose lines first..last must close every fence they open: a fence left
 * open would make the rest of the page code (and the weaver would read the
 * following prose as the fence's content). */
static void check_fences_closed(const source_file *source, int first, int last, const char *end)
{
    int opened = 0;
    for (int n = first; n <= last; n++)
        if (is_fence(source->lines[n - 1]))
            opened = opened ? 0 : n;
    if (opened)
        die_at(source->path, opened, "this fence (```) is not closed before %s: close it with "
               "a line of ```", end);
}

/* ------------------------------------------------------------ placeholders */

/* The cards that measured a problem, in the order the book shows them
 * (csv_reader_cards: the newest card measured in full first); read once. */
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
    if (!known[k].problem && csv_reader_cards(&results, &kernels, problem, &known[k].cards, &full) < 0)
        die_at("weave", 0, "out of memory");
    known[k].problem = problem;
    return known[k].cards;
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
        missing = baseline;
    fputs("^[Measured on the ", out);
    csv_reader_put_markdown(out, row->field[RESULT_GPU]);
    fputs("; the ", out);
    csv_reader_put_markdown(out, book_card);
    fputs(", whose numbers this book shows, ", out);
    if (lacks && csv_reader_newest(&results, kernel, shape, book_card)) {
        fprintf(out, "has no %s.]", lacks);
    } else {
        fputs("has no row of ", out);
        csv_reader_put_markdown(out, missing);
        fputs(" at ", out);
        csv_reader_put_markdown(out, shape);
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
 * from (book/card_reader.h: what CUDA reported on it, or its data sheet).
 * 0: not known on that card. */
typedef enum { FACT_NONE, FACT_FP32_TFLOPS, FACT_TF32_TFLOPS, FACT_MEMORY_TBS, FACT_SMS,
               FACT_FP32_LANES, FACT_CLOCK_GHZ, FACT_BALANCE, FACT_FLOOR_FP32_MS,
               FACT_FLOOR_TF32_MS, FACT_FLOOR_MEMORY_MS, FACT_LARGER_FLOOR, FACT_MEMORY_PCT,
               FACT_SHARED_KB, FACT_SOURCE } card_fact;
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
};

static card_fact card_fact_named(const char *name)
{
    for (int k = 1; k < (int)(sizeof card_facts / sizeof card_facts[0]); k++)
        if (strcmp(name, card_facts[k].name) == 0)
            return (card_fact)k;
    return FACT_NONE;
}

/* The fact on the card of `row` (row's work for a floor); 0 when not known. */
static double card_fact_value(card_fact fact, const result_row *row)
{
    const char *gpu = row->field[RESULT_GPU];
    const gpu_card *card = gpu_card_find(gpu);
    double fp32 = gpu_card_peak_gflops(gpu, GPU_PIPE_SIMT), tf32 = gpu_card_peak_gflops(gpu, GPU_PIPE_TENSOR);
    double memory = gpu_card_memory_gbps(gpu), work = row->gflops * row->median_ms; /* MFLOP */
    double bytes = row->gbps * row->median_ms;                                          /* MB */
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
    default: return 0;
    }
}

/* Fills one placeholder, the text between {{ and }}, into out. */
static void fill_placeholder(FILE *out, const char *inside, const char *path, int line)
{
    char *copy = copy_of(inside, strlen(inside)), *part[5], *p = copy;
    int count = 0, column = -1;
    while (p && count < 5) {
        part[count++] = p;
        if ((p = strchr(p, '|')) != NULL)
            *p++ = '\0';
    }
    count += p != NULL; /* more parts than any placeholder has */
    /* a last part card=NAME pins the card: one whose name holds NAME (a
     * sentence that compares two cards), never another one */
    const char *pinned = count > 1 && count <= 5 && strncmp(part[count - 1], "card=", 5) == 0
                             ? part[--count] + 5
                             : NULL;
    int is_speedup = strcmp(part[0], "speedup") == 0, is_peak = strcmp(part[0], "peak_pct") == 0;
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
        csv_reader_put_markdown(out, reading);
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
    if (column < 0 && !is_speedup && !is_peak && !fact)
        die_at(path, line, "placeholder {{%s}}: unknown field \"%s\" (see book/README.md)", inside,
               part[0]);
    if (count != (is_speedup ? 4 : 3))
        die_at(path, line, "placeholder {{%s}}: expected {{%s}}", inside,
               is_speedup ? "speedup|KERNEL|BASELINE|SHAPE" : "FIELD|KERNEL|SHAPE");
    const char *shape = part[count - 1];
    const result_row *any = csv_reader_newest(&results, part[1], shape, NULL);
    if (!any)
        die_at(path, line, "placeholder {{%s}}: no row for kernel \"%s\" at shape \"%s\" in %s%s",
               inside, part[1], shape, results.dir, results.file_count ? "" : " (no CSV file there)");

    /* The card: the first in the book's order of the kernel's problem that
     * has what the placeholder needs (the row; for a speedup the baseline's
     * row too, on the same card: a speedup across cards means nothing; for a
     * share of peak, a known peak of the kernel's pipe). */
    const char *const *cards = cards_of(any->field[RESULT_PROBLEM]);
    const kernel_entry *entry = &kernels.entries[any->kernel];
    const result_row *row = NULL, *base = NULL;
    for (int c = 0; cards[c] && !row; c++) {
        if (pinned && !strstr(cards[c], pinned))
            continue;
        row = csv_reader_newest(&results, part[1], shape, cards[c]);
        base = row && is_speedup ? csv_reader_newest(&results, part[2], shape, cards[c]) : NULL;
        if ((is_speedup && !base) || (is_peak && row && kernel_peak_gflops(entry, cards[c]) == 0) ||
            (fact && row && card_fact_value(fact, row) <= 0))
            row = NULL;
    }
    if (!row && pinned)
        die_at(path, line, "placeholder {{%s}}: no card whose name holds \"%s\" has what it needs "
               "(the row of \"%s\" at shape \"%s\"%s)", inside, pinned, part[1], shape,
               is_speedup ? " and its baseline's" : is_peak || fact ? " and a known peak" : "");
    if (!row && is_speedup)
        die_at(path, line, "placeholder {{%s}}: no card has rows of both \"%s\" and the baseline "
               "\"%s\" at shape \"%s\" (the newest \"%s\" is %s:%d, on the %s)", inside, part[1],
               part[2], shape, part[1], any->file, any->line, any->field[RESULT_GPU]);
    if (!row && fact)
        die_at(path, line, "placeholder {{%s}}: no card with a row of \"%s\" at shape \"%s\" has a "
               "%s (common/device/gpu_peaks.c lists the cards)", inside, part[1], shape,
               card_facts[fact].lacks);
    if (!row)
        die_at(path, line, "placeholder {{%s}}: no %s peak known for the \"%s\" of %s:%d "
               "(common/device/gpu_peaks.c lists the cards)", inside, gpu_pipe_name(entry->pipe),
               any->field[RESULT_GPU], any->file, any->line);

    double value = -1; /* a number to print as the book prints measurements */
    if (is_speedup) {
        value = base->median_ms / row->median_ms;
    } else if (fact == FACT_LARGER_FLOOR) {
        fputs(card_fact_value(fact, row) == 1 ? "the arithmetic" : "the memory traffic", out);
    } else if (fact == FACT_SOURCE) {
        char source[256];
        csv_reader_put_markdown(out, card_reader_source(row->field[RESULT_GPU], source, sizeof source));
    } else if (fact == FACT_SMS || fact == FACT_FP32_LANES || fact == FACT_SHARED_KB) {
        fprintf(out, "%.0f", card_fact_value(fact, row)); /* counts */
    } else if (fact >= FACT_FP32_TFLOPS && fact <= FACT_BALANCE) {
        fprintf(out, "%.3g", card_fact_value(fact, row)); /* rates as data sheets write them: 4.8 */
    } else if (fact) {
        value = card_fact_value(fact, row);
    } else if (is_peak) { /* against the peak of the kernel's own pipe */
        double peak = kernel_peak_gflops(entry, row->field[RESULT_GPU]);
        fprintf(out, "%.1f", 100.0 * row->gflops / peak); /* at most 100: the reader checks */
    } else if (column >= RESULT_MEDIAN_MS && column <= RESULT_GBPS) {
        value = csv_reader_number(row, (result_field)column);
    } else { /* text from the CSV (a card's name, a commit): never markup */
        csv_reader_put_markdown(out, row->field[column]);
    }
    char number[32];
    if (value >= 0 && csv_reader_format(number, sizeof number, value) != 0)
        die_at(path, line, "placeholder {{%s}}: %g, from %s:%d, cannot be printed", inside, value,
               row->file, row->line);
    fputs(value >= 0 ? number : "", out);
    if ((value >= 0 || is_peak || fact) && !pinned && strcmp(row->field[RESULT_GPU], cards[0]) != 0)
    {
        char peak_lacked[64];
        snprintf(peak_lacked, sizeof peak_lacked, "known %s peak", gpu_pipe_name(entry->pipe));
        put_other_card_note(out, row, cards[0], part[1], is_speedup ? part[2] : NULL, shape,
                            is_peak ? peak_lacked : fact ? card_facts[fact].lacks : NULL);
    }
    free(copy);
}

/* A prose line with its placeholders filled, then ending ("\n"). */
static void fill_line(FILE *out, const char *text, const char *path, int line, const char *ending)
{
    for (const char *open; !keep_placeholders && (open = strstr(text, "{{")) != NULL;) {
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

/* ------------------------------------------------------------ directives */

/* Whole-line directives bring in what the other tools wrote: a plot (its
 * Markdown, which plots/draw.sh writes beside the SVG), every plot drawn,
 * or a table of book/results.c. Returns 1 when the line was one. */
static void put_code(FILE *out, const source_file *source, int first, int last);
static int starts_with(const char *line, const char *text);

/* {{listing|FILE|FUNCTION}}: FUNCTION's definition in FILE (a file of the
 * repository, such as common/device/wgmma.h), with the comment and the
 * template line above it, as a listing with FILE's line numbers: how the
 * book shows, where an instruction is introduced, the wrapper the kernels
 * call. The definition is the one line of FILE that starts at column 0,
 * names FUNCTION followed by '(' and does not end in ';'; it runs to the
 * next line that is exactly "}". */
static void put_listing(FILE *out, const char *inside, const char *path, int number)
{
    const char *file_start = inside + 8, *bar = strchr(file_start, '|');
    if (!bar || !bar[1] || strchr(bar + 1, '|'))
        die_at(path, number, "{{%s}}: write {{listing|FILE|FUNCTION}}", inside);
    char file[4096], call[512];
    snprintf(file, sizeof file, "%.*s", (int)(bar - file_start), file_start);
    snprintf(call, sizeof call, "%s(", bar + 1);
    source_file source;
    if (read_lines(file, &source) != 0)
        die_at(path, number, "{{%s}}: cannot read %s: %s", inside, file, strerror(errno));
    int definition = 0;
    for (int n = 1; n <= source.count; n++) {
        const char *line = source.lines[n - 1], *at = strstr(line, call);
        size_t length = strlen(line);
        while (length > 0 && isspace((unsigned char)line[length - 1]))
            length--;
        int named = at && (at == line || !(isalnum((unsigned char)at[-1]) || at[-1] == '_'));
        if (!named || isspace((unsigned char)line[0]) || line[0] == '/' || line[0] == '*' ||
            line[0] == '#' || (length > 0 && line[length - 1] == ';'))
            continue;
        if (definition)
            die_at(path, number, "{{%s}}: %s defines %s twice (lines %d and %d)", inside, file,
                   bar + 1, definition, n);
        definition = n;
    }
    if (!definition)
        die_at(path, number, "{{%s}}: %s has no definition of %s() starting a line", inside, file,
               bar + 1);
    int first = definition, last = definition;
    while (last <= source.count && strcmp(source.lines[last - 1], "}") != 0)
        last++;
    if (last > source.count)
        die_at(path, number, "{{%s}}: %s:%d: no line \"}\" closes %s()", inside, file, definition,
               bar + 1);
    if (first > 1 && starts_with(source.lines[first - 2], "template"))
        first--;
    if (first > 1) { /* the comment right above it */
        int above = first - 1;
        const char *line = source.lines[above - 1];
        size_t length = strlen(line);
        if (length >= 2 && strcmp(line + length - 2, "*/") == 0) {
            while (above > 1 && !starts_with(source.lines[above - 1], "/*"))
                above--;
            first = above;
        } else {
            while (above >= 1 && starts_with(source.lines[above - 1], "//"))
                first = above--;
        }
    }
    put_code(out, &source, first, last);
}

static int directive(FILE *out, const char *line, const char *path, int number)
{
    const char *start = line + strspn(line, " \t");
    size_t length = strlen(start);
    while (length > 0 && isspace((unsigned char)start[length - 1]))
        length--;
    if (keep_placeholders || length < 4 || strncmp(start, "{{", 2) || strncmp(start + length - 2, "}}", 2))
        return 0;
    char *inside = copy_of(start + 2, length - 4), file[4096];
    const char *hint = "";
    if (strncmp(inside, "figure|", 7) == 0 || strcmp(inside, "figures") == 0) {
        snprintf(file, sizeof file, "%s/%s.md", figures_dir, inside[6] == '|' ? inside + 7 : "all");
        hint = "; make plots draws a plot only when plots/data has rows for it";
    } else if (strcmp(inside, "results_table|headline") == 0 || strcmp(inside, "results_table|all") == 0 ||
               strcmp(inside, "results_table|summary") == 0) {
        snprintf(file, sizeof file, "%s/%s.md", tables_dir, inside + 14);
        hint = "; book/build.sh writes it with `results table`";
    } else if (strncmp(inside, "results_table", 13) == 0) {
        die_at(path, number, "{{%s}}: write {{results_table|headline}}, {{results_table|all}} or "
               "{{results_table|summary}}", inside);
    } else if (strncmp(inside, "listing|", 8) == 0) {
        put_listing(out, inside, path, number);
        free(inside);
        return 1;
    } else {
        free(inside);
        return 0;
    }
    source_file included;
    if (read_lines(file, &included) != 0)
        die_at(path, number, "placeholder {{%s}}: no %s (%s%s)", inside, file, strerror(errno), hint);
    fputc('\n', out);
    for (int k = 0; k < included.count; k++)
        fprintf(out, "%s\n", included.lines[k]);
    free(inside);
    return 1;
}

/* ------------------------------------------------------------ the markers */

/* Hidden pieces: a // book:hide region, the file's opening comment (what the
 * file is and how to build it) and its first run of #include lines, the last
 * two hidden without a marker. */
typedef enum { PIECE_CODE, PIECE_PROSE, PIECE_HIDDEN, PIECE_HEADER, PIECE_INCLUDES } piece_kind;

typedef struct {
    piece_kind kind;
    int first, last; /* 1-based lines of the content (prose: inside the markers) */
} piece;

typedef struct {
    piece *pieces;
    int count, prose; /* prose: how many of them are prose */
} piece_list;

static void add_piece(piece_list *list, piece_kind kind, int first, int last)
{
    if (last < first)
        return;
    list->pieces = grown(list->pieces, (size_t)(list->count + 1) * sizeof *list->pieces);
    list->pieces[list->count++] = (piece){kind, first, last};
    list->prose += kind == PIECE_PROSE;
}

static int starts_with(const char *line, const char *text)
{
    return strncmp(line + strspn(line, " \t"), text, strlen(text)) == 0;
}

/* Cuts a literate source into code, prose and hidden pieces; a marker that
 * is not well formed stops here with its file and line. */
static piece_list scan_markers(const source_file *source)
{
    enum { IN_CODE, IN_PROSE, IN_HIDDEN } state = IN_CODE;
    piece_list list = {0};
    int opened = 0, code_start = 1, includes = 0; /* opened: the line of the open /\*md or book:hide */
    /* the header: the // lines at the top, or a /\* comment (not /\*md) from line 1 to its end */
    const char *first = source->count ? source->lines[0] : "";
    int slashes = starts_with(first, "//"), block = starts_with(first, "/*") && !line_is(first, "/*md");
    while (code_start <= source->count &&
           (slashes ? starts_with(source->lines[code_start - 1], "//") &&
                          !strstr(source->lines[code_start - 1], "book:")
                    : block && (code_start == 1 || !strstr(source->lines[code_start - 2], "*/"))))
        code_start++;
    add_piece(&list, PIECE_HEADER, 1, code_start - 1);
    for (int n = code_start; n <= source->count; n++) {
        const char *line = source->lines[n - 1], *path = source->path;
        int opens_prose = line_is(line, "/*md"), hide = line_is(line, "// book:hide");
        int show = line_is(line, "// book:show");
        int mentions_marker = strstr(line, "book:hide") || strstr(line, "book:show");
        if (state == IN_CODE && (opens_prose || hide)) {
            add_piece(&list, PIECE_CODE, code_start, n - 1);
            state = opens_prose ? IN_PROSE : IN_HIDDEN;
            opened = n;
        } else if (state == IN_CODE && strncmp(line + strspn(line, " \t"), "/*md", 4) == 0) {
            die_at(path, n, "a prose block opens with a line that is exactly /*md, with nothing "
                   "after it");
        } else if (state == IN_CODE && starts_with(line, "#include") && !includes++) {
            int last = n; /* the run: #include lines and the blank lines between them */
            for (int k = n + 1; k <= source->count && (starts_with(source->lines[k - 1], "#include") ||
                                                       line_is(source->lines[k - 1], "")); k++)
                last = line_is(source->lines[k - 1], "") ? last : k;
            add_piece(&list, PIECE_CODE, code_start, n - 1);
            add_piece(&list, PIECE_INCLUDES, n, last);
            code_start = last + 1;
            n = last;
        } else if (state == IN_CODE && show) {
            die_at(path, n, "// book:show without an open // book:hide before it");
        } else if (state == IN_CODE && mentions_marker) {
            die_at(path, n, "malformed marker: write exactly // book:hide or // book:show, alone "
                   "on its line");
        } else if (state == IN_PROSE && line_is(line, "*/")) {
            char end[64];
            snprintf(end, sizeof end, "the prose block ends at line %d", n);
            check_fences_closed(source, opened + 1, n - 1, end);
            add_piece(&list, PIECE_PROSE, opened + 1, n - 1);
            state = IN_CODE;
            code_start = n + 1;
        } else if (state == IN_PROSE && strstr(line, "*/")) {
            die_at(path, n, "*/ inside the prose block opened at line %d: the compiler ends the "
                   "comment here; the closing */ must stand alone on its line", opened);
        } else if (state == IN_PROSE && opens_prose) {
            die_at(path, n, "/*md inside the prose block opened at line %d, which is not closed",
                   opened);
        } else if (state == IN_HIDDEN && show) {
            add_piece(&list, PIECE_HIDDEN, opened, n);
            state = IN_CODE;
            code_start = n + 1;
        } else if (state == IN_HIDDEN && (hide || opens_prose)) {
            die_at(path, n, "%s inside the hidden region opened at line %d",
                   hide ? "// book:hide" : "a prose block", opened);
        } else if (state == IN_HIDDEN && mentions_marker) {
            die_at(path, n, "malformed marker: write exactly // book:show alone on its line");
        }
    }
    if (state != IN_CODE)
        die_at(source->path, opened, state == IN_PROSE
               ? "this /*md block is never closed by a line that is exactly */"
               : "this // book:hide is never closed by // book:show");
    add_piece(&list, PIECE_CODE, code_start, source->count);
    return list;
}

/* ------------------------------------------------------------ weaving */

/* A fenced CUDA block of source lines first..last (blank edges trimmed).
 * startFrom keeps the file's line numbers; source names the file, so the
 * faithfulness test can put every line back where it came from. */
static void put_code(FILE *out, const source_file *source, int first, int last)
{
    while (first <= last && line_is(source->lines[first - 1], ""))
        first++;
    while (last >= first && line_is(source->lines[last - 1], ""))
        last--;
    int longest = 0; /* the fence must be longer than any run of backticks */
    for (int n = first; n <= last; n++)
        for (const char *c = source->lines[n - 1]; *c; c++)
            longest = (int)strspn(c, "`") > longest ? (int)strspn(c, "`") : longest;
    int fence = longest >= 3 ? longest + 1 : 3;
    const char *ticks = "````````````````````````````````";
    if (first > last)
        return;
    fprintf(out, "\n%.*s {.cuda .numberLines startFrom=\"%d\" source=\"%s\"}\n", fence, ticks,
            first, source->path);
    for (int n = first; n <= last; n++)
        fprintf(out, "%s\n", source->lines[n - 1]);
    fprintf(out, "%.*s\n\n", fence, ticks);
}

static int heading_level(const char *line)
{
    int level = (int)strspn(line, "#");
    return level >= 1 && level <= 6 && (line[level] == ' ' || line[level] == '\0') ? level : 0;
}

/* How a file's headings are woven: moved down `shift` levels (the appendix
 * and the exercises sit under a chapter's headings) and, where the book
 * numbers nothing, marked unnumbered. */
typedef struct {
    int shift, unnumbered;
} heading_style;

static void weave_prose_line(FILE *out, const char *line, const char *path, int number,
                             heading_style style, int in_fence)
{
    int level = in_fence ? 0 : heading_level(line);
    if (level + style.shift > 6)
        die_at(path, number, "a heading too deep: it is moved %d levels down here, and Markdown "
               "has 6", style.shift);
    if (level) {
        fprintf(out, "%.*s", level + style.shift, "######");
        int mark = style.unnumbered && line[strlen(line) - 1] != '}';
        fill_line(out, line + level, path, number, mark ? " {.unnumbered}\n" : "\n");
    } else if (in_fence || !directive(out, line, path, number)) {
        fill_line(out, line, path, number, "\n");
    }
}

/* The line of the file's '# ' title, or 0. Another '# ' is an error: a
 * chapter has one title, in its main file (main_path, when this is not). */
static int find_title(const source_file *source, const piece_list *list, const char *main_path)
{
    int title = 0;
    for (int k = 0; k < list->count; k++) {
        int in_fence = 0;
        for (int n = list->pieces[k].first; list->pieces[k].kind == PIECE_PROSE &&
                                            n <= list->pieces[k].last; n++) {
            in_fence ^= is_fence(source->lines[n - 1]);
            if (in_fence || heading_level(source->lines[n - 1]) != 1)
                continue;
            if (main_path)
                die_at(source->path, n, "a '# ' heading: the chapter's one title is in %s; use "
                       "'## ' for a section", main_path);
            if (title)
                die_at(source->path, n, "a second '# ' heading (the first is at line %d): a "
                       "chapter has one title; use '## ' for its sections", title);
            title = n;
        }
    }
    return title;
}

/* A quiet mark for a run of hidden pieces from k (blank code between them
 * aside): which lines, as a div book/sources.lua links to the whole file
 * in the HTML. A run of the file's opening comment and #include lines alone
 * gets none: the line numbers of the first code block say enough. Returns
 * the run's last piece. */
static int put_hidden_note(FILE *out, const source_file *source, const piece_list *list, int k)
{
    int last = k, helper = list->pieces[k].kind == PIECE_HIDDEN;
    for (int m = k + 1, blank = 1; blank && m < list->count && list->pieces[m].kind != PIECE_PROSE; m++) {
        const piece *part = &list->pieces[m];
        for (int n = part->first; part->kind == PIECE_CODE && n <= part->last; n++)
            blank &= line_is(source->lines[n - 1], "");
        last = blank && part->kind != PIECE_CODE ? m : last;
        helper |= blank && part->kind == PIECE_HIDDEN;
    }
    if (helper)
        fprintf(out, "\n::: {.hidden-code source=\"%s\" first=\"%d\" last=\"%d\"}\n"
                "lines %d to %d of `%s` not shown\n:::\n\n", source->path, list->pieces[k].first,
                list->pieces[last].last, list->pieces[k].first, list->pieces[last].last,
                base_name(source->path));
    return last;
}

/* A file's pieces in order, but the title line, woven apart; code_only:
 * its code alone (a solution). */
static void weave_pieces(FILE *out, const source_file *source, const piece_list *list,
                         heading_style style, int title_line, int code_only)
{
    for (int k = 0; k < list->count; k++) {
        const piece *part = &list->pieces[k];
        int in_fence = 0;
        if (part->kind == PIECE_CODE)
            put_code(out, source, part->first, part->last);
        else if (part->kind != PIECE_PROSE)
            k = put_hidden_note(out, source, list, k);
        if (part->kind != PIECE_PROSE || code_only)
            continue;
        fputc('\n', out);
        for (int n = part->first; n <= part->last; n++) {
            in_fence ^= is_fence(source->lines[n - 1]);
            if (n != title_line)
                weave_prose_line(out, source->lines[n - 1], source->path, n, style, in_fence);
        }
        fputc('\n', out);
    }
}

/* A literate file: its title first (or, with a warning, `fallback` when it
 * has none), a note naming the file, then its pieces. */
static void weave_file(FILE *out, const char *path, heading_style style, const char *fallback)
{
    source_file source = load_source(path);
    piece_list list = scan_markers(&source);
    int title = find_title(&source, &list, NULL);
    if (title) {
        weave_prose_line(out, source.lines[title - 1], path, title, style, 0);
    } else {
        fprintf(stderr, "%s: warning: no '# Title' heading in its prose; titled \"%s\"\n", path,
                fallback);
        fprintf(out, "%.*s %s%s\n", 1 + style.shift, "######", fallback,
                style.unnumbered ? " {.unnumbered}" : "");
    }
    fprintf(out, "\n::: {.source-file source=\"%s\"}\n`%s`\n:::\n", path, path);
    weave_pieces(out, &source, &list, style, title, 0);
}

/* ------------------------------------------------------------ exercises */

/* An exercise: its statement (the first prose block), headings moved under
 * the chapter's "## Exercises"; with a solution, the solution's code. */
static void weave_exercise(FILE *out, const char *exercise_path, const char *solution_path)
{
    source_file exercise = load_source(exercise_path);
    piece_list list = scan_markers(&exercise);
    piece_list statement = {list.pieces, 1, 1};
    while (statement.pieces < list.pieces + list.count && statement.pieces->kind != PIECE_PROSE)
        statement.pieces++;
    if (list.prose == 0)
        die_at(exercise_path, 1, "no /*md block: an exercise's first one is its statement");
    int top = 7, in_fence = 0, names_its_file = 0;
    for (int n = statement.pieces->first; n <= statement.pieces->last; n++) {
        in_fence ^= is_fence(exercise.lines[n - 1]);
        int level = in_fence ? 0 : heading_level(exercise.lines[n - 1]);
        top = level && level < top ? level : top;
        names_its_file |= strstr(exercise.lines[n - 1], exercise_path) != NULL;
    }
    if (top > 6)
        fprintf(out, "\n### Exercise `%s` {.unnumbered}\n", base_name(exercise_path));
    /* the exercise numbers itself ("Exercise 2.1"); pandoc must not */
    weave_pieces(out, &exercise, &statement, (heading_style){top <= 6 ? 3 - top : 0, 1}, 0, 0);
    if (!names_its_file)
        fprintf(out, "\n::: exercise-file\nThe starting code is `%s`.\n:::\n", exercise_path);
    if (solution_path) {
        source_file solution = load_source(solution_path);
        piece_list parts = scan_markers(&solution);
        fprintf(out, "\n#### Solution {.unnumbered}\n\nThe code of `%s`:\n", solution_path);
        weave_pieces(out, &solution, &parts, (heading_style){0, 0}, 0, 1);
    }
}

/* A chapter's exercises in the order of the "Exercise 2.1" in their titles
 * (so 2.10 comes after 2.9; one without comes last), each with its solution
 * when there is a solutions folder. */
static void weave_exercises(FILE *out, int chapter, const char *exercises_dir,
                            const char *solutions_dir)
{
    char prefix[8], **names, path[4096], solution[4096];
    snprintf(prefix, sizeof prefix, "%02d-", chapter);
    int count = list_files(exercises_dir, prefix, ".cu", &names);
    for (int k = 0; k < count; k++) { /* sorted by "MMMM.NNNN name", then the name alone */
        int major = 9999, minor = 9999;
        snprintf(path, sizeof path, "%s/%s", exercises_dir, names[k]);
        source_file text = load_source(path);
        for (int n = 0; n < text.count && major == 9999; n++)
            if (strstr(text.lines[n], "Exercise "))
                sscanf(strstr(text.lines[n], "Exercise "), "Exercise %d.%d", &major, &minor);
        snprintf(path, sizeof path, "%04d.%04d %s", major, minor, names[k]);
        names[k] = copy_of(path, strlen(path));
    }
    if (count > 1)
        qsort(names, (size_t)count, sizeof *names, by_name);
    fputs(count > 0 ? "\n## Exercises\n" : "", out);
    for (int k = 0; k < count; k++) {
        snprintf(path, sizeof path, "%s/%s", exercises_dir, strchr(names[k], ' ') + 1);
        snprintf(solution, sizeof solution, "%s/%s", solutions_dir ? solutions_dir : "",
                 strchr(names[k], ' ') + 1); /* a missing one stops the weave, naming it */
        fputc('\n', out);
        weave_exercise(out, path, solutions_dir ? solution : NULL);
    }
    fputc('\n', out);
}

/* ------------------------------------------------------------ chapters */

/* A chapter: its story (story_of), then the other .cu and .cuh files of its
 * folder that hold prose, in name order, then its exercises. */
static void weave_chapter(FILE *out, const char *main_path, const char *exercises_dir,
                          const char *solutions_dir)
{
    char slug[256], folder[4096], other[8192], story[4096], **names;
    int chapter = chapter_number_of(main_path, slug, sizeof slug);
    const char *path = story_of(main_path, story, sizeof story);
    weave_file(out, path, (heading_style){0, 0}, slug);
    snprintf(folder, sizeof folder, "%.*s", (int)(base_name(path) - path), path);
    int count = list_sources(folder, &names);
    for (int k = 0; k < count; k++) {
        snprintf(other, sizeof other, "%s%s", folder, names[k]);
        source_file source = load_source(other);
        piece_list list = scan_markers(&source);
        if (strcmp(names[k], base_name(path)) == 0 || list.prose == 0)
            continue; /* the main file, or code the chapter builds and the book does not show */
        find_title(&source, &list, path);
        fprintf(out, "\n::: {.source-file source=\"%s\"}\n`%s`\n:::\n", other, other);
        weave_pieces(out, &source, &list, (heading_style){0, 0}, 0, 0);
    }
    fputc('\n', out);
    if (exercises_dir)
        weave_exercises(out, chapter, exercises_dir, solutions_dir);
}

/* The sections of the appendix "Roads not taken" (book/roads-not-taken.md
 * opens it): one for each chapter with a tried/ folder, with each of its
 * files under it, their headings two levels down. */
static void weave_tried(FILE *out, char **chapters, int chapter_count)
{
    for (int c = 0; c < chapter_count; c++) {
        char folder[4096], slug[256], path[8192], **names;
        snprintf(folder, sizeof folder, "%.*stried", (int)(base_name(chapters[c]) - chapters[c]),
                 chapters[c]);
        int count = list_files(folder, "", ".cu", &names);
        if (count == 0)
            continue;
        int number = chapter_number_of(chapters[c], slug, sizeof slug);
        char story[4096];
        source_file chapter = load_source(story_of(chapters[c], story, sizeof story));
        piece_list list = scan_markers(&chapter);
        int title = find_title(&chapter, &list, NULL);
        const char *name = title ? chapter.lines[title - 1] + 2 : slug; /* without its {#id} */
        fprintf(out, "\n## Chapter %d: %.*s {.unnumbered}\n", number, (int)strcspn(name, "{"), name);
        for (int k = 0; k < count; k++) {
            snprintf(path, sizeof path, "%s/%s", folder, names[k]);
            fputc('\n', out);
            weave_file(out, path, (heading_style){2, 1}, names[k]);
        }
    }
}

/* ------------------------------------------------------------ main */

int main(int argc, char **argv)
{
    const char *data_dir = "plots/data", *kernels_path = "chapters/kernels.list";
    const char *exercises_dir = NULL, *solutions_dir = NULL;
    char **inputs = grown(NULL, (size_t)argc * sizeof *inputs); /* the command, then its files */
    int input_count = 0, wrong = 0;
    for (int k = 1; k < argc; k++) {
        const char **option = strcmp(argv[k], "--data") == 0        ? &data_dir
                              : strcmp(argv[k], "--kernels") == 0   ? &kernels_path
                              : strcmp(argv[k], "--figures") == 0   ? &figures_dir
                              : strcmp(argv[k], "--tables") == 0    ? &tables_dir
                              : strcmp(argv[k], "--exercises") == 0 ? &exercises_dir
                              : strcmp(argv[k], "--solutions") == 0 ? &solutions_dir
                                                                    : NULL;
        if (strcmp(argv[k], "--keep-placeholders") == 0)
            keep_placeholders = 1;
        else if (option && k + 1 < argc)
            *option = argv[++k];
        else if (option || argv[k][0] == '-')
            wrong = 1;
        else
            inputs[input_count++] = argv[k];
    }
    const char *command = input_count-- > 0 ? *inputs++ : "";
    int is_tried = strcmp(command, "tried") == 0;
    if (wrong || (strcmp(command, "chapter") && strcmp(command, "prose") && !is_tried) ||
        (is_tried ? input_count < 1 : input_count != 1))
        return fprintf(stderr, "usage: weave chapter SOURCE.cu | prose FILE.md | tried SOURCE.cu..."
                       " [OPTIONS] (see book/weave.c)\n"), 2;

    results.dir = data_dir;
    char error[2048], *text = NULL;
    if (!keep_placeholders && (kernel_list_read(kernels_path, &kernels, error, sizeof error) ||
                               csv_reader_folder(data_dir, &kernels, &results, error, sizeof error) ||
                               accuracy_read(data_dir, &accuracy, error, sizeof error) ||
                               nsight_read(data_dir, &nsight, error, sizeof error)))
        return fprintf(stderr, "%s\n", error), 1;
    size_t length = 0;
    FILE *out = open_memstream(&text, &length);
    if (!out)
        die_at("weave", 0, "out of memory");
    if (is_tried) {
        weave_tried(out, inputs, input_count);
    } else if (strcmp(command, "chapter") == 0) {
        weave_chapter(out, inputs[0], exercises_dir, solutions_dir);
    } else {
        source_file prose = load_source(inputs[0]);
        check_fences_closed(&prose, 1, prose.count, "the end of the file");
        for (int n = 1, in_fence = 0; n <= prose.count; n++) {
            in_fence ^= is_fence(prose.lines[n - 1]);
            weave_prose_line(out, prose.lines[n - 1], inputs[0], n, (heading_style){0, 0}, in_fence);
        }
    }
    if (fclose(out) != 0)
        die_at("weave", 0, "out of memory");
    fwrite(text, 1, length, stdout);
    return ferror(stdout) || fflush(stdout) != 0 ? 1 : 0;
}

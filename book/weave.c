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
 * and line and makes weave exit 1 having printed nothing. The placeholders
 * are filled by book/placeholders.c (weave.h: what the two share).
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "placeholders.h"
#include "weave.h"

static const char *figures_dir = "plots/out", *tables_dir = "build/book/tables";
static int keep_placeholders; /* the faithfulness test's weave: no data is read */

/* A prose line with its placeholders filled (placeholders.c), then ending
 * ("\n"); the faithfulness test's weave leaves them as they are. */
static void fill_line(FILE *out, const char *text, const char *path, int line, const char *ending)
{
    if (keep_placeholders)
        fprintf(out, "%s%s", text, ending);
    else
        placeholders_fill_line(out, text, path, line, ending);
}

/* How a file's headings are woven: moved down `shift` levels (the appendix
 * and the exercises sit under a chapter's headings) and, where the book
 * numbers nothing, marked unnumbered. */
typedef struct {
    int shift, unnumbered;
} heading_style;

/* ------------------------------------------------------------ directives */

/* Whole-line directives bring in what the other tools wrote: a plot (its
 * Markdown, which plots/draw.sh writes beside the SVG), every plot drawn,
 * or a table of book/results.c. Returns 1 when the line was one. */
static void put_code(FILE *out, const source_file *source, int first, int last);

/* The line that names the file the code below comes from ("Source:
 * chapters/02-naive/naive.cuh" in book.css), a link to its page in the HTML
 * (book/sources.lua; book/html.sh writes a page for each file linked). */
static void put_source_note(FILE *out, const char *path)
{
    fprintf(out, "\n::: {.source-file source=\"%s\"}\n`%s`\n:::\n", path, path);
}

/* {{listing|FILE|FUNCTION}}: FUNCTION's definition in FILE (a file of the
 * repository, such as common/device/wgmma.h), with the comment and the
 * template line above it (function_extent), as a listing with FILE's line
 * numbers under a line naming FILE (a link to its page in the HTML): how the
 * book shows, where an instruction is introduced, the wrapper the kernels
 * call. */
static int weave_change(FILE *out, const source_file *source, const piece_list *list, int marker,
                        const char *file, const char *function, const char *where, int at,
                        heading_style style, int title_line, int code_only);

/* {{listing|FILE|FUNCTION|changes|OLD_FILE|OLD_FUNCTION}} shows it as a
 * change of OLD_FUNCTION instead, as // book:changes does in a chapter. */
static void put_listing(FILE *out, const char *inside, const char *path, int number)
{
    char file[4096], function[512], old_file[4096], old_function[512], extra, why[8192];
    int parts = sscanf(inside, "listing|%4095[^|]|%511[^|]|changes|%4095[^|]|%511[^|]%c", file,
                       function, old_file, old_function, &extra);
    if ((parts != 2 && parts != 4) || (parts == 2 && strchr(strchr(inside + 8, '|') + 1, '|')))
        die_at(path, number, "{{%s}}: write {{listing|FILE|FUNCTION}} or "
               "{{listing|FILE|FUNCTION|changes|OLD_FILE|OLD_FUNCTION}}", inside);
    source_file source;
    if (read_lines(file, &source) != 0)
        die_at(path, number, "{{%s}}: cannot read %s: %s", inside, file, strerror(errno));
    int first, last;
    if (function_extent(&source, function, &first, &last, why, sizeof why) != 0)
        die_at(path, number, "{{%s}}: %s", inside, why);
    put_source_note(out, file);
    if (parts == 2) {
        put_code(out, &source, first, last);
    } else {
        piece_list list = scan_markers(&source);
        weave_change(out, &source, &list, first - 1, old_file, old_function, path, number,
                     (heading_style){0, 0}, 0, 1);
    }
}

static int directive(FILE *out, const char *line, const char *path, int number)
{
    const char *start = line + strspn(line, " \t");
    size_t length = strlen(start);
    while (length > 0 && isspace((unsigned char)start[length - 1]))
        length--;
    if (length < 4 || strncmp(start, "{{", 2) || strncmp(start + length - 2, "}}", 2))
        return 0;
    char *inside = copy_of(start + 2, length - 4), file[4096];
    if (keep_placeholders && strncmp(inside, "listing|", 8) != 0) /* a listing reads no data */
        return free(inside), 0;
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

/* A prose piece, its title line left out (woven apart). */
static void weave_prose_piece(FILE *out, const source_file *source, const piece *part,
                              heading_style style, int title_line)
{
    int in_fence = 0;
    fputc('\n', out);
    for (int n = part->first; n <= part->last; n++) {
        in_fence ^= is_fence(source->lines[n - 1]);
        if (n != title_line)
            weave_prose_line(out, source->lines[n - 1], source->path, n, style, in_fence);
    }
    fputc('\n', out);
}

/* ------------------------------------------------------------ changes */

/* The lines of first..last the reader is shown, their text and numbers:
 * code, without prose blocks, hidden regions and book:changes markers. */
static int shown_lines(const source_file *source, const piece_list *list, int first, int last,
                       const char **text, int *numbers)
{
    int count = 0;
    for (int k = 0; k < list->count; k++) {
        const piece *part = &list->pieces[k];
        for (int n = part->first > first ? part->first : first;
             part->kind == PIECE_CODE && n <= part->last && n <= last; n++)
            if (!starts_with(source->lines[n - 1], "// book:changes")) {
                text[count] = source->lines[n - 1];
                numbers[count++] = n;
            }
    }
    return count;
}

/* One part of a change, the change lines at..to-1: the hunks of a unified
 * diff in a `diff` block (pandoc highlights its added and removed lines,
 * book.css colours them), or, where nothing changed, a quiet note. Both name
 * the new lines they stand for (first, last), for the faithfulness test.
 * A marked change (change_is_marked) prints the part's new lines whole
 * instead, numbered as in the file: its added lines `+`, its kept ones ` `,
 * its removed ones left out. */
static void put_change_part(FILE *out, const char *path, const char *from,
                            const change_line *lines, int at, int to, int marked)
{
    int first = 0, last = 0, longest = 0;
    for (int k = at; k < to; k++) {
        first = first ? first : lines[k].new_line;
        last = lines[k].new_line ? lines[k].new_line : last;
        for (const char *c = lines[k].text; *c; c++)
            longest = (int)strspn(c, "`") > longest ? (int)strspn(c, "`") : longest;
    }
    char *hunks = NULL;
    size_t length = 0;
    FILE *text = open_memstream(&hunks, &length);
    if (!text)
        die_at("weave", 0, "out of memory");
    int count = put_hunks(marked ? NULL : text, lines, at, to, 3, NULL);
    for (int k = at; marked && count > 0 && k < to; k++)
        if (lines[k].kind != '-')
            fprintf(text, "%c%s\n", lines[k].kind, lines[k].text);
    fclose(text);
    if (count == 0 && first)
        fprintf(out, "\n::: {.change .unchanged source=\"%s\" first=\"%d\" last=\"%d\"}\n"
                "lines %d to %d of `%s`: as they were\n:::\n\n", path, first, last, first, last,
                base_name(path));
    if (count > 0) {
        int fence = longest >= 3 ? longest + 1 : 3;
        char numbers[64] = "";
        if (marked)
            snprintf(numbers, sizeof numbers, " .marked .numberLines startFrom=\"%d\"", first);
        fprintf(out, "\n%.*s {.diff .change%s source=\"%s\" first=\"%d\" last=\"%d\" "
                "from=\"%s\"}\n%s%.*s\n\n", fence, "````````````````````````````````", numbers,
                path, first, last, from, hunks, fence, "````````````````````````````````");
    }
    free(hunks);
}

/* The rename of a step: naive_scores -> registers_scores renames naive_ to
 * registers_ (and NAIVE_ to REGISTERS_, the constants), when the two names
 * end alike and each starts with one word. Returns 0 when there is none. */
static int step_rename(const char *old_name, const char *new_name, char *from, char *to,
                       size_t capacity)
{
    const char *old_end = old_name + strlen(old_name), *new_end = new_name + strlen(new_name);
    while (old_end > old_name && new_end > new_name && old_end[-1] == new_end[-1])
        old_end--, new_end--;
    const char *old_tail = strchr(old_end, '_'), *new_tail = strchr(new_end, '_');
    if (!old_tail || !new_tail || strcmp(old_tail, new_tail) != 0)
        return 0; /* the same ending, from a '_' on */
    int old_word = (int)(old_tail - old_name), new_word = (int)(new_tail - new_name);
    if (old_word == 0 || new_word == 0 || memchr(old_name, '_', (size_t)old_word) ||
        memchr(new_name, '_', (size_t)new_word) || (size_t)old_word + 2 > capacity ||
        (size_t)new_word + 2 > capacity)
        return 0;
    snprintf(from, capacity, "%.*s_", old_word, old_name);
    snprintf(to, capacity, "%.*s_", new_word, new_name);
    return 1;
}

/* line with each identifier that starts with from (or FROM, in capitals)
 * starting with to (TO) instead: an old line as the new step names things. */
static char *renamed(const char *line, const char *from, const char *to)
{
    size_t length = strlen(from), room = strlen(line) * (strlen(to) + 1) + 1, at = 0;
    char *out = grown(NULL, room), upper_from[256], upper_to[256];
    snprintf(upper_from, sizeof upper_from, "%s", from);
    snprintf(upper_to, sizeof upper_to, "%s", to);
    for (char *c = upper_from; *c; c++)
        *c = (char)toupper((unsigned char)*c);
    for (char *c = upper_to; *c; c++)
        *c = (char)toupper((unsigned char)*c);
    for (const char *c = line; *c;) {
        int starts = c == line || !(isalnum((unsigned char)c[-1]) || c[-1] == '_');
        const char *with = !starts ? NULL : strncmp(c, from, length) == 0 ? to
                           : strncmp(c, upper_from, length) == 0 ? upper_to : NULL;
        if (with) {
            at += (size_t)sprintf(out + at, "%s", with);
            c += length;
        } else {
            out[at++] = *c++;
        }
    }
    out[at] = '\0';
    return out;
}

/* The name a function's definition gives it, from its first line that
 * starts at column 0 with a '(' in it (not __launch_bounds__'s), or "". */
static void function_name(const source_file *source, int first, int last, char *name,
                          size_t capacity)
{
    name[0] = '\0';
    for (int n = first; n <= last && !name[0]; n++) {
        const char *line = source->lines[n - 1], *paren = strchr(line, '('), *start = paren;
        if (!paren || !line[0] || isspace((unsigned char)line[0]) || line[0] == '/' ||
            line[0] == '*')
            continue;
        while (start > line && (isalnum((unsigned char)start[-1]) || start[-1] == '_'))
            start--;
        if (start < paren && strncmp(start, "__launch_bounds__", 17) != 0)
            snprintf(name, capacity, "%.*s", (int)(paren - start), start);
    }
}

/* The note above a change: the function it changes, its chapter (when not
 * this one) and its lines (book/sources.lua links them), and the step's
 * rename if there is one. */
static void put_change_note(FILE *out, const char *path, const char *file, const char *function,
                            int first, int last, const char *from, const char *to, int marked,
                            int removed)
{
    char slug[256], where[64] = "", rename[300] = "", said[600] = "", how[200], mark[48] = "";
    int chapter = strncmp(file, "chapters/", 9) == 0 ? chapter_number_of(file, slug, sizeof slug) : 0;
    if (chapter && (strncmp(path, "chapters/", 9) != 0 ||
                    chapter != chapter_number_of(path, slug, sizeof slug)))
        snprintf(where, sizeof where, " of chapter %d", chapter); /* not in this one */
    if (from[0]) {
        snprintf(rename, sizeof rename, " renamed=\"%s %s\"", from, to);
        snprintf(said, sizeof said, "; a line that only reads `%s` for `%s` (in capitals "
                 "too) is not marked", to, from);
    }
    if (marked) { /* the new function whole: what it replaced is counted, not shown */
        snprintf(mark, sizeof mark, " marked=\"%d\"", removed);
        /* marked by a green band (book/changes.lua draws it; the woven
         * Markdown marks the lines +) */
        snprintf(how, sizeof how, ", shown whole: the lines on green are new or rewritten, %d "
                 "line%s of the old one gone", removed, removed == 1 ? "" : "s");
    } else {
        snprintf(how, sizeof how, ": `-` lines removed (on red), `+` lines added (on green)");
    }
    fprintf(out, "\n::: {.changed-from source=\"%s\" first=\"%d\" last=\"%d\"%s%s}\n"
            "Changes `%s`%s (`%s`, lines %d to %d)%s%s.\n:::\n",
            file, first, last, rename, mark, function, where, file, first, last, how, said);
}

/* The change lines of the new function, lines marker+1..last of source: a
 * diff part per code piece, the prose and hidden-code marks of the pieces
 * between them in their place. A removed line goes with the part of the
 * next line the new function has (the last part takes those at the end). */
/* The change lines that the code piece k of the function (lines
 * marker+1..last) gets, from `at`: up to its last new line, and all that
 * is left for the function's last code piece. Returns the end. */
static int change_part_end(const piece_list *list, int k, int marker, int last,
                           const change_line *lines, int count, int at)
{
    int last_code = -1;
    for (int p = 0; p < list->count; p++)
        if (list->pieces[p].kind == PIECE_CODE && list->pieces[p].first <= last &&
            list->pieces[p].last > marker)
            last_code = p;
    int end = list->pieces[k].last < last ? list->pieces[k].last : last, until = at;
    for (int m = at; m < count && (!lines[m].new_line || lines[m].new_line <= end); m++)
        until = lines[m].new_line ? m + 1 : until;
    return k == last_code ? count : until;
}

/* How many lines the diff of a change takes, its parts cut as
 * put_change_parts cuts them (hunk headers counted). */
static int change_diff_length(const piece_list *list, int marker, int last,
                              const change_line *lines, int count)
{
    int total = 0, at = 0;
    for (int k = 0; k < list->count; k++) {
        const piece *part = &list->pieces[k];
        if (part->last <= marker || part->first > last || part->kind != PIECE_CODE)
            continue;
        int until = change_part_end(list, k, marker, last, lines, count, at), length;
        put_hunks(NULL, lines, at, until, 3, &length);
        total += length;
        at = until;
    }
    return total;
}

static void put_change_parts(FILE *out, const source_file *source, const piece_list *list,
                             int marker, int last, const char *file, const change_line *lines,
                             int count, heading_style style, int title_line, int code_only,
                             int marked)
{
    int at = 0;
    for (int k = 0; k < list->count; k++) {
        const piece *part = &list->pieces[k];
        if (part->last <= marker || part->first > last)
            continue;
        if (part->kind == PIECE_PROSE && !code_only)
            weave_prose_piece(out, source, part, style, title_line);
        if (part->kind == PIECE_HIDDEN)
            fprintf(out, "\n::: {.hidden-code source=\"%s\" first=\"%d\" last=\"%d\"}\n"
                    "lines %d to %d of `%s` not shown\n:::\n\n", source->path, part->first,
                    part->last, part->first, part->last, base_name(source->path));
        if (part->kind != PIECE_CODE)
            continue;
        int until = change_part_end(list, k, marker, last, lines, count, at);
        put_change_part(out, source->path, file, lines, at, until, marked);
        at = until;
    }
}

/* The function after line `marker` of source (a // book:changes marker, or
 * the line above a listing's function), to the line "}" that closes it,
 * woven as what changed from FUNCTION of FILE: the note, then the parts
 * (put_change_parts). The lines compared are those a reader is shown, an
 * old line read with the step's rename (step_rename). An error names
 * `where`:`at`. Returns the line after "}". */
static int weave_change(FILE *out, const source_file *source, const piece_list *list, int marker,
                        const char *file, const char *function, const char *where, int at,
                        heading_style style, int title_line, int code_only)
{
    char why[8192], new_name[512], from[128] = "", to[128] = "";
    source_file old;
    if (read_lines(file, &old) != 0)
        die_at(where, at, "book:changes: cannot read %s: %s", file, strerror(errno));
    int old_first, old_last, last = marker + 1, count;
    if (function_extent(&old, function, &old_first, &old_last, why, sizeof why) != 0)
        die_at(where, at, "book:changes: %s", why);
    while (last <= source->count && strcmp(source->lines[last - 1], "}") != 0)
        last++;
    if (last > source->count)
        die_at(where, at, "book:changes: no line \"}\" ends the function below");

    piece_list old_list = scan_markers(&old);
    size_t room = (size_t)(old.count + source->count);
    int *old_numbers = grown(NULL, room * sizeof(int)), *new_numbers = grown(NULL, room * sizeof(int));
    const char **old_text = grown(NULL, room * sizeof(char *));
    const char **old_compare = grown(NULL, room * sizeof(char *));
    const char **new_text = grown(NULL, room * sizeof(char *));
    int old_count = shown_lines(&old, &old_list, old_first, old_last, old_text, old_numbers);
    int new_count = shown_lines(source, list, marker + 1, last, new_text, new_numbers);
    function_name(source, marker + 1, last, new_name, sizeof new_name);
    int renames = step_rename(function, new_name, from, to, sizeof from);
    for (int k = 0; k < old_count; k++)
        old_compare[k] = renames ? renamed(old_text[k], from, to) : old_text[k];
    change_line *lines = diff_lines(old_compare, old_text, old_numbers, old_count, new_text,
                                    new_numbers, new_count, &count);
    int kept = 0; /* lines kept besides blank lines and braces */
    for (int k = 0; k < count; k++)
        kept += lines[k].kind == ' ' && !line_is(lines[k].text, "") &&
                !line_is(lines[k].text, "{") && !line_is(lines[k].text, "}");
    if (kept == 0)
        die_at(where, at, "book:changes: the function below keeps no line of %s() in %s: it "
               "is new, show it whole", function, file);

    /* the rule (change_is_marked): a diff no longer than the function, else
     * the function whole with its changes marked */
    int removed = 0;
    for (int k = 0; k < count; k++)
        removed += lines[k].kind == '-';
    int marked = change_is_marked(change_diff_length(list, marker, last, lines, count), new_count);
    put_change_note(out, source->path, file, function, old_first, old_last, from, to, marked,
                    removed);
    put_change_parts(out, source, list, marker, last, file, lines, count, style, title_line,
                     code_only, marked);
    for (int k = 0; renames && k < old_count; k++)
        free((char *)old_compare[k]);
    free(lines), free(old_text), free(old_compare), free(new_text), free(old_numbers);
    free(new_numbers);
    return last + 1;
}

/* A code piece's lines first..last: as they are, but a function after a
 * book:changes marker, woven as a change. Returns the line after the last
 * one woven (a change may run into later pieces). */
static int weave_code(FILE *out, const source_file *source, const piece_list *list, int first,
                      int last, heading_style style, int title_line, int code_only)
{
    for (int n = first; n <= last; n++)
        if (starts_with(source->lines[n - 1], "// book:changes")) {
            char file[4096], function[512], extra;
            const char *line = source->lines[n - 1];
            if (sscanf(line + strspn(line, " \t"), "// book:changes %4095s %511s %c", file,
                       function, &extra) != 2)
                die_at(source->path, n, "write // book:changes FILE FUNCTION, alone on its line");
            put_code(out, source, first, n - 1);
            int after = weave_change(out, source, list, n, file, function, source->path, n, style,
                                     title_line, code_only);
            return after <= last ? weave_code(out, source, list, after, last, style, title_line,
                                              code_only)
                                 : after;
        }
    put_code(out, source, first, last);
    return last + 1;
}

/* A file's pieces in order, but the title line, woven apart; code_only:
 * its code alone (a solution). */
static void weave_pieces(FILE *out, const source_file *source, const piece_list *list,
                         heading_style style, int title_line, int code_only)
{
    int woven = 0; /* lines up to it were woven by a change */
    for (int k = 0; k < list->count; k++) {
        piece part = list->pieces[k];
        if (part.last <= woven)
            continue;
        part.first = part.first <= woven ? woven + 1 : part.first;
        if (part.kind == PIECE_CODE)
            woven = weave_code(out, source, list, part.first, part.last, style, title_line,
                               code_only) - 1;
        else if (part.kind != PIECE_PROSE)
            k = put_hidden_note(out, source, list, k);
        else if (!code_only)
            weave_prose_piece(out, source, &part, style, title_line);
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
    put_source_note(out, path);
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
        put_source_note(out, other);
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

    char error[2048], *text = NULL;
    if (!keep_placeholders && placeholders_read(kernels_path, data_dir, error, sizeof error) != 0)
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



/* weave_files.c - the weaver's reading of its sources: files cut into lines,
 * the folders' files in name order, and the markers that cut a source into
 * prose, shown code and hidden code. See weave.h. */
#include "weave.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void die_at(const char *path, int line, const char *format, ...)
{
    fprintf(stderr, line > 0 ? "%s:%d: " : "%s: ", path, line);
    va_list args;
    va_start(args, format);
    vfprintf(stderr, format, args);
    va_end(args);
    fputc('\n', stderr);
    exit(1);
}

void *grown(void *memory, size_t size)
{
    void *bigger = realloc(memory, size);
    if (!bigger)
        die_at("weave", 0, "out of memory");
    return bigger;
}

char *copy_of(const char *text, size_t length)
{
    char *copy = grown(NULL, length + 1);
    memcpy(copy, text, length);
    copy[length] = '\0';
    return copy;
}

/* 0, or -1 (errno set) when the file cannot be opened. Lines end in LF or
 * CRLF (an editor on Windows saves CRLF; both read alike), and a UTF-8
 * byte-order mark before the first line is dropped: kept, it would hide a
 * first line's /\*md or # Title. A carriage return anywhere else (a file
 * with CR-only line endings is one long line of them) is refused, as the
 * lines could only be guessed. */
int read_lines(const char *path, source_file *source)
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

source_file load_source(const char *path)
{
    source_file source;
    if (read_lines(path, &source) != 0)
        die_at(path, 0, "cannot read: %s", strerror(errno));
    return source;
}

/* Is the line exactly text, with only blanks around it? */
int line_is(const char *line, const char *text)
{
    line += strspn(line, " \t");
    size_t length = strlen(text);
    return strncmp(line, text, length) == 0 && line[length + strspn(line + length, " \t\r")] == '\0';
}

const char *base_name(const char *path)
{
    return strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
}

/* chapters/02-naive/naive.cu -> 2 and "Naive"; exercises/03-unroll.cu -> 3. */
int chapter_number_of(const char *path, char *slug, size_t capacity)
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

int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names in dir that start with prefix and end with suffix, sorted; a
 * missing folder has none. */
int list_files(const char *dir, const char *prefix, const char *suffix, char ***names)
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
int list_sources(const char *dir, char ***names)
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
const char *story_of(const char *path, char *story, size_t capacity)
{
    size_t length = strlen(path);
    if (length > 3 && strcmp(path + length - 3, ".cu") == 0 &&
        (size_t)snprintf(story, capacity, "%sh", path) < capacity && access(story, R_OK) == 0)
        return story;
    return path;
}

/* A line that opens or closes a fenced block of Markdown (``` or ~~~). */
int is_fence(const char *line)
{
    line += strspn(line, " ") < 3 ? strspn(line, " ") : 3;
    return strncmp(line, "```", 3) == 0 || strncmp(line, "~~~", 3) == 0;
}

/* Prose lines first..last must close every fence they open: a fence left
 * open would make the rest of the page code (and the weaver would read the
 * following prose as the fence's content). */
void check_fences_closed(const source_file *source, int first, int last, const char *end)
{
    int opened = 0;
    for (int n = first; n <= last; n++)
        if (is_fence(source->lines[n - 1]))
            opened = opened ? 0 : n;
    if (opened)
        die_at(source->path, opened, "this fence (```) is not closed before %s: close it with "
               "a line of ```", end);
}


/* Hidden pieces: a // book:hide region, the file's opening comment (what the
 * file is and how to build it) and its first run of #include lines, the last
 * two hidden without a marker. */
static void add_piece(piece_list *list, piece_kind kind, int first, int last)
{
    if (last < first)
        return;
    list->pieces = grown(list->pieces, (size_t)(list->count + 1) * sizeof *list->pieces);
    list->pieces[list->count++] = (piece){kind, first, last};
    list->prose += kind == PIECE_PROSE;
}

int starts_with(const char *line, const char *text)
{
    return strncmp(line + strspn(line, " \t"), text, strlen(text)) == 0;
}

/* A line of the first run the book hides: an #include, or the #pragma once
 * before them (a listing of it alone would tell the reader nothing). */
static int is_include(const char *line)
{
    return starts_with(line, "#include") || line_is(line, "#pragma once");
}

/* Cuts a literate source into code, prose and hidden pieces; a marker that
 * is not well formed stops here with its file and line. */
piece_list scan_markers(const source_file *source)
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
        } else if (state == IN_CODE && is_include(line) && !includes++) {
            int last = n; /* the run: #include lines and the blank lines between them */
            for (int k = n + 1; k <= source->count && (is_include(source->lines[k - 1]) ||
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

/* FUNCTION's definition in source: the one line that starts at column 0,
 * names FUNCTION followed by '(' and does not end in ';' (a line starting
 * with a blank, '/', '*' or '#' is no definition), to the next line that is
 * exactly "}", with the template line and the comment right above it. */
int function_extent(const source_file *source, const char *function, int *first, int *last,
                    char *why, size_t capacity)
{
    char call[512];
    snprintf(call, sizeof call, "%s(", function);
    int definition = 0;
    for (int n = 1; n <= source->count; n++) {
        const char *line = source->lines[n - 1], *at = strstr(line, call);
        size_t length = strlen(line);
        while (length > 0 && isspace((unsigned char)line[length - 1]))
            length--;
        int named = at && (at == line || !(isalnum((unsigned char)at[-1]) || at[-1] == '_'));
        /* or the name indented first on the line under "__global__ void ...(...)" */
        int under = at && at == line + strspn(line, " \t") && n > 1 &&
                    strstr(source->lines[n - 2], "__global__") &&
                    !isspace((unsigned char)source->lines[n - 2][0]);
        if (!named || (isspace((unsigned char)line[0]) && !under) || line[0] == '/' ||
            line[0] == '*' || line[0] == '#' || (length > 0 && line[length - 1] == ';'))
            continue;
        if (definition)
            return snprintf(why, capacity, "%s defines %s twice (lines %d and %d)", source->path,
                            function, definition, n), -1;
        definition = n;
    }
    if (!definition)
        return snprintf(why, capacity, "%s has no definition of %s() starting a line",
                        source->path, function), -1;
    *first = *last = definition;
    while (*last <= source->count && strcmp(source->lines[*last - 1], "}") != 0)
        ++*last;
    if (*last > source->count)
        return snprintf(why, capacity, "%s:%d: no line \"}\" closes %s()", source->path,
                        definition, function), -1;
    /* a definition whose name is on the line after its return type */
    const char *name_line = source->lines[*first - 1] + strspn(source->lines[*first - 1], " \t");
    if (*first > 1 && strcmp(name_line, call) != 0 && strncmp(name_line, call, strlen(call)) == 0 &&
        !isspace((unsigned char)source->lines[*first - 2][0]) && source->lines[*first - 2][0] &&
        (strstr(source->lines[*first - 2], "__global__") ||
         starts_with(source->lines[*first - 2], "static")))
        --*first;
    if (*first > 1 && starts_with(source->lines[*first - 2], "template"))
        --*first;
    if (*first > 1) { /* the comment right above it */
        int above = *first - 1;
        const char *line = source->lines[above - 1];
        size_t length = strlen(line);
        if (length >= 2 && strcmp(line + length - 2, "*/") == 0 && !line_is(line, "*/")) {
            while (above > 1 && !starts_with(source->lines[above - 1], "/*"))
                above--;
            *first = above;
        } else if (length >= 2 && strcmp(line + length - 2, "*/") == 0) {
            /* a lone closing line: a comment, unless it closes a prose block */
            while (above > 1 && !starts_with(source->lines[above - 1], "/*"))
                above--;
            if (!line_is(source->lines[above - 1], "/*md"))
                *first = above;
        } else {
            while (above >= 1 && starts_with(source->lines[above - 1], "//") &&
                   !strstr(source->lines[above - 1], "book:"))
                *first = above--;
        }
    }
    return 0;
}

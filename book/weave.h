/* weave.h - what the weaver's files share: weave.c (the command line, the
 * directives, the weaving), weave_files.c (reading the sources, their
 * markers) and placeholders.c (the placeholder engine).
 * Host C11; built by book/book.mk as build/book/weave.
 */
#ifndef WORKBOOK_WEAVE_H
#define WORKBOOK_WEAVE_H

#include <stddef.h>
#include <stdio.h>

/* "path:line: message" (line 0: "path: message") on stderr; exits 1. */
void die_at(const char *path, int line, const char *format, ...)
    __attribute__((format(printf, 3, 4), noreturn));
/* realloc, or exits 1 with "weave: out of memory". */
void *grown(void *memory, size_t size);
/* The length bytes at text, as a string of their own (grown's). */
char *copy_of(const char *text, size_t length);

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
int read_lines(const char *path, source_file *source);

/* The file cut into lines, or a stop with "path: cannot read: why". */
source_file load_source(const char *path);

/* Is the line exactly text, with only blanks around it? */
int line_is(const char *line, const char *text);

/* What follows the last '/' of path. */
const char *base_name(const char *path);

/* chapters/02-naive/naive.cu -> 2 and "Naive"; exercises/03-unroll.cu -> 3. */
int chapter_number_of(const char *path, char *slug, size_t capacity);

/* qsort's order of two names (char *): strcmp's. */
int by_name(const void *a, const void *b);

/* The names in dir that start with prefix and end with suffix, sorted; a
 * missing folder has none. */
int list_files(const char *dir, const char *prefix, const char *suffix, char ***names);

/* A folder's sources, .cu and .cuh, in name order. */
int list_sources(const char *dir, char ***names);

/* A chapter's story: chapters/NN-slug/slug.cuh where the chapter's code is
 * a header (later chapters, its tried/ files and the figures include it),
 * else chapters/NN-slug/slug.cu. */
const char *story_of(const char *path, char *story, size_t capacity);

/* A line that opens or closes a fenced block of Markdown (``` or ~~~). */
int is_fence(const char *line);

/* Prose lines first..last must close every fence they open: a fence left
 * open would make the rest of the page code (and the weaver would read the
 * following prose as the fence's content). */
void check_fences_closed(const source_file *source, int first, int last, const char *end);

/* The pieces of a literate source, cut at its markers (book/README.md). */
typedef enum { PIECE_CODE, PIECE_PROSE, PIECE_HIDDEN, PIECE_HEADER, PIECE_INCLUDES } piece_kind;

typedef struct {
    piece_kind kind;
    int first, last; /* 1-based lines of the content (prose: inside the markers) */
} piece;

typedef struct {
    piece *pieces;
    int count, prose; /* prose: how many of them are prose */
} piece_list;

/* Does line start with text, after blanks? */
int starts_with(const char *line, const char *text);

/* Cuts a literate source into code, prose and hidden pieces; a marker that
 * is not well formed stops here with its file and line. */
piece_list scan_markers(const source_file *source);

/* FUNCTION's definition in source, from the comment and template line above
 * it to the line "}" that closes it: 0, or -1 with why. */
int function_extent(const source_file *source, const char *function, int *first, int *last,
                    char *why, size_t capacity);

/* ------------------------------------------------ changes (changes.c) */

/* One line of a change: kept (' '), removed ('-') or added ('+'), with its
 * line in the old and the new file (0 where it has none). */
typedef struct {
    char kind;
    int old_line, new_line;
    const char *text;
} change_line;

/* The shortest edit from old to new, lines compared whole (old_compare: the
 * old lines as compared, old_text: as printed when removed): kept, removed
 * and added lines in the order a unified diff prints them; *count of them. */
change_line *diff_lines(const char *const *old_compare, const char *const *old_text,
                        const int *old_lines, int old_count, const char *const *new_text,
                        const int *new_lines, int new_count, int *count);

/* The hunks of change lines from..to-1 (a unified diff's, `context` kept
 * lines around each change), each under its "@@ -A,B +C,D @@" line, to
 * out (or nowhere, out NULL); returns how many hunks (0: nothing changed
 * there), *length (where not NULL) how many lines they take. */
int put_hunks(FILE *out, const change_line *lines, int from, int to, int context, int *length);

/* The rule for a change that rewrote more than it kept: 1 when its hunks
 * (diff_length lines, headers too) would be longer than the new function
 * (function_length lines shown): the reader then gets the new function
 * whole, its added lines marked and the removed ones counted, not left to
 * read a diff longer than what it explains. */
int change_is_marked(int diff_length, int function_length);

#endif

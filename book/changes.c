/* book/changes.c - a listing as a change (weave.h): the shortest edit from
 * an earlier function to its new version, printed as the hunks of a unified
 * diff, or, where those hunks would be longer than the new function, the
 * new function whole with its added lines marked (change_is_marked). The weaver shows a function that `// book:changes FILE FUNCTION`
 * precedes so (book/README.md): the reader sees what a step changed, not a
 * second copy of the function to compare by eye. */
#include "weave.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The longest common subsequence by its table (the functions are a few
 * hundred lines at most: the table stays small), read forwards. */
change_line *diff_lines(const char *const *old_compare, const char *const *old_text,
                        const int *old_lines, int old_count, const char *const *new_text,
                        const int *new_lines, int new_count, int *count)
{
    int width = new_count + 1;
    /* common[i * width + j]: the longest common run of old i.. and new j.. */
    int *common = grown(NULL, (size_t)(old_count + 1) * (size_t)width * sizeof *common);
    for (int i = old_count; i >= 0; i--)
        for (int j = new_count; j >= 0; j--)
            common[i * width + j] =
                i == old_count || j == new_count ? 0
                : strcmp(old_compare[i], new_text[j]) == 0 ? 1 + common[(i + 1) * width + j + 1]
                : common[(i + 1) * width + j] > common[i * width + j + 1] ? common[(i + 1) * width + j]
                                                                        : common[i * width + j + 1];
    change_line *lines = grown(NULL, (size_t)(old_count + new_count + 1) * sizeof *lines);
    int i = 0, j = 0, n = 0;
    while (i < old_count || j < new_count) {
        if (i < old_count && j < new_count && strcmp(old_compare[i], new_text[j]) == 0) {
            lines[n++] = (change_line){' ', old_lines[i], new_lines[j], new_text[j]};
            i++, j++;
        } else if (i < old_count && (j == new_count ||
                                     common[(i + 1) * width + j] >= common[i * width + j + 1])) {
            lines[n++] = (change_line){'-', old_lines[i], 0, old_text[i]};
            i++; /* removed lines first, as diff prints them */
        } else {
            lines[n++] = (change_line){'+', 0, new_lines[j], new_text[j]};
            j++;
        }
    }
    free(common);
    *count = n;
    return lines;
}

/* The first old or new line number among lines from..to-1 (0: none). */
static int first_number(const change_line *lines, int from, int to, int old)
{
    for (int k = from; k < to; k++)
        if (old ? lines[k].old_line : lines[k].new_line)
            return old ? lines[k].old_line : lines[k].new_line;
    return 0;
}

/* Prints one hunk (nothing where out is NULL); returns how many lines it
 * takes, its header too. */
static int put_hunk(FILE *out, const change_line *lines, int from, int to)
{
    int removed = 0, added = 0;
    for (int k = from; k < to; k++) {
        removed += lines[k].kind != '+';
        added += lines[k].kind != '-';
    }
    if (!out)
        return 1 + to - from;
    fprintf(out, "@@ -%d,%d +%d,%d @@\n", first_number(lines, from, to, 1), removed,
            first_number(lines, from, to, 0), added);
    for (int k = from; k < to; k++)
        fprintf(out, "%c%s\n", lines[k].kind, lines[k].text);
    return 1 + to - from;
}

int put_hunks(FILE *out, const change_line *lines, int from, int to, int context, int *length)
{
    int hunks = 0;
    if (length)
        *length = 0;
    for (int k = from; k < to; k++) {
        if (lines[k].kind == ' ')
            continue;
        int start = k - context < from ? from : k - context, end = k;
        /* the hunk runs on while the next change is within two contexts */
        for (int next = k; next < to; next++)
            if (lines[next].kind != ' ') {
                if (next > end + 2 * context)
                    break;
                end = next;
            }
        end = end + 1 + context > to ? to : end + 1 + context;
        int printed = put_hunk(out, lines, start, end);
        if (length)
            *length += printed;
        hunks++;
        k = end - 1;
    }
    return hunks;
}

int change_is_marked(int diff_length, int function_length)
{
    return diff_length > function_length;
}

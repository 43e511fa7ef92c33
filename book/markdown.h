/* markdown.h - numbers and text as the book's pages print them. Host C11;
 * tested by tests/test_csv_reader.c.
 */
#ifndef WORKBOOK_MARKDOWN_H
#define WORKBOOK_MARKDOWN_H

#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A measured value (or a ratio of two) as the book prints it: three
 * significant digits, never an exponent (0.0123, 1.23, 123, 4567). -1 for a
 * value that would not print so: not finite, negative, or 1e15 and more. */
int markdown_number(char *text, size_t capacity, double value);

/* Writes a field as text in Markdown (pandoc's and GitHub's): every
 * character Markdown or HTML would read as markup (<, >, &, *, _, `, [, ],
 * |, $, {, }, ...) is escaped with a backslash, so that a card's name or a
 * commit reaches the page as the characters it holds, never as a tag. */
void markdown_put(FILE *out, const char *text);

#ifdef __cplusplus
}
#endif

#endif

/* plain_csv.h - the one reader of the book tools' plain CSV files (the
 * accuracy rows, the cards' facts, the Nsight readings): their writers quote
 * nothing, since no field holds a comma or a quote. The first line must be
 * the file's header; every other line is split into exactly `fields` fields
 * and handed to `row`, which checks and keeps them.
 *
 *   plain_csv_read(path, CSV_CARD_HEADER, 10, learn_row, NULL, error, sizeof error)
 *
 * Host C11; tested through its readers (tests/test_accuracy_reader.c,
 * test_card_reader.c, test_nsight_reader.c).
 */
#ifndef WORKBOOK_PLAIN_CSV_H
#define WORKBOOK_PLAIN_CSV_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One row's fields (split in place), its file and line: 0, or -1 with the
 * message in error (plain_csv_fail writes the usual one). */
typedef int (*plain_csv_row)(char **field, const char *path, int line, void *context, char *error,
                             size_t capacity);

/* 0 when every row was read and kept; 1, with no message, when the file
 * does not exist (the caller says whether that is an error); -1 with
 * "file:line: why" in error. */
int plain_csv_read(const char *path, const char *header, int fields, plain_csv_row row,
                   void *context, char *error, size_t capacity);

/* "path:line: malformed row: why" into error; returns -1. */
int plain_csv_fail(char *error, size_t capacity, const char *path, int line, const char *why);

#ifdef __cplusplus
}
#endif

#endif

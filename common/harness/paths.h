/* paths.h - the files a run will write or read, checked before the run:
 * a path built from a directory and a file name must fit its buffer (never
 * cut short), and a file or directory still to be created must have a
 * directory to go in that exists and can be written. So that --csv, --save
 * and --load are refused (exit 2) up front, not after a whole run.
 */
#ifndef WORKBOOK_PATHS_H
#define WORKBOOK_PATHS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The largest path buffer the programs use (PATH_MAX on Linux). */
#define PATHS_MAX 4096

/* Writes "dir/file" into buffer. Returns 0, or -1 (buffer untouched beyond
 * its capacity) with "the path dir/file... is longer than the N characters
 * ..." in message when it does not fit. */
int path_join(char *buffer, size_t capacity, const char *dir, const char *file, char *message,
              size_t message_capacity);

/* Checks that path (a file or directory not there yet) could be created:
 * the directory that would hold it exists, is a directory and is writable.
 * Returns 0, or -1 with the reason in message ("x.csv: the directory
 * /nonexistent-dir does not exist"). */
int path_check_parent(const char *path, char *message, size_t capacity);

#ifdef __cplusplus
}
#endif

#endif

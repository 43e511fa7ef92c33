/* generate.h - the parts of build/tools/generate (tools/generate.c, the
 * command line), one file a command: what each derives from
 * chapters/kernels.list, read through the list's one reader
 * (tools/kernel_list.c). Host C11.
 */
#ifndef WORKBOOK_GENERATE_H
#define WORKBOOK_GENERATE_H

#include <stddef.h>

#include "kernel_list.h"

#define GENERATE_MAX_CHAPTERS 100

/* generate.c: stops the tool with "generate: MESSAGE" on stderr, exit 1. */
int die(const char *format, ...) __attribute__((format(printf, 1, 2), noreturn));
/* generate.c: reads the list, or stops with "LIST:LINE: what is wrong". */
void read_list(const char *path, kernel_list *list);
/* generate.c: a chapter number of a command-line word ("05" is 5, "6:max"
 * is 6), or stops. */
int chapter_number(const char *word);

/* programs_mk.c: the chapter programs as Makefile rules (make 1) or as a
 * table (make 0), and the chapters built for an architecture-specific
 * target. */
int programs_command(int make, const char *path, const char *chapters, const char *mutants);

/* kernel_where.c: where each contender's work is, found in the chapters'
 * sources. where_of fills out for list->entries[index] (strict: a symbol no
 * chapter source defines stops the tool; else out is left empty). */
void where_of(const kernel_list *list, int index, char *out, size_t capacity, int strict);
int where_command(const char *path);
/* kernel_where.c: the chapter folders (NN-slug) whose sources include a
 * header of a chapter of `chapters` (a 0-ended list of chapter numbers),
 * those chapters' own folders too, blank-separated, into out. */
void folders_including(const int *chapters, char *out, size_t capacity);
/* kernel_where.c: the folders (NN-slug) of the chapters of `chapters` that
 * have one, blank-separated, into out. */
void folders_of(const int *chapters, char *out, size_t capacity);

/* program_main.c: the main() of one chapter program. */
int main_command(const char *path, const char *chapter_word, const char *problem,
                 const char *kind, const char *program);

/* kernel_facts.c: a contender's facts as a C initializer (list->entries[index],
 * printed to stdout); `generate facts LIST`, build/gen/kernel_facts.h. */
void print_contender_facts(const kernel_list *list, int index);
int facts_command(const char *path);

/* frontier.c: chapter 9's precision frontier, from the measured rows. */
int frontier_command(const char *path, const char *data_dir, const char *out, int upto);

/* renumber.c: a CSV of plots/data with its chapter column set from the list. */
int renumber_command(const char *path, const char *csv_path);

#endif

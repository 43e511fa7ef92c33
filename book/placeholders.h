/* placeholders.h - the weaver's placeholder engine: the {{FIELD|KERNEL|SHAPE}},
 * {{speedup|...}}, {{peak_pct|...}}, the cards' facts, {{rel_l2|...}},
 * {{max_abs|...}} and {{ncu|...}} of a chapter's prose, filled from the
 * measured rows (csv_reader.h) on the card the book shows (headline.h),
 * the checks' errors (accuracy_reader.h) and the profiler's readings
 * (nsight_reader.h). book/README.md describes each placeholder. Host C11.
 */
#ifndef WORKBOOK_PLACEHOLDERS_H
#define WORKBOOK_PLACEHOLDERS_H

#include <stddef.h>
#include <stdio.h>

/* Reads the kernel list and what data_dir holds: 0, or -1 with the
 * message in error. */
int placeholders_read(const char *kernels_path, const char *data_dir, char *error, size_t capacity);

/* Writes text (a line of prose) to out with its placeholders filled, then
 * ending ("\n"). A placeholder that cannot be filled stops the weaver with
 * path:line and the reason (die_at, weave.h). */
void placeholders_fill_line(FILE *out, const char *text, const char *path, int line,
                            const char *ending);

#endif

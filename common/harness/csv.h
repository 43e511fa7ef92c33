/* csv.h - result rows for the CSV files in plots/data/ (docs/design.md,
 * "Timing, results and rates"), and the accuracy rows of plots/data/accuracy/.
 *
 * Every benchmark appends one row per kernel and size. The header is fixed:
 * the plots and the book read these columns by name.
 */
#ifndef WORKBOOK_CSV_H
#define WORKBOOK_CSV_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CSV_HEADER \
    "chapter,kernel,problem,shape,median_ms,min_ms,max_ms,gflops,gbps,gpu,cuda,commit,date"
/* One checked run's error against the referee (--errors FILE): the input
 * scale (the triangle's inputs drawn in +-scale) and the largest logit
 * of an MSA layer scaled by --logits (0 where not used). */
#define CSV_ACCURACY_HEADER \
    "chapter,kernel,problem,shape,input_scale,largest_logit,rel_l2,max_abs,gpu,cuda,commit,date"
/* The card a run measured on, as CUDA reported it (--card FILE): what the
 * book derives its peaks, floors and bandwidth from (gpu_peaks.h). */
#define CSV_CARD_HEADER \
    "gpu,compute_capability,sm_count,clock_mhz,memory_clock_mhz,bus_width_bits," \
    "shared_per_block_kb,l2_kb,cuda,date"
#define CSV_MAX_LINE 2048

typedef struct {
    int chapter;            /* the chapter that introduces the kernel */
    const char *kernel;     /* "naive", "cublas-permute", "shared+swizzle", ... */
    const char *problem;    /* "trimul" or "msa" */
    const char *shape;      /* "B=8 T=1024 C=768 NH=12" */
    double median_ms, min_ms, max_ms;
    double gflops;          /* useful work / median time */
    double gbps;            /* compulsory bytes / median time */
    const char *gpu;        /* device name as CUDA reports it */
    const char *cuda;       /* CUDA runtime version, "13.0" */
    const char *commit;     /* git commit of the measured code */
    const char *date;       /* ISO date of the measurement, YYYY-MM-DD */
} csv_row;

/* Writes the row (no newline) into buffer; fields holding a comma, a quote
 * or a line break are quoted as RFC 4180 says. Returns the length, or -1
 * when the buffer is too small or a field is missing. */
int csv_format_row(char *buffer, size_t capacity, const csv_row *row);

/* Appends the row to path, writing the header first if the file is new or
 * empty. Refuses (returns -1, message on stderr, the file untouched) a
 * non-empty file whose first line is not the header. Safe with many runs
 * appending to one file at once: the row goes out whole in one write()
 * (O_APPEND), and under an exclusive flock() the header is written exactly
 * once and a last line cut before its newline gets one first. */
int csv_append(const char *path, const csv_row *row);

/* The same for any line (no newline) of a file whose first line is `header`. */
int csv_append_line(const char *path, const char *header, const char *line);

/* Checks, before a run, that csv_append could write to path: an existing
 * regular file, writable, empty or starting with the header; or a new file
 * in a directory that exists and is writable. Creates nothing. Returns 0,
 * or -1 with the reason in message. */
int csv_check_destination(const char *path, char *message, size_t capacity);
int csv_check_destination_for(const char *path, const char *header, char *message,
                              size_t capacity);

#ifdef __cplusplus
}
#endif

#endif

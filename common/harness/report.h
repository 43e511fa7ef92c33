/* report.h - the table a chapter prints and the CSV rows it appends.
 *
 * Each kernel a program runs becomes one report_entry: whether its size was
 * refused, its check against the referee, its timing. The table shows the
 * GFLOP/s of the dense work (every key, every score the layer defines,
 * whatever a kernel skips), the share of the peak of the pipe the kernel
 * runs on (FP32 lanes or TF32 tensor cores), and the speedup over each
 * baseline (the champions: cuBLAS, or the unfused MSA layer).
 */
#ifndef WORKBOOK_REPORT_H
#define WORKBOOK_REPORT_H

#include <stdio.h>

#include "harness/compare.h"
#include "harness/contender.h"
#include "device/gpu.h"
#include "harness/stats.h"

#define REPORT_MAX_BASELINES 4

typedef struct {
    const char *kernel;
    int chapter;
    gpu_pipe pipe;              /* its share of peak is against this pipe's peak */
    int skipped;                /* the card cannot run it: why says what it lacks */
    char why[256];
    int checked;
    compare_result check;
    int timed;
    timing_summary time;
    int graph_timed;            /* also timed as CUDA graph replays */
    timing_summary graph_time;
} report_entry;

typedef struct {
    const char *problem;        /* "trimul" or "msa" */
    char shape[128];            /* "B=8 T=1024 C=768 NH=12" */
    double useful_flops;        /* the dense work of one forward */
    double compulsory_bytes;    /* inputs read once, outputs written once */
    gpu_info gpu;
    const char *baselines[REPORT_MAX_BASELINES];
    int baseline_count;
} report_context;

void report_print_header(const report_context *context, unsigned long long seed);
void report_print_table(const report_context *context, const report_entry *entries, int count);

/* Whether the card can run a contender: the compute capability its line in
 * chapters/kernels.list names (facts), then the kernel's own fit check at
 * this size (unfit_why: what its `unfit` said, or NULL when it fits). 0 when
 * it can run; otherwise 1, the entry marked skipped with the reason, and
 * the line "skip  NAME  reason" printed where its check would be. */
int report_skip_unless_runs(report_entry *entry, const contender_facts *facts,
                            const gpu_info *gpu, const char *unfit_why);

/* The timed entry of kernel `kernel`, or NULL (not raced, skipped, failed,
 * or --check-only): what a speedup is taken against. */
const report_entry *report_timed_entry(const report_entry *entries, int count,
                                       const char *kernel);

/* One row per timed entry (and one more, kernel name + "+graph", per graph
 * timing). Returns 0, or -1 when the file could not be written. */
int report_append_csv(const char *path, const report_context *context,
                      const report_entry *entries, int count);

/* The card's facts as CUDA reported them, one CSV_CARD_HEADER row, unless
 * FILE already has a row of this card with the same facts (only the CUDA
 * version or the date would differ). Returns 0, or -1 with a message. */
int report_append_card(const char *path, const gpu_info *gpu);

/* One accuracy row (CSV_ACCURACY_HEADER) per checked entry: its relative L2
 * and largest absolute error against the referee, with the input scale and
 * the largest logit of the run (0: not scaled). Returns 0, or -1. */
int report_append_errors(const char *path, const report_context *context,
                         const report_entry *entries, int count, double input_scale,
                         double largest_logit);

#endif

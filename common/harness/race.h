/* race.h - the loop every chapter program runs over the contenders it
 * races: each is checked against the CPU referee, then (unless
 * --check-only) timed, filling one report_entry; one the card cannot run is
 * skipped with its reason, one that fails its check is not timed. The
 * triangle's and the MSA layer's runners differ only in what their
 * race_spec says: how a contender is launched, whether it fits the card,
 * which part of the output is compared, and whether graph replays are
 * timed too.
 */
#ifndef WORKBOOK_RACE_H
#define WORKBOOK_RACE_H

#include <stddef.h>

#include <cuda_runtime.h>

#include "harness/compare.h"
#include "harness/contender.h"
#include "device/gpu.h"
#include "harness/report.h"

typedef struct {
    const contender_facts *const *facts; /* facts[k] of each contender k */
    const int *runs;            /* runs[k]: whether contender k races */
    int first, last;            /* the contenders looked at, in order */
    void *problem;              /* the runner's own, handed back to each callback */
    /* Launches contender k on stream; neither allocates nor synchronises,
     * so that it can be captured into a CUDA graph. */
    void (*launch)(void *problem, int k, cudaStream_t stream);
    /* NULL, or: 1, with the reason in why, when contender k cannot run at
     * this size on this card (its shared memory, say); 0 when it can. */
    int (*unfit)(void *problem, int k, const gpu_info *gpu, char *why, size_t capacity);
    /* NULL, or prints more of contender k under the line of its check. */
    void (*after_check)(void *problem, int k);
    const gpu_info *gpu;
    cudaStream_t stream;
    float *output;              /* device: where every contender writes its output */
    size_t output_count;        /* its floats */
    float *got;                 /* host, output_count floats: the output copied back */
    const double *want;         /* the referee's output */
    compare_spec compare;       /* what is compared; the tolerance is each contender's */
    int check_only;             /* --check-only: check, do not time */
    int reps;                   /* repetitions timed */
    int graph_replays;          /* time CUDA graph replays too (launch-bound layers) */
    /* The grader's two ends of one check, in two processes (cli.h): emit
     * writes each output to descriptor 3 instead of checking it (want is
     * not needed); judge launches nothing and reads each output from
     * standard input instead (no device is touched: output and stream are
     * not needed), then checks it as usual. */
    int emit, judge;
} race_spec;

typedef struct {
    int entries;                /* report entries filled: one a contender that races */
    int ran;                    /* of those, the ones the card ran (the rest skipped) */
    int failed;                 /* a check failed (the runner adds what fails after) */
    int emitted;                /* outputs written for the judge (--emit-output) */
} race_outcome;

/* An output as --emit-output writes it and --judge-output reads it: the
 * 8 bytes "WBOUTPUT", the count of floats (8 bytes, this machine's order),
 * the floats. */
#define RACE_OUTPUT_MAGIC "WBOUTPUT"

/* Races the contenders first..last whose runs[k] is set, in order, into
 * entries (room for last - first + 1). Before each launch the output is
 * filled with NaN, so an element a kernel leaves unwritten fails its check;
 * got holds the last output checked (nothing when none ran). Prints
 * "check NAME ..." (or "skip NAME reason") for each. */
race_outcome race_contenders(const race_spec *race, report_entry *entries);

/* The run's last line and its exit status: "outputs emitted ..." and 0
 * when every output went to the judge; "SKIPPED: ..." and EXIT_SKIPPED
 * when the card ran none and nothing failed; "FAILED" and 1; or "all checks
 * passed" (noting the skipped ones) and 0. */
int race_verdict(const race_outcome *outcome);

#endif

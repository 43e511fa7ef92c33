/* timing.h - how the workbook times GPU work (docs/design.md, "Timing, results and rates").
 *
 * CUDA events are recorded around the work alone. Before timing, a few
 * warm-up runs pay for module loading and cuBLAS's first-call setup. Before
 * every repetition the L2 cache is flushed by writing a buffer twice its
 * size, so each run reads its inputs from device memory as a real layer
 * would. The summary is the median (and min, max) of the repetitions.
 */
#ifndef WORKBOOK_TIMING_H
#define WORKBOOK_TIMING_H

#include <cuda_runtime.h>

#include "harness/stats.h"

#define TIMING_WARMUP_RUNS 3

/* The work to time: launches everything on stream, does not synchronise. */
typedef void (*gpu_work_fn)(void *context, cudaStream_t stream);

/* Each repetition launched directly. */
timing_summary time_gpu_work(gpu_work_fn work, void *context, cudaStream_t stream, int reps);

/* The work captured once into a CUDA graph, each repetition one replay:
 * what a launch-bound layer costs once launch overhead is taken away. */
timing_summary time_gpu_graph(gpu_work_fn work, void *context, cudaStream_t stream, int reps);

#endif

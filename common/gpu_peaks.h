/* gpu_peaks.h - the arithmetic peaks a share of peak is taken against, and
 * the cards the book knows by name (host C, no CUDA). */
#ifndef WORKBOOK_GPU_PEAKS_H
#define WORKBOOK_GPU_PEAKS_H

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    GPU_PIPE_SIMT,   /* the FP32 lanes: SMs x lanes x 2 x clock */
    GPU_PIPE_TENSOR  /* the tensor cores in dense TF32 */
} gpu_pipe;

/* The peak of a pipe in GFLOP/s, or 0 where it is not known. */
double gpu_peak_gflops(gpu_pipe pipe, int sm_count, double clock_mhz, int major, int minor);

/* A card by the name CUDA reports: 0 and its facts, or -1. */
int gpu_card_lookup(const char *name, int *sm_count, double *clock_mhz, int *major, int *minor);

#ifdef __cplusplus
}
#endif

#endif

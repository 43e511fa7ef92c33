/* gpu_peaks.h - the peak rates a kernel's share of peak is taken against:
 * one formula from a card's SMs, clock and compute capability, and one table
 * of known cards for the tools that know a card only by the name CUDA
 * reported (the book tools read it from the CSV's gpu column).
 *
 *   double fp32 = gpu_peak_gflops(GPU_PIPE_SIMT, 132, 1980.0, 9, 0);    66908 (H200)
 *   double tf32 = gpu_card_peak_gflops("NVIDIA H200", GPU_PIPE_TENSOR); 535265
 *
 * Host C11, no CUDA: built into the library (make) and the book tools alike;
 * tested by tests/test_gpu_peaks.c (make test).
 */
#ifndef WORKBOOK_GPU_PEAKS_H
#define WORKBOOK_GPU_PEAKS_H

#ifdef __cplusplus
extern "C" {
#endif

/* The pipe a kernel does its multiply-adds on: the FP32 lanes (SIMT) or the
 * tensor cores (TF32 and 3xTF32 kernels). */
typedef enum { GPU_PIPE_SIMT, GPU_PIPE_TENSOR } gpu_pipe;

/* The pipe's peak in GFLOP/s. SIMT: SMs x FP32 lanes per SM x 2 (a fused
 * multiply-add is two operations) x clock. TENSOR: the dense TF32 rate.
 * 0 where the rate of that compute capability is not known. */
double gpu_peak_gflops(gpu_pipe pipe, int sm_count, double clock_mhz, int major, int minor);

/* A known card by the name CUDA reports ("NVIDIA H200", "NVIDIA
 * A100-SXM4-80GB"): 0 with its SMs, boost clock and compute capability,
 * or -1 when the table does not know it. */
int gpu_card_lookup(const char *name, int *sm_count, double *clock_mhz, int *major, int *minor);

/* The two together: the pipe's peak on the named card, 0 when unknown. */
double gpu_card_peak_gflops(const char *name, gpu_pipe pipe);

/* "FP32" or "TF32 tensor", for tables and captions. */
const char *gpu_pipe_name(gpu_pipe pipe);

#ifdef __cplusplus
}
#endif

#endif

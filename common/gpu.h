/* gpu.h - checked CUDA and cuBLAS calls, and what we need to know of the GPU.
 *
 * Every CUDA and cuBLAS call in the workbook goes through CUDA_CHECK or
 * CUBLAS_CHECK, and every kernel launch is followed by LAUNCH_CHECK(): a
 * launch with a bad configuration fails silently otherwise, and the next
 * unrelated call gets the blame.
 */
#ifndef WORKBOOK_GPU_H
#define WORKBOOK_GPU_H

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#include "gpu_peaks.h"

/* Exit status of a program that found no GPU: the automake "skipped" code. */
#define EXIT_SKIPPED 77

#define CUDA_CHECK(call)                                                          \
    do {                                                                          \
        cudaError_t status_ = (call);                                             \
        if (status_ != cudaSuccess) {                                             \
            fprintf(stderr, "%s:%d: %s failed: %s: %s\n", __FILE__, __LINE__,     \
                    #call, cudaGetErrorName(status_), cudaGetErrorString(status_)); \
            exit(EXIT_FAILURE);                                                   \
        }                                                                         \
    } while (0)

#define CUBLAS_CHECK(call)                                                        \
    do {                                                                          \
        cublasStatus_t status_ = (call);                                          \
        if (status_ != CUBLAS_STATUS_SUCCESS) {                                   \
            fprintf(stderr, "%s:%d: %s failed: %s: %s\n", __FILE__, __LINE__,     \
                    #call, cublasGetStatusName(status_),                          \
                    cublasGetStatusString(status_));                              \
            exit(EXIT_FAILURE);                                                   \
        }                                                                         \
    } while (0)

/* After every <<<...>>>: a bad launch configuration is reported here. */
#define LAUNCH_CHECK() CUDA_CHECK(cudaGetLastError())

typedef struct {
    char name[256];           /* as CUDA reports it: "NVIDIA H200" */
    int compute_major, compute_minor;
    int sm_count;
    int clock_khz;            /* peak SM clock */
    int l2_bytes;
    size_t shared_per_block_optin;
    double fp32_peak_gflops;  /* the FP32 lanes: sm_count * lanes per SM * 2 * clock */
    double tf32_peak_gflops;  /* the tensor cores, dense TF32 (0 where unknown) */
    char cuda_version[16];    /* CUDA runtime, "13.0" */
} gpu_info;

/* Returns when a CUDA GPU is usable; otherwise prints one line with the
 * reason and exits with EXIT_SKIPPED. */
void gpu_require(void);

/* Properties of the current device (call gpu_require first); asked of the
 * driver once, then remembered, so launchers may call it freely. */
gpu_info gpu_query(void);

/* Lets `kernel` be launched with `bytes` of dynamic shared memory. Past
 * 48 KB a kernel must ask for it (cudaFuncSetAttribute) before its launch;
 * this asks once per kernel and size, and remembers what was granted.
 * Call it from the launcher, before the <<<...>>>, for every launch. */
void gpu_allow_shared_memory(const void *kernel, size_t bytes);

/* Device memory free now, in bytes (call gpu_require first). A run checks
 * what it will allocate against it, so that a size too large for the GPU
 * is refused (exit 2) rather than failing in cudaMalloc. */
size_t gpu_free_bytes(void);

/* What a run leaves free beyond its own buffers: cuBLAS's workspace and
 * the runtime's allocations are not counted one by one. */
#define GPU_MEMORY_HEADROOM ((size_t)256 << 20)

/* Fills an output with NaN (all bits set) before a checked run, so that an
 * element the kernel forgets to write fails the check. */
void gpu_fill_nan(float *device_values, size_t count, cudaStream_t stream);

#endif

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
    double fp32_peak_gflops;  /* sm_count * FP32 lanes per SM * 2 * clock */
    char cuda_version[16];    /* CUDA runtime, "13.0" */
} gpu_info;

/* Returns when a CUDA GPU is usable; otherwise prints one line with the
 * reason and exits with EXIT_SKIPPED. */
void gpu_require(void);

/* Properties of the current device (call gpu_require first). */
gpu_info gpu_query(void);

/* FP32 lanes per multiprocessor for a compute capability (64 or 128). */
int gpu_fp32_lanes_per_sm(int major, int minor);

/* Raises `kernel`'s limit of dynamic shared memory to `bytes` when that is
 * more than `*allowed` (what it was raised to before; 48 KB at first: more
 * than that must be asked for, once per kernel, before the launch). */
void gpu_allow_shared_memory(const void *kernel, size_t bytes, size_t *allowed);

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

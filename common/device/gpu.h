/* gpu.h - checked CUDA and cuBLAS calls, and what we need to know of the GPU.
 *
 * Every CUDA and cuBLAS call in the workbook goes through CUDA_CHECK or
 * CUBLAS_CHECK, and every kernel launch is followed by LAUNCH_CHECK(): a
 * launch with a bad configuration fails silently otherwise, and the next
 * unrelated call gets the blame.
 */
#ifndef WORKBOOK_GPU_H
#define WORKBOOK_GPU_H

/* cuBLAS's header, with the half-precision headers it brings in, is over a
 * third of what every file including this one compiles. A file that calls
 * no cuBLAS function needs only the handle's type (triangle_args and
 * msa_args hold one): the grader's compiles of exercises and solutions
 * define WORKBOOK_CUBLAS_HANDLE_ONLY (solutions/grade.mk), and an exercise
 * that calls cuBLAS includes <cublas_v2.h> itself. (Measured: an
 * exercise's compile with its host check, 1.55 to 1.1 CPU-s.) */
#ifdef WORKBOOK_CUBLAS_HANDLE_ONLY
struct cublasContext; /* as cublas_api.h declares it */
typedef struct cublasContext *cublasHandle_t;
#else
#include <cublas_v2.h>
#endif
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#include "device/gpu_peaks.h"

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

/* What the programs know of the card, and what they choose kernels by.
 *
 * WORKBOOK_CARD (the environment) makes a program keep to a smaller card's
 * limits: WORKBOOK_CARD=T4 (or A100, "RTX 4090", L4, any card of
 * gpu_peaks.c's table) caps the compute capability the kernels are chosen
 * for and the shared memory a block may opt in to at that card's, so that
 * a program built as PTX for the card's capability (make emulate) runs, on
 * the card at hand, every code path that card would take. Rates, peaks and
 * the SM count stay the real card's: the times are the real card's. */
typedef struct {
    char name[256];           /* as CUDA reports it: "NVIDIA H200" */
    int compute_major, compute_minor;  /* the card's, or the emulated card's (WORKBOOK_CARD) */
    int code_major, code_minor;        /* the capability this program's device code was
                                          compiled for (its PTX), <= the card's */
    int sm_count;
    int clock_khz;            /* peak SM clock */
    int l2_bytes;
    size_t shared_per_block_optin;     /* the card's, or the emulated card's */
    double fp32_peak_gflops;  /* the FP32 lanes: sm_count * lanes per SM * 2 * clock */
    double tf32_peak_gflops;  /* the tensor cores, dense TF32 (0 where there are none) */
    int memory_clock_khz;     /* as CUDA reports them (0: not reported) */
    int bus_width_bits;
    double memory_gbps;       /* from the memory clock and bus width CUDA reports, else
                                 the data sheet (gpu_peaks.c); 0 where neither knows */
    char emulated[64];        /* WORKBOOK_CARD's card ("T4"), or "" */
    char cuda_version[16];    /* CUDA runtime, "13.0" */
} gpu_info;

/* Whether WORKBOOK_CARD asks this run to keep to another card's limits
 * (needs no GPU: the runners refuse --csv then, before any work). */
int gpu_emulation_requested(void);

/* Returns when a CUDA GPU is usable and this program has code for it;
 * otherwise prints one line with the reason and exits: EXIT_SKIPPED when
 * there is no GPU, 1 when the program was built for another card (the line
 * says which capability the card has, which the build has, and how to
 * rebuild), 2 when WORKBOOK_CARD names no known card. */
void gpu_require(void);

/* Properties of the current device (call gpu_require first); asked of the
 * driver once, then remembered, so launchers may call it freely. */
gpu_info gpu_query(void);

/* Whether the card (as WORKBOOK_CARD may cap it) and this program's code
 * have compute capability `major`.`minor` or more, and, for
 * `arch_specific` (sm_90a's wgmma), the very architecture. 0 when they do;
 * otherwise 1 with one line of reason in why ("needs compute capability
 * 8.0; this card is 7.5"). */
int gpu_lacks_capability(const gpu_info *gpu, int major, int minor, int arch_specific,
                         char *why, size_t capacity);

/* Whether a block may have `bytes` of dynamic shared memory on this card
 * (as WORKBOOK_CARD may cap it): 0 when it may; otherwise 1 with the reason
 * in why. A kernel's fit check (triangle_kernel, msa_kernel) calls it for
 * the configuration its launcher would pick. */
int gpu_lacks_shared_memory(const gpu_info *gpu, size_t bytes, const char *what, char *why,
                            size_t capacity);

/* Lets `kernel` be launched with `bytes` of dynamic shared memory. Past
 * 48 KB a kernel must ask for it (cudaFuncSetAttribute) before its launch;
 * this asks once per kernel and size, and remembers what was granted.
 * Call it from the launcher, before the <<<...>>>, for every launch. More
 * than the card allows (gpu_info.shared_per_block_optin) is a bug of the
 * kernel's fit check: said, and the program exits 1. */
void gpu_allow_shared_memory(const void *kernel, size_t bytes);

/* Device memory free now, in bytes (call gpu_require first). A run checks
 * what it will allocate against it, so that a size too large for the GPU
 * is refused (exit 2) rather than failing in cudaMalloc. */
size_t gpu_free_bytes(void);

/* The least shared memory a block may opt in to on the cards the workbook
 * serves (the T4's, compute capability 7.5): a kernel that fits in it needs
 * no smaller configuration. */
#define GPU_SMALLEST_SHARED_PER_BLOCK ((size_t)64 * 1024)

/* What a run leaves free beyond its own buffers: cuBLAS's workspace and
 * the runtime's allocations are not counted one by one. */
#define GPU_MEMORY_HEADROOM ((size_t)256 << 20)

/* Fills an output with NaN (all bits set) before a checked run, so that an
 * element the kernel forgets to write fails the check. */
void gpu_fill_nan(float *device_values, size_t count, cudaStream_t stream);

#endif

// notes/precision-device/probe.h - a copy of a4c65d6's
// notes/msa-tiled-device/probe.h for gemm_search_tf32.cu: error checks, the
// L2 flush and median timing of common/timing.cu, and the buffers of the
// layer's GEMMs (zeros here; gemm_search_tf32.cu fills them at random, since
// zeros let the card clock higher).
#pragma once
#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <algorithm>
#include <vector>

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(e)); exit(1); } } while (0)
#define BK(x) do { cublasStatus_t s = (x); if (s != CUBLAS_STATUS_SUCCESS) { printf("%s: status %d\n", #x, (int)s); exit(1); } } while (0)

// Median ms of `reps` runs, each after a 256 MB memset that flushes the L2.
// run() returns false when the configuration cannot run: then -1.
template <typename F> static double median_ms(F run, int reps = 20)
{
    static char *flush_buffer = nullptr;
    const size_t flush = 256u << 20;
    if (!flush_buffer)
        CK(cudaMalloc(&flush_buffer, flush));
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b));
    if (!run()) return -1;
    CK(cudaDeviceSynchronize());
    std::vector<float> t;
    for (int i = 0; i < reps; i++) {
        CK(cudaMemsetAsync(flush_buffer, i, flush));
        CK(cudaEventRecord(a));
        run();
        CK(cudaEventRecord(b));
        CK(cudaEventSynchronize(b));
        float ms; CK(cudaEventElapsedTime(&ms, a, b)); t.push_back(ms);
    }
    CK(cudaEventDestroy(a)); CK(cudaEventDestroy(b));
    std::sort(t.begin(), t.end());
    return t[reps / 2];
}

// Handles, a 64 MB workspace, and x (rows x 264), w (1024 x 264), y (rows x
// 1024), bias (1024) for up to 131072 rows.
struct Probe {
    cublasHandle_t h;
    cublasLtHandle_t lt;
    void *ws;
    size_t ws_bytes = 64u << 20;
    float *x, *w, *y, *bias;
    Probe()
    {
        BK(cublasCreate(&h));
        BK(cublasLtCreate(&lt));
        CK(cudaMalloc(&ws, ws_bytes));
        BK(cublasSetWorkspace(h, ws, ws_bytes));
        const long maxrows = 131072;
        CK(cudaMalloc(&x, maxrows * 264 * sizeof(float)));
        CK(cudaMalloc(&y, maxrows * 1024 * sizeof(float)));
        CK(cudaMalloc(&w, 1024 * 264 * sizeof(float)));
        CK(cudaMalloc(&bias, 1024 * sizeof(float)));
        CK(cudaMemset(x, 0, maxrows * 264 * sizeof(float)));
        CK(cudaMemset(w, 0, 1024 * 264 * sizeof(float)));
        CK(cudaMemset(bias, 0, 1024 * sizeof(float)));
    }
};

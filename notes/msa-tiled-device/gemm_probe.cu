// notes/msa-tiled-device/gemm_probe.cu - which cuBLAS GEMM serves chapter 7's
// two projections best? Times cublasGemmEx as the chapter calls it, the same
// with a dense activation stride, and every algorithm cublasLt's heuristic
// offers (with the output bias in cublasLt's epilogue instead of a ones
// column). Median of 20, L2 flushed before each run, like common/timing.cu.
//
//   nvcc -O2 -arch=sm_90 notes/msa-tiled-device/gemm_probe.cu -lcublasLt -lcublas -o gemm_probe
#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <algorithm>
#include <vector>

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(e)); exit(1); } } while (0)
#define BK(x) do { cublasStatus_t s = (x); if (s != CUBLAS_STATUS_SUCCESS) { printf("%s: status %d\n", #x, (int)s); exit(1); } } while (0)

static char *flush_buffer;
static const size_t FLUSH = 256u << 20;

template <typename F> static double median_ms(F run)
{
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b));
    run(); CK(cudaDeviceSynchronize());
    std::vector<float> t;
    for (int i = 0; i < 20; i++) {
        CK(cudaMemsetAsync(flush_buffer, i, FLUSH));
        CK(cudaEventRecord(a));
        run();
        CK(cudaEventRecord(b));
        CK(cudaEventSynchronize(b));
        float ms; CK(cudaEventElapsedTime(&ms, a, b)); t.push_back(ms);
    }
    std::sort(t.begin(), t.end());
    return t[10];
}

int main()
{
    CK(cudaMalloc(&flush_buffer, FLUSH));
    cublasHandle_t h; BK(cublasCreate(&h));
    cublasLtHandle_t lt; BK(cublasLtCreate(&lt));
    const size_t ws_bytes = 64u << 20;
    void *ws; CK(cudaMalloc(&ws, ws_bytes));
    BK(cublasSetWorkspace(h, ws, ws_bytes));
    const long maxrows = 131072;
    float *x, *w, *y, *bias;
    CK(cudaMalloc(&x, maxrows * 264 * sizeof(float)));
    CK(cudaMalloc(&y, maxrows * 1024 * sizeof(float)));
    CK(cudaMalloc(&w, 1024 * 264 * sizeof(float)));
    CK(cudaMalloc(&bias, 1024 * sizeof(float)));
    CK(cudaMemset(x, 0, maxrows * 264 * sizeof(float)));
    CK(cudaMemset(w, 0, 1024 * 264 * sizeof(float)));
    CK(cudaMemset(bias, 0, 1024 * sizeof(float)));
    const float one = 1, zero = 0;

    struct Case { const char *name; int out, in, ldx; long rows; bool use_bias; };
    const Case cases[] = {
        {"QKVG S=128 (ldx 264, as now)", 1024, 256, 264, 32768, false},
        {"QKVG S=128 (ldx 256)", 1024, 256, 256, 32768, false},
        {"out  S=128 (K=264 ones column, as now)", 256, 264, 264, 32768, false},
        {"out  S=128 (K=256 + bias epilogue)", 256, 256, 256, 32768, true},
        {"QKVG S=512 (ldx 264, as now)", 1024, 256, 264, 131072, false},
        {"QKVG S=512 (ldx 256)", 1024, 256, 256, 131072, false},
        {"out  S=512 (K=264 ones column, as now)", 256, 264, 264, 131072, false},
        {"out  S=512 (K=256 + bias epilogue)", 256, 256, 256, 131072, true},
        {"QKVG S=1024 D=64 (ldx 72, as now)", 256, 64, 72, 393216, false},
        {"QKVG S=1024 D=64 (ldx 64)", 256, 64, 64, 393216, false},
        {"out  S=1024 D=64 (K=72, as now)", 64, 72, 72, 393216, false},
        {"out  S=1024 D=64 (K=64 + bias epilogue)", 64, 64, 64, 393216, true},
    };
    const cublasComputeType_t computes[] = {CUBLAS_COMPUTE_32F, CUBLAS_COMPUTE_32F_FAST_TF32};
    for (cublasComputeType_t compute : computes) {
        const char *cname = compute == CUBLAS_COMPUTE_32F ? "FP32" : "TF32";
        for (const Case &c : cases) {
            const double flop = 2.0 * c.out * c.in * c.rows;
            if (!c.use_bias) {
                double ms = median_ms([&] {
                    BK(cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, c.out, (int)c.rows, c.in, &one, w,
                                    CUDA_R_32F, c.in, x, CUDA_R_32F, c.ldx, &zero, y, CUDA_R_32F,
                                    c.out, compute, CUBLAS_GEMM_DEFAULT));
                });
                printf("%s %-42s GemmEx        %8.4f ms %6.1f TFLOP/s\n", cname, c.name, ms, flop / ms / 1e9);
            }
            cublasLtMatmulDesc_t desc;
            BK(cublasLtMatmulDescCreate(&desc, compute, CUDA_R_32F));
            cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
            BK(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta));
            BK(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb));
            if (c.use_bias) {
                cublasLtEpilogue_t epi = CUBLASLT_EPILOGUE_BIAS;
                BK(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &epi, sizeof epi));
                BK(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof bias));
            }
            cublasLtMatrixLayout_t la, lb, lc;
            BK(cublasLtMatrixLayoutCreate(&la, CUDA_R_32F, c.in, c.out, c.in));
            BK(cublasLtMatrixLayoutCreate(&lb, CUDA_R_32F, c.in, c.rows, c.ldx));
            BK(cublasLtMatrixLayoutCreate(&lc, CUDA_R_32F, c.out, c.rows, c.out));
            cublasLtMatmulPreference_t pref;
            BK(cublasLtMatmulPreferenceCreate(&pref));
            BK(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws_bytes, sizeof ws_bytes));
            cublasLtMatmulHeuristicResult_t found[8];
            int count = 0;
            cublasLtMatmulAlgoGetHeuristic(lt, desc, la, lb, lc, lc, pref, 8, found, &count);
            for (int i = 0; i < count; i++) {
                double ms = median_ms([&] {
                    BK(cublasLtMatmul(lt, desc, &one, w, la, x, lb, &zero, y, lc, y, lc, &found[i].algo,
                                      ws, ws_bytes, 0));
                });
                int id = -1, tile = -1, stages = -1, splitk = -1;
                size_t got;
                cublasLtMatmulAlgoConfigGetAttribute(&found[i].algo, CUBLASLT_ALGO_CONFIG_ID, &id, sizeof id, &got);
                cublasLtMatmulAlgoConfigGetAttribute(&found[i].algo, CUBLASLT_ALGO_CONFIG_TILE_ID, &tile, sizeof tile, &got);
                cublasLtMatmulAlgoConfigGetAttribute(&found[i].algo, CUBLASLT_ALGO_CONFIG_STAGES_ID, &stages, sizeof stages, &got);
                cublasLtMatmulAlgoConfigGetAttribute(&found[i].algo, CUBLASLT_ALGO_CONFIG_SPLITK_NUM, &splitk, sizeof splitk, &got);
                printf("%s %-42s Lt #%d (id %d tile %d stages %d splitk %d) %8.4f ms %6.1f TFLOP/s\n", cname,
                       c.name, i, id, tile, stages, splitk, ms, flop / ms / 1e9);
            }
            cublasLtMatmulPreferenceDestroy(pref);
            cublasLtMatrixLayoutDestroy(la); cublasLtMatrixLayoutDestroy(lb); cublasLtMatrixLayoutDestroy(lc);
            cublasLtMatmulDescDestroy(desc);
        }
    }
    return 0;
}

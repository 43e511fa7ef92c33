// notes/msa-tiled-device/gemm_probe.cu - which cuBLAS GEMM serves chapter 7's
// two projections best? Times cublasGemmEx as the chapter calls it, the same
// with a dense activation stride, and every algorithm cublasLt's heuristic
// offers (with the output bias in cublasLt's epilogue instead of a ones
// column). Median of 20, L2 flushed before each run, like common/timing.cu.
//
//   nvcc -O2 -arch=sm_90 notes/msa-tiled-device/gemm_probe.cu -lcublasLt -lcublas -o gemm_probe
#include "probe.h"

int main()
{
    Probe p;
    cublasHandle_t h = p.h;
    cublasLtHandle_t lt = p.lt;
    void *ws = p.ws;
    const size_t ws_bytes = p.ws_bytes;
    float *x = p.x, *w = p.w, *y = p.y, *bias = p.bias;
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
                    return true;
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
                    return true;
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

// notes/msa-tiled-device/gemm_search.cu - is there an FP32 cublasLt
// configuration for chapter 7's two GEMMs at S=128 that beats the one
// cublasGemmEx picks? gemm_probe.cu asked cublasLt's heuristic (nothing
// faster); this one walks every algorithm id, tile, stage count and CTA
// swizzle cublasLt reports for FP32, keeps those cublasLtMatmulAlgoCheck
// accepts, screens each with a median of 3 and times the best 8 again with
// a median of 20 beside cublasGemmEx. L2 flushed before every run, like
// common/timing.cu.
//
//   nvcc -O2 -arch=sm_90 notes/msa-tiled-device/gemm_search.cu -lcublasLt -lcublas -o gemm_search
#include "probe.h"

struct Found { cublasLtMatmulAlgo_t algo; int id, tile, stages, swizzle; double ms; };

int main()
{
    Probe p;
    cublasHandle_t h = p.h;
    cublasLtHandle_t lt = p.lt;
    void *ws = p.ws;
    const size_t ws_bytes = p.ws_bytes;
    float *x = p.x, *w = p.w, *y = p.y;
    const float one = 1, zero = 0;

    int ids[256], id_count = 0;
    BK(cublasLtMatmulAlgoGetIds(lt, CUBLAS_COMPUTE_32F, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F,
                                CUDA_R_32F, CUDA_R_32F, 256, ids, &id_count));
    printf("FP32 algorithm ids: %d\n", id_count);

    struct Case { const char *name; int out, in, ldx; long rows; };
    const Case cases[] = {
        {"QKVG S=128 (as now)", 1024, 256, 264, 32768},
        {"out  S=128 (as now)", 256, 264, 264, 32768},
        {"QKVG S=512 (as now)", 1024, 256, 264, 131072},
    };
    for (const Case &c : cases) {
        const double flop = 2.0 * c.out * c.in * c.rows;
        double gemm_ex = median_ms([&] {
            BK(cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, c.out, (int)c.rows, c.in, &one, w,
                            CUDA_R_32F, c.in, x, CUDA_R_32F, c.ldx, &zero, y, CUDA_R_32F, c.out,
                            CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
            return true;
        }, 20);
        printf("%-22s GemmEx %8.4f ms %6.1f TFLOP/s\n", c.name, gemm_ex, flop / gemm_ex / 1e9);

        cublasLtMatmulDesc_t desc;
        BK(cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F));
        cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
        BK(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta));
        BK(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb));
        cublasLtMatrixLayout_t la, lb, lc;
        BK(cublasLtMatrixLayoutCreate(&la, CUDA_R_32F, c.in, c.out, c.in));
        BK(cublasLtMatrixLayoutCreate(&lb, CUDA_R_32F, c.in, c.rows, c.ldx));
        BK(cublasLtMatrixLayoutCreate(&lc, CUDA_R_32F, c.out, c.rows, c.out));

        std::vector<Found> all;
        for (int k = 0; k < id_count; k++) {
            cublasLtMatmulAlgo_t algo;
            if (cublasLtMatmulAlgoInit(lt, CUBLAS_COMPUTE_32F, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F,
                                       CUDA_R_32F, CUDA_R_32F, ids[k], &algo) != CUBLAS_STATUS_SUCCESS)
                continue;
            int tiles[128], stages[64];
            size_t got = 0;
            int tile_count = 0, stage_count = 0;
            if (cublasLtMatmulAlgoCapGetAttribute(&algo, CUBLASLT_ALGO_CAP_TILE_IDS, tiles,
                                                  sizeof tiles, &got) == CUBLAS_STATUS_SUCCESS)
                tile_count = (int)(got / sizeof(int));
            if (tile_count == 0) { tiles[0] = CUBLASLT_MATMUL_TILE_UNDEFINED; tile_count = 1; }
            if (cublasLtMatmulAlgoCapGetAttribute(&algo, CUBLASLT_ALGO_CAP_STAGES_IDS, stages,
                                                  sizeof stages, &got) == CUBLAS_STATUS_SUCCESS)
                stage_count = (int)(got / sizeof(int));
            if (stage_count == 0) { stages[0] = CUBLASLT_MATMUL_STAGES_UNDEFINED; stage_count = 1; }
            int swizzle_support = 0;
            cublasLtMatmulAlgoCapGetAttribute(&algo, CUBLASLT_ALGO_CAP_CTA_SWIZZLING_SUPPORT,
                                              &swizzle_support, sizeof swizzle_support, &got);
            for (int t = 0; t < tile_count; t++)
                for (int s = 0; s < stage_count; s++)
                    for (int sw = 0; sw <= (swizzle_support ? 1 : 0); sw++) {
                        Found f;
                        f.algo = algo;
                        f.id = ids[k]; f.tile = tiles[t]; f.stages = stages[s]; f.swizzle = sw;
                        const int splitk = 1;
                        cublasLtMatmulAlgoConfigSetAttribute(&f.algo, CUBLASLT_ALGO_CONFIG_TILE_ID, &f.tile, sizeof f.tile);
                        cublasLtMatmulAlgoConfigSetAttribute(&f.algo, CUBLASLT_ALGO_CONFIG_STAGES_ID, &f.stages, sizeof f.stages);
                        cublasLtMatmulAlgoConfigSetAttribute(&f.algo, CUBLASLT_ALGO_CONFIG_SPLITK_NUM, &splitk, sizeof splitk);
                        cublasLtMatmulAlgoConfigSetAttribute(&f.algo, CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING, &f.swizzle, sizeof f.swizzle);
                        cublasLtMatmulHeuristicResult_t check;
                        if (cublasLtMatmulAlgoCheck(lt, desc, la, lb, lc, lc, &f.algo, &check) != CUBLAS_STATUS_SUCCESS)
                            continue;
                        if (check.workspaceSize > ws_bytes)
                            continue;
                        all.push_back(f);
                    }
        }
        printf("%-22s %zu configurations accepted\n", c.name, all.size());
        for (Found &f : all)
            f.ms = median_ms([&] {
                return cublasLtMatmul(lt, desc, &one, w, la, x, lb, &zero, y, lc, y, lc, &f.algo, ws,
                                      ws_bytes, 0) == CUBLAS_STATUS_SUCCESS;
            }, 3);
        all.erase(std::remove_if(all.begin(), all.end(), [](const Found &f) { return f.ms <= 0; }),
                  all.end());
        std::sort(all.begin(), all.end(), [](const Found &a, const Found &b) { return a.ms < b.ms; });
        for (size_t i = 0; i < all.size() && i < 8; i++) {
            Found &f = all[i];
            const double ms = median_ms([&] {
                return cublasLtMatmul(lt, desc, &one, w, la, x, lb, &zero, y, lc, y, lc, &f.algo,
                                      ws, ws_bytes, 0) == CUBLAS_STATUS_SUCCESS;
            }, 20);
            printf("%-22s Lt id %3d tile %3d stages %3d swizzle %d: %8.4f ms %6.1f TFLOP/s (screen %.4f)\n",
                   c.name, f.id, f.tile, f.stages, f.swizzle, ms, flop / ms / 1e9, f.ms);
        }
        cublasLtMatrixLayoutDestroy(la); cublasLtMatrixLayoutDestroy(lb); cublasLtMatrixLayoutDestroy(lc);
        cublasLtMatmulDescDestroy(desc);
    }
    return 0;
}

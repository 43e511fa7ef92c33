// notes/precision-device/gemm_search_tf32.cu - is there a TF32 cublasLt
// configuration for the TF32 layer's GEMMs (B=1 S=512 N=256 D=256 H=8) that
// beats cublasGemmEx's choice? The heuristic's first four, then every
// algorithm id, tile, stage count, swizzle, cluster shape and custom option
// that cublasLtMatmulAlgoCheck accepts, screened with a median of 3, the best
// 8 timed again with a median of 20; random operands, L2 flushed before each
// run. The output GEMM also with bo in cublasLt's epilogue (K = 256).
//   nvcc -O2 -arch=sm_90 notes/precision-device/gemm_search_tf32.cu -lcublasLt -lcublas -o gemm_search_tf32
#include "probe.h"

__global__ void fill_random(float *x, long n, unsigned seed)
{
    for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n; i += (long)gridDim.x * blockDim.x) {
        unsigned h = (unsigned)i * 2654435761u ^ seed;
        h ^= h >> 15; h *= 2246822519u; h ^= h >> 13; h *= 3266489917u; h ^= h >> 16;
        x[i] = (h & 0xffffff) / 8388608.0f - 1.0f;
    }
}

static void describe(const cublasLtMatmulAlgo_t &a, char *out)
{
    int id = -1, tile = -1, stages = -1, swizzle = -1, custom = -1, inner = -1, cluster = -1;
    size_t got;
    cublasLtMatmulAlgoConfigGetAttribute(&a, CUBLASLT_ALGO_CONFIG_ID, &id, sizeof id, &got);
    cublasLtMatmulAlgoConfigGetAttribute(&a, CUBLASLT_ALGO_CONFIG_TILE_ID, &tile, sizeof tile, &got);
    cublasLtMatmulAlgoConfigGetAttribute(&a, CUBLASLT_ALGO_CONFIG_STAGES_ID, &stages, sizeof stages, &got);
    cublasLtMatmulAlgoConfigGetAttribute(&a, CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING, &swizzle, sizeof swizzle, &got);
    cublasLtMatmulAlgoConfigGetAttribute(&a, CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION, &custom, sizeof custom, &got);
    cublasLtMatmulAlgoConfigGetAttribute(&a, CUBLASLT_ALGO_CONFIG_INNER_SHAPE_ID, &inner, sizeof inner, &got);
    cublasLtMatmulAlgoConfigGetAttribute(&a, CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID, &cluster, sizeof cluster, &got);
    sprintf(out, "id %d tile %d stages %d swizzle %d custom %d inner %d cluster %d", id, tile, stages, swizzle, custom, inner, cluster);
}

struct Found { cublasLtMatmulAlgo_t algo; int id, tile, stages, swizzle, cluster; double ms; };

int main()
{
    Probe p;
    cublasLtHandle_t lt = p.lt;
    void *ws = p.ws;
    const size_t ws_bytes = p.ws_bytes;
    float *x = p.x, *w = p.w, *y = p.y, *bias = p.bias;
    const float one = 1, zero = 0;
    const cublasComputeType_t compute = CUBLAS_COMPUTE_32F_FAST_TF32;
    fill_random<<<1024, 256>>>(x, 131072L * 264, 1);
    fill_random<<<1024, 256>>>(w, 1024L * 264, 2);
    fill_random<<<4, 256>>>(bias, 1024, 3);
    CK(cudaDeviceSynchronize());
    int ids[256], id_count = 0;
    BK(cublasLtMatmulAlgoGetIds(lt, compute, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F,
                                CUDA_R_32F, CUDA_R_32F, 256, ids, &id_count));
    printf("TF32 algorithm ids: %d\n", id_count);
    struct Case { const char *name; int out, in, ldx; long rows; bool use_bias; };
    const Case cases[] = {
        {"QKVG S=512 (ldx 264)", 1024, 256, 264, 131072, false},
        {"out S=512 (K=264 ones)", 256, 264, 264, 131072, false},
        {"out S=512 (K=256 bias)", 256, 256, 264, 131072, true},
    };
    const int clusters[] = {CUBLASLT_CLUSTER_SHAPE_AUTO, CUBLASLT_CLUSTER_SHAPE_1x1x1,
                            CUBLASLT_CLUSTER_SHAPE_2x1x1, CUBLASLT_CLUSTER_SHAPE_1x2x1};
    for (const Case &c : cases) {
        const double flop = 2.0 * c.out * c.in * c.rows;
        if (!c.use_bias) {
            double ms = median_ms([&] {
                BK(cublasGemmEx(p.h, CUBLAS_OP_T, CUBLAS_OP_N, c.out, (int)c.rows, c.in, &one, w,
                                CUDA_R_32F, c.out == 1024 ? 256 : 264, x, CUDA_R_32F, c.ldx, &zero, y, CUDA_R_32F, c.out,
                                compute, CUBLAS_GEMM_DEFAULT));
                return true;
            }, 20);
            printf("%-26s GemmEx %8.4f ms %6.1f TFLOP/s\n", c.name, ms, flop / ms / 1e9);
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
        const int ldw = c.out == 1024 ? 256 : 264;
        BK(cublasLtMatrixLayoutCreate(&la, CUDA_R_32F, c.in, c.out, ldw));
        BK(cublasLtMatrixLayoutCreate(&lb, CUDA_R_32F, c.in, c.rows, c.ldx));
        BK(cublasLtMatrixLayoutCreate(&lc, CUDA_R_32F, c.out, c.rows, c.out));
        {   /* the heuristic's first choice */
            cublasLtMatmulPreference_t pref;
            BK(cublasLtMatmulPreferenceCreate(&pref));
            BK(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws_bytes, sizeof ws_bytes));
            cublasLtMatmulHeuristicResult_t found[4];
            int count = 0;
            cublasLtMatmulAlgoGetHeuristic(lt, desc, la, lb, lc, lc, pref, 4, found, &count);
            for (int i = 0; i < count; i++) {
                double ms = median_ms([&] {
                    return cublasLtMatmul(lt, desc, &one, w, la, x, lb, &zero, y, lc, y, lc,
                                          &found[i].algo, ws, ws_bytes, 0) == CUBLAS_STATUS_SUCCESS;
                }, 20);
                char text[200];
                describe(found[i].algo, text);
                printf("%-26s heuristic #%d %8.4f ms %6.1f TFLOP/s  %s\n", c.name, i, ms, flop / ms / 1e9, text);
            }
            cublasLtMatmulPreferenceDestroy(pref);
        }
        std::vector<Found> all;
        for (int k = 0; k < id_count; k++) {
            cublasLtMatmulAlgo_t algo;
            if (cublasLtMatmulAlgoInit(lt, compute, CUDA_R_32F, CUDA_R_32F, CUDA_R_32F,
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
            int custom_max = 0;
            cublasLtMatmulAlgoCapGetAttribute(&algo, CUBLASLT_ALGO_CAP_CUSTOM_OPTION_MAX, &custom_max, sizeof custom_max, &got);
            int swizzle_support = 0;
            cublasLtMatmulAlgoCapGetAttribute(&algo, CUBLASLT_ALGO_CAP_CTA_SWIZZLING_SUPPORT,
                                              &swizzle_support, sizeof swizzle_support, &got);
            for (int t = 0; t < tile_count; t++)
                for (int s = 0; s < stage_count; s++)
                    for (int sw = 0; sw <= (swizzle_support ? 1 : 0); sw++)
                        for (int cl : clusters)
                        for (int co = 0; co <= custom_max; co++) {
                            Found f;
                            f.algo = algo;
                            f.id = ids[k]; f.tile = tiles[t]; f.stages = stages[s]; f.swizzle = sw; f.cluster = cl;
                            const int splitk = 1;
                            cublasLtMatmulAlgoConfigSetAttribute(&f.algo, CUBLASLT_ALGO_CONFIG_TILE_ID, &f.tile, sizeof f.tile);
                            cublasLtMatmulAlgoConfigSetAttribute(&f.algo, CUBLASLT_ALGO_CONFIG_STAGES_ID, &f.stages, sizeof f.stages);
                            cublasLtMatmulAlgoConfigSetAttribute(&f.algo, CUBLASLT_ALGO_CONFIG_SPLITK_NUM, &splitk, sizeof splitk);
                            cublasLtMatmulAlgoConfigSetAttribute(&f.algo, CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING, &f.swizzle, sizeof f.swizzle);
                            cublasLtMatmulAlgoConfigSetAttribute(&f.algo, CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION, &co, sizeof co);
                            if (cublasLtMatmulAlgoConfigSetAttribute(&f.algo, CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID, &cl, sizeof cl) != CUBLAS_STATUS_SUCCESS && cl != 0)
                                continue;
                            cublasLtMatmulHeuristicResult_t check;
                            if (cublasLtMatmulAlgoCheck(lt, desc, la, lb, lc, lc, &f.algo, &check) != CUBLAS_STATUS_SUCCESS)
                                continue;
                            if (check.workspaceSize > ws_bytes)
                                continue;
                            all.push_back(f);
                        }
        }
        printf("%-26s %zu configurations accepted\n", c.name, all.size());
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
            char text[200];
            describe(f.algo, text);
            printf("%-26s Lt %s: %8.4f ms %6.1f TFLOP/s (screen %.4f)\n", c.name, text, ms, flop / ms / 1e9, f.ms);
        }
        cublasLtMatrixLayoutDestroy(la); cublasLtMatrixLayoutDestroy(lb); cublasLtMatrixLayoutDestroy(lc);
        cublasLtMatmulDescDestroy(desc);
    }
    return 0;
}

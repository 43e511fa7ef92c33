/* chapters/07-tiled/layer.cu - the host side of the MSA layer at any depth (see
 * layer.cuh), and the kernels of its launches 1 to 3. Chapter 7
 * explains them (its section "Seven launches around the kernel").
 *
 *   launch 1  tiled_order_keys   each column's order, kept keys first; biases; counts
 *   launch 2  tiled_count_keys   where each column's kept keys start; the total,
 *                                straight into mapped host memory
 *   launch 3  tiled_prepare      LayerNorm every row into its place in that order;
 *                                stack Wq Wg Wk Wv, and Wo | bo
 */
#include <math.h>
#include <stdint.h>

#include <cub/block/block_scan.cuh>

#include "layer.cuh"
#include "device/warp_reduce.h"

#define TILED_PREP_THREADS 256 /* launch 3: 8 warps, a row each, or 256 float4s of weights */
#define TILED_SCAN_THREADS 256 /* launch 2: one block */
#define TILED_LIST_THREADS 512 /* launch 1: 16 warps over 32 columns */

/* Where sequence s0 + j goes in its column's order: bit j of `bits` says
 * whether it is kept, and the kept (masked) ones of s0..s0+31 go, in order,
 * from kept_at (masked_at) on. */
static __device__ __forceinline__ int order_position(const tiled_params &p, unsigned bits, int j,
                                                     int s0, int kept_at, int masked_at)
{
    const int below = __popc(bits & ((1u << j) - 1)); /* kept ones before it */
    return !p.compact ? s0 + j : bits >> j & 1 ? kept_at + below : masked_at + (j - below);
}

/* Launch 1: a block per 32 neighbouring columns of one batch entry, the 16
 * warps each taking a run of the S sequences. First a lane per column: each
 * counts the kept keys of its column in its warp's run (reading the mask in
 * rows of 32 neighbouring floats), and the counts added up say where each
 * run's keys go. Then the warp writes its run 32 sequences at a time: each
 * lane gathers its column's 32 mask values into the bits of one word, and
 * the warp goes through the 32 columns, a lane per sequence, so that the
 * order and the biases go out to neighbouring addresses. */
__global__ void __launch_bounds__(TILED_LIST_THREADS) tiled_order_keys(const tiled_params p)
{
    constexpr int WARPS = TILED_LIST_THREADS / 32;
    __shared__ int run_count[WARPS][32];
    const int groups = (p.N + 31) / 32;
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const int b = blockIdx.x / groups, first_column = blockIdx.x % groups * 32;
    const int n = first_column + lane;
    const int run = (p.S + WARPS - 1) / WARPS;
    const int first = min(p.S, warp * run), last = min(p.S, first + run);
    const bool column = n < p.N;
    const float *mask = p.mask + (size_t)b * p.S * p.N + n;

    int kept = 0;
    if (column)
#pragma unroll 8
        for (int s = first; s < last; s++)
            kept += mask[(size_t)s * p.N] != 0.0f;
    run_count[warp][lane] = kept;
    __syncthreads();
    int before = 0, total = 0; /* kept keys in the runs before this one; in the column */
    for (int w = 0; w < WARPS; w++) {
        before += w < warp ? run_count[w][lane] : 0;
        total += run_count[w][lane];
    }
    int kept_at = before, masked_at = total + (first - before); /* where the next ones go */
    for (int s0 = first; s0 < last; s0 += 32) {
        const int here = min(32, last - s0);
        unsigned bits = 0; /* bit j: sequence s0 + j of this lane's column is kept */
        if (column)
            for (int j = 0; j < here; j++)
                bits |= (unsigned)(mask[(size_t)(s0 + j) * p.N] != 0.0f) << j;
        if (column) /* where each sequence went, for the LayerNorm: a lane per column */
            for (int j = 0; j < here; j++)
                p.slot[tiled_row(p, b, s0 + j, n)] =
                    order_position(p, bits, j, s0, kept_at, masked_at);
        for (int c = 0; c < 32 && first_column + c < p.N; c++) { /* a lane per sequence */
            const unsigned column_bits = __shfl_sync(0xffffffffu, bits, c);
            const int column_kept_at = __shfl_sync(0xffffffffu, kept_at, c);
            const int column_masked_at = __shfl_sync(0xffffffffu, masked_at, c);
            if (lane < here) {
                const size_t at = ((size_t)b * p.N + first_column + c) * p.S +
                                  order_position(p, column_bits, lane, s0, column_kept_at,
                                                 column_masked_at);
                p.order[at] = s0 + lane;
                p.key_bias[at] = column_bits >> lane & 1 ? 0.0f : -INFINITY;
            }
        }
        kept_at += __popc(bits);
        masked_at += here - __popc(bits);
    }
    if (column && warp == 0)
        p.key_count[(size_t)b * p.N + n] = p.compact ? total : p.S;
}

/* Launch 2, one block: where each column's kept keys start (a prefix sum of
 * the counts, cub's block scan), and how many there are in all. */
__global__ void __launch_bounds__(TILED_SCAN_THREADS) tiled_count_keys(const tiled_params p)
{
    typedef cub::BlockScan<int, TILED_SCAN_THREADS> Scan;
    __shared__ typename Scan::TempStorage scan_space;
    const int per_thread = (p.columns + TILED_SCAN_THREADS - 1) / TILED_SCAN_THREADS;
    const int first = min(p.columns, (int)threadIdx.x * per_thread);
    const int last = min(p.columns, first + per_thread);
    int mine = 0, before, all_kept;
    for (int c = first; c < last; c++)
        mine += p.key_count[c];
    Scan(scan_space).ExclusiveSum(mine, before, all_kept);
    for (int c = first; c < last; c++) {
        p.key_start[c] = before;
        before += p.key_count[c];
    }
    if (threadIdx.x == 0) {
        p.key_start[p.columns] = all_kept;
        if (p.host_kept)
            *p.host_kept = all_kept; /* straight into the host's memory */
    }
}

/* One warp per row of msa, taken in memory order: it normalises the row
 * and writes it to the row of xn that the row's slot in its column's order
 * says. Lane l holds features 4l..4l+3 and 4l+128..4l+131. */
static __device__ void prepare_layer_norm(const tiled_params &p, long block)
{
    const int D = p.D, lane = threadIdx.x % 32;
    const long row = block * (TILED_PREP_THREADS / 32) + threadIdx.x / 32;
    if (row >= p.rows)
        return;
    const tiled_column c = column_of(p, (int)(row / p.N / p.S), (int)(row % p.N));
    const float *x = p.msa + row * D;
    float *y = p.xn + (size_t)column_row(c, p.slot[row]) * (D + TILED_EXTRA);
    float4 value[2];
    float sum = 0.0f;
#pragma unroll
    for (int k = 0; k < 2; k++) {
        const int f = 4 * lane + 128 * k;
        value[k] = f < D ? *reinterpret_cast<const float4 *>(x + f) : make_float4(0, 0, 0, 0);
        sum += value[k].x + value[k].y + value[k].z + value[k].w;
    }
    const float mean = warp_sum(sum) / D;
    float squares = 0.0f;
#pragma unroll
    for (int k = 0; k < 2; k++) {
        if (4 * lane + 128 * k < D) {
            const float4 v = value[k];
            squares += (v.x - mean) * (v.x - mean) + (v.y - mean) * (v.y - mean) +
                       (v.z - mean) * (v.z - mean) + (v.w - mean) * (v.w - mean);
        }
    }
    const float inverse_std = 1.0f / sqrtf(warp_sum(squares) / D + (float)MSA_LAYERNORM_EPS);
#pragma unroll
    for (int k = 0; k < 2; k++) {
        const int f = 4 * lane + 128 * k;
        if (f < D) {
            const float4 v = value[k];
            const float4 gamma = *reinterpret_cast<const float4 *>(p.ln_gamma + f);
            const float4 beta = *reinterpret_cast<const float4 *>(p.ln_beta + f);
            float4 out;
            out.x = (v.x - mean) * inverse_std * gamma.x + beta.x;
            out.y = (v.y - mean) * inverse_std * gamma.y + beta.y;
            out.z = (v.z - mean) * inverse_std * gamma.z + beta.z;
            out.w = (v.w - mean) * inverse_std * gamma.w + beta.w;
            *reinterpret_cast<float4 *>(y + f) = out;
        }
    }
}

static __device__ void prepare_weights(const tiled_params &p, long block)
{
    const int D = p.D, stride = D + TILED_EXTRA;
    const long stacked = (long)D * D; /* float4s of the four stacked matrices */
    long i = block * TILED_PREP_THREADS + threadIdx.x;
    if (i < stacked) {
        const long element = 4 * i;
        const int row = (int)(element / D), column = (int)(element % D);
        const int matrix = row / D; /* Q and G first: the rows past the kept keys need only those */
        const float *w = matrix == 0 ? p.wq : matrix == 1 ? p.wg : matrix == 2 ? p.wk : p.wv;
        *reinterpret_cast<float4 *>(p.w_stack + element) =
            *reinterpret_cast<const float4 *>(w + (size_t)(row % D) * D + column);
        return;
    }
    i -= stacked;
    if (i < (long)D * stride / 4) {
        const long element = 4 * i;
        const int row = (int)(element / stride), column = (int)(element % stride);
        const float4 value =
            column < D ? *reinterpret_cast<const float4 *>(p.wo + (size_t)row * D + column)
            : column == D ? make_float4(p.bo[row], 0.0f, 0.0f, 0.0f)
                          : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        *reinterpret_cast<float4 *>(p.w_out + element) = value;
    }
}

/* Launch 3: the first weight_blocks blocks stack weights, the rest normalise rows. */
__global__ void __launch_bounds__(TILED_PREP_THREADS) tiled_prepare(const tiled_params p)
{
    const long block = blockIdx.x;
    if (block < p.weight_blocks)
        prepare_weights(p, block);
    else
        prepare_layer_norm(p, block - p.weight_blocks);
}

/* ---------------------------------------------------------------- host */

/* Where each piece of the layer's data starts in args->scratch, in floats,
 * each on a 256-byte boundary. O is written over xn once launches 4 and 5
 * have read it. A row of xn (and O) is D + 8 floats: O's 1, which carries
 * bo through the last GEMM, then seven zeros, so that a row is a whole
 * number of 32-byte sectors: no row shares a sector with the next, and the
 * GEMM makes no more passes over its inner dimension than for D alone. */
typedef struct {
    size_t xn, proj, order, slot, key_bias, key_count, key_start, w_stack, w_out; /* in floats */
    size_t total;
} tiled_scratch;

static size_t round_up_64(size_t floats) { return (floats + 63) / 64 * 64; }

static tiled_scratch scratch_layout(msa_size z)
{
    const size_t rows = (size_t)z.B * z.S * z.N, columns = (size_t)z.B * z.N;
    tiled_scratch at;
    at.xn = 0;
    at.proj = at.xn + round_up_64(rows * (z.D + TILED_EXTRA));
    at.order = at.proj + round_up_64(rows * 4 * z.D);
    at.slot = at.order + round_up_64(rows);
    at.key_bias = at.slot + round_up_64(rows);
    at.key_count = at.key_bias + round_up_64(rows);
    at.key_start = at.key_count + round_up_64(columns);
    at.w_stack = at.key_start + round_up_64(columns + 1);
    at.w_out = at.w_stack + round_up_64((size_t)4 * z.D * z.D);
    at.total = at.w_out + round_up_64((size_t)z.D * (z.D + TILED_EXTRA));
    return at;
}

size_t tiled_scratch_floats(msa_size z) { return scratch_layout(z).total; }

int tiled_refuses(msa_size z, char *why, size_t capacity)
{
    if (z.D > 256) {
        snprintf(why, capacity, "D=%d: at most 256 features (the LayerNorm keeps 8 floats a lane)",
                 z.D);
        return 1;
    }
    if (z.D % z.H != 0) {
        snprintf(why, capacity, "D=%d is not a multiple of H=%d", z.D, z.H);
        return 1;
    }
    const int d = z.D / z.H;
    if (d != 8 && d != 16 && d != 32 && d != 64) {
        snprintf(why, capacity, "head size d=%d: the kernels are built for d = 8, 16, 32 or 64", d);
        return 1;
    }
    return 0;
}

/* Row-major Y = X W^T is column-major Y^T = W X^T: W read transposed. */
void tiled_cublas_gemm(const msa_args *args, cublasComputeType_t compute, float *y, int ldy,
                       const float *x, int ldx, const float *w, int ldw, int out, int in, long rows)
{
    const float one = 1.0f, zero = 0.0f;
    CUBLAS_CHECK(cublasGemmEx(args->cublas, CUBLAS_OP_T, CUBLAS_OP_N, out, (int)rows, in, &one, w,
                              CUDA_R_32F, ldw, x, CUDA_R_32F, ldx, &zero, y, CUDA_R_32F, ldy,
                              compute, CUBLAS_GEMM_DEFAULT));
}

/* The count of kept keys, where the host can read it: page-locked host
 * memory that launch 2 writes through its device address, and the event
 * that says it is there. One of each for the process, made on first use. */
static volatile int *kept_on_host;
static int *kept_on_host_for_device;
static cudaEvent_t kept_counted;

static void count_on_host_ready(void)
{
    if (kept_on_host)
        return;
    int *memory;
    CUDA_CHECK(cudaHostAlloc(&memory, sizeof(int), cudaHostAllocMapped));
    CUDA_CHECK(cudaHostGetDevicePointer(&kept_on_host_for_device, memory, 0));
    CUDA_CHECK(cudaEventCreateWithFlags(&kept_counted, cudaEventDisableTiming));
    kept_on_host = memory;
}

/* Whether the host should wait for the count of kept keys before it issues
 * the GEMMs: only when the layer is projected on a plain stream (a CUDA
 * graph being captured cannot stop for the host), and only when the K and V
 * projections are worth at least a GFLOP (20 us of cuBLAS), so that what
 * skipping the masked rows saves is larger than the host's round trip. */
static bool wait_for_count(const msa_args *args, long rows, bool compact)
{
    cudaStreamCaptureStatus capture;
    CUDA_CHECK(cudaStreamIsCapturing(args->stream, &capture));
    const double kv_flops = 4.0 * rows * args->size.D * args->size.D;
    return compact && capture == cudaStreamCaptureStatusNone && kv_flops >= 1e9;
}

/* The seven launches, in order, on args->stream (see layer.cuh). */
void tiled_layer(const msa_args *args, bool compact, tiled_gemm_fn gemm, tiled_attend_fn attend)
{
    const msa_size z = args->size;
    const int d = z.D / z.H;
    const tiled_scratch at = scratch_layout(z);
    tiled_params p;
    p.msa = args->msa;
    p.mask = args->mask;
    p.ln_gamma = args->ln_gamma;
    p.ln_beta = args->ln_beta;
    p.wq = args->wq;
    p.wk = args->wk;
    p.wv = args->wv;
    p.wg = args->wg;
    p.bg = args->bg;
    p.wo = args->wo;
    p.bo = args->bo;
    p.xn = args->scratch + at.xn;
    p.proj = args->scratch + at.proj;
    p.order = reinterpret_cast<int *>(args->scratch + at.order);
    p.slot = reinterpret_cast<int *>(args->scratch + at.slot);
    p.key_bias = args->scratch + at.key_bias;
    p.key_count = reinterpret_cast<int *>(args->scratch + at.key_count);
    p.key_start = reinterpret_cast<int *>(args->scratch + at.key_start);
    p.w_stack = args->scratch + at.w_stack;
    p.w_out = args->scratch + at.w_out;
    p.S = z.S;
    p.N = z.N;
    p.D = z.D;
    p.H = z.H;
    p.rows = (long)z.B * z.S * z.N;
    p.columns = z.B * z.N;
    p.compact = compact ? 1 : 0;
    p.weight_blocks =
        (int)(((long)z.D * z.D + (long)z.D * (z.D + TILED_EXTRA) / 4 + TILED_PREP_THREADS - 1) /
              TILED_PREP_THREADS);
    p.q_scale = (float)(1.4426950408889634 / sqrt((double)d));
    const bool wait = wait_for_count(args, p.rows, compact);
    if (wait)
        count_on_host_ready();
    p.host_kept = wait ? kept_on_host_for_device : NULL;

    const unsigned list_blocks = (unsigned)(z.B * ((z.N + 31) / 32));
    tiled_order_keys<<<list_blocks, TILED_LIST_THREADS, 0, args->stream>>>(p);
    LAUNCH_CHECK();
    tiled_count_keys<<<1, TILED_SCAN_THREADS, 0, args->stream>>>(p);
    LAUNCH_CHECK();
    if (wait)
        CUDA_CHECK(cudaEventRecord(kept_counted, args->stream));
    const long norm_blocks = (p.rows + TILED_PREP_THREADS / 32 - 1) / (TILED_PREP_THREADS / 32);
    tiled_prepare<<<(unsigned)(p.weight_blocks + norm_blocks), TILED_PREP_THREADS, 0,
                    args->stream>>>(p);
    LAUNCH_CHECK();

    /* Rows [0, kept) of xn are the kept keys: all four projections. The rest
     * are queries only: Q and G, the first 2D rows of the stacked weights.
     * Without the count, every row gets all four (correct, only slower). */
    long kept = p.rows;
    if (wait) {
        CUDA_CHECK(cudaEventSynchronize(kept_counted));
        kept = *kept_on_host;
    }
    const int wide = z.D + TILED_EXTRA;
    if (kept > 0)
        gemm(args, p.proj, 4 * z.D, p.xn, wide, p.w_stack, z.D, 4 * z.D, z.D, kept);
    if (kept < p.rows)
        gemm(args, p.proj + kept * 4 * z.D, 4 * z.D, p.xn + kept * wide, wide, p.w_stack, z.D,
             2 * z.D, z.D, p.rows - kept);
    attend(d, p, z.B, args->stream);
    gemm(args, args->out, z.D, p.xn, wide, p.w_out, wide, z.D, wide, p.rows);
}

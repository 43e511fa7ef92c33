// chapters/11-copy-engine/gemm.cuh - Chapter 11: a GEMM in 3xTF32, Y = X W^T, on Hopper's
// warp-group tensor-core instruction, fed by its copy engine (cuBLAS has no 3xTF32): chapter 13's
// MSA layer (fused-tiled-tf32x3) computes its projections with it.
//
//   make build/chapter13
//   build/chapter13 --kernel fused-tiled-tf32x3 B=1 S=512 N=256 D=256 H=8 --reps 20

/*md
## Copies in: a GEMM for chapter 13

Chapter 13 puts the MSA layer of chapters 6 and 7 on the tensor cores, and
to FP32 accuracy its projections need a 3xTF32 GEMM, $Y = X W^T$, that
cuBLAS does not have: its compute types put an FP32 product on the FP32
lanes, or on the tensor cores in TF32 with chapter 8's error, and none
splits the operands. So we write one, and it is where Hopper's second engine
earns its place. `tf32x3_wgmma_gemm` takes row-major $X$ (rows $\times$ in)
and $W$ (out $\times$ in), which is how the layer stores its activations
and its weights: both operands run along $k$ in memory ("K-major"), the
only order the tensor cores accept TF32 operands in.

As in the triangle, $B$ cannot be split on the way: the
tensor cores read it as it is. So the weights are split before the GEMM,
once per call, by a small kernel that writes $W_{\text{big}}$ and
$W_{\text{small}}$ in exactly the order a stage of the GEMM holds them
(`gemm_weight_index`): a block's copies of a stage of $W$ are then one
contiguous run of 32 KB. $A$, the activations, is split as before, in the
registers, after its fragments are loaded from the stage.

{{figure|weight-stage}}

A block computes $128 \times 128$ outputs with two warp groups of
$64 \times 128$ and walks $k$ in stages of 32 through a ring of four
buffers. Each stage is 4 steps of 8 values of $k$, and each step three
`wgmma`s: small times big, big times small, big times big, as in
`mma_tf32x3`.

Who fills the ring? Chapter 5's answer, every thread issuing `cp.async`
copies of 16 bytes and a block barrier per stage, was this GEMM's first
version, and it left the tensor cores idle more than half of the time.
(That version is not kept; the layer with chapter 9's GEMM on `mma.sync`,
fed the same way, is, as `fused-tiled-tf32x3+mma`: `make chapter13` builds
and runs `build/chapter13-tried`, which races it.) On the H200 the copies and the products
each took about half of the GEMM's time, one after the other, not side by side:
the lanes that compute the addresses of a stage's 3072 copies (12 a
thread) and wait for room to issue them are the lanes that must feed the
tensor cores, and the barrier makes both warp groups do it at the same
moment. The copy engine moves a whole tile with one instruction: a box of
$X$, 128 rows
by 32 values of $k$, described once per call by a *tensor map*
(`common/device/tensor_map.h`, built on the host), and the stage of $W$, one
contiguous run, by a plain bulk copy. So one thread does all the copying, two
instructions a stage, and the warp groups only multiply. The box copy names
the map, the box's first element and a barrier in shared memory that counts
the bytes as they land; the bulk copy names a length instead of a map:

{{listing|common/device/bulk_copy.h|tensor_copy_box}}

{{listing|common/device/bulk_copy.h|bulk_copy}}

The warp groups no longer meet at a block
barrier either: each buffer has two shared-memory barriers (`mbarrier`),
*full*, which completes when the copy engine has landed the stage's 48 KB,
and *empty*, which completes when the 8 warps are done with it. A barrier
is set up once, with the number of arrivals that complete a phase, and
fenced so that the copy engine sees it set up:

{{listing|common/device/bulk_copy.h|mbarrier_init}}

It then completes in phases, one per use of its buffer. `mbarrier_arrive`
counts one arrival (a warp, on *empty*, through its lane 0);
`mbarrier_expect_bytes` is the copying thread's arrival on *full*, which
also tells the phase how many bytes to wait for (PTX's `expect_tx`): the
phase completes when both the arrivals and the bytes are in.

{{listing|common/device/bulk_copy.h|mbarrier_arrive}}

{{listing|common/device/bulk_copy.h|mbarrier_expect_bytes}}

A wait names the parity of the phase it waits for, and tries until that
phase has completed:

{{listing|common/device/bulk_copy.h|mbarrier_wait}}

A warp
group that finds its stage there goes on, whatever the other is doing, and
while one adds its sums in the FP32 lanes the other's `wgmma`s keep the
tensor cores busy.

The copying thread is thread 0, between its own stages: at the start of
stage $s$ it starts the copies of stage $s + 2$ (`GEMM_AHEAD`) into
the buffer of stage $s - 2$ (`gemm_buffer`), which both warp groups are
done with unless one has fallen two stages behind. The figure follows the
ring through the first stages of a block, from the kernel's own functions.

{{figure|gemm-pipeline}}

A ninth warp that only copies would be the textbook
arrangement, but it costs registers: a multiprocessor's four schedulers
each have 64 KB of them, nine warps put three on one scheduler, and the
compiler must fit every warp in 168 registers a lane, where the two levels
of sums need more (it spilled, and the GEMM was slower).

The copy engine lays a box of $X$ down with the 128-byte swizzle: row $r$
at byte $128 r$, its 16-byte piece $c$ at position $c \oplus (r \bmod 8)$.
A lane's fragment values (rows $g$ and $g + 8$, columns $t$ and $t + 4$
of a step) then lie in 32 different banks for the 32 lanes of a warp,
without the padding the `cp.async` version needed, and the box can land
as one piece.

{{figure|swizzled-box}}
*/

// book:hide
#pragma once
#include <stdint.h>

#include "problems/msa.h"
#include "../07-tiled/layer.cuh" /* tiled_gemm_fn's arguments, tiled_scratch_floats */
#include "device/bulk_copy.h"       /* tensor_copy_box, bulk_copy, mbarrier_* */
#include "device/tensor_map.h"      /* tensor_map_rows, tensor_map_box_index */
#include "device/tf32_split.h"      /* split_operand */
#include "device/wgmma.h"           /* wgmma_tf32_m64n128k8, wgmma_descriptor, fences */

#define GEMM_ROWS 128                  /* rows of Y per block: two warp groups of 64 */
#define GEMM_COLS 128                  /* columns of Y per block: one wgmma's n */
#define GEMM_DEPTH TENSOR_MAP_BOX_COLS /* values of k per stage: 32, one box of X wide */
#define GEMM_STAGES 4                  /* buffers in the ring */
#define GEMM_THREADS 256               /* two warp groups */
#define GEMM_A_FLOATS (GEMM_ROWS * GEMM_DEPTH) /* a box of X, swizzled */
#define GEMM_B_FLOATS (GEMM_COLS * GEMM_DEPTH) /* one part of W's stage: big, or small */
#define GEMM_STAGE_FLOATS (GEMM_A_FLOATS + 2 * GEMM_B_FLOATS) /* 48 KB */
static_assert(GEMM_THREADS == GEMM_ROWS / 64 * 128, "a warp group of 128 threads for each 64 rows");
static_assert(GEMM_STAGE_FLOATS * 4 == 48 * 1024,
              "a stage is 48 KB: four fit a block beside the rest");

/* Where part `part` (0 big, 1 small) of W's element (col, k) lives in the
 * split weights: tile of GEMM_COLS columns after tile, stage after stage, big
 * part then small, each stage as a stage of the GEMM holds it, in core
 * matrices of 8 columns by 4 values of k (32 floats, 128 bytes): the 8 core
 * matrices along a stage's k side by side, then the next 8 columns. For
 * the host too. */
static __host__ __device__ __forceinline__ size_t gemm_weight_index(int col, int k, int part,
                                                                    int stages)
{
    const int tile = col / GEMM_COLS, n = col % GEMM_COLS;
    const int stage = k / GEMM_DEPTH, kk = k % GEMM_DEPTH;
    const size_t first = (((size_t)tile * stages + stage) * 2 + part) * GEMM_B_FLOATS;
    return first + (size_t)(n / 8) * (8 * GEMM_DEPTH) + (kk / 4) * 32 + (n % 8) * 4 + kk % 4;
}

/* The descriptor of step `step` (8 values of k) of one part of a stage of W:
 * along k the next core matrix is 128 bytes on, along n 8 * GEMM_DEPTH floats. */
__device__ __forceinline__ uint64_t gemm_descriptor(const float *part, int step)
{
    return wgmma_descriptor(part + step * 2 * 32, 128, 8 * GEMM_DEPTH * (int)sizeof(float));
}

/* One thread per element of the split weights: W's values, zero past its
 * `out` columns and `in` values of k, split in two. */
static __global__ void gemm_split_weights(float *split, const float *__restrict__ w, int ldw,
                                          int out, int in, int stages, long count)
{
    const long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
    if (i >= count)
        return;
    const int depth = stages * GEMM_DEPTH, col = (int)(i / depth), k = (int)(i % depth);
    const float value = col < out && k < in ? w[(size_t)col * ldw + k] : 0.0f;
    const tf32_pair pair = split_operand<false>(value);
    split[gemm_weight_index(col, k, 0, stages)] = __uint_as_float(pair.big);
    split[gemm_weight_index(col, k, 1, stages)] = __uint_as_float(pair.small);
}

// book:show
/*md
The ring in code: two barriers per buffer, the bookkeeping of stages,
buffers and phases, and the copying thread's part. Before it copies into a
buffer that held an earlier stage it waits for that stage's *empty*; then
it tells *full* how many bytes will land and starts both copies.
*/

/* The ring's barriers: full[b] completes when stage s's copies into buffer
 * b = s % GEMM_STAGES have landed, empty[b] when the 8 multiplying warps are
 * done with it. */
struct gemm_ring_barriers {
    uint64_t full[GEMM_STAGES], empty[GEMM_STAGES];
};

#define GEMM_AHEAD 2 /* stages copied ahead of the one multiplied */
static_assert(GEMM_AHEAD < GEMM_STAGES,
              "the ring holds the stages copied ahead and the one multiplied");

/* The ring's bookkeeping, which the kernel and the figure of the pipeline
 * share. Stage s lives in buffer gemm_buffer(s). A buffer's barriers
 * complete once per stage it holds, and a wait names the parity of the
 * completion it waits for: the multiplying warps wait for full's
 * gemm_phase(s); the copying thread, before it copies stage s >= GEMM_STAGES,
 * for empty's gemm_empty_phase(s), the completion of the stage the buffer
 * held before. At the start of stage s it starts the copies of stage
 * s + GEMM_AHEAD. */
static __host__ __device__ __forceinline__ int gemm_buffer(int s)
{
    return s % GEMM_STAGES;
}

static __host__ __device__ __forceinline__ int gemm_phase(int s)
{
    return s / GEMM_STAGES % 2;
}

static __host__ __device__ __forceinline__ int gemm_empty_phase(int s)
{
    return (s / GEMM_STAGES - 1) % 2;
}


/* By the copying thread: as soon as its buffer is free, stage s's copies,
 * the block's box of X (rows past the last and values of k past `in` land
 * as zeros) and both parts of W's stage, as they lie. */
__device__ __forceinline__ void gemm_copy_stage(int s, float *ring,
                                                gemm_ring_barriers &ring_barrier,
                                                const CUtensorMap *x_map, const float *w_tile,
                                                int first_row)
{
    const int b = gemm_buffer(s);
    if (s >= GEMM_STAGES) /* the buffer's last stage, s - GEMM_STAGES, is done with */
        mbarrier_wait(&ring_barrier.empty[b], gemm_empty_phase(s));
    float *stage = ring + b * GEMM_STAGE_FLOATS;
    mbarrier_expect_bytes(&ring_barrier.full[b], GEMM_STAGE_FLOATS * sizeof(float));
    tensor_copy_box(stage, x_map, first_row, s * GEMM_DEPTH, &ring_barrier.full[b]);
    bulk_copy(stage + GEMM_A_FLOATS, w_tile + (size_t)s * 2 * GEMM_B_FLOATS,
              2 * GEMM_B_FLOATS * sizeof(float), &ring_barrier.full[b]);
}

/*md
The multiplying warps' part: each loads its four $A$ values per step from
the swizzled box (`tensor_map_box_index` says where the copy engine put
them), splits them, and issues the step's three `wgmma`s.
*/

/* sum = the stage's X rows times its W columns over STEPS steps of 8 values
 * of k: this warp's A fragments loaded and split, then three wgmmas per
 * step, and the wait for them. STEPS is a template argument so that no
 * branch sits between the wgmmas (the compiler would fence each of them). */
template <int STEPS>
__device__ __forceinline__ void gemm_multiply(float (&sum)[64], const float *stage)
{
    const int lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
    const int row = threadIdx.x / 32 * 16 + g; /* warp w of the block: rows 16w to 16w + 15 */
    const float *w_big = stage + GEMM_A_FLOATS, *w_small = w_big + GEMM_B_FLOATS;
    uint32_t big[STEPS][4], small[STEPS][4];
#pragma unroll
    for (int j = 0; j < STEPS; j++) {
        const int k = 8 * j + t;
        const float v[4] = {stage[tensor_map_box_index(row, k)],
                            stage[tensor_map_box_index(row + 8, k)],
                            stage[tensor_map_box_index(row, k + 4)],
                            stage[tensor_map_box_index(row + 8, k + 4)]};
#pragma unroll
        for (int i = 0; i < 4; i++) {
            const tf32_pair pair = split_operand<false>(v[i]);
            big[j][i] = pair.big;
            small[j][i] = pair.small;
        }
    }
    wgmma_hold(sum);
    wgmma_fence();
#pragma unroll
    for (int j = 0; j < STEPS; j++) {
        wgmma_tf32_m64n128k8(sum, small[j], gemm_descriptor(w_big, j), j > 0); /* j = 0: afresh */
        wgmma_tf32_m64n128k8(sum, big[j], gemm_descriptor(w_small, j), true);
        wgmma_tf32_m64n128k8(sum, big[j], gemm_descriptor(w_big, j), true);
    }
    wgmma_commit();
    wgmma_wait<0>();
    wgmma_hold(sum);
}

/*md
The kernel adds each stage's products in sums of their own, which the
stage's first `wgmma` starts afresh, and those to the output's running
sums in the FP32 lanes: with $k$ up to 264, 99 products would otherwise
feed each accumulator, and the tensor core's one-sided additions would
leave twice the error that the triangle's `tf32x3` showed at $HS = 128$.
Twelve products per chain cost 64 more registers and one addition per
output and stage.
*/

static __global__ void __launch_bounds__(GEMM_THREADS, 1)
    tf32x3_gemm_kernel(float *y, int ldy, const __grid_constant__ CUtensorMap x_map,
                       const float *__restrict__ w_split, int out, int in, long rows)
{
    extern __shared__ float4 gemm_space[];
    /* the swizzled boxes want 1024-byte alignment (the launch adds room) */
    float *ring = reinterpret_cast<float *>(((uintptr_t)gemm_space + 1023) & ~(uintptr_t)1023);
    __shared__ gemm_ring_barriers ring_barrier;
    /* neighbouring blocks share rows of X */
    const int col_tiles = (out + GEMM_COLS - 1) / GEMM_COLS;
    const long first_row = (long)(blockIdx.x / col_tiles) * GEMM_ROWS;
    const int col_tile = (int)(blockIdx.x % col_tiles);
    const int stages = (in + GEMM_DEPTH - 1) / GEMM_DEPTH;
    const float *w_tile = w_split + (size_t)col_tile * stages * 2 * GEMM_B_FLOATS;
    if (threadIdx.x == 0)
        for (int b = 0; b < GEMM_STAGES; b++) {
            mbarrier_init(&ring_barrier.full[b], 1); /* the copying thread's expect_bytes */
            mbarrier_init(&ring_barrier.empty[b], GEMM_THREADS / 32); /* each warp's */
        }
    __syncthreads();
    const bool copies = threadIdx.x == 0;
    for (int s = 0; copies && s < GEMM_AHEAD && s < stages; s++)
        gemm_copy_stage(s, ring, ring_barrier, &x_map, w_tile, (int)first_row);

    float total[64] = {}, sum[64] = {};
    for (int s = 0; s < stages; s++) {
        const int b = gemm_buffer(s);
        if (copies && s + GEMM_AHEAD < stages)
            gemm_copy_stage(s + GEMM_AHEAD, ring, ring_barrier, &x_map, w_tile, (int)first_row);
        mbarrier_wait(&ring_barrier.full[b], gemm_phase(s)); /* stage s has landed */
        const float *stage = ring + b * GEMM_STAGE_FLOATS;
        switch (min(GEMM_DEPTH, in - s * GEMM_DEPTH) / 8) { /* only the last stage may be short */
        case 4: gemm_multiply<4>(sum, stage); break;
        case 3: gemm_multiply<3>(sum, stage); break;
        case 2: gemm_multiply<2>(sum, stage); break;
        default: gemm_multiply<1>(sum, stage); break;
        }
        __syncwarp();
        if (threadIdx.x % 32 == 0) /* this warp's products of stage s are done */
            mbarrier_arrive(&ring_barrier.empty[b]);
#pragma unroll
        for (int i = 0; i < 64; i++)
            total[i] += sum[i];
    }

    /*md
After the last stage each lane writes its 64 sums, in `wgmma`'s $C$
fragments, as pairs of 8 bytes.
    */

// book:hide
    /* total[4j .. 4j + 3]: columns 8j + 2t, 8j + 2t + 1 of rows g and g + 8 */
    const int lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
#pragma unroll
    for (int half = 0; half < 2; half++) {
        const long row = first_row + threadIdx.x / 32 * 16 + g + 8 * half;
        if (row >= rows)
            continue;
#pragma unroll
        for (int j = 0; j < 16; j++) {
            const int col = col_tile * GEMM_COLS + 8 * j + 2 * t;
            if (col < out) /* out is a multiple of 8: col + 1 is inside too */
                *reinterpret_cast<float2 *>(y + row * ldy + col) =
                    make_float2(total[4 * j + 2 * half], total[4 * j + 2 * half + 1]);
        }
    }
// book:show
}

// book:hide
/* The split weights' floats for `out` columns and `in` values of k. */
static inline size_t gemm_split_floats(int out, int in)
{
    const size_t cols = (size_t)(out + GEMM_COLS - 1) / GEMM_COLS * GEMM_COLS;
    const size_t depth = (size_t)(in + GEMM_DEPTH - 1) / GEMM_DEPTH * GEMM_DEPTH;
    return 2 * cols * depth;
}

/* Whether this GEMM can run here: Hopper (as WORKBOOK_CARD may cap the
 * card) and code built for sm_90a. Asked once. */
static inline bool tf32x3_gemm_on_hopper(void)
{
    static int answer = -1;
    if (answer < 0) {
        const gpu_info gpu = gpu_query();
        char why[256];
        answer = !gpu_lacks_capability(&gpu, 9, 0, 1, why, sizeof why) &&
                 !wgmma_refuses((const void *)tf32x3_gemm_kernel, why, sizeof why);
    }
    return answer;
}

/* Y = X W^T (a tiled_gemm_fn) on Hopper: the weights split into the scratch
 * past the layer's own (each call splits its own), then the GEMM. The
 * layer's sizes (tiled_refuses) suit it: in and out multiples of 8, strides
 * multiples of 4 (16-byte copies, 8-byte stores), rows at least 1. */
static inline void tf32x3_wgmma_gemm(const msa_args *args, float *y, int ldy, const float *x,
                                     int ldx, const float *w, int ldw, int out, int in, long rows)
{
    const size_t at = tiled_scratch_floats(args->size);
    if (args->scratch_floats < at + gemm_split_floats(out, in)) {
        fprintf(stderr, "tf32x3_wgmma_gemm: %zu floats of scratch, %zu needed\n", args->scratch_floats,
                at + gemm_split_floats(out, in));
        exit(EXIT_FAILURE);
    }
    float *w_split = args->scratch + at;
    const int stages = (in + GEMM_DEPTH - 1) / GEMM_DEPTH;
    const long count = (long)gemm_split_floats(out, in) / 2;
    gemm_split_weights<<<(unsigned)((count + 255) / 256), 256, 0, args->stream>>>(
        w_split, w, ldw, out, in, stages, count);
    LAUNCH_CHECK();

    CUtensorMap x_map;
    char why[200];
    if (tensor_map_rows(&x_map, x, rows, in, ldx, GEMM_ROWS, why, sizeof why)) {
        fprintf(stderr, "tf32x3_wgmma_gemm: %s\n", why);
        exit(EXIT_FAILURE);
    }
    const size_t bytes = GEMM_STAGES * GEMM_STAGE_FLOATS * sizeof(float) + 1024; /* + alignment */
    gpu_allow_shared_memory((const void *)tf32x3_gemm_kernel, bytes);
    const long row_tiles = (rows + GEMM_ROWS - 1) / GEMM_ROWS;
    const long blocks = row_tiles * ((out + GEMM_COLS - 1) / GEMM_COLS);
    tf32x3_gemm_kernel<<<(unsigned)blocks, GEMM_THREADS, bytes, args->stream>>>(
        y, ldy, x_map, w_split, out, in, rows);
    LAUNCH_CHECK();
}

// book:show

/*md
## What the copy engine buys the GEMM

The GEMM is measured where it is used: chapter 13's MSA layer calls it for
its projections, more than half of the layer's arithmetic at the AlphaFold
shape. The layer's first 3xTF32 GEMM was built of chapter 9's pieces on
`mma.sync`, fed by chapter 5's ring of `cp.async` copies (the appendix
keeps it as `fused-tiled-tf32x3+mma`). With it, the whole layer took
{{median_ms|fused-tiled-tf32x3+mma|B=1 S=512 N=256 D=256 H=8 mask=kept}} ms
on the {{gpu|fused-tiled-tf32x3|B=1 S=512 N=256 D=256 H=8 mask=kept}}; with this
GEMM it takes
{{median_ms|fused-tiled-tf32x3|B=1 S=512 N=256 D=256 H=8 mask=kept}} ms,
{{speedup|fused-tiled-tf32x3|fused-tiled-tf32x3+mma|B=1 S=512 N=256 D=256 H=8 mask=kept}}
times as fast, with nothing but the projections' GEMM changed. On a card before Hopper the layer still runs
that `mma.sync` GEMM: it is the one there is.
*/

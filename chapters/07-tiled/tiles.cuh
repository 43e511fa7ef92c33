/* chapters/07-tiled/tiles.cuh - the device-side pieces that the attention kernels of the MSA
 * layer at any depth share (chapter 7's FP32 kernel, chapter 13's on the
 * tensor cores): the parameters every launch of the layer gets, a column's
 * layout once its kept keys come first, and the streaming of key and value
 * stages through shared memory with cp.async. chapters/07-tiled/layer.cu
 * fills the parameters and orders the columns; chapter 7 explains both.
 * Static, inline and template code only: several translation units include it.
 */
#ifndef WORKBOOK_MSA_TILES_H
#define WORKBOOK_MSA_TILES_H

#include <math.h>
#include <stddef.h>

#include "device/async_copy.h"

#define TILED_STAGE_KEYS 64       /* keys per stage of shared memory */
#define TILED_MAX_WARPS 4         /* warps per attention block */
#define TILED_EXTRA 8             /* O's extra features: 1 (it carries bo), then seven zeros */
#define TILED_RENORM_LIMIT 256.0f /* 2^8: how far a weight may grow before the reference moves */
/* The bias of a stage position past the end of the column's kept keys: its
 * weight is exactly 0 (the key row copied there is only a stand-in). */
#define TILED_PAST_END_BIAS (-INFINITY)

/* What every launch of the layer gets (filled by chapters/07-tiled/layer.cu). */
typedef struct {
    const float *msa, *mask, *ln_gamma, *ln_beta;
    const float *wq, *wk, *wv, *wg, *bg, *wo, *bo;
    float *xn;          /* R x (D + 8): LayerNorm'd rows, kept first; later gated O, 1, 7 zeros */
    float *proj;        /* R x 4D: Q | G | K | V (G before its bias and sigmoid), rows as in xn */
    int *order;         /* B N x S: each column's sequences, the kept ones first */
    int *slot;          /* R, as msa's rows: where in its column's order each row went */
    float *key_bias;    /* B N x S: 0 where `order` holds a kept key, -inf where a masked one */
    int *key_count;     /* B N: how many keys each column keeps */
    int *key_start;     /* B N + 1: first row of each column's kept keys; last entry: all kept */
    int *host_kept;     /* the total of kept keys in host memory, or NULL (see launch 2) */
    float *w_stack;     /* 4D x D: Wq, Wg, Wk, Wv */
    float *w_out;       /* D x (D + 8): Wo | bo and 7 zeros */
    int S, N, D, H;
    long rows;          /* R = B S N */
    int columns;        /* B N */
    int compact;        /* 1: masked keys go after the kept ones; 0: the order is s (dense) */
    int weight_blocks;  /* launch 3's blocks that stack weights; the rest normalise rows */
    float q_scale;      /* log2(e) / sqrt(d) */
} tiled_params;

/* The row of msa (and of out, and of O) for sequence s of column (b, n). */
static __device__ __forceinline__ size_t tiled_row(const tiled_params &p, int b, int s, int n)
{
    return ((size_t)b * p.S + s) * p.N + n;
}

/* A column (b, n) as the attention kernels and the LayerNorm see it, once
 * launches 1 and 2 have ordered its sequences, kept keys first. */
typedef struct {
    int b, n, h;
    int length;             /* how many keys the column keeps */
    int start;              /* the row of P (and xn) of its first kept key */
    int rest;               /* the row of its first masked sequence */
    const float *head;      /* P's row `start`, at the head's features */
    const float *key_bias;  /* the column's biases, by position in its order */
    const int *order;       /* the column's sequences, by position */
} tiled_column;

/* Column (b, n) as launch 2 left it. */
static __device__ __forceinline__ tiled_column column_of(const tiled_params &p, int b, int n)
{
    const int column = b * p.N + n;
    tiled_column c;
    c.b = b;
    c.n = n;
    c.h = 0;
    c.length = p.key_count[column];
    c.start = p.key_start[column];
    c.rest = p.key_start[p.columns] + (column * p.S - c.start);
    c.head = p.proj + (size_t)c.start * (4 * p.D);
    c.key_bias = p.key_bias + (size_t)column * p.S;
    c.order = p.order + (size_t)column * p.S;
    return c;
}

/* The row of P (and xn) that holds position i of the column's order. */
static __device__ __forceinline__ int column_row(const tiled_column &c, int i)
{
    return i < c.length ? c.start + i : c.rest + (i - c.length);
}

/* The block's column, head and first query position, from blockIdx.x. */
static __device__ __forceinline__ tiled_column block_column(const tiled_params &p,
                                                           int rows_per_block, int *first_row)
{
    const int tiles = (p.S + rows_per_block - 1) / rows_per_block;
    long index = blockIdx.x;
    const int tile = (int)(index % tiles);
    index /= tiles;
    const int h = (int)(index % p.H);
    index /= p.H;
    tiled_column c = column_of(p, (int)(index / p.N), (int)(index % p.N));
    c.h = h;
    c.head += h * (p.D / p.H);
    *first_row = tile * rows_per_block;
    return c;
}

/* 2^x on the special-function unit (ex2.approx): the weights of the softmax, in base 2. */
static __device__ __forceinline__ float exp2_fast(float x)
{
    float y;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
}

/* The gate, 1 / (1 + e^-x), with the fast exponential and division. */
static __device__ __forceinline__ float sigmoid(float x)
{
    return __fdividef(1.0f, 1.0f + __expf(-x));
}

/* Asks for the cache line that holds `address` to be brought into L2, and moves on:
 * a later load of it waits for L2, not for device memory. */
static __device__ __forceinline__ void prefetch_l2(const float *address)
{
    asm volatile("prefetch.global.L2 [%0];" ::"l"(address));
}

/* ---- The key and value stages.
 * A block walks its column's kept keys (the first `length` positions of the
 * order, consecutive rows of P) in stages of KEYS keys (TILED_STAGE_KEYS, or
 * half as many where a card's shared memory does not hold two stages). Each stage
 * copies the keys' rows of K_h and V_h (HD floats each) into shared memory with
 * cp.async, 16 bytes a copy, and each key's bias beside them. Two buffers
 * alternate: while the block computes with one, the next stage's copies are
 * in flight. KEY_STRIDE and VALUE_STRIDE (floats) are the row strides in
 * shared memory, which the tensor-core kernel pads against bank conflicts. */

/* Starts the copies of stage `stage`'s key and value rows and biases. A
 * thread copies the same 16-byte piece (`part`) of every row it takes, rows
 * `key_step` apart; PARTS divides 32, so a warp's copies cover whole rows.
 * The loop is kept short, because every instruction in it is one the
 * tensor-core kernel's products wait behind: the shared addresses are taken
 * once and move by a constant, as do the row pointers (no 64-bit multiply
 * per copy); a stage wholly inside the column's kept keys (all but the last)
 * skips the test per row; and the biases are a loop of their own, a thread
 * per key, instead of a branch in every row's copy. */
template <int HD, int KEY_STRIDE, int VALUE_STRIDE, int KEYS>
__device__ __forceinline__ void fetch_stage(const tiled_params &p, const tiled_column &c,
                                            int stage, float *keys, float *values, float *bias)
{
    constexpr int PARTS = HD / 4; /* 16-byte pieces per row */
    static_assert(32 % PARTS == 0, "a row's pieces must not straddle two warps");
    const int part = threadIdx.x % PARTS, key_step = blockDim.x / PARTS;
    const size_t width = 4 * (size_t)p.D; /* floats from one row of P to the next */
    const int first = stage * KEYS;
    /* Past the end, the first key stands in (its weight will be 0). */
    const float *stand_in = c.head + 2 * p.D + 4 * part;
    int key = threadIdx.x / PARTS;
    const float *row = stand_in + (first + key) * width;
    unsigned key_to = shared_address(keys + key * KEY_STRIDE + 4 * part);
    unsigned value_to = shared_address(values + key * VALUE_STRIDE + 4 * part);
    const size_t row_step = key_step * width;
    const unsigned key_to_step = key_step * KEY_STRIDE * sizeof(float);
    const unsigned value_to_step = key_step * VALUE_STRIDE * sizeof(float);
    if (first + KEYS <= c.length) {
        for (; key < KEYS; key += key_step) {
            copy_async_16_to(key_to, row);
            copy_async_16_to(value_to, row + p.D);
            row += row_step;
            key_to += key_to_step;
            value_to += value_to_step;
        }
    } else {
        for (; key < KEYS; key += key_step) {
            const float *from = first + key < c.length ? row : stand_in;
            copy_async_16_to(key_to, from);
            copy_async_16_to(value_to, from + p.D);
            row += row_step;
            key_to += key_to_step;
            value_to += value_to_step;
        }
    }
    for (int k = threadIdx.x; k < KEYS; k += blockDim.x) {
        if (first + k < c.length)
            copy_async_4(bias + k, c.key_bias + first + k);
        else
            bias[k] = TILED_PAST_END_BIAS;
    }
}

/* The two stage buffers, one after the other in the block's dynamic shared
 * memory, and the move of the walk through them that every attention kernel
 * shares: wait for the copies, one barrier, fetch_next, compute. */
template <int HD, int KEY_STRIDE, int VALUE_STRIDE, int STAGE_KEYS = TILED_STAGE_KEYS>
struct tiled_stages {
    static constexpr int KEYS = STAGE_KEYS;
    static constexpr size_t BYTES =
        (2 * (size_t)KEYS * (KEY_STRIDE + VALUE_STRIDE) + 2 * KEYS) * sizeof(float);
    float *keys;   /* [2][KEYS][KEY_STRIDE] */
    float *values; /* [2][KEYS][VALUE_STRIDE] */
    float *bias;   /* [2][KEYS] */

    __device__ explicit tiled_stages(float *shared)
        : keys(shared), values(keys + 2 * KEYS * KEY_STRIDE), bias(values + 2 * KEYS * VALUE_STRIDE)
    {
    }
    __device__ float *keys_of(int stage) const { return keys + (stage & 1) * KEYS * KEY_STRIDE; }
    __device__ float *values_of(int stage) const
    {
        return values + (stage & 1) * KEYS * VALUE_STRIDE;
    }
    __device__ float *bias_of(int stage) const { return bias + (stage & 1) * KEYS; }

    /* Starts the copies of stage + 1 into its buffer: called with stage = -1
     * first thing in the block, then right after the barrier that opens each
     * stage (which is when the other buffer is free again). */
    __device__ void fetch_next(const tiled_params &p, const tiled_column &c, int stage,
                               int stages) const
    {
        if (stage + 1 < stages)
            fetch_stage<HD, KEY_STRIDE, VALUE_STRIDE, KEYS>(p, c, stage + 1, keys_of(stage + 1),
                                                            values_of(stage + 1),
                                                            bias_of(stage + 1));
        copy_async_commit();
    }
};

#endif

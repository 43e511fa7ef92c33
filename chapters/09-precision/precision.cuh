// chapters/09-precision/precision.cuh - Chapter 9: FP32 accuracy at tensor-core speed (3xTF32).
//
// Build, check and time it from the repository root:
//
//   make chapter9                     # build/chapter9-trimul: check and time the triangle
//   build/chapter9-trimul --kernel tf32x3 T=4096
//   build/chapter9-trimul --only-new --check-only --input-scale 1e-3

/*md
# Precision on tensor cores: three products for one

## Must we choose between FP32's accuracy and the tensor cores' speed?

Chapter 5 ended with an FP32 kernel at half the FP32 peak, and chapter 8
with a TF32 kernel
{{speedup|tf32+rows|shared+rows+interleaved|B=8 T=1024 C=768 NH=12}} times
as fast and more than a thousand times less accurate: its relative error is
{{rel_l2|tf32+rows|B=8 T=1024 C=768 NH=12}}, where the FP32 kernel's is
{{rel_l2|shared+rows+interleaved|B=8 T=1024 C=768 NH=12}}.
For attention scores TF32 is usually good enough. Often it is not: a
model trained in FP32 may drift, a reference implementation must match to
the last digits, a check like ours at $10^{-5}$ fails. Must we choose
between the accuracy of the FP32 lanes and the speed of the tensor cores?

## The method

No. A float can be written exactly enough as the sum of two TF32 numbers,
and a product of two floats as three products of TF32 numbers: the method
Ootomo and Yokota analysed and CUTLASS ships as 3xTF32
[@ootomo2022tf32; @cutlass]. The tensor
cores do three times the work, and the result is accurate to FP32's level.
This chapter builds that, measures the error it leaves, and measures what
it costs.

## A float in two pieces

A float has a sign, 8 bits of exponent and 23 stored bits of mantissa; with
the leading 1 that is not stored, 24 significant bits. A TF32 number keeps
the exponent and only the top 10 stored bits: 11 significant bits. Write

$$ x = x_{\text{big}} + x_{\text{small}}, \qquad x_{\text{big}} = \mathrm{tf32}(x), \qquad x_{\text{small}} = x - x_{\text{big}}, $$

where $\mathrm{tf32}$ rounds to the nearest TF32 value (`cvt.rna.tf32.f32`).
Two facts make this work:

1. $x - x_{\text{big}}$ is computed exactly in FP32. Rounding to nearest
   moves $x$ by at most half a unit of its 10th stored bit, so
   $|x_{\text{small}}| \le 2^{-11} |x|$ and $x_{\text{big}}$ lies within a
   factor of two of $x$; the difference of two floats within a factor of two
   of each other is exact, a result known as Sterbenz's lemma
   [@sterbenz1974]. It is not that the two share their top bits: rounding
   up can carry into the exponent ($1.11\ldots1_2$ becomes $10.0_2$), and
   the difference is exact all the same.
2. $x_{\text{small}}$ needs about 13 significant bits, and TF32 holds 11 of
   them: handing it to the tensor core loses at most the bits below those,
   an error of at most $2^{-11} |x_{\text{small}}| \le 2^{-22} |x|$ when it
   is rounded ($2^{-21} |x|$ if its low bits are simply dropped).

The figure shows one float of the inputs split this way, bit by bit: what
the big part keeps, what the small part keeps, and what is lost.

{{figure|tf32-split}}

## Three products

Then

$$ a\,b = a_{\text{big}} b_{\text{big}} + a_{\text{big}} b_{\text{small}} + a_{\text{small}} b_{\text{big}} + a_{\text{small}} b_{\text{small}} . $$

Each term is a product of two TF32 numbers, which the tensor core multiplies
exactly (11 by 11 bits fit in the FP32 accumulator's 24). The last term is
at most $2^{-11} \cdot 2^{-11} = 2^{-22}$ of $|a b|$: below FP32's own
rounding of $2^{-24}$ by only a factor of four, so we drop it and keep
three. What is left of the error: $2^{-22}$ for the dropped term, about
$2 \cdot 2^{-22}$ for the small parts' own rounding, all relative to each
product, against $2^{-24}$ for an FP32 fused multiply-add. So 3xTF32 should
land within a small factor of FP32, about a thousand times below TF32.

One thing the argument leaves out: how the tensor core *adds*. It
accumulates in at least single precision, but the PTX ISA does not
promise the order of the additions inside one instruction or IEEE
round-to-nearest for each of them [@ptx-isa]. Rather than assume, the chapter measures: the error of
every kernel against the double-precision referee, at several head sizes
and input scales, in the section after the kernel.

The order of the three matters a little: the two small products are added
to the accumulator before the big one, so that they meet partial sums of
their own size.
*/

#pragma once
#include "../08-tensor/tensor.cuh" /* chapter 8's tiles, copies, stores and row walk */
#include "device/tf32_split.h"           /* split_operand, tf32_pair */

/*md
## Where the split lives

`split_operand` returns the two operands the tensor core is given for a
float: the big part rounded to TF32, and the residual, rounded too or
handed over as it is (the kernel below chooses; see "The small part cut,
not rounded").
It is written for the host as well, so that the figure above is drawn from
the very function the kernel runs, and it rounds with integer arithmetic,
on the host and on the device alike: add half a unit of the 10th stored
bit of the mantissa to the float's bits, then clear the 13 bits below it.
For a finite float that is exactly what `cvt.rna.tf32.f32` gives (`.rna`
rounds to nearest, half away from zero [@ptx-isa]; a carry out of the mantissa moves the exponent up, as
it should). Chapter 13's MSA layer splits its operands
with it too, so it lives in `common/device/tf32_split.h`: `round_to_tf32`, the
subtraction, and a `tf32_pair` of the two operands.

## The kernel

Everything but the multiply is chapter 8's `tf32+rows`, whose walk along a
row of tiles (`tf32_walk_row`) takes the multiply as a parameter: a block
walks one row of tiles of one head, the query tile copied once, the keys of
the next tile copied while this one is multiplied, the same stores. The
multiply of a step of 8 values of $k$ now splits each operand into two
fragments and issues three `mma.sync` where chapter 8 issued one.

Twice the fragments and three times the products: the instructions around
the products now cost more than the products. Three changes keep them few.

**Loads of 8 bytes.** The tensor core sums over the 8 values of $k$ of a
step in an order of its own; it does not care which $k$ a column of $A$
stands for, as long as row $k$ of $B$ stands for the same one. So the
kernel lets fragment column $t$ stand for $k = 2t$ and column $t + 4$ for
$k = 2t + 1$: the two values a lane needs from a row are neighbours, one
8-byte load (`float2`) instead of two 4-byte ones, for $A$ and for $B$
alike. For those loads to be free of bank conflicts, a row of the tile
must start 8 banks after the one before (a half-warp's 16 lanes read 4 rows
of 8 words): rows of $HS + 8$ floats, 8 modulo 32 for any $HS$ that is a
multiple of 32 (and for $HS = 8$, 40, ... as well). Three tiles of
$128 \times 72$ floats are 108 KB, and two blocks still fit on a
multiprocessor.

**Rounding with integers.** PTX has an instruction for the rounding,
`cvt.rna.tf32.f32`, but on the H200 it costs more than the two integer
instructions of `round_to_tf32`, and the kernel rounds two values for every
product it issues. The same kernel with the conversion instruction
(`tf32x3+cvt` in the appendix) takes
{{median_ms|tf32x3+cvt|B=8 T=1024 C=768 NH=12}} ms where `tf32x3` takes
{{median_ms|tf32x3|B=8 T=1024 C=768 NH=12}} ms, for results identical to
the last bit.

**The small part cut, not rounded.** The residual takes one subtraction;
rounding it too would take two more instructions. The kernel hands the
small part over as it is and lets the tensor
core drop its 13 low bits, as chapter 8 observed it does: the small part
then loses at most $2^{-10}$ of itself instead of $2^{-11}$, $2^{-21}$ of
$|x|$ instead of $2^{-22}$. Whatever the hardware does with those bits,
dropping them is the worst it can do, so the bound holds either way. The
appendix measures the kernel that rounds both parts.

A warp's $64 \times 32$ scores still live in 64 accumulators per lane, and
the split fragments need room too: the kernel splits the step's $B$
fragments once (16 registers for 4 n-tiles).
*/

#define TF32X3_PAD 8 /* floats added to each row: 8-byte loads without bank conflicts */

/* The kernel's split: the big part rounded, the small part handed over for the
 * tensor core to cut. (The appendix's variants bring splits of their own.) */
struct split_cut {
    static __device__ __forceinline__ tf32_pair of(float x) { return split_operand<false>(x); }
};

template <class Split>
__device__ __forceinline__ void tf32x3_multiply_tile(float (&sum)[TF32_M_TILES][TF32_N_TILES][4],
                                                     const float *query_tile,
                                                     const float *key_tile, int warp_row,
                                                     int warp_col, int HS)
{
    const int lane = threadIdx.x % 32, g = lane / 4, t = lane % 4, stride = HS + TF32X3_PAD;
    /* this lane's first words: row g of the warp's first m-tile and of its
     * first n-tile, at k = 2t (fragment column t is k = 2t, t + 4 is 2t + 1) */
    const float *a_lane = query_tile + (warp_row + g) * stride + 2 * t;
    const float *b_lane = key_tile + (warp_col + g) * stride + 2 * t;
    for (int k = 0; k < HS; k += TF32_STEP) {
        tf32_pair b[TF32_N_TILES][2]; /* this step's B fragments, split once */
#pragma unroll
        for (int n = 0; n < TF32_N_TILES; n++) {
            const float2 w = *reinterpret_cast<const float2 *>(b_lane + 8 * n * stride + k);
            b[n][0] = Split::of(w.x); /* fragment row t:     k + 2t */
            b[n][1] = Split::of(w.y); /* fragment row t + 4: k + 2t + 1 */
        }
        /*md
Then it goes through the m-tiles one at a time, splitting 4 values of $A$
(8 registers) and issuing 12 products.
        */
#pragma unroll
        for (int m = 0; m < TF32_M_TILES; m++) {
            const float *p = a_lane + 16 * m * stride + k;
            const float2 top = *reinterpret_cast<const float2 *>(p);              /* row g */
            const float2 bottom = *reinterpret_cast<const float2 *>(p + 8 * stride); /* g + 8 */
            const tf32_pair a0 = Split::of(top.x), a1 = Split::of(bottom.x),
                            a2 = Split::of(top.y), a3 = Split::of(bottom.y);
            const uint32_t a_big[4] = {a0.big, a1.big, a2.big, a3.big};
            const uint32_t a_small[4] = {a0.small, a1.small, a2.small, a3.small};
#pragma unroll
            for (int n = 0; n < TF32_N_TILES; n++) {
                mma_tf32(sum[m][n], a_small, b[n][0].big, b[n][1].big);
                mma_tf32(sum[m][n], a_big, b[n][0].small, b[n][1].small);
                mma_tf32(sum[m][n], a_big, b[n][0].big, b[n][1].big);
            }
        }
    }
}

template <class Split>
struct tf32x3_multiply {
    static __device__ __forceinline__ void tile(float (&sum)[TF32_M_TILES][TF32_N_TILES][4],
                                                const float *query_tile, const float *key_tile,
                                                int warp_row, int warp_col, int HS)
    {
        tf32x3_multiply_tile<Split>(sum, query_tile, key_tile, warp_row, warp_col, HS);
    }
};

/* Chapter 8's walk along a row of tiles, with the three-product multiply. */
template <class Split, bool ACCUMULATE>
__global__ void __launch_bounds__(TF32_THREADS, 2)
    tf32x3_rows_scores(float *preatt, const float *__restrict__ inp, int B, int T, int NH, int HS,
                       int k_count)
{
    extern __shared__ float4 tf32x3_space[];
    float *tiles = reinterpret_cast<float *>(tf32x3_space);
    tf32_walk_row<tf32x3_multiply<Split>, TF32X3_PAD, ACCUMULATE>(preatt, inp, B, T, NH, HS,
                                                                  k_count, tiles);
}

// book:hide
template <class Split>
static void tf32x3_launch_with(const triangle_args *args)
{
    tf32_launch_parts(args, tf32x3_rows_scores<Split, false>, tf32x3_rows_scores<Split, true>,
                      tf32_rows_grid(args->size), 3, TF32X3_PAD);
}

static inline void tf32x3_launch(const triangle_args *args)
{
    tf32x3_launch_with<split_cut>(args);
}

static inline int tf32x3_unfit(triangle_size size, const gpu_info *gpu, char *why, size_t capacity)
{
    (void)size;
    return tf32_unfit_tiles(gpu, 3, TF32X3_PAD, why, capacity);
}

// book:show

/*md
## The error, measured

The checks of every kernel against the double-precision referee, at the
default size with the head size $HS$ from 16 to 128 ($C = 768$ split into
48 to 6 heads), relative L2 error:

| kernel | HS = 16 | HS = 32 | HS = 64 | HS = 128 |
|---|---:|---:|---:|---:|
| `shared+rows+interleaved` (FP32 lanes) | {{rel_l2|shared+rows+interleaved|B=8 T=1024 C=768 NH=48}} | {{rel_l2|shared+rows+interleaved|B=8 T=1024 C=768 NH=24}} | {{rel_l2|shared+rows+interleaved|B=8 T=1024 C=768 NH=12}} | {{rel_l2|shared+rows+interleaved|B=8 T=1024 C=768 NH=6}} |
| `cublas-rows` (FP32) | {{rel_l2|cublas-rows|B=8 T=1024 C=768 NH=48}} | {{rel_l2|cublas-rows|B=8 T=1024 C=768 NH=24}} | {{rel_l2|cublas-rows|B=8 T=1024 C=768 NH=12}} | {{rel_l2|cublas-rows|B=8 T=1024 C=768 NH=6}} |
| `tf32+rows` (TF32) | {{rel_l2|tf32+rows|B=8 T=1024 C=768 NH=48}} | {{rel_l2|tf32+rows|B=8 T=1024 C=768 NH=24}} | {{rel_l2|tf32+rows|B=8 T=1024 C=768 NH=12}} | {{rel_l2|tf32+rows|B=8 T=1024 C=768 NH=6}} |
| `tf32x3` (3xTF32) | {{rel_l2|tf32x3|B=8 T=1024 C=768 NH=48}} | {{rel_l2|tf32x3|B=8 T=1024 C=768 NH=24}} | {{rel_l2|tf32x3|B=8 T=1024 C=768 NH=12}} | {{rel_l2|tf32x3|B=8 T=1024 C=768 NH=6}} |

Three things stand out. TF32 sits at a few $10^{-4}$ whatever the head
size: each product's own rounding dominates, and those errors average out
in the sum. 3xTF32 is back at FP32's level, three orders of magnitude
better, and more than twenty times under the FP32 tolerance. But it is
not FP32's equal, and its error grows differently: the FP32 kernels' error grows like
$\sqrt{HS}$, as independent roundings do, while 3xTF32's doubles each time
$HS$ doubles.

Is it the small parts? The variant that rounds them instead of letting the
tensor core drop their low bits (`tf32x3+rounded`, in the appendix) has
the same error, {{rel_l2|tf32x3+rounded|B=8 T=1024 C=768 NH=12}} at
$HS = 64$. So the split is not what is left; the addition is. An error
that grows linearly with the number of terms is a *biased* one: each
addition inside the tensor core loses a little in the same direction,
as rounding toward zero does, where round-to-nearest would lose as often up
as down. That is what "FP32 accumulation, not IEEE round-to-nearest"
costs, measured: about three times FP32's error at $HS = 64$, still well
inside the tolerance. Longer sums (a matrix product with $k$
in the thousands) would want the partial sums added in FP32 lanes every
few hundred terms.

The scale of the inputs does not matter, as it should not for floating
point: drawn in $\pm 10^{-3}$ or in $\pm 10^{3}$ instead of $\pm 1$, the
relative error of `tf32x3` is
{{rel_l2|tf32x3|B=8 T=1024 C=768 NH=12|0.001}} and
{{rel_l2|tf32x3|B=8 T=1024 C=768 NH=12|1000}}. (Only a scale whose
small parts fall below FP32's smallest normal numbers, around
$10^{-19}$ for inputs whose products must stay normal, would change that.)

## What it costs

Three times the matrix instructions, twice the fragment registers, a
split per operand: on the {{gpu|tf32x3|B=8 T=1024 C=768 NH=12}} at the default
size `tf32x3` takes {{median_ms|tf32x3|B=8 T=1024 C=768 NH=12}} ms, against
{{median_ms|tf32+rows|B=8 T=1024 C=768 NH=12}} ms for chapter 8's TF32
kernel, `tf32+rows` (the rows of the chart below name each kernel), and
{{median_ms|shared+rows+interleaved|B=8 T=1024 C=768 NH=12}} ms for
chapter 5's FP32 one, `shared+rows+interleaved`:
{{speedup|tf32x3|shared+rows+interleaved|B=8 T=1024 C=768 NH=12}} times as
fast as the FP32 lanes at the same accuracy, and
{{speedup|tf32x3|cublas-tf32|B=8 T=1024 C=768 NH=12}} times as fast as the
race's baseline, `cublas-tf32`
({{median_ms|cublas-tf32|B=8 T=1024 C=768 NH=12}} ms), whose TF32 it beats
in accuracy too. At $T = 4096$:
{{median_ms|tf32x3|B=8 T=4096 C=768 NH=12}} ms against
{{median_ms|tf32+rows|B=8 T=4096 C=768 NH=12}} ms in TF32.

Against its floors: three times the {{floor_tf32_ms|tf32x3|B=8 T=1024 C=768 NH=12}} ms of TF32
arithmetic is still below the {{floor_memory_ms|tf32x3|B=8 T=1024 C=768 NH=12}} ms the scores
take to write (with the inputs), so the memory floor binds, and
`tf32x3` is at nearly three times it. It is not the tensor cores that hold it
back (they are busy on a small fraction of the cycles), but the same
things as in chapter 8, now with more instructions around each product:
the loads of the fragments, the split, the stores, and too few warps to
hide their latencies. The two changes of this chapter's kernel over the
first version (`tf32x3+scalar` in the appendix: 4-byte loads, both parts
rounded) bought
{{speedup|tf32x3|tf32x3+scalar|B=8 T=1024 C=768 NH=12}} times.

The race of the triangle so far, at the default size:

{{figure|race-chapter9}}

The next figure puts every kernel of the triangle so far on one plane: its
error against its time. The frontier runs from the TF32 kernels (fast, at
$10^{-4}$) to the FP32 ones (at $10^{-7}$); 3xTF32 moves the FP32 end of
it to the left.

{{figure|precision-frontier}}

Chapter 10 keeps the three products and changes the instruction that
issues them.
*/

// chapters/13-layer/tried/tried.cu - Chapter 13's roads not taken for the MSA layer: every
// operand rounded to TF32 (fused-tiled-tf32+rounded), and the 3xTF32 projections on mma.sync.
//
//   make build/chapter13-tried && build/chapter13-tried B=1 S=512 N=256 D=256 H=8 --reps 20

/*md
# Precision on tensor cores: the roads not taken

## Every operand rounded: `fused-tiled-tf32+rounded`

The chapter's TF32 attention rounds only the queries to TF32 and hands the
keys, the values and the weights to the tensor cores as plain floats, which
the instruction cuts. This variant rounds every operand to nearest
(`TF32_ROUNDED` in `tiled_attention_tf32`): each stage of keys and values
in place, once per block, by the threads that copied it
(`round_stage_to_tf32`), and every weight with `cvt.rna.tf32.f32` before
its product. The projections are the same cuBLAS TF32 GEMMs.

| shape | fused-tiled-tf32 | fused-tiled-tf32+rounded |
|---|---|---|
| B=1 S=128 N=256 D=256 H=8 | {{median_ms|fused-tiled-tf32|B=1 S=128 N=256 D=256 H=8 mask=drawn}} ms | {{median_ms|fused-tiled-tf32+rounded|B=1 S=128 N=256 D=256 H=8 mask=drawn}} ms |
| B=1 S=512 N=256 D=256 H=8 | {{median_ms|fused-tiled-tf32|B=1 S=512 N=256 D=256 H=8 mask=drawn}} ms | {{median_ms|fused-tiled-tf32+rounded|B=1 S=512 N=256 D=256 H=8 mask=drawn}} ms |
| B=1 S=1024 N=384 D=64 H=8 | {{median_ms|fused-tiled-tf32|B=1 S=1024 N=384 D=64 H=8 mask=drawn}} ms | {{median_ms|fused-tiled-tf32+rounded|B=1 S=1024 N=384 D=64 H=8 mask=drawn}} ms |

Rounding buys a somewhat smaller error (the check prints both), and both
are well inside the TF32 tolerance; it costs an instruction per weight and
per stage value, and a pass over every stage before its barrier. The cost
is largest at $d = 8$, the extra-MSA shape, where the attention is most of
the layer and each rounded weight feeds a single `mma.sync` ($d / 8 = 1$).
*/

// book:hide
#include "../layer.cuh"
// book:show

static void tiled_launch_tf32_rounded(const msa_args *args)
{
    tiled_layer(args, true, tf32_gemm, launch_tf32_for<TF32_ROUNDED>);
}

// book:hide
extern const msa_kernel fused_tiled_tf32_rounded_kernel =
    {tiled_refuses, tiled_scratch_floats, tiled_launch_tf32_rounded};
// book:show

/*md
## The projections on `mma.sync`: `fused-tiled-tf32x3+mma`

The chapter's first 3xTF32 GEMM was built of the triangle's pieces:
chapter 8's tile of $128 \times 128$ outputs with eight warps of
$64 \times 32$, stages of 32 values of $k$ in a ring of three, and the
triangle's split multiply on `mma.sync`, each warp splitting the fragments
of both operands itself (a value of $W$ by the two warps of a column, a
value of $X$ by the four of a row). It took 201 registers a lane, one
block of 8 warps per multiprocessor, and its products waited on its loads
and splits. The layer with it, against the chapter's (`wgmma` fed by the
copy engine, the weights split once):

| shape | fused-tiled-tf32x3 | fused-tiled-tf32x3+mma |
|---|---|---|
| B=1 S=128 N=256 D=256 H=8 | {{median_ms|fused-tiled-tf32x3|B=1 S=128 N=256 D=256 H=8 mask=kept}} ms | {{median_ms|fused-tiled-tf32x3+mma|B=1 S=128 N=256 D=256 H=8 mask=kept}} ms |
| B=1 S=512 N=256 D=256 H=8 | {{median_ms|fused-tiled-tf32x3|B=1 S=512 N=256 D=256 H=8 mask=kept}} ms | {{median_ms|fused-tiled-tf32x3+mma|B=1 S=512 N=256 D=256 H=8 mask=kept}} ms |
| B=1 S=1024 N=384 D=64 H=8 | {{median_ms|fused-tiled-tf32x3|B=1 S=1024 N=384 D=64 H=8 mask=kept}} ms | {{median_ms|fused-tiled-tf32x3+mma|B=1 S=1024 N=384 D=64 H=8 mask=kept}} ms |

Between the two came a `wgmma` GEMM fed the way this one is, by
`cp.async` from every thread and a block barrier per stage: faster than
`mma.sync`, slower than the copy engine's version for the same products.
It is not kept as a contender: measured alone in a test program on the
H200, its copies and its products took their sum, not their maximum, as
the chapter tells.
*/

// book:hide
static void tiled_launch_tf32x3_sync(const msa_args *args)
{
    tiled_layer(args, true, tf32x3_mma_gemm, launch_tf32_for<TF32_SPLIT3>);
}

static int tf32x3_mma_layer_unfit(msa_size z, const gpu_info *gpu, char *why, size_t capacity)
{
    (void)z;
    return tf32x3_mma_gemm_unfit(gpu, why, capacity);
}

extern const msa_kernel fused_tiled_tf32x3_mma_kernel =
    {tiled_refuses, tiled_scratch_floats, tiled_launch_tf32x3_sync, tf32x3_mma_layer_unfit};
// book:show

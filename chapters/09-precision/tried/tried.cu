// chapters/09-precision/tried/tried.cu - Chapter 9's roads not taken: the MSA layer on the
// tensor cores with every operand rounded to TF32.
//
//   make build/chapter9-tried && build/chapter9-tried B=1 S=512 N=256 D=256 H=8 --reps 20

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
#include "../layer.cu"
#include "../projections.cu"
// book:show

static void tiled_launch_tf32_rounded(const msa_args *args)
{
    tiled_layer(args, true, tf32_gemm, launch_tf32_for<TF32_ROUNDED>);
}

// book:hide
extern const msa_kernel fused_tiled_tf32_rounded_kernel =
    {tiled_refuses, tiled_scratch_floats, tiled_launch_tf32_rounded};
// book:show

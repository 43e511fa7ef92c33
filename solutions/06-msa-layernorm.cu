// 06-msa-layernorm.cu - exercise 6.2: LayerNorm's moments, merged across a warp.
//
// exercises/06-msa-layernorm.cu is the student's copy, made from
// solutions/06-msa-layernorm.cu by `make exercises`. Build, check and grade:
//
//   make grade EX=06-msa-layernorm
//   build/exercises/06-msa-layernorm B=2 S=8 N=32 D=64 H=4 --check-only   # one size by hand

/*md
### Exercise 6.2: LayerNorm in one pass, without losing digits

*Difficulty: medium.* File: `exercises/06-msa-layernorm.cu`.

The chapter's LayerNorm reads each row twice: once for the mean, once for
the squared distances to it. The layer in this file reads it once. Each
lane folds its features ($l, l + 32, \ldots$) into a `moments` (count,
mean, and `m2`, the sum of squared deviations from that mean), then the
warp merges the 32 lanes' moments. Write:

1. `merge_moments(a, b)`, `__host__ __device__`: the moments of a's values
   and b's values together. Either may be empty (count 0); the kernel
   starts each lane from an empty one.
2. `warp_moments(mine)`: the merge across the warp, every lane getting the
   total, with `__shfl_xor_sync` (three values per exchange).

Hints:

- The obvious one-pass formula, variance $= E[x^2] - E[x]^2$, fails in
  `float` when the mean is large against the spread: at a mean of $10^4$
  and a spread of 1 both terms are $10^8$, and their difference is
  rounding noise. Work with deviations from the means instead.
- Write the merged `m2` as each half's `m2` plus what moving its mean to the
  merged mean adds; how far from the merged mean is each half's mean?

Check it with `make grade EX=06-msa-layernorm`. Without a GPU the grader
runs your `merge_moments` on the CPU the way the kernel does (each lane's
fold, then the butterfly of the warp) over rows whose means are up to $10^4$
times their spreads, and compares with the moments in double. The
untouched exercise forgets the second half of every merge.
*/

#include "06-msa-layer.cuh" // exercise:inline

int main(int argc, char **argv)
{
    static const msa_contender contender = {
        {"fused", 6, CONTENDER_STEP, GPU_PIPE_SIMT, TOLERANCE_FP32}, &msa_layer_kernel};
    return msa_chapter_main(argc, argv, "06-msa-layernorm", 6,
                            "exercise 6.2, LayerNorm in one pass", &contender, 1);
}

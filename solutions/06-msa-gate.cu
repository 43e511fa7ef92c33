// 06-msa-gate.cu - exercise 6.3: fuse the gate, and lay the projections out for phase 3.
//
// exercises/06-msa-gate.cu is the student's copy, made from
// solutions/06-msa-gate.cu by `make exercises`. Build, check and grade:
//
//   make grade EX=06-msa-gate
//   build/exercises/06-msa-gate B=2 S=8 N=32 D=64 H=4 --check-only   # one size by hand

/*md
### Exercise 6.3: fuse the gate, and give its rows a stride

*Difficulty: medium.* File: `exercises/06-msa-gate.cu`.

The gate is $G = \mathrm{sigmoid}(X W_g^T + b_g)$, and it scales the
attention output feature by feature before the output projection. The
unfused layer spends two launches on it, bias and sigmoid, then the
product, each a round trip through device memory; here it costs almost
nothing. Write the three places marked `TODO`:

1. `projection_stride(D)`, `__host__ __device__`: the floats from one row
   of `q`, `k`, `v` and `g` to the next in shared memory. At least $D$;
   the rest is yours to choose, and the grader wants phase 3 free of bank
   conflicts.
2. In phase 2, `g[at]`, the gate of row `s` and feature `o`, from the sum
   `sum_g` the loop has already accumulated.
3. In phase 3, the gated attention output into `x`.

Hints:

- In phase 3 lane $l$ computes the score of key $l$: at each step $c$ the
  32 lanes read word $c$ of 32 different rows of `k`, `stride` floats
  apart. In which banks, for a stride of 64? Of 65?
- $\mathrm{sigmoid}(z) = 1 / (1 + e^{-z})$. Use `expf`: the faster
  `__expf` is less accurate, and the tolerance is $10^{-5}$.
- `x` held the normalised rows in phases 1 and 2. Why may phase 3 overwrite
  it, and why is `g` safe to read there?

Check it with `make grade EX=06-msa-gate`. Without a GPU the grader counts
the wavefronts of phase 3's reads from your `projection_stride` at every
$D$ it grades, and checks that the column still fits in shared memory; on a
GPU it runs memcheck, the values, the large logits, and measures the
layer's bank conflicts with Nsight Compute. The untouched exercise neither
gates nor pads.
*/

#include "06-msa-layer.cuh" // exercise:inline

int main(int argc, char **argv)
{
    static const msa_contender contender = {
        {"fused", 6, CONTENDER_STEP, GPU_PIPE_SIMT, TOLERANCE_FP32}, &msa_layer_kernel};
    return msa_chapter_main(argc, argv, "06-msa-gate", 6,
                            "exercise 6.3, the fused gate and its layout", &contender, 1);
}

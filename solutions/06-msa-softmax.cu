// 06-msa-softmax.cu - exercise 6.1: the masked softmax, with warp shuffles.
//
// exercises/06-msa-softmax.cu is the student's copy, made from
// solutions/06-msa-softmax.cu by `make exercises`. Build, check and grade:
//
//   make grade EX=06-msa-softmax
//   build/exercises/06-msa-softmax B=2 S=8 N=32 D=64 H=4 --check-only   # one size by hand
//   build/exercises/06-msa-softmax B=2 S=33 N=9 D=64 H=2 --logits 90 --check-only

/*md
### Exercise 6.1: the masked softmax, with warp shuffles

*Difficulty: medium.* File: `exercises/06-msa-softmax.cu`.

This file holds a whole MSA attention layer in one kernel (the comment at
its top says how its four phases work), with the softmax taken out. In
phase 3 a warp has the scores of one query against all the keys of the
column: lane $l$ holds `score[0]` for key $l$ and `score[1]` for key
$l + 32$, and `kept[t]` says whether that key exists ($j < S$) and is kept
by the mask. Write the three parts marked `TODO`:

1. `warp_sum`, the sum of a value over the 32 lanes of a warp, every lane
   getting the result, with `__shfl_xor_sync`;
2. `warp_max`, the same for the maximum;
3. the softmax over the kept keys into `weight[0]` and `weight[1]`: a
   masked or missing key gets weight 0, the kept weights sum to 1.

Hints:

- An exchange with `__shfl_xor_sync(0xffffffff, value, offset)` pairs lane
  $l$ with lane $l \oplus \mathit{offset}$. Five rounds leave the full
  result in every lane, with no shared memory and no barrier.
- The grader runs the layer with `--logits 90`: the query weights are
  scaled until the largest logit of the layer is 90, and $e^{90}$ is
  beyond what a `float` holds (the largest is about $e^{88.7}$). A softmax
  that exponentiates raw scores turns into inf / inf there.
- A column whose keys are all masked exists in the inputs. Its output must
  be exactly `bo`: every weight 0, and no `0/0` or `-inf - (-inf)` anywhere.
- Every lane must take part in every shuffle, whatever its keys.

Check it with `make grade EX=06-msa-softmax`: on a GPU, racecheck and
synccheck first, then the values at $S = 1$ to 64, $D$ from 32 to 128 (48
too), $H$ from 1 to 8, and the large logits. The untouched exercise gives
every key weight 0.
*/

#include "06-msa-layer.cuh" // exercise:inline

int main(int argc, char **argv)
{
    static const msa_contender contender = {
        {"fused", 6, CONTENDER_STEP, GPU_PIPE_SIMT, TOLERANCE_FP32}, &msa_layer_kernel};
    return msa_chapter_main(argc, argv, "06-msa-softmax", 6,
                            "exercise 6.1, the masked softmax", &contender, 1);
}

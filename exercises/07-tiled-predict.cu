// 07-tiled-predict.cu - exercise 7.2: predict the time of the tiled MSA layer, then measure.
//
// exercises/07-tiled-predict.cu is the student's copy, made from
// solutions/07-tiled-predict.cu by `make exercises`. Build, check and grade:
//
//   make grade EX=07-tiled-predict
//   build/exercises/07-tiled-predict B=1 S=128 N=256 D=256 H=8 mask=kept   # checked and timed

/*md
### Exercise 7.2: predict, then measure, the layer at AlphaFold's size

*Difficulty: medium.* File: `exercises/07-tiled-predict.cu`.

This file races chapter 7's `fused-tiled` layer unchanged. Predict its time
from counts, as functions of the size:

1. `layer_flops(size)`: the floating-point operations of the layer as the
   chapters define its work: the five projections and the two attention
   products of every column and head, every key counted.
2. `layer_bytes(size)`: the bytes it cannot avoid moving: the input and
   the output, the mask, the weights and biases, once each.
3. `predicted_ms(kernel, size, card)`: your prediction in milliseconds,
   from those and the card's numbers, `card->fp32_peak_gflops` and
   `card->memory_gbps` (GFLOP/s and GB/s: the peaks of the card it runs
   on, as `common/device/gpu_peaks.h` computes them; every chapter program
   prints your card's in its first line: `make chapter7`), and what you
   know of how close the parts of this layer come to their floor.

The grader checks both counts on the CPU, at sizes drawn afresh each
time, prints your predictions, and checks that they follow the floors of
other cards too (a T4, an A100, an RTX 4090): never below the card's
floor, and growing from one card to another as the floor does. On a GPU
it times the layer with every key kept (`mask=kept`) at $B = 1$,
$N = 256$, $D = 256$, $H = 8$ and $S = 128$ and 512, the AlphaFold MSA
stack's shape at two depths, your card's peaks in the prediction. It
passes when measured / predicted is within a factor 2 either way at both.

Hints:

- Count per column, then per head: a projection of $S$ rows of $D$
  features onto $D$ outputs is $2 S D^2$ operations; $Q_h K_h^T$ is
  $2 S^2 d$.
- Which floor is higher here, by how much? The chapter's table gives the
  answer for the FP32 floor; the bytes are yours to count.
- What runs the projections, which are most of the work at $D = 256$, and
  how close to the FP32 peak does that get? Chapter 1 measured cuBLAS
  in FP32 on the triangle; chapter 7 says what share of the layer's time
  its GEMMs take.

Check it with `make grade EX=07-tiled-predict`. The untouched exercise
counts and predicts nothing.
*/

#include <math.h>

#include "gen/kernel_facts.h" /* CONTENDER_OF: facts from kernels.list */
#include "problems/msa.h"

/* The layer raced, as chapter 7 built it (from build/libchapters.a). */
extern const msa_kernel fused_tiled_kernel;

__host__ double layer_flops(msa_size z)
{
    // TODO: the layer's operations: five projections, two attention products, every key
    (void)z;
    return 0;
    // TODO end
}

__host__ double layer_bytes(msa_size z)
{
    // TODO: the bytes that must move: input and output, mask, weights and biases
    (void)z;
    return 0;
    // TODO end
}

/* The predicted time of `kernel` at size z on `card`, in milliseconds. The
 * card's peaks: card->fp32_peak_gflops, card->tf32_peak_gflops (GFLOP/s)
 * and card->memory_gbps (GB/s). */
__host__ double predicted_ms(const char *kernel, msa_size z, const gpu_info *card)
{
    (void)kernel; /* one layer is raced here */
    // TODO: your prediction, from the counts above and the machine's numbers
    (void)z, (void)card;
    return 0;
    // TODO end
}

int main(int argc, char **argv)
{
    /* the chapter's layer, its facts from chapters/kernels.list */
    static const msa_contender contender = CONTENDER_OF(fused_tiled_kernel);
    return msa_chapter_main(argc, argv, "07-tiled-predict", 7,
                            "exercise 7.2, chapter 7's layer, predicted and measured",
                            &contender, 1);
}

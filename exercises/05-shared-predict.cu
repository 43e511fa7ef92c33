// 05-shared-predict.cu - exercise 5.3: predict chapter 5's fastest kernel, then measure.
//
// exercises/05-shared-predict.cu is the student's copy, made from
// solutions/05-shared-predict.cu by `make exercises`. Build, check and grade:
//
//   make grade EX=05-shared-predict
//   build/exercises/05-shared-predict B=8 T=4096 C=768 NH=12   # checked and timed, by hand

/*md
### Exercise 5.3: predict, then measure

*Difficulty: medium.* File: `exercises/05-shared-predict.cu`.

Before a kernel runs, you can know roughly how long it must take: count
what it has to do, divide by what the machine can do per second, and ask
which of those floors is the higher. This file races chapter 5's fastest
kernel, `shared+rows+interleaved`, unchanged. Write your prediction of its
time as functions of the size, from counts, not from a table of measured
times:

1. `tile_flops(size)`: the floating-point operations the kernel actually
   does. It computes whole $128 \times 128$ tiles, the diagonal ones too.
2. `compulsory_bytes(size)`: the bytes it cannot avoid moving, the queries
   and keys read once and the kept scores written once.
3. `predicted_ms(kernel, size, card)`: your prediction, in milliseconds,
   from those counts and the card's numbers, `card->fp32_peak_gflops` and
   `card->memory_gbps` (GFLOP/s and GB/s: the peaks of the card it runs
   on, as `common/device/gpu_peaks.h` computes them; every chapter program
   prints your card's in its first line: `make chapter5`), and whatever
   else you know about how close this kernel comes to its floor.

The grader checks the two counts on the CPU against an enumeration of the
tiles, at sizes drawn afresh each time, prints your predictions, and
checks that they follow the floors of other cards too (a T4, an A100, an
RTX 4090): a prediction is never below its card's floor, and grows from
one card to another as the floor does, so a time typed in from a
measurement fails. On a GPU it times the kernel at $B = 8$, $C = 768$,
$NH = 12$ with $T = 1024$ and $T = 4096$ and reports measured / predicted,
your card's peaks in the prediction. It passes within a factor 2 either
way, at both sizes.

Hints:

- Which floor is higher at these sizes, the arithmetic or the memory? The
  arithmetic intensity of the kept scores says it before any count does.
- A floor is a lower bound; the chapter's last section says, from the
  profile, how much of the FP32 pipe this kernel keeps busy, and why.
- A constant, or a formula that is right at one size only, fails one of
  the two: the work grows sixteen times from $T = 1024$ to $T = 4096$.

Check it with `make grade EX=05-shared-predict`. Without a GPU it checks
the counts and shows your predictions. The untouched exercise counts and
predicts nothing.
*/

#include <math.h>

#include "chapters/05-shared/shared.cuh" /* SHARED_TILE, the tile the kernel computes */
#include "gen/kernel_facts.h"                /* CONTENDER_OF: facts from kernels.list */

/* The kernel raced, as chapter 5 built it (from build/libchapters.a). */
extern const triangle_kernel shared_rows_interleaved_kernel;

/* The operations of the kernel's tiles: whole 128 x 128 tiles, on and below the diagonal. */
__host__ double tile_flops(triangle_size s)
{
    // TODO: the floating-point operations of every tile the kernel computes
    (void)s;
    return 0;
    // TODO end
}

/* Queries and keys read once, kept scores written once. */
__host__ double compulsory_bytes(triangle_size s)
{
    // TODO: the bytes that must move: queries and keys in, kept scores out
    (void)s;
    return 0;
    // TODO end
}

/* The predicted time of `kernel` at size s on `card`, in milliseconds. The
 * card's peaks: card->fp32_peak_gflops, card->tf32_peak_gflops (GFLOP/s)
 * and card->memory_gbps (GB/s). */
__host__ double predicted_ms(const char *kernel, triangle_size s, const gpu_info *card)
{
    (void)kernel; /* one kernel is raced here */
    // TODO: your prediction, from the counts above and the machine's numbers
    (void)s, (void)card;
    return 0;
    // TODO end
}

int main(int argc, char **argv)
{
    /* the chapter's kernel, its facts from chapters/kernels.list */
    static const triangle_contender contender = CONTENDER_OF(shared_rows_interleaved_kernel);
    return triangle_chapter_main(argc, argv, "05-shared-predict", 5,
                                 "exercise 5.3, chapter 5's fastest kernel, predicted and measured",
                                 &contender, 1);
}

// 08-tensor-predict.cu - exercise 8.3: predict cuBLAS in TF32 and chapter 8's kernel, then measure.
//
// exercises/08-tensor-predict.cu is the student's copy, made from
// solutions/08-tensor-predict.cu by `make exercises`. Build, check and grade:
//
//   make grade EX=08-tensor-predict
//   build/exercises/08-tensor-predict B=8 T=4096 C=768 NH=12   # checked and timed, by hand

/*md
### Exercise 8.3: predict, then measure, on the tensor cores

*Difficulty: medium.* File: `exercises/08-tensor-predict.cu`.

On the tensor cores the arithmetic floor of the triangle falls eightfold,
and what is left is memory. This file races two TF32 contenders unchanged:
chapter 1's `cublas-tf32` (a permute, then cuBLAS over the whole square)
and chapter 8's `tf32+rows`. Predict both, from counts:

1. `cublas_bytes(size)` and `cublas_flops(size)`: what `cublas-tf32`
   moves through device memory (its permute included) and computes;
2. `rows_bytes(size)` and `rows_flops(size)`: the same for `tf32+rows`,
   which reads the queries and keys once, writes only the kept scores and
   computes whole $128 \times 128$ tiles on and below the diagonal;
3. `predicted_ms(kernel, size, card)`: the prediction for each kernel,
   from those and the card's numbers, `card->tf32_peak_gflops` and
   `card->memory_gbps` (GFLOP/s and GB/s: the peaks of the card it runs
   on, as `common/device/gpu_peaks.h` computes them; every chapter program
   prints your card's in its first line: `make chapter8`).

The grader checks the four counts on the CPU, at sizes drawn afresh each
time, prints your predictions, and checks that they follow the floors of
other cards with tensor cores too (an A100, an RTX 4090): never below the
card's floor, and growing from one card to another as the floor does. On
a GPU it times both kernels at $B = 8$, $C = 768$, $NH = 12$, $T = 1024$
and 4096, your card's peaks in the prediction: each measured / predicted
within a factor 2 either way.

Hints:

- What does the permute read and write? What does the product read, and
  how much of `preatt` does it write, masked half included?
- Do the two floors of one kernel overlap? cuBLAS runs the permute, then
  the product: one after the other. Within the product, the tensor cores
  and the stores can overlap.
- Chapter 8 says what share of the write bandwidth `tf32+rows` reaches,
  and why.

Check it with `make grade EX=08-tensor-predict`. The untouched exercise
counts and predicts nothing.
*/

#include <math.h>
#include <string.h>

#include "chapters/08-tensor/tensor.cuh" /* TF32_TILE, the tile tf32+rows computes */
#include "gen/kernel_facts.h"                /* CONTENDER_OF: facts from kernels.list */

/* The kernels raced, as chapters 1 and 8 built them (from build/libchapters.a). */
extern const triangle_kernel cublas_tf32_kernel, tf32_rows_kernel;

__host__ double cublas_bytes(triangle_size s)
{
    // exercise:begin the bytes cublas-tf32 moves: the permute, then the product over the square
    const double qk = 2.0 * s.B * s.T * s.NH * s.HS * 4; /* Q and K, bytes */
    const double square = (double)s.B * s.NH * s.T * s.T * 4;
    return qk /* the permute reads them */ + qk /* and writes them */ + qk /* the GEMM reads */ +
           square /* and writes every score, masked half included */;
    // exercise:stub (void)s;
    // exercise:stub return 0;
    // exercise:end
}

__host__ double cublas_flops(triangle_size s)
{
    // exercise:begin the operations of cuBLAS's product over the whole square
    return 2.0 * s.B * s.NH * s.T * s.T * s.HS;
    // exercise:stub (void)s;
    // exercise:stub return 0;
    // exercise:end
}

__host__ double rows_bytes(triangle_size s)
{
    // exercise:begin the bytes tf32+rows moves: queries and keys once, kept scores once
    return 4.0 * (2.0 * s.B * s.T * s.NH * s.HS + (double)s.B * s.NH * s.T * (s.T + 1) / 2);
    // exercise:stub (void)s;
    // exercise:stub return 0;
    // exercise:end
}

__host__ double rows_flops(triangle_size s)
{
    // exercise:begin the operations of its whole tiles, on and below the diagonal
    const double tiles = (double)(s.T / TF32_TILE) * (s.T / TF32_TILE + 1) / 2;
    return tiles * s.B * s.NH * 2.0 * TF32_TILE * TF32_TILE * s.HS;
    // exercise:stub (void)s;
    // exercise:stub return 0;
    // exercise:end
}

/* The predicted time of `kernel` at size s on `card`, in milliseconds. The
 * card's peaks: card->fp32_peak_gflops, card->tf32_peak_gflops (GFLOP/s)
 * and card->memory_gbps (GB/s). */
__host__ double predicted_ms(const char *kernel, triangle_size s, const gpu_info *card)
{
    // exercise:begin your prediction for kernel "cublas-tf32" or "tf32+rows"
    /* Both are bound by memory: 2 HS / 4 = 32 operations per byte written,
     * against the 111 the TF32 peak needs per byte of bandwidth. cuBLAS's
     * permute and product run one after the other, and its compute is a
     * fifth of its memory time: add them all. tf32+rows overlaps little
     * more, and chapter 8 measured it at about half the write bandwidth:
     * twice its memory floor. */
    const double bandwidth = card->memory_gbps * 1e9, peak = card->tf32_peak_gflops * 1e9;
    if (strcmp(kernel, "cublas-tf32") == 0)
        return (cublas_bytes(s) / bandwidth + cublas_flops(s) / peak) * 1e3;
    return 2.0 * fmax(rows_bytes(s) / bandwidth, rows_flops(s) / peak) * 1e3;
    // exercise:stub (void)kernel, (void)s, (void)card;
    // exercise:stub return 0;
    // exercise:end
}

int main(int argc, char **argv)
{
    /* chapter 1's and chapter 8's kernels, their facts from chapters/kernels.list */
    static const triangle_contender contenders[] = {CONTENDER_OF(cublas_tf32_kernel),
                                                    CONTENDER_OF(tf32_rows_kernel)};
    return triangle_chapter_main(argc, argv, "08-tensor-predict", 8,
                                 "exercise 8.3, cuBLAS in TF32 and tf32+rows, predicted and "
                                 "measured", contenders, 2);
}

// chapters/08-tensor/tried/cublas.cu - Chapter 8's road not taken for its champion:
// chapter 1's row blocks asked of cuBLAS in TF32 (cublas-rows-tf32), slower than the square.
//
//   make build/chapter8-tried && build/chapter8-tried --only-new

/*md
# The triangle on the tensor cores: the roads not taken

## cuBLAS's row blocks in TF32: `cublas-rows-tf32`

In FP32 the strongest champion is `cublas-rows`, chapter 1's call per block
of 128 query rows over only the keys those rows see: at $T = 1024$ it
computes 36/64 of the square and beats the full square. Asked for the same
row blocks in TF32 (`CUBLAS_COMPUTE_32F_FAST_TF32`), cuBLAS does not beat
the full square in TF32, the champion this chapter races. On
{{gpu|cublas-rows-tf32|B=8 T=1024 C=768 NH=12}}, in the same run:

| size | cublas-tf32 (the square) | cublas-rows-tf32 (row blocks) |
|---|---|---|
| B=8 T=256 C=768 NH=12 | {{median_ms|cublas-tf32|B=8 T=256 C=768 NH=12}} ms | {{median_ms|cublas-rows-tf32|B=8 T=256 C=768 NH=12}} ms |
| B=8 T=1024 C=768 NH=12 | {{median_ms|cublas-tf32|B=8 T=1024 C=768 NH=12}} ms | {{median_ms|cublas-rows-tf32|B=8 T=1024 C=768 NH=12}} ms |
| B=8 T=2048 C=768 NH=12 | {{median_ms|cublas-tf32|B=8 T=2048 C=768 NH=12}} ms | {{median_ms|cublas-rows-tf32|B=8 T=2048 C=768 NH=12}} ms |

Cutting the square saves arithmetic, and in TF32 arithmetic is not what
binds: cuBLAS's square keeps the tensor cores busy a few per cent of the
time (the share of peak in the chapter's tables). The row blocks still read
every query and key and write every kept score, in $T/128$ calls one after
the other. So the chapter races the square, the faster way to ask cuBLAS
for these scores in TF32 at the sizes it measures.
*/

// book:hide
#include "../../01-race/race.cuh"
// book:show

static void launch_cublas_rows_tf32(const triangle_args *args)
{
    launch_permute(args);
    rows_from_permuted(args, CUBLAS_COMPUTE_32F_FAST_TF32);
}

// book:hide
extern const triangle_kernel cublas_rows_tf32_kernel = {NULL, launch_cublas_rows_tf32};
// book:show

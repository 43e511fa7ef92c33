// chapters/08-tensor/tried/cublas.cu - Chapter 8's road not taken for its champion:
// chapter 1's row blocks asked of cuBLAS in TF32 (cublas-rows-tf32).
//
//   make build/chapter8-tried && build/chapter8-tried --only-new

/*md
# The triangle on the tensor cores: the roads not taken

## cuBLAS's row blocks in TF32: `cublas-rows-tf32`

In FP32 the strongest champion is `cublas-rows`, chapter 1's call per block
of 128 query rows over only the keys those rows see. Asked for the same row
blocks in TF32 (`CUBLAS_COMPUTE_32F_FAST_TF32`), cuBLAS has 36/64 of the
square to compute at $T = 1024$ instead of all of it, yet each call is a
product of 128 rows, too small to fill the GPU, and the calls run one after
another. Against the full square in TF32, the race's champion, at the
default size on {{gpu|cublas-rows-tf32|B=8 T=1024 C=768 NH=12}}:

| T | cublas-tf32 (the square) | cublas-rows-tf32 (row blocks) |
|---|---|---|
| 1024 | {{median_ms|cublas-tf32|B=8 T=1024 C=768 NH=12}} ms | {{median_ms|cublas-rows-tf32|B=8 T=1024 C=768 NH=12}} ms |
| 4096 | {{median_ms|cublas-tf32|B=8 T=4096 C=768 NH=12}} ms | {{median_ms|cublas-rows-tf32|B=8 T=4096 C=768 NH=12}} ms |

So the chapter races the square: the faster of the two ways to ask cuBLAS
for these scores in TF32 at the sizes the chapter measures.
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

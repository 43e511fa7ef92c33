// 02-naive-index.cu - exercise 2.1: the naive kernel's index arithmetic.
//
// exercises/02-naive-index.cu is the student's copy, made from
// solutions/02-naive-index.cu by `make exercises`. Build, check and grade:
//
//   make grade EX=02-naive-index
//   build/exercises/02-naive-index B=1 T=256 C=64 NH=2 --check-only   # one size by hand

/*md
### Exercise 2.1: the naive kernel's index arithmetic

*Difficulty: easy.* File: `exercises/02-naive-index.cu`.

The kernel in this file is the naive kernel of this chapter with its index
arithmetic taken out. The grid and the block are the same: one block per
$128 \times 128$ tile of scores, $16 \times 16$ threads, an $8 \times 8$
patch of scores per thread. Write the lines marked `TODO` that tell a thread
where it is:

- `b` and `h`, the sequence and the head of the block;
- `first_query` and `first_key`, the first query row and the first key row
  of the thread's patch;
- `queries` and `keys`, the query and the key of token 0 for that sequence
  and head, inside the packed input.

Hints:

- `blockIdx.z` counts the pairs (sequence, head), heads fastest.
- `blockIdx.y` picks the tile's rows (queries), `blockIdx.x` its columns
  (keys); inside the tile, `threadIdx.y` and `threadIdx.x` pick the patch.
- The input is (B, T, 3, NH, HS): from one token to the next is $3C$ floats,
  and a key sits $C$ floats after the query of the same token and head.

Check it with `make grade EX=02-naive-index`. The untouched exercise fails:
every thread computes the same patch, and the rest of the output stays NaN.
*/

#include <math.h>

#include "triangle.h"

#define TILE 128        /* scores per block side */
#define THREAD_TILE 8   /* scores per thread side: 16 x 16 threads */

__global__ void naive_index_scores(float *preatt, const float *inp, int T, int NH, int HS)
{
    if (blockIdx.x > blockIdx.y)
        return; /* the whole tile lies above the diagonal */

    const int C = NH * HS;
    // exercise:begin b, h, first_query, first_key, and the queries and keys of (b, h)
    const int b = blockIdx.z / NH, h = blockIdx.z % NH;
    const int first_query = blockIdx.y * TILE + threadIdx.y * THREAD_TILE;
    const int first_key = blockIdx.x * TILE + threadIdx.x * THREAD_TILE;
    const float *queries = inp + (size_t)b * T * 3 * C + h * HS;
    const float *keys = queries + C;
    // exercise:stub const int b = 0, h = 0, first_query = 0, first_key = 0;
    // exercise:stub const float *queries = inp, *keys = inp;
    // exercise:end
    const float scale = 1.0f / sqrtf((float)HS);
    float *scores = preatt + ((size_t)b * NH + h) * T * T;

    for (int i = first_query; i < first_query + THREAD_TILE; i++) {
        for (int j = first_key; j < first_key + THREAD_TILE && j <= i; j++) {
            const float *query = queries + (size_t)i * 3 * C;
            const float *key = keys + (size_t)j * 3 * C;
            float dot = 0.0f;
            for (int k = 0; k < HS; k++)
                dot += query[k] * key[k];
            scores[(size_t)i * T + j] = dot * scale;
        }
    }
}

static int naive_index_refuses(triangle_size size, char *why, size_t capacity)
{
    if (size.T % TILE != 0) {
        snprintf(why, capacity, "T must be a multiple of %d", TILE);
        return 1;
    }
    return 0;
}

static void naive_index_launch(const triangle_args *args)
{
    const triangle_size s = args->size;
    dim3 grid(s.T / TILE, s.T / TILE, s.B * s.NH);
    dim3 block(TILE / THREAD_TILE, TILE / THREAD_TILE);
    naive_index_scores<<<grid, block, 0, args->stream>>>(args->preatt, args->inp, s.T, s.NH, s.HS);
    LAUNCH_CHECK();
}

static const triangle_kernel naive_index_kernel = {naive_index_refuses, naive_index_launch};

int main(int argc, char **argv)
{
    static const triangle_contender contender = {
        {"naive", 2, CONTENDER_STEP, GPU_PIPE_SIMT, TOLERANCE_FP32}, &naive_index_kernel};
    return triangle_chapter_main(argc, argv, "02-naive-index", 2,
                                 "exercise 2.1, the naive kernel's indices", &contender, 1);
}

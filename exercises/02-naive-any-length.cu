// 02-naive-any-length.cu - exercise 2.2: the naive kernel for any sequence length.
//
// exercises/02-naive-any-length.cu is the student's copy, made from
// solutions/02-naive-any-length.cu by `make exercises`. Build, check and grade:
//
//   make grade EX=02-naive-any-length
//   build/exercises/02-naive-any-length B=1 T=200 C=64 NH=1 --check-only   # one size by hand

/*md
### Exercise 2.2: any sequence length

*Difficulty: easy.* File: `exercises/02-naive-any-length.cu`.

The naive kernel refuses a $T$ that is not a multiple of 128, because it has
no bounds checks: its grid covers exactly $T/128$ tiles each way. Lift the
restriction. Three places change, each marked `TODO`:

1. `any_length_refuses` accepts every $T$;
2. the launcher's grid covers $T$ even when the last tile is only partly
   inside the matrix;
3. the kernel never reads or writes a row or a column at $T$ or beyond.

Hints:

- Round the tile count up: $\lceil T / 128 \rceil$ tiles cover $T$ rows.
- You need fewer checks than you might think. A thread only computes scores
  with $j \le i$; once $i < T$ is guaranteed, what does that say about $j$?
- Try $T = 1$: one block, one thread with any work to do.

Check it with `make grade EX=02-naive-any-length`: it is graded at
$T = 1, 129, 200, 1000$ and one multiple of 128, and on a GPU it first runs
under compute-sanitizer's memcheck at $T = 129$: a read or a write past the
last row fails there even when it happens to leave the values right. The
untouched exercise fails because it refuses the first of these sizes.
*/

#include <math.h>

#include "problems/triangle.h"

#define TILE 128        /* scores per block side */
#define THREAD_TILE 8   /* scores per thread side: 16 x 16 threads */

__global__ void any_length_scores(float *preatt, const float *inp, int T, int NH, int HS)
{
    if (blockIdx.x > blockIdx.y)
        return; /* the whole tile lies above the diagonal */

    const int C = NH * HS;
    const int b = blockIdx.z / NH, h = blockIdx.z % NH;
    const int first_query = blockIdx.y * TILE + threadIdx.y * THREAD_TILE;
    const int first_key = blockIdx.x * TILE + threadIdx.x * THREAD_TILE;
    const float scale = 1.0f / sqrtf((float)HS);

    const float *queries = inp + (size_t)b * T * 3 * C + h * HS;
    const float *keys = queries + C;
    float *scores = preatt + (size_t)blockIdx.z * T * T;

    for (int i = first_query; i < first_query + THREAD_TILE; i++) {
        // TODO: stop at the end of the matrix (and think: does j need a check too?)
        // TODO end
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

static int any_length_refuses(triangle_size size, char *why, size_t capacity)
{
    // TODO: accept every T
    if (size.T % TILE != 0) {
        snprintf(why, capacity, "T must be a multiple of %d", TILE);
        return 1;
    }
    return 0;
    // TODO end
}

static void any_length_launch(const triangle_args *args)
{
    const triangle_size s = args->size;
    // TODO: enough tiles to cover T
    const int tiles = s.T / TILE;
    // TODO end
    dim3 grid(tiles, tiles, s.B * s.NH);
    dim3 block(TILE / THREAD_TILE, TILE / THREAD_TILE);
    any_length_scores<<<grid, block, 0, args->stream>>>(args->preatt, args->inp, s.T, s.NH, s.HS);
    LAUNCH_CHECK();
}

static const triangle_kernel any_length_kernel = {any_length_refuses, any_length_launch};

int main(int argc, char **argv)
{
    static const triangle_contender contender = {
        {"naive", 2, CONTENDER_STEP, GPU_PIPE_SIMT, TOLERANCE_FP32}, &any_length_kernel};
    return triangle_chapter_main(argc, argv, "02-naive-any-length", 2,
                                 "exercise 2.2, the naive kernel for any T", &contender, 1);
}

// 02-triangle-grid.cu - exercise 2.1: a grid of only the tiles the mask keeps.
//
// exercises/02-triangle-grid.cu is the student's copy, made from
// solutions/02-triangle-grid.cu by `make exercises`. Build, check and grade:
//
//   make grade EX=02-triangle-grid
//   build/exercises/02-triangle-grid B=1 T=256 C=64 NH=2 --check-only   # one size by hand

/*md
### Exercise 2.1: launch only the tiles below the diagonal

*Difficulty: medium.* File: `exercises/02-triangle-grid.cu`.

The naive kernel launches a square of $n \times n$ blocks per head, $n = T/128$,
and the $n(n-1)/2$ blocks above the diagonal return at once: 28 of 64 at
$T = 1024$, and the share grows towards one half with $T$. Launch only the
$n(n+1)/2$ tiles on or below the diagonal instead, as a one-dimensional grid
per head (`blockIdx.x` a tile number, `blockIdx.y` the sequence and head).
Two functions, both `__host__ __device__`, decide it; the kernel and the
launcher call them, and nothing else changes:

- `tiles_per_head(n)`: how many blocks a head needs;
- `tile_of_block(block, n, &tile_row, &tile_col)`: which tile block number
  `block` computes. Any numbering will do, as long as every tile with
  `tile_col <= tile_row < n` gets exactly one block.

Hints:

- Number the tiles row by row: row $y$ holds tiles $y(y+1)/2$ to
  $y(y+1)/2 + y$. Going back from a number to its row is inverting a
  triangular number: a square root, then care, because a `float` square
  root of a large number can land one row off.
- The kernel runs `tile_of_block` once per block, the host check runs it
  for every block of up to 4,096 tiles a side, so a loop over the rows is
  allowed but slow; is there a way with no loop at all?

Check it with `make grade EX=02-triangle-grid`. Without a GPU the grader
still checks both functions on the CPU: every block for $n$ up to 256 and five
more to 4,096 (two drawn afresh each time), a million at 4,096 and a drawn $n$ to
8,192, three million at $n = 65535$, the most tiles a side a grid can launch. The
untouched exercise launches one block per head, which computes tile
(0, 0) only.
*/

#include <math.h>

#include "problems/triangle.h"

#define TILE 128        /* scores per block side */
#define THREAD_TILE 8   /* scores per thread side: 16 x 16 threads */

/* Blocks per head for n tiles a side: the tiles on or below the diagonal. */
__host__ __device__ long tiles_per_head(int n)
{
    // TODO: the number of tiles with tile_col <= tile_row < n
    (void)n;
    return 1;
    // TODO end
}

/* The tile that block number `block` (0 <= block < tiles_per_head(n)) computes. */
__host__ __device__ void tile_of_block(long block, int n, int *tile_row, int *tile_col)
{
    // TODO: the tile of block number block: every tile below the diagonal exactly once
    (void)block, (void)n;
    *tile_row = 0;
    *tile_col = 0;
    // TODO end
}

__global__ void triangle_grid_scores(float *preatt, const float *inp, int T, int NH, int HS)
{
    int tile_row, tile_col;
    tile_of_block(blockIdx.x, T / TILE, &tile_row, &tile_col);
    if (tile_col > tile_row)
        return; /* a tile above the diagonal: the numbering is wrong, leave it */

    const int C = NH * HS;
    const int b = blockIdx.y / NH, h = blockIdx.y % NH;
    const int first_query = tile_row * TILE + threadIdx.y * THREAD_TILE;
    const int first_key = tile_col * TILE + threadIdx.x * THREAD_TILE;
    const float scale = 1.0f / sqrtf((float)HS);
    const float *queries = inp + (size_t)b * T * 3 * C + h * HS;
    const float *keys = queries + C;
    float *scores = preatt + (size_t)blockIdx.y * T * T;

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

static int triangle_grid_refuses(triangle_size size, char *why, size_t capacity)
{
    if (size.T % TILE != 0) {
        snprintf(why, capacity, "T must be a multiple of %d", TILE);
        return 1;
    }
    if ((long)size.B * size.NH > 65535) {
        snprintf(why, capacity, "B*NH must be at most 65535 (one grid row per head)");
        return 1;
    }
    return 0;
}

static void triangle_grid_launch(const triangle_args *args)
{
    const triangle_size s = args->size;
    dim3 grid((unsigned)tiles_per_head(s.T / TILE), s.B * s.NH);
    dim3 block(TILE / THREAD_TILE, TILE / THREAD_TILE);
    triangle_grid_scores<<<grid, block, 0, args->stream>>>(args->preatt, args->inp, s.T, s.NH,
                                                           s.HS);
    LAUNCH_CHECK();
}

static const triangle_kernel triangle_grid_kernel = {triangle_grid_refuses, triangle_grid_launch};

int main(int argc, char **argv)
{
    static const triangle_contender contender = {
        {"naive", 2, CONTENDER_STEP, GPU_PIPE_SIMT, TOLERANCE_FP32}, &triangle_grid_kernel};
    return triangle_chapter_main(argc, argv, "02-triangle-grid", 2,
                                 "exercise 2.1, a grid of the tiles below the diagonal",
                                 &contender, 1);
}

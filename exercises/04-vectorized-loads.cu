// 04-vectorized-loads.cu - exercise 4.1: the widest load every size allows.
//
// exercises/04-vectorized-loads.cu is the student's copy, made from
// solutions/04-vectorized-loads.cu by `make exercises`. Build, check and grade:
//
//   make grade EX=04-vectorized-loads
//   build/exercises/04-vectorized-loads B=1 T=128 C=12 NH=2 --check-only   # HS = 6, by hand

/*md
### Exercise 4.1: 16-byte loads where they are safe, 8 or 4 where not

*Difficulty: medium.* File: `exercises/04-vectorized-loads.cu`.

The chapter's kernel refuses any $HS$ that is not a multiple of 4. This one
refuses nothing: it is compiled three times, for loads of `WIDTH` = 4, 2
and 1 floats (16, 8 and 4 bytes), and the launcher picks one per size.
Write the two things that make that work:

1. `widest_load(size)`, a `__host__ __device__` function: the largest
   `WIDTH` among 4, 2 and 1 for which every load the kernel makes is
   aligned to `WIDTH` floats *and* the head dimension splits into whole
   loads. A misaligned vector load is not slow, it faults.
2. `load_row<WIDTH>(value, address)`: one load of `WIDTH` consecutive
   floats into `value[0..WIDTH)`, as a single instruction: a `float4`,
   a `float2` or a `float`.

The grader checks `widest_load` on the CPU against every address of the
kernel at many sizes, reads the PTX of the `WIDTH` = 4 and 2 kernels for
their loads (at least eight 16-byte and eight 8-byte loads, and no 4-byte
global load in either; with `cuobjdump` present, the machine code too:
`LDG.E.128`, `LDG.E.64`), and runs the values at $HS$ = 6 and 5 besides the
usual sizes.

Hints:

- Which offsets does a thread add to `inp`? A query of token $t$, head $h$,
  position $k$ is at $(bT + t)\,3C + h\,HS + k$, a key $C$ further. Which
  of these terms can be odd, or not a multiple of 4, and when?
- `cudaMalloc` returns memory aligned to 256 bytes, so only the offsets
  matter.
- Four scalar loads from consecutive addresses are four instructions: the
  compiler cannot merge them, because it cannot prove their alignment.
  A `float4` load says the alignment is yours to guarantee.

Check it with `make grade EX=04-vectorized-loads`. The untouched exercise
always answers `WIDTH` = 4, which is wrong at $HS$ = 6, and loads zeros.
*/

#include <math.h>

#include "problems/triangle.h"

#define TILE 128        /* scores per block side */
#define THREAD_TILE 8   /* scores per thread side: 16 x 16 threads */

/* The widest load, in floats (4, 2 or 1), that every load of the kernel allows. */
__host__ __device__ int widest_load(triangle_size s)
{
    // TODO: the largest of 4, 2, 1 that aligns every load and divides HS
    (void)s;
    return 4;
    // TODO end
}

/* value[0..WIDTH) = address[0..WIDTH), in one load instruction. */
template <int WIDTH>
__device__ __forceinline__ void load_row(float (&value)[WIDTH], const float *address)
{
    // TODO: one load of WIDTH floats: a float4, a float2 or a float
    (void)address;
    for (int i = 0; i < WIDTH; i++)
        value[i] = 0.0f;
    // TODO end
}

template <int WIDTH>
__global__ void __launch_bounds__(256)
vectorized_loads_scores(float *preatt, const float *__restrict__ inp, int T, int NH, int HS)
{
    if (blockIdx.x > blockIdx.y)
        return; /* the whole tile lies above the diagonal */
    const int C = NH * HS;
    const int b = blockIdx.z / NH, h = blockIdx.z % NH;
    const int first_query = blockIdx.y * TILE + threadIdx.y * THREAD_TILE;
    const int first_key = blockIdx.x * TILE + threadIdx.x * THREAD_TILE;
    if (first_key > first_query + THREAD_TILE - 1)
        return; /* the whole patch lies above the diagonal */

    const size_t row_stride = 3 * (size_t)C; /* from one token to the next */
    const float *queries = inp + ((size_t)b * T + first_query) * row_stride + h * HS;
    const float *keys = inp + ((size_t)b * T + first_key) * row_stride + C + h * HS;
    float sum[THREAD_TILE][THREAD_TILE] = {};
#pragma unroll 1
    for (int k = 0; k < HS; k += WIDTH) {
        float query[THREAD_TILE][WIDTH];
#pragma unroll
        for (int r = 0; r < THREAD_TILE; r++)
            load_row<WIDTH>(query[r], queries + r * row_stride + k);
#pragma unroll
        for (int c = 0; c < THREAD_TILE; c++) {
            float key[WIDTH];
            load_row<WIDTH>(key, keys + c * row_stride + k);
#pragma unroll
            for (int r = 0; r < THREAD_TILE; r++)
#pragma unroll
                for (int w = 0; w < WIDTH; w++)
                    sum[r][c] = fmaf(query[r][w], key[w], sum[r][c]);
        }
    }
    const float scale = 1.0f / sqrtf((float)HS);
    float *scores = preatt + (size_t)blockIdx.z * T * T;
#pragma unroll
    for (int r = 0; r < THREAD_TILE; r++)
#pragma unroll
        for (int c = 0; c < THREAD_TILE; c++)
            if (first_key + c <= first_query + r)
                scores[(size_t)(first_query + r) * T + first_key + c] = sum[r][c] * scale;
}

static int vectorized_loads_refuses(triangle_size size, char *why, size_t capacity)
{
    if (size.T % TILE != 0) {
        snprintf(why, capacity, "T must be a multiple of %d", TILE);
        return 1;
    }
    return 0;
}

static void vectorized_loads_launch(const triangle_args *args)
{
    const triangle_size s = args->size;
    dim3 grid(s.T / TILE, s.T / TILE, s.B * s.NH);
    dim3 block(TILE / THREAD_TILE, TILE / THREAD_TILE);
    switch (widest_load(s)) {
    case 4:
        vectorized_loads_scores<4><<<grid, block, 0, args->stream>>>(args->preatt, args->inp, s.T,
                                                                     s.NH, s.HS);
        break;
    case 2:
        vectorized_loads_scores<2><<<grid, block, 0, args->stream>>>(args->preatt, args->inp, s.T,
                                                                     s.NH, s.HS);
        break;
    default:
        vectorized_loads_scores<1><<<grid, block, 0, args->stream>>>(args->preatt, args->inp, s.T,
                                                                     s.NH, s.HS);
    }
    LAUNCH_CHECK();
}

static const triangle_kernel vectorized_loads_kernel = {vectorized_loads_refuses,
                                                        vectorized_loads_launch};

int main(int argc, char **argv)
{
    static const triangle_contender contender = {
        {"vectorized", 4, CONTENDER_STEP, GPU_PIPE_SIMT, TOLERANCE_FP32}, &vectorized_loads_kernel};
    return triangle_chapter_main(argc, argv, "04-vectorized-loads", 4,
                                 "exercise 4.1, the widest load each size allows", &contender, 1);
}

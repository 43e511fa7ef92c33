/* triangle.h - problem A on the GPU: the kernels' common shape, the cuBLAS
 * champions, and the program every triangle chapter's main() calls.
 *
 * A chapter defines its kernel, a launcher, and one triangle_kernel that
 * names them (with external linkage: `extern const triangle_kernel ...`).
 * Its program's main(), generated from chapters/kernels.list, lists the
 * contenders it races (its own kernels, the earlier chapters' results, the
 * cuBLAS champions) and hands them to triangle_chapter_main, which parses
 * the command line, draws the inputs, checks every kernel against the CPU
 * referee, times it, prints the table and appends the CSV rows.
 */
#ifndef WORKBOOK_TRIANGLE_H
#define WORKBOOK_TRIANGLE_H

#include <stddef.h>
#ifdef __CUDACC__
#include <math.h>
#endif

#include "harness/common.h"
#include "harness/contender.h"
#include "problems/triangle_reference.h"

/* What a launcher gets. Everything lives on the device and is launched on
 * `stream`; the launcher neither allocates nor synchronises. */
typedef struct {
    triangle_size size;
    const float *inp;       /* (B, T, 3, NH, HS) */
    float *preatt;          /* (B, NH, T, T); only j <= i is checked */
    float *scratch;         /* 2 * B * T * NH * HS floats, for kernels that repack Q and K */
    cublasHandle_t cublas;  /* bound to stream */
    cudaStream_t stream;
} triangle_args;

/* A kernel of the triangle: how to launch it, which sizes it refuses, and
 * whether the card can hold it. Its name, chapter, pipe, tolerance and the
 * compute capability it needs are its line in chapters/kernels.list. */
typedef struct {
    /* Returns 0 when the kernel supports the size; otherwise nonzero, with
     * the reason in why. NULL: every size is supported. Needs no GPU. */
    int (*refuses)(triangle_size size, char *why, size_t capacity);
    void (*launch)(const triangle_args *args);
    /* Returns 0 when the card (gpu_query(), as WORKBOOK_CARD may cap it)
     * can run the configuration the launcher picks at this size; otherwise
     * nonzero, with the reason in why, and the kernel is listed as skipped.
     * NULL: every card with the compute capability its line names. */
    int (*unfit)(triangle_size size, const gpu_info *gpu, char *why, size_t capacity);
} triangle_kernel;

/* A kernel in a race: its facts from chapters/kernels.list, and its code. */
typedef struct {
    contender_facts facts;
    const triangle_kernel *kernel;
} triangle_contender;

#ifdef __CUDACC__
/* Tile number `index` of a lower triangle of tiles numbered row by row:
 * row y holds tiles y(y+1)/2 .. y(y+1)/2 + y, so y is the largest with
 * y(y+1)/2 <= index. For grids that launch only the tiles on or below the
 * diagonal (chapters 5 and 8). For the host too: chapter 1's figure of the
 * tile grid is drawn from it. */
__host__ __device__ __forceinline__ void triangle_place_tile(int index, int *tile_row, int *tile_col)
{
    int y = (int)((sqrtf(8.0f * index + 1.0f) - 1.0f) * 0.5f);
    while (y * (y + 1) / 2 > index) /* guard against rounding of the square root */
        y--;
    while ((y + 1) * (y + 2) / 2 <= index)
        y++;
    *tile_row = y;
    *tile_col = index - y * (y + 1) / 2;
}
#endif

/* The whole program `program` ("chapter5", "chapter5-tried", an exercise's
 * name) of chapter `chapter`. Returns the exit status: 0 every check
 * passed, 1 a check failed, 2 bad arguments, a refused size or a --csv
 * destination that cannot be written, and (through gpu_require) 77 when
 * there is no GPU. */
int triangle_chapter_main(int argc, char **argv, const char *program, int chapter,
                          const char *summary, const triangle_contender *contenders,
                          int contender_count);

#endif

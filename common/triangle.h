/* triangle.h - problem A on the GPU: the kernels' common shape, the cuBLAS
 * champions, and the program every triangle chapter's main() calls.
 *
 * A chapter defines its kernel, a launcher, and one triangle_kernel that
 * names them. Its main() lists the contenders it races (its own kernel, the
 * earlier chapters' kernels, the cuBLAS champions) and hands them to
 * triangle_chapter_main, which parses the command line, draws the inputs,
 * checks every kernel against the CPU referee, times it, prints the table
 * and appends the CSV rows.
 */
#ifndef WORKBOOK_TRIANGLE_H
#define WORKBOOK_TRIANGLE_H

#include <stddef.h>
#ifdef __CUDACC__
#include <math.h>
#endif

#include "common.h"
#include "triangle_reference.h"

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

typedef struct {
    const char *name;       /* the CSV's kernel column */
    int chapter;            /* the chapter that introduces it */
    double tolerance;       /* TOLERANCE_FP32 or TOLERANCE_TF32 */
    /* Returns 0 when the kernel supports the size; otherwise nonzero, with
     * the reason in why. NULL: every size is supported. */
    int (*refuses)(triangle_size size, char *why, size_t capacity);
    void (*launch)(const triangle_args *args);
} triangle_kernel;

/* Chapter 1: the cuBLAS champions (chapters/01-race/race.cu; the Makefile
 * puts them in build/libworkbook.a, since every triangle program races them). */
extern const triangle_kernel cublas_permute_kernel;   /* permute, strided batched SGEMM, FP32 */
extern const triangle_kernel cublas_direct_kernel;    /* SGEMM on the packed layout, FP32 */
extern const triangle_kernel cublas_tf32_kernel;      /* permute + SGEMM in TF32, labelled so */

/* One per chapter, defined in chapters/NN-slug/slug.cu. */
extern const triangle_kernel naive_kernel;            /* chapter 2 */
extern const triangle_kernel registers_kernel;        /* chapter 3 */
extern const triangle_kernel vectorized_kernel;       /* chapter 4 */
extern const triangle_kernel shared_kernel;           /* chapter 5 */
extern const triangle_kernel shared_rows_interleaved_kernel; /* chapter 5's fastest step */
extern const triangle_kernel tf32_kernel;             /* chapter 8 */

#ifdef __CUDACC__
/* Tile number `index` of a lower triangle of tiles numbered row by row:
 * row y holds tiles y(y+1)/2 .. y(y+1)/2 + y, so y is the largest with
 * y(y+1)/2 <= index. For grids that launch only the tiles on or below the
 * diagonal (chapters 5 and 8). */
__device__ __forceinline__ void triangle_place_tile(int index, int *tile_row, int *tile_col)
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

/* The whole program of chapter `chapter` (named "chapterN" in messages).
 * Returns the exit status: 0 every check passed, 1 a check failed, 2 bad
 * arguments, a refused size or a --csv destination that cannot be written,
 * and (through gpu_require) 77 when there is no GPU. */
int triangle_chapter_main(int argc, char **argv, int chapter, const char *summary,
                          const triangle_kernel *const *kernels, int kernel_count);

#endif

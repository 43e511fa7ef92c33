// chapters/09-precision/projections.h - what projections.cu gives the chapter's layer
// (layer.cu): the projections in 3xTF32 and what they ask of the scratch and the card.
//
// Included by layer.cu and projections.cu. A .h, not a .cuh: the Makefile takes a .cu with
// a .cuh of its own name into the library (as chapter 7's layer.cu), and projections.cu
// stays one of chapter 9's own objects.

#ifndef CHAPTER9_PROJECTIONS_H
#define CHAPTER9_PROJECTIONS_H

#include <stddef.h>

#include "device/gpu.h"   /* gpu_info */
#include "problems/msa.h" /* msa_args, msa_size */

/* The projections in 3xTF32 (a tiled_gemm_fn): Y = X W^T, on wgmma and the copy engine
 * on Hopper, on mma.sync before it. */
void tf32x3_gemm(const msa_args *args, float *y, int ldy, const float *x, int ldx,
                 const float *w, int ldw, int out, int in, long rows);
size_t tf32x3_scratch_floats(msa_size z); /* the layer's, and the split weights' */
int tf32x3_layer_unfit(msa_size z, const gpu_info *gpu, char *why, size_t capacity);

#endif

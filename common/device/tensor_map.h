/* tensor_map.h - the description of a row-major matrix of floats that
 * Hopper's copy engine copies boxes of (bulk_copy.h: tensor_copy_box).
 * Host code. The map is made by the driver (cuTensorMapEncodeTiled), which
 * the runtime hands out by name, so nothing links against libcuda.
 * Chapter 10's GEMM reads boxes through it, and its triangle writes them.
 *
 * The boxes are 32 floats wide (128 bytes) and land with the 128-byte
 * swizzle: row r of a box at byte 128 r, its 16-byte piece c at position
 * c ^ (r % 8). A warp that reads one column of eight consecutive rows then
 * hits eight different groups of banks.
 */
#ifndef WORKBOOK_TENSOR_MAP_H
#define WORKBOOK_TENSOR_MAP_H

#include <cuda.h>
#include <cudaTypedefs.h> /* PFN_cuTensorMapEncodeTiled */
#include <stdint.h>
#include <stdio.h>

#define TENSOR_MAP_BOX_COLS 32 /* floats: 128 bytes, the width of the swizzle */
static_assert(TENSOR_MAP_BOX_COLS * sizeof(float) == 128, "a box's row: the swizzle's 128 bytes");

/* The float at (row, col) of a box as it lies in shared memory. */
static __host__ __device__ __forceinline__ int tensor_map_box_index(int row, int col)
{
    return row * TENSOR_MAP_BOX_COLS + ((col / 4) ^ (row % 8)) * 4 + col % 4;
}

/* Describes the rows x cols matrix at `matrix` (leading dimension ld floats)
 * in boxes of box_rows x TENSOR_MAP_BOX_COLS. 0 on success; otherwise one
 * line of reason in why. */
static inline int tensor_map_rows(CUtensorMap *map, const float *matrix, long rows, int cols,
                                  int ld, int box_rows, char *why, size_t capacity)
{
    static PFN_cuTensorMapEncodeTiled_v12000 encode;
    if (!encode) {
        cudaDriverEntryPointQueryResult found;
        /* The entry point asked for by its version arrived in CUDA 12.5, and
         * CUDA 13 keeps only that one; CUDA 12.0 to 12.4 ask without it. */
#if CUDART_VERSION >= 12050
        const cudaError_t asked = cudaGetDriverEntryPointByVersion(
            "cuTensorMapEncodeTiled", (void **)&encode, 12000, cudaEnableDefault, &found);
#else
        const cudaError_t asked = cudaGetDriverEntryPoint("cuTensorMapEncodeTiled",
                                                          (void **)&encode, cudaEnableDefault,
                                                          &found);
#endif
        if (asked != cudaSuccess || found != cudaDriverEntryPointSuccess) {
            (void)cudaGetLastError();
            encode = NULL;
            snprintf(why, capacity, "the driver has no cuTensorMapEncodeTiled (CUDA 12 or later)");
            return 1;
        }
    }
    if (rows < 1 || rows > INT32_MAX || cols < 1 || ld < cols || ld % 4 != 0 ||
        (uintptr_t)matrix % 16 != 0) {
        snprintf(why, capacity,
                 "a tensor map needs 1 to 2^31 - 1 rows, a 16-byte aligned matrix and a leading "
                 "dimension that is a multiple of 4 floats (rows %ld, cols %d, ld %d)",
                 rows, cols, ld);
        return 1;
    }
    const cuuint64_t size[2] = {(cuuint64_t)cols, (cuuint64_t)rows}; /* innermost first */
    const cuuint64_t row_bytes[1] = {(cuuint64_t)ld * sizeof(float)};
    const cuuint32_t box[2] = {TENSOR_MAP_BOX_COLS, (cuuint32_t)box_rows}, step[2] = {1, 1};
    const CUresult made =
        encode(map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, (void *)matrix, size, row_bytes, box, step,
               CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
               CU_TENSOR_MAP_L2_PROMOTION_L2_128B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (made != CUDA_SUCCESS) {
        snprintf(why, capacity, "cuTensorMapEncodeTiled failed (CUresult %d)", (int)made);
        return 1;
    }
    return 0;
}

#endif

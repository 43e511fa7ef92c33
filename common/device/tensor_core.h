/* tensor_core.h - the TF32 tensor-core instructions that chapters 8 and 9
 * use, wrapped for CUDA C (chapter 8 teaches them). Device code, except the
 * fragments' index functions, which the host may call too.
 *
 * mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32: one warp multiplies a
 * 16 x 8 tile A by an 8 x 8 tile B and adds the 16 x 8 product to C, in
 * FP32. Each lane holds a fixed part of each tile; with g = lane / 4 and
 * t = lane % 4 (PTX ISA, "Matrix Fragments for mma.m16n8k8"):
 *
 *   A (row major): a[0] = A[g][t],   a[1] = A[g + 8][t],
 *                  a[2] = A[g][t + 4], a[3] = A[g + 8][t + 4]
 *   B (column major, so B[k][n] with n fixed per lane):
 *                  b0 = B[t][g],     b1 = B[t + 4][g]
 *   C:             c[0] = C[g][2t],   c[1] = C[g][2t + 1],
 *                  c[2] = C[g + 8][2t], c[3] = C[g + 8][2t + 1]
 */
#ifndef WORKBOOK_TENSOR_CORE_H
#define WORKBOOK_TENSOR_CORE_H

#include <stdint.h>

/* TF32 and mma.sync's m16n8k8 arrived with Ampere (sm_80). Compiled for
 * Turing the wrappers trap; the programs never launch a kernel that calls
 * them there (its line in chapters/kernels.list says it needs sm_80). */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
#define TENSOR_CORE_MISSING 1 /* a device pass for a target without TF32 */
#endif

/* The fragments as functions, for the device and the host (chapter 8's
 * figure of the fragments is drawn from them): the row and the column of
 * the tile that element i of lane `lane`'s fragment holds. For A (16 x 8)
 * and C (16 x 8), i = 0..3; for B (8 x 8, B[k][n]), i = 0..1. */
static __host__ __device__ __forceinline__ int mma_a_row(int lane, int i)
{
    return lane / 4 + 8 * (i % 2);
}

static __host__ __device__ __forceinline__ int mma_a_col(int lane, int i)
{
    return lane % 4 + 4 * (i / 2);
}

static __host__ __device__ __forceinline__ int mma_b_row(int lane, int i)
{
    return lane % 4 + 4 * i;
}

static __host__ __device__ __forceinline__ int mma_b_col(int lane, int i)
{
    return lane / 4 + 0 * i;
}

static __host__ __device__ __forceinline__ int mma_c_row(int lane, int i)
{
    return lane / 4 + 8 * (i / 2);
}

static __host__ __device__ __forceinline__ int mma_c_col(int lane, int i)
{
    return 2 * (lane % 4) + i % 2;
}

/* Rounds to the nearest TF32 value (10 mantissa bits), ties away from zero.
 * Without it the instruction ignores the 13 low mantissa bits: a cut. */
static __device__ __forceinline__ uint32_t to_tf32(float x)
{
    uint32_t y;
#ifdef TENSOR_CORE_MISSING
    (void)x;
    y = 0;
    __trap();
#else
    asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(y) : "f"(x));
#endif
    return y;
}

/* An operand for the tensor cores: rounded to the nearest TF32 value, or
 * (ROUND false) the float's bits as they are, which the instruction cuts. */
template <bool ROUND>
static __device__ __forceinline__ uint32_t tf32_operand(float x)
{
    return ROUND ? to_tf32(x) : __float_as_uint(x);
}

/* d = a b + c for one 16 x 8 x 8 step of a warp, c left as it was: an
 * accumulator that starts from a value shared by several (the attention's
 * -m) needs no copies of it. */
static __device__ __forceinline__ void mma_tf32_from(float (&d)[4], const float (&c)[4],
                                                     const uint32_t (&a)[4], uint32_t b0,
                                                     uint32_t b1)
{
#ifdef TENSOR_CORE_MISSING
    (void)a, (void)b0, (void)b1;
    d[0] = c[0], d[1] = c[1], d[2] = c[2], d[3] = c[3];
    __trap();
#else
    asm("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, "
        "{%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};\n"
        : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1), "f"(c[0]), "f"(c[1]),
          "f"(c[2]), "f"(c[3]));
#endif
}

/* c += a b for one 16 x 8 x 8 step of a warp (fragments as above). */
static __device__ __forceinline__ void mma_tf32(float (&c)[4], const uint32_t (&a)[4], uint32_t b0,
                                                uint32_t b1)
{
#ifdef TENSOR_CORE_MISSING
    (void)c, (void)a, (void)b0, (void)b1;
    __trap();
#else
    asm("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, "
                 "{%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
                 : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
#endif
}

#endif

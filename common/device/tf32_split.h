/* tf32_split.h - a float split into the two TF32 operands of 3xTF32, for the
 * device and the host (chapter 9 teaches it: the triangle's tf32x3, the MSA
 * layer's projections and attention, and the figure tf32-split all call it).
 *
 * x = big + small: big = x rounded to the nearest TF32 value, small = x - big
 * (exact in FP32), rounded too or handed over as it is, for the tensor core to
 * cut. It is a header of its own, not part of tensor_core.h, because the
 * exercise of chapter 9 writes its own tf32_pair beside tensor_core.h.
 */
#ifndef WORKBOOK_TF32_SPLIT_H
#define WORKBOOK_TF32_SPLIT_H

#include <stdint.h>
#include <string.h>

#include "device/tensor_core.h"

typedef struct {
    uint32_t big, small; /* the two TF32 operands, as the tensor core takes them */
} tf32_pair;

/* x rounded to the nearest TF32 value, ties away from zero: what
 * cvt.rna.tf32.f32 gives for a finite x, done with integer arithmetic, the
 * same on the host and the device. Add half a unit of the 10th stored
 * mantissa bit, then cut the 13 bits below it: two integer instructions,
 * which cost less than the conversion does on sm_90 (chapter 9 measures the
 * difference; tests/test_device.cu checks that the two agree). A float
 * within half a TF32 unit of FLT_MAX rounds to infinity, as it should; a NaN
 * whose payload lies only in the low 13 bits would become infinity, and the
 * split's small part (x - big, a NaN) still carries it. */
static __host__ __device__ __forceinline__ uint32_t round_to_tf32(float x)
{
    uint32_t bits;
#ifdef __CUDA_ARCH__
    bits = __float_as_uint(x);
#else
    memcpy(&bits, &x, sizeof bits);
#endif
    return (bits + 0x1000u) & 0xffffe000u;
}

static __host__ __device__ __forceinline__ float bits_as_float(uint32_t bits)
{
#ifdef __CUDA_ARCH__
    return __uint_as_float(bits);
#else
    float x;
    memcpy(&x, &bits, sizeof x);
    return x;
#endif
}

template <bool ROUND_SMALL>
static __host__ __device__ __forceinline__ tf32_pair split_operand(float x)
{
    tf32_pair pair;
    pair.big = round_to_tf32(x);
    const float small = x - bits_as_float(pair.big); /* exact */
    if (ROUND_SMALL) {
        pair.small = round_to_tf32(small);
    } else {
#ifdef __CUDA_ARCH__
        pair.small = __float_as_uint(small);
#else
        memcpy(&pair.small, &small, sizeof pair.small);
#endif
    }
    return pair;
}

/* c += a b in 3xTF32, the small products first (they meet partial sums of
 * their own size), then the big one. */
static __device__ __forceinline__ void mma_tf32x3(float (&c)[4], const uint32_t (&a_big)[4],
                                                  const uint32_t (&a_small)[4], tf32_pair b0,
                                                  tf32_pair b1)
{
    mma_tf32(c, a_small, b0.big, b1.big);
    mma_tf32(c, a_big, b0.small, b1.small);
    mma_tf32(c, a_big, b0.big, b1.big);
}

/* d = a b + c in 3xTF32, c left as it was (mma_tf32_from). */
static __device__ __forceinline__ void mma_tf32x3_from(float (&d)[4], const float (&c)[4],
                                                       const uint32_t (&a_big)[4],
                                                       const uint32_t (&a_small)[4], tf32_pair b0,
                                                       tf32_pair b1)
{
    mma_tf32_from(d, c, a_small, b0.big, b1.big);
    mma_tf32(d, a_big, b0.small, b1.small);
    mma_tf32(d, a_big, b0.big, b1.big);
}

#endif

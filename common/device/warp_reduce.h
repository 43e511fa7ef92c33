/* warp_reduce.h - sums and maxima across the 32 lanes of a warp, with
 * shuffles (chapter 6 teaches them). Device code only.
 *
 * __shfl_xor_sync(mask, v, m) gives lane i the value of lane i ^ m. Adding
 * what comes back for m = 16, 8, 4, 2, 1 is a butterfly: after five steps
 * every lane holds the total. Starting below 16 reduces separate groups
 * instead (m < 8: four groups of 8 lanes), since i ^ m never leaves i's group.
 */
#ifndef WORKBOOK_WARP_REDUCE_H
#define WORKBOOK_WARP_REDUCE_H

/* The sum over groups of GROUP consecutive lanes (32: the whole warp). */
template <int GROUP = 32>
static __device__ __forceinline__ float warp_sum(float value)
{
    for (int mask = GROUP / 2; mask > 0; mask /= 2)
        value += __shfl_xor_sync(0xffffffffu, value, mask);
    return value;
}

/* The maximum over groups of GROUP consecutive lanes. */
template <int GROUP = 32>
static __device__ __forceinline__ float warp_max(float value)
{
    for (int mask = GROUP / 2; mask > 0; mask /= 2)
        value = fmaxf(value, __shfl_xor_sync(0xffffffffu, value, mask));
    return value;
}

#endif

/* wgmma.h - Hopper's warp-group matrix multiply (wgmma.mma_async, sm_90a),
 * wrapped for CUDA C: the TF32 instruction chapter 11's projection GEMM
 * (64 x 128 tiles) and the triangle (64 x 64 and 64 x 32) issue, the
 * descriptor of an operand in shared memory, and the fences and waits
 * around it. Device code only. Chapter 10 teaches it.
 *
 * A warp group is four consecutive warps (128 threads, warp 4i to 4i + 3).
 * wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32 multiplies a 64 x 8
 * tile A by an 8 x 128 tile B and adds the 64 x 128 product to D, in FP32:
 *   A  in registers: warp w of the group holds rows 16w to 16w + 15, in
 *      mma.sync's A fragment (tensor_core.h: a[0] = A[g][t], a[1] =
 *      A[g + 8][t], a[2] = A[g][t + 4], a[3] = A[g + 8][t + 4]);
 *   B  in shared memory, read through a descriptor (wgmma_descriptor);
 *   D  in registers, 64 floats a lane: d[4j .. 4j + 3] is mma.sync's C
 *      fragment of columns 8j to 8j + 7 of the warp's 16 rows.
 * (The _ss forms take A from shared memory too, through a descriptor.)
 * The instruction only starts the product. Its registers belong to the
 * tensor cores until wgmma_wait says the group that holds it is done.
 *
 * These instructions exist only in the architecture-specific target sm_90a
 * (the Makefile builds chapters 10 to 13 for it); compiled for anything else the
 * wrappers trap, and the host refuses to launch (wgmma_refuses).
 */
#ifndef WORKBOOK_WGMMA_H
#define WORKBOOK_WGMMA_H

#include <stdint.h>
#include <stdio.h>

#include "device/shared_address.h"

#if defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define WGMMA_MISSING 1 /* a device pass for a target without wgmma */
#endif

/* The descriptor of a K-major operand in shared memory without swizzling:
 * 8 x 16-byte core matrices (8 rows of 4 TF32 values, 128 contiguous
 * bytes); `k_step_bytes` from one core matrix to the next along k (the
 * leading dimension offset), `row_step_bytes` from one to the next along the
 * rows, m or n (the stride dimension offset). Addresses and offsets in
 * units of 16 bytes; swizzle mode 0 in the top two bits. */
static __device__ __forceinline__ uint64_t wgmma_descriptor(const float *shared, int k_step_bytes,
                                                            int row_step_bytes)
{
    const uint32_t address = shared_address(shared);
    return (uint64_t)((address & 0x3ffff) >> 4) | (uint64_t)(k_step_bytes >> 4) << 16 |
           (uint64_t)(row_step_bytes >> 4) << 32;
}

/* The descriptor of a K-major operand as the copy engine lays a box down
 * with the 128-byte swizzle (tensor_map.h): rows of 128 bytes (32 TF32
 * values of k), 8 rows (1024 bytes) from one group of core matrices to the
 * next along the rows; `shared` is the box's first row, moved on 32 bytes
 * for each step of 8 values of k. Swizzle mode 1 (128 bytes) in the top two
 * bits; the leading offset is unused. */
static __device__ __forceinline__ uint64_t wgmma_descriptor_swizzled(const float *shared)
{
    const uint32_t address = shared_address(shared);
    return (uint64_t)((address & 0x3ffff) >> 4) | (uint64_t)1 << 16 | (uint64_t)(1024 >> 4) << 32 |
           (uint64_t)1 << 62;
}

/* Before the first wgmma that reads registers written since the last one. */
static __device__ __forceinline__ void wgmma_fence()
{
#ifdef WGMMA_MISSING
    __trap();
#else
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#endif
}

/* Closes the wgmmas issued since the last commit into one group. */
static __device__ __forceinline__ void wgmma_commit()
{
#ifdef WGMMA_MISSING
    __trap();
#else
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
#endif
}

/* Waits until at most STILL_IN_FLIGHT of the warp group's groups are pending. */
template <int STILL_IN_FLIGHT>
static __device__ __forceinline__ void wgmma_wait()
{
#ifdef WGMMA_MISSING
    __trap();
#else
    asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(STILL_IN_FLIGHT) : "memory");
#endif
}

/* Tells the compiler that the tensor cores may have written d: an empty
 * statement that "writes" every register, so that no read of d is moved
 * before a wgmma_wait, and no write of d after a wgmma. */
template <int REGISTERS>
static __device__ __forceinline__ void wgmma_hold(float (&d)[REGISTERS])
{
#pragma unroll
    for (int i = 0; i < REGISTERS; i++)
        asm volatile("" : "+f"(d[i])::"memory");
}

/* The lanes' own writes to shared memory, made visible to the tensor cores:
 * after the threads store an operand and before the (block) barrier that
 * precedes the wgmma that reads it. */
static __device__ __forceinline__ void fence_shared_for_wgmma()
{
#ifdef WGMMA_MISSING
    __trap();
#else
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
#endif
}

/* A barrier for the four warps of warp group `group` alone (hardware
 * barrier 1 + group; 0 is __syncthreads'), for a group that shares a
 * buffer among its own warps while the block's other warps go on: chapter
 * 12's warps with roles. */
static __device__ __forceinline__ void warp_group_barrier(int group)
{
    asm volatile("bar.sync %0, 128;\n" ::"r"(1 + group) : "memory");
}

/* d = a b + (accumulate ? d : 0) for the warp group's 64 x 128 tile, k = 8:
 * a this lane's A fragment (TF32 operands), b the descriptor of B. */
static __device__ __forceinline__ void wgmma_tf32_m64n128k8(float (&d)[64], const uint32_t (&a)[4],
                                                            uint64_t b, bool accumulate)
{
#ifdef WGMMA_MISSING
    __trap();
#else
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %68, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32 "
                 "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
                 "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
                 "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
                 "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, "
                 "{%64, %65, %66, %67}, %69, p, 1, 1;\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]),
                   "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
                   "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]),
                   "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                   "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]),
                   "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]),
                   "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]),
                   "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
                   "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]),
                   "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]),
                   "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"((int)accumulate), "l"(b));
#endif
}

/* The same for a 64 x 64 tile (d: 32 floats a lane, d[4j .. 4j + 3] the
 * C fragment of columns 8j to 8j + 7). */
static __device__ __forceinline__ void wgmma_tf32_m64n64k8(float (&d)[32], const uint32_t (&a)[4],
                                                           uint64_t b, bool accumulate)
{
#ifdef WGMMA_MISSING
    __trap();
#else
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %36, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32 "
                 "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
                 "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, "
                 "{%32, %33, %34, %35}, %37, p, 1, 1;\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]),
                   "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
                   "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]),
                   "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                   "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]),
                   "+f"(d[30]), "+f"(d[31])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"((int)accumulate), "l"(b));
#endif
}

/* The same for a 64 x 32 tile (d: 16 floats a lane, d[4j .. 4j + 3] the
 * C fragment of columns 8j to 8j + 7). */
static __device__ __forceinline__ void wgmma_tf32_m64n32k8(float (&d)[16], const uint32_t (&a)[4],
                                                           uint64_t b, bool accumulate)
{
#ifdef WGMMA_MISSING
    __trap();
#else
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %20, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n32k8.f32.tf32.tf32 "
                 "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15}, "
                 "{%16, %17, %18, %19}, %21, p, 1, 1;\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]),
                   "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
                   "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"((int)accumulate), "l"(b));
#endif
}

/* The same products with A from shared memory as well, through a descriptor
 * of its own: d = a b + (accumulate ? d : 0) for a 64 x 64 tile, a and b both
 * K-major descriptors (wgmma_descriptor_swizzled). Chapter 10's warps with
 * roles keep their queries where the copy engine landed them: no lane loads
 * or holds them, which leaves the registers to the sums. */
static __device__ __forceinline__ void wgmma_tf32_m64n64k8_ss(float (&d)[32], uint64_t a,
                                                              uint64_t b, bool accumulate)
{
#ifdef WGMMA_MISSING
    __trap();
#else
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32 "
                 "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
                 "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, "
                 "%32, %33, p, 1, 1;\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]),
                   "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
                   "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]),
                   "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
                   "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]),
                   "+f"(d[30]), "+f"(d[31])
                 : "l"(a), "l"(b), "r"((int)accumulate));
#endif
}

/* The same for a 64 x 32 tile, A and B from shared memory. */
static __device__ __forceinline__ void wgmma_tf32_m64n32k8_ss(float (&d)[16], uint64_t a,
                                                              uint64_t b, bool accumulate)
{
#ifdef WGMMA_MISSING
    __trap();
#else
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %18, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n32k8.f32.tf32.tf32 "
                 "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15}, "
                 "%16, %17, p, 1, 1;\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]),
                   "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
                   "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15])
                 : "l"(a), "l"(b), "r"((int)accumulate));
#endif
}

/* Whether `kernel` can run its wgmma on this GPU (0: yes; otherwise one line
 * of reason in why): compiled for sm_90a and running on compute capability
 * 9.0. Host code; needs a GPU. */
static inline int wgmma_refuses(const void *kernel, char *why, size_t capacity)
{
    int device = 0, major = 0, minor = 0;
    cudaFuncAttributes attributes;
    if (cudaGetDevice(&device) != cudaSuccess ||
        cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) != cudaSuccess ||
        cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device) != cudaSuccess) {
        snprintf(why, capacity, "no CUDA device to ask for its compute capability");
        return 1;
    }
    if (major != 9 || minor != 0) {
        snprintf(why, capacity, "wgmma needs compute capability 9.0 (Hopper); this GPU is %d.%d",
                 major, minor);
        return 1;
    }
    /* binaryVersion is the machine code's (90 also when the driver compiled
     * older PTX for this card), ptxVersion the code's own target. */
    if (cudaFuncGetAttributes(&attributes, kernel) != cudaSuccess ||
        attributes.binaryVersion != 90 || attributes.ptxVersion != 90) {
        (void)cudaGetLastError();
        snprintf(why, capacity, "the kernel was not built for sm_90a (build with ARCH=sm_90)");
        return 1;
    }
    return 0;
}

#endif

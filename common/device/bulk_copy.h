/* bulk_copy.h - Hopper's copy engine (the tensor memory accelerator, TMA)
 * and the shared-memory barriers that count its bytes, wrapped for CUDA C:
 * a one-dimensional bulk copy (cp.async.bulk), a box of a matrix through a
 * tensor map (cp.async.bulk.tensor, tensor_map.h), and mbarrier. Device
 * code only, sm_90 and later; compiled for an older target the wrappers
 * trap. Chapter 10's GEMM teaches and uses them; its triangle stores with them.
 *
 * One thread starts a copy of many kilobytes with one instruction; the
 * engine moves it while every thread of the block goes on. A barrier is a
 * 64-bit word in shared memory that completes a *phase* when the arrivals
 * it was initialised to expect have come and the bytes it was told to
 * expect (mbarrier_expect_bytes) have landed; then the next phase starts.
 * A thread waits for a phase by its parity (0, 1, 0, ...). Unlike
 * __syncthreads, a barrier makes nobody wait for anybody but the data.
 * The copies land through the "async proxy", where the tensor cores read;
 * a thread that has seen the phase complete may read them with plain loads.
 */
#ifndef WORKBOOK_BULK_COPY_H
#define WORKBOOK_BULK_COPY_H

#include <cuda.h> /* CUtensorMap */
#include <stdint.h>

#include "device/shared_address.h"

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
#define BULK_COPY_MISSING 1 /* a device pass for a target without the copy engine */
#endif

/* Before first use, by one thread; a __syncthreads must follow. */
static __device__ __forceinline__ void mbarrier_init(uint64_t *barrier, unsigned arrivals)
{
#ifdef BULK_COPY_MISSING
    __trap();
#else
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(shared_address(barrier)),
                 "r"(arrivals)
                 : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
#endif
}

/* One arrival, and `bytes` more to land before the phase completes. */
static __device__ __forceinline__ void mbarrier_expect_bytes(uint64_t *barrier, unsigned bytes)
{
#ifdef BULK_COPY_MISSING
    __trap();
#else
    asm volatile("{\n.reg .b64 state;\n"
                 "mbarrier.arrive.expect_tx.shared::cta.b64 state, [%0], %1;\n}\n" ::"r"(
                     shared_address(barrier)),
                 "r"(bytes)
                 : "memory");
#endif
}

/* One arrival. */
static __device__ __forceinline__ void mbarrier_arrive(uint64_t *barrier)
{
#ifdef BULK_COPY_MISSING
    __trap();
#else
    asm volatile("{\n.reg .b64 state;\n"
                 "mbarrier.arrive.shared::cta.b64 state, [%0];\n}\n" ::"r"(shared_address(barrier))
                 : "memory");
#endif
}

/* Waits until the phase of parity `parity` has completed. */
static __device__ __forceinline__ void mbarrier_wait(uint64_t *barrier, unsigned parity)
{
#ifdef BULK_COPY_MISSING
    __trap();
#else
    unsigned done;
    do {
        asm volatile("{\n.reg .pred p;\n"
                     "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
                     "selp.u32 %0, 1, 0, p;\n}\n"
                     : "=r"(done)
                     : "r"(shared_address(barrier)), "r"(parity)
                     : "memory");
    } while (!done);
#endif
}

/* Copies `bytes` (a multiple of 16; both addresses 16-byte aligned) from
 * global to shared memory; their landing counts against the barrier. */
static __device__ __forceinline__ void bulk_copy(void *shared_destination, const void *source,
                                                 unsigned bytes, uint64_t *barrier)
{
#ifdef BULK_COPY_MISSING
    __trap();
#else
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes "
                 "[%0], [%1], %2, [%3];\n" ::"r"(shared_address(shared_destination)),
                 "l"(source), "r"(bytes), "r"(shared_address(barrier))
                 : "memory");
#endif
}

/* Copies the box of the matrix `map` describes whose first element is
 * (row, col), laid out as the map says (tensor_map.h), to shared memory
 * (1024-byte aligned for a swizzled map). Parts of the box outside the
 * matrix are filled with zeros; the whole box counts against the barrier. */
static __device__ __forceinline__ void tensor_copy_box(void *shared_destination,
                                                       const CUtensorMap *map, int row, int col,
                                                       uint64_t *barrier)
{
#ifdef BULK_COPY_MISSING
    __trap();
#else
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes "
                 "[%0], [%1, {%2, %3}], [%4];\n" ::"r"(shared_address(shared_destination)),
                 "l"(map), "r"(col), "r"(row), "r"(shared_address(barrier))
                 : "memory");
#endif
}

/* The other way, for chapter 11's triangle: the box at (row, col) of the
 * matrix `map` describes, written from shared memory laid out as the map
 * says (1024-byte aligned for a swizzled map). The issuing thread closes its
 * stores into groups (bulk_commit) and waits for them by group, as for
 * cp.async: until the engine has read the shared memory (bulk_wait_read),
 * or until the writes are done (bulk_wait). The lanes' writes to the box
 * must reach the engine first: fence_shared_for_copy_engine by each writer,
 * then a barrier, then the store. */
static __device__ __forceinline__ void tensor_store_box(const CUtensorMap *map, int row, int col,
                                                        const void *shared_source)
{
#ifdef BULK_COPY_MISSING
    __trap();
#else
    asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%1, %2}], [%3];\n" ::
                     "l"(map), "r"(col), "r"(row), "r"(shared_address(shared_source))
                 : "memory");
#endif
}

/* An L2 policy for data written once and not read again here: its lines
 * are the first the L2 evicts, so they do not push out what the kernel
 * reads again (createpolicy; PTX ISA, "createpolicy"). */
static __device__ __forceinline__ uint64_t l2_policy_evict_first()
{
    uint64_t policy = 0;
#ifdef BULK_COPY_MISSING
    __trap();
#else
    asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;\n" : "=l"(policy));
#endif
    return policy;
}

/* tensor_store_box with an L2 policy for the box's lines (the
 * .L2::cache_hint form of the store). */
static __device__ __forceinline__ void tensor_store_box_hinted(const CUtensorMap *map, int row,
                                                               int col, const void *shared_source,
                                                               uint64_t policy)
{
#ifdef BULK_COPY_MISSING
    __trap();
#else
    asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group.L2::cache_hint"
                 " [%0, {%1, %2}], [%3], %4;\n" ::"l"(map),
                 "r"(col), "r"(row), "r"(shared_address(shared_source)), "l"(policy)
                 : "memory");
#endif
}

/* Closes the thread's stores issued since the last commit into one group. */
static __device__ __forceinline__ void bulk_commit()
{
#ifdef BULK_COPY_MISSING
    __trap();
#else
    asm volatile("cp.async.bulk.commit_group;\n" ::: "memory");
#endif
}

/* Waits until at most PENDING of the thread's groups may still read their
 * shared memory: the others' boxes may be written again. */
template <int PENDING>
static __device__ __forceinline__ void bulk_wait_read()
{
#ifdef BULK_COPY_MISSING
    __trap();
#else
    asm volatile("cp.async.bulk.wait_group.read %0;\n" ::"n"(PENDING) : "memory");
#endif
}

/* Waits until every store of the thread's groups has been written. */
static __device__ __forceinline__ void bulk_wait()
{
#ifdef BULK_COPY_MISSING
    __trap();
#else
    asm volatile("cp.async.bulk.wait_group 0;\n" ::: "memory");
#endif
}

/* The writing thread's stores to shared memory, made visible to the copy
 * engine (the "async proxy"), before the barrier that precedes its store. */
static __device__ __forceinline__ void fence_shared_for_copy_engine()
{
#ifdef BULK_COPY_MISSING
    __trap();
#else
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
#endif
}

#endif

/* async_copy.h - cp.async, the copy from global to shared memory that does
 * not pass through registers (sm_80 and later), wrapped for CUDA C. Chapter 5
 * teaches it; chapters 5 to 9 use these wrappers. Device code only.
 *
 * A thread issues copies, closes them into a group (copy_async_commit), and
 * later waits until at most N of its groups are still in flight
 * (copy_async_wait<N>). A thread waits only for its own copies: a barrier
 * must follow before other threads read what arrived.
 *
 * Turing (sm_75) has no cp.async. Compiled for it, each copy is a plain load
 * into a register and a store to shared memory, done before the next
 * instruction: the data is there when the copy "returns", so commits and
 * waits have nothing to do, and the barrier that follows a wait still makes
 * one thread's copies visible to the others. What is lost is the overlap:
 * a thread waits for each load before it stores it.
 */
#ifndef WORKBOOK_ASYNC_COPY_H
#define WORKBOOK_ASYNC_COPY_H

#include "shared_address.h" /* shared_address, for copy_async_16_to */

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
#define ASYNC_COPY_MISSING 1 /* a device pass for a target without cp.async */
#endif

/* 4 bytes, through L1 (.ca): a transposing copy must move single floats. */
static __device__ __forceinline__ void copy_async_4(float *shared_destination, const float *source)
{
#ifdef ASYNC_COPY_MISSING
    *shared_destination = *source;
#else
    const unsigned destination = (unsigned)__cvta_generic_to_shared(shared_destination);
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"(destination), "l"(source)
                 : "memory");
#endif
}

/* 4 bytes, only if `copy`, and with no "memory" clobber: the compiler may
 * move loads of other shared memory across it. Use it only for copies into
 * a buffer nothing reads before the next wait and barrier. */
static __device__ __forceinline__ void copy_async_4_if(float *shared_destination,
                                                       const float *source, bool copy)
{
#ifdef ASYNC_COPY_MISSING
    if (copy)
        *shared_destination = *source;
#else
    const unsigned destination = (unsigned)__cvta_generic_to_shared(shared_destination);
    asm volatile("{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %2, 0;\n\t"
                 "@p cp.async.ca.shared.global [%0], [%1], 4;\n}\n" ::"r"(destination),
                 "l"(source), "r"((int)copy));
#endif
}

/* 16 bytes (both addresses 16-byte aligned), bypassing L1 (.cg), to an
 * address in the shared window (shared_address, shared_address.h). */
static __device__ __forceinline__ void copy_async_16_to(unsigned destination, const float *source)
{
#ifdef ASYNC_COPY_MISSING
    const float4 v = *reinterpret_cast<const float4 *>(source);
    asm volatile("st.shared.v4.f32 [%0], {%1, %2, %3, %4};\n" ::"r"(destination), "f"(v.x),
                 "f"(v.y), "f"(v.z), "f"(v.w)
                 : "memory");
#else
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(destination), "l"(source)
                 : "memory");
#endif
}

/* The same from a generic pointer to shared memory. */
static __device__ __forceinline__ void copy_async_16(float *shared_destination, const float *source)
{
#ifdef ASYNC_COPY_MISSING
    *reinterpret_cast<float4 *>(shared_destination) = *reinterpret_cast<const float4 *>(source);
#else
    copy_async_16_to((unsigned)__cvta_generic_to_shared(shared_destination), source);
#endif
}

/* Closes the copies issued since the last commit into one group. */
static __device__ __forceinline__ void copy_async_commit()
{
#ifndef ASYNC_COPY_MISSING
    asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}

/* Waits until at most STILL_IN_FLIGHT of this thread's groups are pending. */
template <int STILL_IN_FLIGHT>
static __device__ __forceinline__ void copy_async_wait()
{
#ifndef ASYNC_COPY_MISSING
    asm volatile("cp.async.wait_group %0;\n" ::"n"(STILL_IN_FLIGHT) : "memory");
#endif
}

/* The same with a count known only at run time (0 to 7; more waits for 7).
 * The instruction takes its count as an immediate, hence the switch. */
static __device__ __forceinline__ void copy_async_wait_at_most(int pending)
{
    switch (pending) {
    case 0: copy_async_wait<0>(); break;
    case 1: copy_async_wait<1>(); break;
    case 2: copy_async_wait<2>(); break;
    case 3: copy_async_wait<3>(); break;
    case 4: copy_async_wait<4>(); break;
    case 5: copy_async_wait<5>(); break;
    case 6: copy_async_wait<6>(); break;
    default: copy_async_wait<7>(); break;
    }
}

#endif

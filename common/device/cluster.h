/* cluster.h - the calls of a block cluster that chapter 6 uses, wrapped for
 * CUDA C: a cluster's blocks run at the same time on neighbouring
 * multiprocessors and may read each other's shared memory. Clusters exist
 * from compute capability 9.0 (Hopper); compiled for an older target these
 * wrappers trap, and the launchers never launch a cluster there (they ask
 * gpu_query() for the card's capability first). Device code only.
 */
#ifndef WORKBOOK_CLUSTER_H
#define WORKBOOK_CLUSTER_H

#include <cooperative_groups.h>

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
#define CLUSTER_MISSING 1 /* a device pass for a target without clusters */
#endif

/* This block's place in its cluster, 0 .. cluster size - 1. */
static __device__ __forceinline__ int cluster_block_rank()
{
#ifdef CLUSTER_MISSING
    __trap();
    return 0;
#else
    return (int)cooperative_groups::this_cluster().block_rank();
#endif
}

/* A barrier over the cluster's threads in two halves: arrive says "this
 * thread got here", wait waits for every thread of every block of the
 * cluster to have arrived. Between the two a thread may go on working. */
static __device__ __forceinline__ void cluster_arrive()
{
#ifdef CLUSTER_MISSING
    __trap();
#else
    cooperative_groups::this_cluster().barrier_arrive();
#endif
}

static __device__ __forceinline__ void cluster_wait()
{
#ifdef CLUSTER_MISSING
    __trap();
#else
    cooperative_groups::this_cluster().barrier_wait();
#endif
}

/* Both halves at once; it also orders the shared-memory accesses before it,
 * across the cluster, before those after it. */
static __device__ __forceinline__ void cluster_sync()
{
#ifdef CLUSTER_MISSING
    __trap();
#else
    cooperative_groups::this_cluster().sync();
#endif
}

/* The address, in block `rank`'s shared memory, of what `local` is in this
 * block's: the same layout, another block's copy of it. */
template <typename T>
static __device__ __forceinline__ T *cluster_map_shared(T *local, int rank)
{
#ifdef CLUSTER_MISSING
    (void)rank;
    __trap();
    return local;
#else
    return cooperative_groups::this_cluster().map_shared_rank(local, rank);
#endif
}

#endif

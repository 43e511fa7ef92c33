/* shared_address.h - where a generic pointer to shared memory lies in the
 * shared window: the 32-bit address the PTX instructions that name shared
 * memory take (cp.async, ldmatrix, mbarrier, the copy engine's copies).
 * async_copy.h, bulk_copy.h and wgmma.h use it. */
#ifndef WORKBOOK_SHARED_ADDRESS_H
#define WORKBOOK_SHARED_ADDRESS_H

#include <stdint.h>

/* Worth taking once before a loop of copies: in the SASS of the MSA
 * attention kernels on sm_90, each conversion inside the loop read the
 * block's place in its cluster (S2R SR_CgaCtaId) again. */
static __device__ __forceinline__ uint32_t shared_address(const void *shared)
{
    return (uint32_t)__cvta_generic_to_shared(shared);
}

#endif

/* shared_address.h - where a generic pointer to shared memory lies in the
 * shared window: the 32-bit address that PTX's shared-memory operands take
 * (cp.async in async_copy.h; mbarrier and the copy engine's copies in
 * bulk_copy.h). Device code only. */
#ifndef WORKBOOK_SHARED_ADDRESS_H
#define WORKBOOK_SHARED_ADDRESS_H

/* Worth taking once before a loop of copies: in the SASS of the MSA
 * attention kernels on sm_90, each conversion inside the loop read the
 * block's place in its cluster (S2R SR_CgaCtaId) again. */
static __device__ __forceinline__ unsigned shared_address(const void *shared)
{
    return (unsigned)__cvta_generic_to_shared(shared);
}

#endif

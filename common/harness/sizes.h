/* sizes.h - arithmetic on problem sizes that cannot wrap, and the limits
 * it is checked against: the int indexing of the kernels and the memory of
 * the machine.
 *
 * Every product of command-line sizes (B*T*3*C, B*S*N, bytes to allocate)
 * is taken with size_times, which saturates at SIZE_MAX instead of
 * wrapping. A product that wrapped in long arithmetic could
 * come out small and pass every limit; a saturated one stays above all of
 * them, and the messages print it as "2^64 or more".
 */
#ifndef WORKBOOK_SIZES_H
#define WORKBOOK_SIZES_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* a * b, or SIZE_MAX when the product does not fit in a size_t. */
size_t size_times(size_t a, size_t b);

/* a + b, or SIZE_MAX when the sum does not fit in a size_t. */
size_t size_plus(size_t a, size_t b);

/* Returns 0 when value <= limit; otherwise -1 with a message such as
 * "B*T*3*C = 3221225472 input floats is more than the 2147483647 the
 * kernels index with int" (expression, value, unit, limit, reason). */
int size_at_most(size_t value, size_t limit, const char *expression, const char *unit,
                 const char *reason, char *message, size_t capacity);

/* Returns 0 when `needed` bytes fit in `available`, or when available is 0
 * (unknown); otherwise -1 with a message such as "needs 52.1 GB of host
 * memory, more than the 23.0 GB available on this machine" (memory names the kind,
 * where says whose it is). */
int size_fits_memory(size_t needed, size_t available, const char *memory, const char *where,
                     char *message, size_t capacity);

/* Splitting k. A kernel whose tiles hold all `total` values of a sum's
 * index k (a head size) may need more shared memory than a smaller card has
 * (HS = 128 on a card with 99 KB per block). Its launcher then runs it once
 * per part of k, each launch adding its products to what the last one
 * stored: a sum over k is the sum of the sums over its parts. This says how
 * many values of k one launch holds: the most, a multiple of `granule`,
 * whose `bytes_per_k` each plus `fixed_bytes` fit in `limit` bytes, evened
 * out over the parts `total` then takes; `total` itself where all fit, 0
 * where not even one granule does. */
int split_k_count(int total, int granule, size_t bytes_per_k, size_t fixed_bytes, size_t limit);

/* The memory this machine has available now, in bytes (MemAvailable: free
 * memory and what the kernel's caches would give up), not its physical
 * memory, most of which another program may hold; 0 when it cannot be told. */
size_t host_memory_bytes(void);

#ifdef __cplusplus
}
#endif

#endif

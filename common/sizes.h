/* sizes.h - arithmetic on problem sizes that cannot wrap, and the limits
 * it is checked against: the int indexing of the kernels and the memory of
 * the machine.
 *
 * Every product of command-line sizes (B*T*3*C, B*S*N, bytes to allocate)
 * is taken with size_times, which saturates at SIZE_MAX instead of
 * wrapping. A product that wrapped (as long arithmetic did, issue 14) could
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
 * memory, more than the 23.0 GB this machine has" (memory names the kind,
 * where says whose it is). */
int size_fits_memory(size_t needed, size_t available, const char *memory, const char *where,
                     char *message, size_t capacity);

/* The physical memory of this machine in bytes; 0 when it cannot be told. */
size_t host_memory_bytes(void);

#ifdef __cplusplus
}
#endif

#endif

/* sizes.c - see sizes.h. */
#include "harness/sizes.h"

#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

size_t size_times(size_t a, size_t b)
{
    size_t product;
    return __builtin_mul_overflow(a, b, &product) ? SIZE_MAX : product;
}

size_t size_plus(size_t a, size_t b)
{
    size_t sum;
    return __builtin_add_overflow(a, b, &sum) ? SIZE_MAX : sum;
}

/* The value as the messages print it: exact, or "2^64 or more" once saturated. */
static void format_count(char *buffer, size_t capacity, size_t value)
{
    if (value == SIZE_MAX)
        snprintf(buffer, capacity, "2^64 or more");
    else
        snprintf(buffer, capacity, "%zu", value);
}

int size_at_most(size_t value, size_t limit, const char *expression, const char *unit,
                 const char *reason, char *message, size_t capacity)
{
    if (value <= limit)
        return 0;
    char count[32];
    format_count(count, sizeof count, value);
    snprintf(message, capacity, "%s = %s %s is more than the %zu %s", expression, count, unit,
             limit, reason);
    return -1;
}

int size_fits_memory(size_t needed, size_t available, const char *memory, const char *where,
                     char *message, size_t capacity)
{
    if (available == 0 || needed <= available)
        return 0;
    if (needed == SIZE_MAX)
        snprintf(message, capacity, "needs 2^64 or more bytes of %s, more than the %.1f GB %s",
                 memory, available * 1e-9, where);
    else
        snprintf(message, capacity, "needs %.1f GB of %s, more than the %.1f GB %s",
                 needed * 1e-9, memory, available * 1e-9, where);
    return -1;
}

int split_k_count(int total, int granule, size_t bytes_per_k, size_t fixed_bytes, size_t limit)
{
    if (fixed_bytes + (size_t)total * bytes_per_k <= limit)
        return total;
    if (fixed_bytes + (size_t)granule * bytes_per_k > limit)
        return 0;
    const int most = (int)((limit - fixed_bytes) / bytes_per_k) / granule * granule;
    const int parts = (total + most - 1) / most;
    const int even = ((total + parts - 1) / parts + granule - 1) / granule * granule;
    return even < most ? even : most;
}

/* MemAvailable of /proc/meminfo, in bytes: what can be allocated without
 * swapping (free memory and the caches the kernel would give up); 0 where
 * the file or the line is missing (not Linux, or a kernel before 3.14). */
static size_t meminfo_available_bytes(void)
{
    FILE *file = fopen("/proc/meminfo", "r");
    if (!file)
        return 0;
    char line[256];
    unsigned long long kb = 0;
    while (fgets(line, sizeof line, file))
        if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1)
            break;
    fclose(file);
    return size_times((size_t)kb, 1024);
}

size_t host_memory_bytes(void)
{
    const size_t available = meminfo_available_bytes();
    if (available > 0)
        return available;
    long pages = sysconf(_SC_AVPHYS_PAGES), page_bytes = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || page_bytes <= 0)
        return 0;
    return size_times((size_t)pages, (size_t)page_bytes);
}

/* stats.c - median, min and max of a set of timings. */
#include "harness/stats.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

double wall_seconds(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return now.tv_sec + now.tv_nsec * 1e-9;
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

timing_summary summarize_times(const double *samples_ms, int count)
{
    timing_summary summary = {0, 0, 0, count};
    if (count <= 0)
        return summary;
    double *sorted = (double *)malloc(sizeof(double) * (size_t)count);
    if (!sorted)
        abort();
    memcpy(sorted, samples_ms, sizeof(double) * (size_t)count);
    qsort(sorted, (size_t)count, sizeof(double), compare_doubles);
    summary.min_ms = sorted[0];
    summary.max_ms = sorted[count - 1];
    summary.median_ms = (count % 2) ? sorted[count / 2]
                                    : 0.5 * (sorted[count / 2 - 1] + sorted[count / 2]);
    free(sorted);
    return summary;
}

/* stats.h - summary of repeated timings: median, min, max. */
#ifndef WORKBOOK_STATS_H
#define WORKBOOK_STATS_H

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    double median_ms;
    double min_ms;
    double max_ms;
    int reps;
} timing_summary;

/* Seconds on a monotonic host clock, for timing host work (the referee). */
double wall_seconds(void);

/* Summarises count samples (count >= 1); the samples are left untouched. */
timing_summary summarize_times(const double *samples_ms, int count);

#ifdef __cplusplus
}
#endif

#endif

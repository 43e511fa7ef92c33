/* solutions/host/03-registers-counts.cu - the host check of exercise 3.1:
 * the counts against an enumeration of every block and thread of the grid,
 * with the kernel's own tests for returning early, at fixed sizes and at
 * six drawn from the grading's seed (T up to 65536, where a count in int
 * would long have wrapped). */
#include EXERCISE_FILE
#undef main

#include <math.h>

#include "host_check.h"

/* The student's functions: each call answered by the probe (probed_call.h). */
#define working_threads PROBED(working_threads)
#define floats_loaded PROBED(floats_loaded)
#define distinct_floats PROBED(distinct_floats)

/* The kernel's grid walked thread by thread: working threads, floats they load. */
static void enumerate(triangle_size s, double *threads, double *loads, double *distinct)
{
    const int n = s.T / TILE;
    double working = 0.0;
    for (int by = 0; by < n; by++)
        for (int bx = 0; bx < n; bx++) {
            if (bx > by)
                continue;
            for (int ty = 0; ty < TILE / THREAD_TILE; ty++)
                for (int tx = 0; tx < TILE / THREAD_TILE; tx++) {
                    const int first_query = by * TILE + ty * THREAD_TILE;
                    const int first_key = bx * TILE + tx * THREAD_TILE;
                    if (first_key > first_query + THREAD_TILE - 1)
                        continue;
                    working += 1.0;
                }
        }
    *threads = working * s.B * s.NH;
    *loads = *threads * s.HS * (THREAD_TILE + THREAD_TILE);
    /* the rows a head's threads touch: every query row and every key row */
    *distinct = 2.0 * s.B * s.NH * s.T * s.HS;
}

static int close_enough(double got, double want)
{
    return fabs(got - want) <= 1e-9 * fabs(want) + 0.5;
}

int host_check_main(int, char **)
{
    triangle_size sizes[11] = {{8, 1024, 12, 64}, {1, 128, 1, 32}, {3, 256, 3, 128},
                               {2, 4096, 5, 48}, {1, 640, 7, 16}};
    unsigned long long state = host_seed();
    for (int k = 5; k < 11; k++) {
        const triangle_size s = {(int)host_draw(&state, 1, 64), (int)(128 * host_draw(&state, 1, 512)),
                                 (int)host_draw(&state, 1, 64), (int)host_draw(&state, 1, 256)};
        sizes[k] = s;
    }
    const char *names[] = {"working_threads", "floats_loaded", "distinct_floats"};
    char why[3][300] = {"", "", ""};
    int failed[3] = {0, 0, 0};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        const triangle_size s = sizes[k];
        double want[3], got[3] = {working_threads(s), floats_loaded(s), distinct_floats(s)};
        enumerate(s, &want[0], &want[1], &want[2]);
        for (int c = 0; c < 3; c++)
            if (!failed[c] && !close_enough(got[c], want[c])) {
                failed[c] = 1;
                snprintf(why[c], sizeof why[c], "%.6g at B=%d T=%d C=%d NH=%d; the grid has %.6g",
                         got[c], s.B, s.T, s.NH * s.HS, s.NH, want[c]);
            }
    }
    for (int c = 0; c < 3; c++) {
        if (failed[c])
            host_check(0, names[c], "%s", why[c]);
        else
            host_check(1, names[c], "right at 11 sizes, 6 drawn (the default: %.6g)",
                       c == 0 ? working_threads(sizes[0])
                              : c == 1 ? floats_loaded(sizes[0]) : distinct_floats(sizes[0]));
    }
    return host_check_status();
}

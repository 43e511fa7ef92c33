/* gpu_peaks.c - see gpu_peaks.h. */
#include "gpu_peaks.h"

#include <string.h>

static int fp32_lanes_per_sm(int major, int minor)
{
    /* Volta, Turing and the A100 (8.0) have 64 FP32 lanes per SM; the GA10x
     * parts (8.6, 8.7, 8.9), Hopper (9.0) and Blackwell have 128. */
    if (major < 8 || (major == 8 && minor == 0))
        return 64;
    return 128;
}

/* Dense TF32 operations per clock per SM: 1024 on Ampere and Ada, 2048 on Hopper. */
static int tf32_per_sm_clock(int major)
{
    if (major == 8)
        return 1024;
    if (major == 9)
        return 2048;
    return 0;
}

double gpu_peak_gflops(gpu_pipe pipe, int sm_count, double clock_mhz, int major, int minor)
{
    double per_clock = pipe == GPU_PIPE_SIMT ? 2.0 * fp32_lanes_per_sm(major, minor)
                                             : (double)tf32_per_sm_clock(major);
    return sm_count * per_clock * clock_mhz * 1e-3;
}

typedef struct {
    const char *name_part;  /* the first entry whose text occurs in the name wins */
    int sm_count;
    double boost_mhz;
    int major, minor;
} gpu_card;

static const gpu_card cards[] = {
    {"H200", 132, 1980, 9, 0},
    {"H100 PCIe", 114, 1755, 9, 0},
    {"H100", 132, 1980, 9, 0},
    {"A100", 108, 1410, 8, 0},
    {"L40S", 142, 2520, 8, 9},
    {"L4", 58, 2040, 8, 9},
    {"RTX 4090", 128, 2520, 8, 9},
    {"A10", 72, 1695, 8, 6},
    {"T4", 40, 1590, 7, 5},
};

int gpu_card_lookup(const char *name, int *sm_count, double *clock_mhz, int *major, int *minor)
{
    for (size_t k = 0; k < sizeof cards / sizeof cards[0]; k++)
        if (strstr(name, cards[k].name_part)) {
            *sm_count = cards[k].sm_count;
            *clock_mhz = cards[k].boost_mhz;
            *major = cards[k].major;
            *minor = cards[k].minor;
            return 0;
        }
    return -1;
}

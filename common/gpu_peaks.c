/* gpu_peaks.c - peak rates from SMs, clock and compute capability, and the
 * cards the book tools know by name. See gpu_peaks.h. */
#include "gpu_peaks.h"

#include <stddef.h>
#include <string.h>

double gpu_peak_gflops(gpu_pipe pipe, int sm_count, double clock_mhz, int major, int minor)
{
    if (pipe == GPU_PIPE_SIMT) {
        /* Volta, Turing and the A100 (8.0) have 64 FP32 lanes per SM; the
         * other Ampere chips (8.6, 8.7), Ada (8.9), Hopper and later 128. */
        int lanes = major < 8 || (major == 8 && minor == 0) ? 64 : 128;
        return sm_count * lanes * 2.0 * clock_mhz / 1000.0;
    }
    /* Dense TF32 operations per SM per clock: Hopper 2048 (H200: 132 x 2048 x
     * 1.98 GHz = 535 TFLOP/s), the A100 1024 (108 x 1024 x 1.41 GHz = 156,
     * its data sheet's number), the other Ampere chips and Ada 512 (A10 62.5,
     * L4 60, L40S 183 TFLOP/s on their data sheets). Volta and Turing have no
     * TF32; later chips are not in the table yet. NVIDIA quotes Hopper's
     * tensor rate at a lower clock than the FP32 one (494.7 TFLOP/s for the
     * H100 SXM); one boost clock for both pipes makes ours the higher
     * ceiling. GeForce cards run TF32 at half the rate of this formula. */
    int per_sm = major == 9 ? 2048 : major == 8 && minor == 0 ? 1024 : major == 8 ? 512 : 0;
    return sm_count * (double)per_sm * clock_mhz / 1000.0;
}

/* From the vendor's data sheets: SMs, boost clock in MHz, compute capability.
 * CUDA's names carry memory sizes and form factors ("NVIDIA A100-SXM4-80GB",
 * "NVIDIA H100 80GB HBM3"), so a card is matched by a part of its name, the
 * first entry that occurs in it; the more specific parts come first ("H100
 * PCIe" before "H100", "A100" before "A10", "L40S" before "L4"). */
typedef struct {
    const char *name_part;
    int sm_count;
    double clock_mhz;
    int major, minor;
} known_card;

static const known_card known_cards[] = {
    {"H200 NVL", 132, 1785, 9, 0},  /* NVL: the PCIe card, at a lower clock */
    {"H200", 132, 1980, 9, 0},      /* SXM; also GH200 */
    {"H100 NVL", 132, 1785, 9, 0},
    {"H100 PCIe", 114, 1755, 9, 0},
    {"H100", 132, 1980, 9, 0},      /* SXM */
    {"A100", 108, 1410, 8, 0},
    {"L40S", 142, 2520, 8, 9},
    {"L4", 58, 2040, 8, 9},
    {"RTX 4090", 128, 2520, 8, 9},
    {"A10", 72, 1695, 8, 6},
    {"T4", 40, 1590, 7, 5},
};

int gpu_card_lookup(const char *name, int *sm_count, double *clock_mhz, int *major, int *minor)
{
    for (size_t k = 0; name && k < sizeof known_cards / sizeof known_cards[0]; k++) {
        const known_card *card = &known_cards[k];
        if (strstr(name, card->name_part)) {
            *sm_count = card->sm_count;
            *clock_mhz = card->clock_mhz;
            *major = card->major;
            *minor = card->minor;
            return 0;
        }
    }
    return -1;
}

double gpu_card_peak_gflops(const char *name, gpu_pipe pipe)
{
    int sm_count, major, minor;
    double clock_mhz;
    if (gpu_card_lookup(name, &sm_count, &clock_mhz, &major, &minor) != 0)
        return 0;
    return gpu_peak_gflops(pipe, sm_count, clock_mhz, major, minor);
}

const char *gpu_pipe_name(gpu_pipe pipe)
{
    return pipe == GPU_PIPE_TENSOR ? "TF32 tensor" : "FP32";
}

/* gpu_peaks.c - peak rates, memory bandwidth and shared memory per block
 * from a card's SMs, clock and compute capability, and the cards the
 * workbook knows by name. See gpu_peaks.h. */
#include "device/gpu_peaks.h"

#include <stdlib.h>
#include <string.h>

int gpu_fp32_lanes_per_sm(int major, int minor)
{
    if (major < 7 || (major == 7 && minor < 5))
        return 0;
    return major == 7 || (major == 8 && minor == 0) ? 64 : 128;
}

int gpu_sfu_per_sm_per_clock(int major, int minor)
{
    return gpu_fp32_lanes_per_sm(major, minor) > 0 ? 16 : 0;
}

/* Dense TF32 per SM per clock, from the data sheets (dense rates, without
 * the 2:4 sparsity their first column often shows):
 *   8.0  A100   1024   108 x 1024 x 1.41 GHz = 156 TFLOP/s
 *   8.6  A10     512   72 x 512 x 1.695 GHz = 62.5; RTX 3090 (GeForce) 35.6, half
 *   8.9  L4      512   58 x 512 x 2.04 GHz = 60.6; L40S 183; RTX 4090 (GeForce) 82.6, half
 *   9.0  H100   2048   132 x 2048 x 1.98 GHz = 535 (the data sheet quotes 495 at a
 *                      lower clock than its FP32 number; one clock for both
 *                      pipes makes ours the higher ceiling)
 *  10.x  B200   4096   twice Hopper's per SM
 *  12.x          512   RTX 5090 (GeForce) 104.8 = 170 x 256 x 2.41 GHz, half
 * Turing and older have no TF32. */
int gpu_tf32_per_sm_per_clock(int major, int minor, int geforce)
{
    int rate = 0;
    if (major == 8)
        rate = minor == 0 ? 1024 : 512;
    else if (major == 9)
        rate = 2048;
    else if (major == 10 || major == 11)
        rate = 4096;
    else if (major == 12)
        rate = 512;
    return geforce ? rate / 2 : rate;
}

double gpu_peak_gflops(gpu_pipe pipe, int sm_count, double clock_mhz, int major, int minor,
                       int geforce)
{
    const int per_sm = pipe == GPU_PIPE_SIMT ? 2 * gpu_fp32_lanes_per_sm(major, minor)
                                             : gpu_tf32_per_sm_per_clock(major, minor, geforce);
    return sm_count * (double)per_sm * clock_mhz / 1000.0;
}

int gpu_name_is_geforce(const char *name)
{
    return name && (strstr(name, "GeForce") || strstr(name, "TITAN"));
}

size_t gpu_shared_per_block_optin(int major, int minor)
{
    const size_t kb = 1024;
    if (major == 7 && minor == 5)
        return 64 * kb;
    if (major == 8)
        return minor == 0 || minor == 7 ? 163 * kb : 99 * kb;
    if (major == 9 || major == 10 || major == 11)
        return 227 * kb;
    if (major == 12)
        return 99 * kb;
    return 0;
}

/* From the vendors' data sheets: SMs, boost clock in MHz, compute capability,
 * GeForce or not, memory bandwidth in GB/s. CUDA's names carry memory sizes
 * and form factors ("NVIDIA A100-SXM4-80GB", "NVIDIA H100 80GB HBM3"), so a
 * card is matched by a part of its name, the first entry that occurs in it:
 * the more specific parts come first ("H100 PCIe" before "H100", "A100"
 * before "A10", "L40S" before "L4", "RTX 4090" before "RTX 40"). */
static const gpu_card known_cards[] = {
    {"H200 NVL", 132, 1785, 9, 0, 0, 4800, 0},      /* NVL: the PCIe card, at a lower clock */
    {"H200", 132, 1980, 9, 0, 0, 4800, 0},          /* SXM; also GH200 */
    {"H100 NVL", 132, 1785, 9, 0, 0, 3900, 0},
    {"H100 PCIe", 114, 1755, 9, 0, 0, 2000, 0},
    {"H100", 132, 1980, 9, 0, 0, 3350, 0},          /* SXM */
    {"B200", 148, 1965, 10, 0, 0, 8000, 0},
    {"A100-SXM4-80GB", 108, 1410, 8, 0, 0, 2039, 0},
    {"A100 80GB PCIe", 108, 1410, 8, 0, 0, 1935, 0},
    {"A100-PCIE-80GB", 108, 1410, 8, 0, 0, 1935, 0},
    {"A100", 108, 1410, 8, 0, 0, 1555, 0},          /* 40 GB, SXM4 or PCIe */
    {"L40S", 142, 2520, 8, 9, 0, 864, 0},
    {"L4", 58, 2040, 8, 9, 0, 300, 0},
    {"RTX 5090", 170, 2407, 12, 0, 1, 1792, 0},
    {"RTX 4090", 128, 2520, 8, 9, 1, 1008, 0},
    {"RTX 3090", 82, 1695, 8, 6, 1, 936, 0},
    {"A10", 72, 1695, 8, 6, 0, 600, 0},
    {"T4", 40, 1590, 7, 5, 0, 320, 0},
};

/* The cards learned from what CUDA reported (gpu_card_learn). */
static gpu_card learned_cards[64];
static int learned_count;

const gpu_card *gpu_card_find(const char *name)
{
    for (int k = 0; name && k < learned_count; k++)
        if (strcmp(name, learned_cards[k].name_part) == 0)
            return &learned_cards[k];
    for (size_t k = 0; name && k < sizeof known_cards / sizeof known_cards[0]; k++)
        if (strstr(name, known_cards[k].name_part))
            return &known_cards[k];
    return NULL;
}

int gpu_card_learn(const gpu_card *card)
{
    if (!card->name_part || !card->name_part[0] || gpu_fp32_lanes_per_sm(card->major, card->minor) == 0)
        return -1;
    int slot = 0;
    while (slot < learned_count && strcmp(learned_cards[slot].name_part, card->name_part) != 0)
        slot++;
    if (slot == (int)(sizeof learned_cards / sizeof learned_cards[0]))
        return -1;
    char *name = strdup(card->name_part);
    if (!name)
        return -1;
    if (slot < learned_count)
        free((char *)learned_cards[slot].name_part);
    else
        learned_count++;
    learned_cards[slot] = *card;
    learned_cards[slot].name_part = name;
    learned_cards[slot].reported = 1;
    return 0;
}

void gpu_card_forget_learned(void)
{
    for (int k = 0; k < learned_count; k++)
        free((char *)learned_cards[k].name_part);
    learned_count = 0;
}

double gpu_card_peak_gflops(const char *name, gpu_pipe pipe)
{
    const gpu_card *card = gpu_card_find(name);
    return card ? gpu_peak_gflops(pipe, card->sm_count, card->clock_mhz, card->major,
                                  card->minor, card->geforce)
                : 0;
}

double gpu_card_memory_gbps(const char *name)
{
    const gpu_card *card = gpu_card_find(name);
    return card ? card->memory_gbps : 0;
}

double gpu_memory_gbps_from(int memory_clock_khz, int bus_width_bits)
{
    return 2.0 * memory_clock_khz * 1e3 * (bus_width_bits / 8.0) / 1e9;
}

const char *gpu_pipe_name(gpu_pipe pipe)
{
    return pipe == GPU_PIPE_TENSOR ? "TF32 tensor" : "FP32";
}

/* gpu_peaks.h - what a card can do at most, and what a kernel may ask of it:
 * the peak rates a kernel's share of peak is taken against, the memory
 * bandwidth its floor is taken at, and the shared memory a block may opt in
 * to. One formula from a card's SMs, clock and compute capability, which
 * the programs apply to what CUDA reports (gpu.cu) and record with their
 * results (plots/data/cards/cards.csv, which the book tools read back and
 * hand to gpu_card_learn). One table of data sheets, for what was not
 * recorded: the cards of rows measured before the record existed and of
 * test fixtures, and the smaller card a program keeps to (WORKBOOK_CARD,
 * gpu.h). The exceptions the formula cannot know are the GeForce halving
 * of TF32 (by name) and nothing else so far.
 *
 *   double fp32 = gpu_peak_gflops(GPU_PIPE_SIMT, 132, 1980.0, 9, 0, 0);  66908 (H200)
 *   double tf32 = gpu_card_peak_gflops("NVIDIA H200", GPU_PIPE_TENSOR);  535265
 *   double gbps = gpu_card_memory_gbps("NVIDIA GeForce RTX 4090");       1008
 *
 * Host C11, no CUDA: built into the library (make) and the book tools alike;
 * tested against the data sheets by tests/test_gpu_peaks.c (make test).
 */
#ifndef WORKBOOK_GPU_PEAKS_H
#define WORKBOOK_GPU_PEAKS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The pipe a kernel does its multiply-adds on: the FP32 lanes (SIMT) or the
 * tensor cores (TF32 and 3xTF32 kernels). */
typedef enum { GPU_PIPE_SIMT, GPU_PIPE_TENSOR } gpu_pipe;

/* A card of the data sheets. */
typedef struct {
    const char *name_part;   /* matched in the name CUDA reports ("T4" in "Tesla T4");
                                a learned card's whole name */
    int sm_count;
    double clock_mhz;        /* boost clock */
    int major, minor;        /* compute capability */
    int geforce;             /* 1: a GeForce card, dense TF32 at half its architecture's rate */
    double memory_gbps;      /* device memory bandwidth, GB/s */
    int reported;            /* 1: learned from what CUDA reported on the card
                                (gpu_card_learn); 0: from its data sheet */
} gpu_card;

/* FP32 lanes per SM: 64 on Turing (7.5) and the A100 (8.0), 128 from the
 * other Ampere chips (8.6, 8.7) on; 0 for a capability before 7.5. */
int gpu_fp32_lanes_per_sm(int major, int minor);

/* Results per SM per clock of the special-function unit (the exponential
 * exp2f, the reciprocal, the square root, the sine): 16 on every compute
 * capability from 7.5 to 12.x (the CUDA C++ Programming Guide's table of
 * arithmetic instruction throughput); 0 before 7.5. */
int gpu_sfu_per_sm_per_clock(int major, int minor);

/* Dense TF32 tensor operations per SM per clock, 0 where there is no TF32
 * (Turing and older). `geforce` halves the data-center rate. */
int gpu_tf32_per_sm_per_clock(int major, int minor, int geforce);

/* The pipe's peak in GFLOP/s. SIMT: SMs x FP32 lanes per SM x 2 (a fused
 * multiply-add is two operations) x clock. TENSOR: SMs x the dense TF32
 * rate per SM per clock x clock. 0 where that pipe is not known. */
double gpu_peak_gflops(gpu_pipe pipe, int sm_count, double clock_mhz, int major, int minor,
                       int geforce);

/* Whether CUDA's name for a card is a GeForce card's ("NVIDIA GeForce RTX
 * 4090", "NVIDIA TITAN RTX"): those run dense TF32 at half the rate. */
int gpu_name_is_geforce(const char *name);

/* The shared memory one block may opt in to on a compute capability, in
 * bytes (the CUDA C++ Programming Guide's table of technical
 * specifications); 0 for a capability the table does not have. */
size_t gpu_shared_per_block_optin(int major, int minor);

/* The card learned under exactly this name (gpu_card_learn), else the
 * first card of the data sheets' table whose name_part occurs in `name`
 * (the more specific parts come first: "H100 PCIe" before "H100"), or NULL. */
const gpu_card *gpu_card_find(const char *name);

/* Learns a card from what CUDA reported on it (the book tools, from
 * plots/data/cards/cards.csv): from then on gpu_card_find(card->name_part)
 * finds it, before any data sheet. A card learned again replaces the
 * earlier one. The name is copied. Returns 0, or -1 when the table of
 * learned cards (64) is full, out of memory, or the card has no name or a
 * capability before 7.5. */
int gpu_card_learn(const gpu_card *card);

/* Forgets every learned card (for tests). */
void gpu_card_forget_learned(void);

/* The pipe's peak on the named card, 0 when unknown. */
double gpu_card_peak_gflops(const char *name, gpu_pipe pipe);

/* The named card's memory bandwidth from its data sheet, GB/s; 0 when unknown. */
double gpu_card_memory_gbps(const char *name);

/* Memory bandwidth from what CUDA reports: memory clock in kHz and bus width
 * in bits, two transfers per clock (DDR), in GB/s; 0 if either is 0. */
double gpu_memory_gbps_from(int memory_clock_khz, int bus_width_bits);

/* "FP32" or "TF32 tensor", for tables and captions. */
const char *gpu_pipe_name(gpu_pipe pipe);

#ifdef __cplusplus
}
#endif

#endif

/* msa.h - problem B on the GPU: what an MSA kernel gets, what describes it,
 * and the program every MSA chapter's main() calls.
 *
 * A chapter defines its kernel, a launcher and one msa_kernel that names
 * them (`extern const msa_kernel ...`). Its program's main(), generated
 * from chapters/kernels.list, lists the contenders it races and hands them
 * to msa_chapter_main, which parses the command line, reads the inputs from
 * .npy files or draws them, checks every kernel against the CPU referee,
 * times it (directly and as CUDA graph replays: the small case is bound by
 * launch latency), prints the table and appends the CSV rows.
 */
#ifndef WORKBOOK_MSA_H
#define WORKBOOK_MSA_H

#include <stddef.h>

#include "harness/common.h"
#include "harness/contender.h"
#include "problems/msa_reference.h"

/* What a launcher gets. Every pointer is device memory; the launcher runs
 * everything on `stream` and neither allocates nor synchronises (so that it
 * can be captured into a CUDA graph). */
typedef struct {
    msa_size size;
    const float *msa;            /* (B, S, N, D) */
    const float *mask;           /* (B, S, N), 1 keep, 0 padding */
    const float *ln_gamma, *ln_beta;   /* (D) */
    const float *wq, *wk, *wv;   /* (D, D), W[out][in] */
    const float *wg, *bg;        /* (D, D), (D) */
    const float *wo, *bo;        /* (D, D), (D) */
    float *out;                  /* (B, S, N, D); filled with NaN before a check */
    float *scratch;              /* scratch_floats(size) floats, for kernels that ask */
    size_t scratch_floats;
    cublasHandle_t cublas;       /* bound to stream */
    cudaStream_t stream;
} msa_args;

/* A kernel of the layer: how to launch it, which sizes it refuses, what
 * scratch it needs, whether the card can hold it. Its name, chapter, pipe,
 * tolerance and the compute capability it needs are its line in
 * chapters/kernels.list. */
typedef struct {
    /* Returns 0 when the kernel supports the size; otherwise nonzero with the
     * reason in why. NULL: every size is supported. Needs no GPU. */
    int (*refuses)(msa_size size, char *why, size_t capacity);
    /* Device scratch the kernel needs, in floats. NULL: none. */
    size_t (*scratch_floats)(msa_size size);
    void (*launch)(const msa_args *args);
    /* Returns 0 when the card (gpu_query(), as WORKBOOK_CARD may cap it)
     * can run the configuration the launcher picks at this size; otherwise
     * nonzero, with the reason in why, and the kernel is listed as skipped.
     * NULL: every card with the compute capability its line names. */
    int (*unfit)(msa_size size, const gpu_info *gpu, char *why, size_t capacity);
} msa_kernel;

/* A kernel in a race: its facts from chapters/kernels.list, and its code. */
typedef struct {
    contender_facts facts;
    const msa_kernel *kernel;
} msa_contender;

/* The whole program `program` of chapter `chapter`. Returns
 * the exit status: 0 every check passed, 1 a check failed, 2 bad arguments,
 * a refused size, a bad .npy file or a --csv or --save destination that
 * cannot be written, and (through gpu_require) 77 when there is no GPU.
 * Sizes: B S N D H, default the small case B=2 S=8 N=32 D=64 H=4.
 * --load DIR reads DIR/<name>.npy for every input (B, S, N and D then come
 * from msa.npy; H from the command line); --save DIR writes every input and
 * the output of the last kernel run (pick one with --kernel) as out.npy. */
int msa_chapter_main(int argc, char **argv, const char *program, int chapter,
                     const char *summary, const msa_contender *contenders,
                     int contender_count);

#endif

/* contender.h - what a chapter program knows of each kernel it races besides
 * its code: the facts of its line in chapters/kernels.list. Each program's
 * main() is generated from that list (tools/generate.c), so a chapter
 * defines only the kernel itself (a triangle_kernel or msa_kernel: how to
 * launch it and which sizes it refuses).
 */
#ifndef WORKBOOK_CONTENDER_H
#define WORKBOOK_CONTENDER_H

#include "device/gpu_peaks.h"

typedef enum {
    CONTENDER_CHAMPION,  /* a baseline: cuBLAS, the unfused layer */
    CONTENDER_STEP,      /* a step of its chapter's story */
    CONTENDER_BEST,      /* its chapter's result, raced by the later chapters */
    CONTENDER_TRIED      /* tried and not kept (the appendix "Roads not taken") */
} contender_role;

typedef struct {
    const char *name;     /* the CSV's kernel column */
    int chapter;          /* the chapter that introduces it */
    contender_role role;
    gpu_pipe pipe;        /* whose peak its share of peak is taken against */
    double tolerance;     /* TOLERANCE_FP32 or TOLERANCE_TF32 */
    int needs_major, needs_minor;  /* the compute capability it needs (its "needs") */
    int needs_arch_specific;       /* sm_90a: that capability exactly */
    const char *where;             /* its work, for --list (tools/kernel_where.c); may be NULL */
} contender_facts;

#endif

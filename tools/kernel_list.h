/* kernel_list.h - reads chapters/kernels.list, the one list of the
 * workbook's contenders: for each, its problem, the chapter that introduces
 * it, its role in the story, the pipe its share of peak is taken against,
 * its accuracy, the oldest GPU it runs on, its name (the CSV's kernel
 * column) and its C symbol. The
 * file's header comment describes the columns.
 *
 *   kernel_list kernels;
 *   char error[512];
 *   if (kernel_list_read("chapters/kernels.list", &kernels, error, sizeof error) != 0)
 *       fprintf(stderr, "%s\n", error);     "chapters/kernels.list:40: ..."
 *
 * Host C11; tested by tests/test_kernel_list.c (make test).
 */
#ifndef WORKBOOK_KERNEL_LIST_H
#define WORKBOOK_KERNEL_LIST_H

#include <stddef.h>

#include "device/gpu_peaks.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { KERNEL_CHAMPION, KERNEL_STEP, KERNEL_BEST, KERNEL_TRIED, KERNEL_TORCH } kernel_role;

#define KERNEL_LIST_MAX_CHAPTER 99 /* chapters are numbered 1 to 99 (folders NN-slug) */

typedef struct {
    char problem[16];   /* "trimul" or "msa" */
    int chapter;
    kernel_role role;
    gpu_pipe pipe;
    char accuracy[8];   /* "fp32" or "tf32" */
    char needs[8];      /* "sm_75", "sm_80" or "sm_90a" */
    int needs_major, needs_minor;  /* the compute capability it needs: 7.5, 8.0 or 9.0 */
    int needs_arch_specific;       /* 1: sm_90a, compute capability 9.0 exactly */
    char name[64];      /* "shared+rows+interleaved" */
    char symbol[96];    /* "shared_rows_interleaved_kernel", "-" for torch */
} kernel_entry;

typedef struct {
    kernel_entry *entries; /* in the file's order: the story's */
    int count;
} kernel_list;

/* Reads the list from a file, or from text (path names it in errors).
 * 0, or -1 with "path:line: what is wrong" in error and an empty list. */
int kernel_list_read(const char *path, kernel_list *list, char *error, size_t capacity);
int kernel_list_parse(const char *path, const char *text, kernel_list *list, char *error,
                      size_t capacity);
void kernel_list_free(kernel_list *list);

/* The entry a CSV row's kernel column names for its problem: the name
 * itself, or the name with "+graph" (a CUDA-graph replay of that kernel).
 * Its index in the list, or -1. */
int kernel_list_find(const kernel_list *list, const char *problem, const char *kernel);

/* The peak of the kernel's pipe on the card CUDA names gpu, in GFLOP/s; 0
 * when the card, or that pipe on it, is not known. */
double kernel_peak_gflops(const kernel_entry *kernel, const char *gpu);

#ifdef __cplusplus
}
#endif

#endif

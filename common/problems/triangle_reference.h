/* triangle_reference.h - problem A, the causal attention score triangle, on
 * the CPU: sizes, work counts and the referee. Plain C, so the host unit
 * tests can check it by hand on tiny cases.
 *
 *   inp     float32 (B, T, 3, NH, HS): packed Q, K, V
 *   preatt  float32 (B, NH, T, T):
 *           preatt[b][h][i][j] = dot(Q[b][i][h][:], K[b][j][h][:]) / sqrt(HS), j <= i
 */
#ifndef WORKBOOK_TRIANGLE_REFERENCE_H
#define WORKBOOK_TRIANGLE_REFERENCE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    int B, T, NH, HS;   /* C = NH * HS */
} triangle_size;

size_t triangle_input_count(triangle_size size);    /* B*T*3*NH*HS */
size_t triangle_output_count(triangle_size size);   /* B*NH*T*T */
/* 2 * HS * B * NH * T * (T + 1) / 2: only the kept half of the scores. */
double triangle_useful_flops(triangle_size size);
/* Q and K read once, the kept half of preatt written once. */
double triangle_compulsory_bytes(triangle_size size);

/* The referee: every kept entry accumulated in double; entries above the
 * diagonal are set to 0 and never compared. Parallel with OpenMP where the
 * build enables it. */
void triangle_reference(double *preatt, const float *inp, triangle_size size);

#ifdef __cplusplus
}
#endif

#endif

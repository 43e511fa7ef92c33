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

/* The default size, GPT-2 small's: the programs' default and the book's
 * headline, written once (the runner, the book tools and the generator's
 * frontier plot read it here). */
#define TRIANGLE_DEFAULT_B 8
#define TRIANGLE_DEFAULT_T 1024
#define TRIANGLE_DEFAULT_C 768
#define TRIANGLE_DEFAULT_NH 12
#define TRIANGLE_SHAPE_TEXT_(x) #x
#define TRIANGLE_SHAPE_TEXT(x) TRIANGLE_SHAPE_TEXT_(x)
/* As the CSV's shape column writes it: "B=8 T=1024 C=768 NH=12". */
#define TRIANGLE_DEFAULT_SHAPE                                                        \
    "B=" TRIANGLE_SHAPE_TEXT(TRIANGLE_DEFAULT_B) " T=" TRIANGLE_SHAPE_TEXT(TRIANGLE_DEFAULT_T) \
    " C=" TRIANGLE_SHAPE_TEXT(TRIANGLE_DEFAULT_C) " NH=" TRIANGLE_SHAPE_TEXT(TRIANGLE_DEFAULT_NH)

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

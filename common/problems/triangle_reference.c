/* triangle_reference.c - see triangle_reference.h. */
#include "problems/triangle_reference.h"

#include <math.h>

size_t triangle_input_count(triangle_size s)
{
    return (size_t)s.B * s.T * 3 * s.NH * s.HS;
}

size_t triangle_output_count(triangle_size s)
{
    return (size_t)s.B * s.NH * s.T * s.T;
}

double triangle_useful_flops(triangle_size s)
{
    return 2.0 * s.HS * s.B * s.NH * (double)s.T * (s.T + 1) / 2.0;
}

double triangle_compulsory_bytes(triangle_size s)
{
    double q_and_k = 2.0 * s.B * s.T * s.NH * s.HS;
    double kept_scores = (double)s.B * s.NH * s.T * (s.T + 1) / 2.0;
    return 4.0 * (q_and_k + kept_scores);
}

void triangle_reference(double *preatt, const float *inp, triangle_size s)
{
    const long C = (long)s.NH * s.HS;
    const double scale = 1.0 / sqrt((double)s.HS);
    const long rows = (long)s.B * s.NH * s.T;

#pragma omp parallel for schedule(dynamic, 16)
    for (long row = 0; row < rows; row++) {
        long b = row / ((long)s.NH * s.T), h = (row / s.T) % s.NH, i = row % s.T;
        const float *query = inp + (b * s.T + i) * 3 * C + h * s.HS;
        double *out = preatt + row * s.T;
        for (long j = 0; j < s.T; j++) {
            if (j > i) {
                out[j] = 0.0;
                continue;
            }
            const float *key = inp + (b * s.T + j) * 3 * C + C + h * s.HS;
            double sum = 0.0;
            for (int k = 0; k < s.HS; k++)
                sum += (double)query[k] * (double)key[k];
            out[j] = sum * scale;
        }
    }
}

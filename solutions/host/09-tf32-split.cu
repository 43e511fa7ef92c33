/* solutions/host/09-tf32-split.cu - the host check of exercise 9.1:
 * split_tf32 over a million floats drawn like the program's inputs (in
 * +-1), and the three products emulated on dot products of them as the
 * tensor core computes them: TF32 operands multiplied exactly, the 13 low
 * bits of an operand it is handed as it is dropped. Other magnitudes are
 * the GPU's to try (--input-scale). */
#include EXERCISE_FILE
#undef main

#include "host_check.h"

/* What the tensor core makes of an operand: its 13 low bits dropped. */
static double as_operand(uint32_t bits)
{
    return (double)float_of(bits & 0xffffe000u);
}

int main(void)
{
    unsigned state = 4242;
    float x[64], y[64];
    char why[200] = "";
    int failed = 0;
    for (int k = 0; k < 1000000 && !failed; k++) {
        state = state * 1664525u + 1013904223u;
        const float value = (float)((state >> 8) * (2.0 / 16777216.0) - 1.0);
        const tf32_pair pair = split_tf32(value);
        const float big = float_of(pair.big), small = float_of(pair.small);
        const double nearest = fabs((double)value - big);
        if ((pair.big & 0x1fffu) != 0) {
            snprintf(why, sizeof why, "split_tf32(%.9g): big = %.9g is not a TF32 value (its 13 "
                     "low bits are %#x)", value, big, pair.big & 0x1fffu);
            failed = 1;
        } else if ((float)(big + small) != value || (double)big + small != value) {
            snprintf(why, sizeof why, "split_tf32(%.9g): big %.9g + small %.9g is not x", value,
                     big, small);
            failed = 1;
        } else if (nearest > ldexp(fabs(value), -11) * 1.0000001) {
            snprintf(why, sizeof why, "split_tf32(%.9g): big = %.9g is not the TF32 value "
                     "nearest to x", value, big);
            failed = 1;
        }
    }
    if (failed)
        host_check(0, "split_tf32", "%s", why);
    else
        host_check(1, "split_tf32", "a million floats in +-1: big the nearest TF32 value, "
                   "big + small exactly x");

    double worst = 0.0;
    for (int trial = 0; trial < 2000 && !failed; trial++) {
        double exact = 0.0, three = 0.0, size = 0.0;
        for (int k = 0; k < 64; k++) {
            state = state * 1664525u + 1013904223u;
            x[k] = (float)((state >> 8) * (2.0 / 16777216.0) - 1.0);
            state = state * 1664525u + 1013904223u;
            y[k] = (float)((state >> 8) * (2.0 / 16777216.0) - 1.0);
            const tf32_pair a = split_tf32(x[k]), b = split_tf32(y[k]);
            exact += (double)x[k] * y[k];
            size += fabs((double)x[k] * y[k]);
            three += as_operand(a.small) * as_operand(b.big) +
                     as_operand(a.big) * as_operand(b.small) +
                     as_operand(a.big) * as_operand(b.big);
        }
        const double error = fabs(three - exact) / size;
        if (error > worst)
            worst = error;
    }
    if (!failed && worst <= 1e-6)
        host_check(1, "three products", "dot products of 64 within %.1e of their size in "
                   "double, with the small parts cut as the tensor core cuts them", worst);
    else if (!failed)
        host_check(0, "three products", "a dot product of 64 errs by %.2g of its size: your "
                   "split does not leave the three products FP32's accuracy", worst);
    return host_check_status();
}

/* rng.h - a small seeded random generator that gives the same numbers on
 * every platform and compiler (unlike rand()), so a failing input can be
 * reproduced from the seed a program prints.
 *
 * The generator is SplitMix64 (Steele, Lea and Flood, 2014): one 64-bit
 * state, one addition and a mixing function per draw. Plenty for test data.
 */
#ifndef WORKBOOK_RNG_H
#define WORKBOOK_RNG_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    uint64_t state;
} rng_t;

#define RNG_DEFAULT_SEED 20261129u

void rng_seed(rng_t *rng, uint64_t seed);
uint64_t rng_next_u64(rng_t *rng);
/* Uniform in [lo, hi), with 24 random bits (every float in a unit
 * interval's grid of 2^-24 is reachable). */
float rng_uniform(rng_t *rng, float lo, float hi);
void rng_fill_uniform(rng_t *rng, float *values, size_t count, float lo, float hi);

#ifdef __cplusplus
}
#endif

#endif

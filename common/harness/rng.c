/* rng.c - SplitMix64; see rng.h. */
#include "harness/rng.h"

void rng_seed(rng_t *rng, uint64_t seed) { rng->state = seed; }

uint64_t rng_next_u64(rng_t *rng)
{
    uint64_t z = (rng->state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

float rng_uniform(rng_t *rng, float lo, float hi)
{
    /* The top 24 bits make a float in [0, 1) exactly. */
    float unit = (float)(rng_next_u64(rng) >> 40) * (1.0f / 16777216.0f);
    return lo + (hi - lo) * unit;
}

void rng_fill_uniform(rng_t *rng, float *values, size_t count, float lo, float hi)
{
    for (size_t i = 0; i < count; i++)
        values[i] = rng_uniform(rng, lo, hi);
}

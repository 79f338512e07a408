/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* Deterministic randomness for the emulator: a seeded generator for per-transaction fault decisions,
 * and a stateless hash for the demo motion, which must be a pure function of (seed, time) because
 * samples are computed lazily, in whatever order the host's port accesses ask for them. */

#include <stdint.h>

#define SIM_DEFAULT_SEED 0x74706163u /* "tpac": used when SimOptions.seed is 0 */

/* splitmix64 finaliser: a well-mixed 64-bit hash of x. */
static inline uint64_t sim_hash64(uint64_t x)
{
        x += 0x9E3779B97F4A7C15ull;
        x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
        x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
        return x ^ (x >> 31);
}

/* Hash of (seed, salt, index) mapped to [0, 1). */
static inline double sim_hash_unit(uint32_t seed, uint32_t salt, uint64_t index)
{
        uint64_t h = sim_hash64(sim_hash64(((uint64_t) seed << 32) | salt) ^ index);
        return (double) (h >> 11) * (1.0 / 9007199254740992.0); /* 53 bits */
}

/* The sequential generator: state advances on every draw. */
typedef struct SimRng {
        uint64_t state;
} SimRng;

static inline void sim_rng_init(SimRng *rng, uint32_t seed)
{
        rng->state = seed;
}

/* Next value in [0, 1). */
static inline double sim_rng_unit(SimRng *rng)
{
        rng->state += 0x9E3779B97F4A7C15ull;
        return (double) (sim_hash64(rng->state) >> 11) * (1.0 / 9007199254740992.0);
}

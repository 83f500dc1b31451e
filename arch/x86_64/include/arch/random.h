/* The CPU's random-number instructions, for getrandom(2) (arch/x86_64/random.c). */
#ifndef FULCRUM_ARCH_RANDOM_H
#define FULCRUM_ARCH_RANDOM_H

#include "lib/types.h"

/*
 * 64 random bits from RDSEED, else RDRAND (each retried a few times, as
 * Intel advises): true, or false when the CPU has neither or they keep
 * failing (the caller then uses its own seeded generator).
 */
bool arch_random_u64(u64 *out);

#endif

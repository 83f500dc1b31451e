/*
 * CPU masks: a fixed-size bitmap of MAX_CPUS bits, one per logical CPU, with
 * the set algebra the scheduler's topology code needs and Linux's list
 * printing ("0-3,8-11"). Plain data: copy one with `=`, no allocation.
 */
#ifndef FULCRUM_LIB_CPUMASK_H
#define FULCRUM_LIB_CPUMASK_H

#include "lib/compiler.h"
#include "lib/types.h"
#include "machine.h"

#define CPUMASK_WORDS ((MAX_CPUS + 63) / 64)

_Static_assert(MAX_CPUS % 64 == 0, "cpumask words are whole: no bits past MAX_CPUS to mask off");

struct cpumask {
	u64 bits[CPUMASK_WORDS];
};

#define CPUMASK_EMPTY     \
	{                 \
		{         \
			0 \
		}         \
	}

static inline void cpumask_clear(struct cpumask *m)
{
	for (u32 w = 0; w < CPUMASK_WORDS; w++)
		m->bits[w] = 0;
}

/* Sets CPUs [first, end); CPUs at or past MAX_CPUS are ignored. */
static inline void cpumask_set_range(struct cpumask *m, u32 first, u32 end)
{
	for (u32 cpu = first; cpu < end && cpu < MAX_CPUS; cpu++)
		m->bits[cpu / 64] |= 1ULL << (cpu % 64);
}

/* The single-CPU operations ignore a CPU number at or past MAX_CPUS. */
static inline void cpumask_set_cpu(u32 cpu, struct cpumask *m)
{
	if (cpu < MAX_CPUS)
		m->bits[cpu / 64] |= 1ULL << (cpu % 64);
}

static inline void cpumask_clear_cpu(u32 cpu, struct cpumask *m)
{
	if (cpu < MAX_CPUS)
		m->bits[cpu / 64] &= ~(1ULL << (cpu % 64));
}

static inline bool cpumask_test_cpu(u32 cpu, const struct cpumask *m)
{
	return cpu < MAX_CPUS && (m->bits[cpu / 64] >> (cpu % 64)) & 1;
}

/* dst = a & b; dst may be a or b (likewise for or and andnot). */
static inline void cpumask_and(struct cpumask *dst, const struct cpumask *a, const struct cpumask *b)
{
	for (u32 w = 0; w < CPUMASK_WORDS; w++)
		dst->bits[w] = a->bits[w] & b->bits[w];
}

static inline void cpumask_or(struct cpumask *dst, const struct cpumask *a, const struct cpumask *b)
{
	for (u32 w = 0; w < CPUMASK_WORDS; w++)
		dst->bits[w] = a->bits[w] | b->bits[w];
}

/* dst = a & ~b */
static inline void cpumask_andnot(struct cpumask *dst, const struct cpumask *a,
				  const struct cpumask *b)
{
	for (u32 w = 0; w < CPUMASK_WORDS; w++)
		dst->bits[w] = a->bits[w] & ~b->bits[w];
}

static inline bool cpumask_equal(const struct cpumask *a, const struct cpumask *b)
{
	for (u32 w = 0; w < CPUMASK_WORDS; w++)
		if (a->bits[w] != b->bits[w])
			return false;
	return true;
}

/* Is every CPU of a also in b? */
static inline bool cpumask_subset(const struct cpumask *a, const struct cpumask *b)
{
	for (u32 w = 0; w < CPUMASK_WORDS; w++)
		if (a->bits[w] & ~b->bits[w])
			return false;
	return true;
}

static inline bool cpumask_intersects(const struct cpumask *a, const struct cpumask *b)
{
	for (u32 w = 0; w < CPUMASK_WORDS; w++)
		if (a->bits[w] & b->bits[w])
			return true;
	return false;
}

static inline bool cpumask_empty(const struct cpumask *m)
{
	for (u32 w = 0; w < CPUMASK_WORDS; w++)
		if (m->bits[w])
			return false;
	return true;
}

/*
 * Population count by bit arithmetic: the compiler's builtin becomes a call
 * into libgcc (which the kernel does not link) on CPUs without POPCNT.
 */
static inline u32 cpumask_word_weight(u64 x)
{
	x = x - ((x >> 1) & 0x5555555555555555ULL);
	x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
	x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0fULL;
	return (u32)((x * 0x0101010101010101ULL) >> 56);
}

/* Number of CPUs in m. */
static inline u32 cpumask_weight(const struct cpumask *m)
{
	u32 n = 0;

	for (u32 w = 0; w < CPUMASK_WORDS; w++)
		n += cpumask_word_weight(m->bits[w]);
	return n;
}

/* The lowest CPU in m above cpu (any CPU when cpu is -1 as u32); MAX_CPUS if none. */
static inline u32 cpumask_next(u32 cpu, const struct cpumask *m)
{
	u32 next = cpu + 1; /* -1 wraps to 0 */
	u32 w;
	u64 word;

	if (next >= MAX_CPUS)
		return MAX_CPUS;
	w = next / 64;
	word = m->bits[w] & (~0ULL << (next % 64));
	while (!word) {
		if (++w >= CPUMASK_WORDS)
			return MAX_CPUS;
		word = m->bits[w];
	}
	return w * 64 + (u32)__builtin_ctzll(word);
}

/* The lowest CPU in m; MAX_CPUS if m is empty. */
static inline u32 cpumask_first(const struct cpumask *m)
{
	return cpumask_next((u32)-1, m);
}

/* Visits every CPU of m in increasing order; cpu is a u32 (MAX_CPUS after the loop). */
#define for_each_cpu(cpu, m) \
	for ((cpu) = cpumask_first(m); (cpu) < MAX_CPUS; (cpu) = cpumask_next((cpu), (m)))

/*
 * Prints m as Linux's CPU list ("0-3,8-11", "5", "" when empty) into buf,
 * NUL-terminated when size > 0. Returns the length the whole list has, as
 * snprintf does, so a return >= size means it was cut short.
 */
int cpumask_print(char *buf, size_t size, const struct cpumask *m);

#endif

/*
 * Weights and load: nice levels as CFS weights, the weighted time delta
 * every vruntime update goes through, the latency tunables and their
 * CPU-count scaling, and the per-CPU cpu_load[] history that balancing
 * reads. Linux 3.8's numbers and rules throughout (docs/linux-scheduler-facts.md sections 1-2, 10).
 */
#include "sched/load.h"

#include "cmdline.h"
#include "lib/errno.h"
#include "lib/string.h"
#include "sched/sched.h"

typedef unsigned __int128 u128;

/* ---------------------------------------------------------------- weights */

/*
 * Weight of nice -20..19. One nice level is a factor of about 1.25, so two
 * CPU-bound tasks one level apart split a CPU about 55:45 (a 10% swing);
 * nice 0 is NICE_0_LOAD.
 */
const int prio_to_weight[40] = {
	/* -20 */ 88761, 71755, 56483, 46273, 36291,
	/* -15 */ 29154, 23254, 18705, 14949, 11916,
	/* -10 */ 9548,	 7620,	6100,  4904,  3906,
	/*  -5 */ 3121,	 2501,	1991,  1586,  1277,
	/*   0 */ 1024,	 820,	655,   526,   423,
	/*   5 */ 335,	 272,	215,   172,   137,
	/*  10 */ 110,	 87,	70,    56,    45,
	/*  15 */ 36,	 29,	23,    18,    15,
};

/* 2^32 / prio_to_weight[i]: turns the division by a weight into a multiply. */
const u32 prio_to_wmult[40] = {
	/* -20 */ 48388,     59856,	76040,	   92818,     118348,
	/* -15 */ 147320,    184698,	229616,	   287308,    360437,
	/* -10 */ 449829,    563644,	704093,	   875809,    1099582,
	/*  -5 */ 1376151,   1717300,	2157191,   2708050,   3363326,
	/*   0 */ 4194304,   5237765,	6557202,   8165337,   10153587,
	/*   5 */ 12820798,  15790321,	19976592,  24970740,  31350126,
	/*  10 */ 39045157,  49367440,	61356676,  76695844,  95443717,
	/*  15 */ 119304647, 148102320, 186737708, 238609294, 286331153,
};

/* SCHED_IDLE tasks weigh less than nice 19: they run only when nothing else wants to. */
#define WEIGHT_IDLEPRIO 3
#define WMULT_IDLEPRIO	1431655765

void set_load_weight(struct task *p)
{
	int nice = p->nice < NICE_MIN ? NICE_MIN : p->nice > NICE_MAX ? NICE_MAX : p->nice;

	if (p->policy == SCHED_IDLE) {
		p->load.weight = WEIGHT_IDLEPRIO;
		p->load.inv_weight = WMULT_IDLEPRIO;
		return;
	}
	p->load.weight = (unsigned long)prio_to_weight[nice - NICE_MIN];
	p->load.inv_weight = prio_to_wmult[nice - NICE_MIN];
}

/* A sum of weights changes: its inverse is recomputed on next use. */
void update_load_add(struct load_weight *lw, unsigned long inc)
{
	lw->weight += inc;
	lw->inv_weight = 0;
}

void update_load_sub(struct load_weight *lw, unsigned long dec)
{
	lw->weight -= dec;
	lw->inv_weight = 0;
}

#define WMULT_CONST  (1ULL << 32)
#define WMULT_SHIFT  32
#define LONG_MAX_U64 ((u64)0x7fffffffffffffffULL)

/* x / 2^y rounded to nearest. */
#define SRR(x, y) (((x) + ((u128)1 << ((y)-1))) >> (y))

/* 2^32 / w, with Linux's ends: 1 for w >= 2^32, 2^32 for w == 0. */
static u64 inverse_weight(unsigned long w)
{
	if (w >= WMULT_CONST)
		return 1;
	if (w == 0)
		return WMULT_CONST;
	return WMULT_CONST / w;
}

/*
 * delta * weight / lw->weight, as Linux 3.8 computes it:
 *
 *   inv = 2^32 / lw->weight              (cached in lw->inv_weight)
 *   tmp = delta * weight                 (delta alone when weight <= 1)
 *   tmp > 2^32 ? ((tmp >> 16) * inv) >> 16 : (tmp * inv) >> 32
 *
 * each shift rounding to nearest, and the result clamped to LONG_MAX. The
 * product is 128-bit, so huge deltas do not wrap as they would in 3.8's
 * u64; there is no 128-bit division (the kernel links no libgcc). The
 * inverse of a weight of 0 or 1 does not fit the u32 cache and is simply
 * recomputed each time.
 */
u64 calc_delta_mine(u64 delta, unsigned long weight, struct load_weight *lw)
{
	u64 inv = lw->inv_weight;
	u128 tmp;

	if (!inv) {
		inv = inverse_weight(lw->weight);
		if (inv < WMULT_CONST)
			lw->inv_weight = (u32)inv;
	}
	tmp = weight > 1 ? (u128)delta * weight : (u128)delta;
	if (tmp > WMULT_CONST)
		tmp = SRR(SRR(tmp, 16) * inv, 16);
	else
		tmp = SRR(tmp * inv, WMULT_SHIFT);
	return tmp > LONG_MAX_U64 ? LONG_MAX_U64 : (u64)tmp;
}

/* ---------------------------------------------------------------- tunables */

/*
 * The boot options hold normalised (1-CPU) values; sched_update_tunables()
 * turns them into the effective ones. Bounds are Linux's sysctl bounds.
 */
static s64 normalized_sched_latency = 6000000;		  /* 6 ms */
static s64 normalized_sched_min_granularity = 750000;	  /* 0.75 ms */
static s64 normalized_sched_wakeup_granularity = 1000000; /* 1 ms */
static s64 normalized_sched_migration_cost = 500000;	  /* 0.5 ms, never scaled */

BOOT_OPTION_INT(sched_latency_ns, "sched_latency_ns", &normalized_sched_latency, 100000, 1000000000,
		"CFS period for up to sched_nr_latency tasks, ns (1-CPU value)");
BOOT_OPTION_INT(sched_min_granularity_ns, "sched_min_granularity_ns",
		&normalized_sched_min_granularity, 100000, 1000000000,
		"CFS minimum slice before tick preemption, ns (1-CPU value)");
BOOT_OPTION_INT(sched_wakeup_granularity_ns, "sched_wakeup_granularity_ns",
		&normalized_sched_wakeup_granularity, 0, 1000000000,
		"vruntime lead a wakee needs to preempt, ns (1-CPU value)");
BOOT_OPTION_INT(sched_migration_cost_ns, "sched_migration_cost_ns", &normalized_sched_migration_cost,
		0, 0x7fffffff, "a task that ran this recently is cache-hot, ns (not scaled)");

/* The 1-CPU values until sched_update_tunables() runs. */
u64 sysctl_sched_latency = 6000000;
u64 sysctl_sched_min_granularity = 750000;
u64 sysctl_sched_wakeup_granularity = 1000000;
u64 sysctl_sched_migration_cost = 500000;
u32 sched_nr_latency = 8;

static u32 ilog2_u32(u32 x)
{
	return 31 - (u32)__builtin_clz(x);
}

/*
 * Linux's SCHED_TUNABLESCALING_LOG: more CPUs make a wake-up's wait for a
 * CPU less likely, so the latency targets grow with log2 of the CPU count,
 * capped at 8 CPUs: factor 1, 2, 3, 4 for 1, 2-3, 4-7, 8+ CPUs. The
 * migration cost is a cache property and is not scaled.
 */
void sched_update_tunables(u32 ncpus)
{
	u32 cpus = ncpus < 1 ? 1 : ncpus > 8 ? 8 : ncpus;
	u64 factor = 1 + ilog2_u32(cpus);

	sysctl_sched_latency = factor * (u64)normalized_sched_latency;
	sysctl_sched_min_granularity = factor * (u64)normalized_sched_min_granularity;
	sysctl_sched_wakeup_granularity = factor * (u64)normalized_sched_wakeup_granularity;
	sysctl_sched_migration_cost = (u64)normalized_sched_migration_cost;
	/* How many tasks fit in one latency period at the minimum slice, rounded up. */
	sched_nr_latency = (u32)((sysctl_sched_latency + sysctl_sched_min_granularity - 1) /
				 sysctl_sched_min_granularity);
}

/* The run-time knobs, as Linux 3.8's /proc/sys/kernel/sched_* show them: effective values. */
static const struct {
	const char *name;
	s64 *normalized;
	u64 *effective;
	bool scaled; /* by 1 + log2(CPUs) */
	s64 min, max;
} tunables[] = {
	{ "sched_latency_ns", &normalized_sched_latency, &sysctl_sched_latency, true, 100000,
	  1000000000 },
	{ "sched_min_granularity_ns", &normalized_sched_min_granularity,
	  &sysctl_sched_min_granularity, true, 100000, 1000000000 },
	{ "sched_wakeup_granularity_ns", &normalized_sched_wakeup_granularity,
	  &sysctl_sched_wakeup_granularity, true, 0, 1000000000 },
	{ "sched_migration_cost_ns", &normalized_sched_migration_cost, &sysctl_sched_migration_cost,
	  false, 0, 0x7fffffff },
};

const char *sched_tunable_name(u32 i)
{
	return i < sizeof(tunables) / sizeof(tunables[0]) ? tunables[i].name : NULL;
}

int sched_tunable_get(const char *name, u64 *value)
{
	for (u32 i = 0; i < sizeof(tunables) / sizeof(tunables[0]); i++)
		if (strcmp(tunables[i].name, name) == 0) {
			*value = READ_ONCE(*tunables[i].effective);
			return 0;
		}
	return -ENOENT;
}

int sched_tunable_set(const char *name, u64 value, u32 ncpus)
{
	u32 cpus = ncpus < 1 ? 1 : ncpus > 8 ? 8 : ncpus;
	u64 factor = 1 + ilog2_u32(cpus);

	for (u32 i = 0; i < sizeof(tunables) / sizeof(tunables[0]); i++) {
		if (strcmp(tunables[i].name, name))
			continue;
		/* Like Linux: the value written is the effective one; the 1-CPU value follows from it. */
		if (tunables[i].scaled)
			value /= factor;
		if ((s64)value < tunables[i].min || (s64)value > tunables[i].max)
			return -EINVAL;
		*tunables[i].normalized = (s64)value;
		sched_update_tunables(ncpus);
		return 0;
	}
	return -ENOENT;
}

/* ---------------------------------------------------------------- cpu_load[] */

/*
 * cpu_load[i] is an exponential average of rq->load.weight sampled at each
 * tick, with weight 1/2^i for the new sample:
 *
 *   cpu_load[i] = (cpu_load[i] * (2^i - 1) + load) / 2^i
 *
 * so index 0 is the instant load and index 4 remembers about 16 ticks. A
 * rising load is rounded up (load + 2^i - 1) so that a constant load is
 * eventually reached rather than approached from below forever; a falling
 * one rounds down and reaches 0.
 *
 * For ticks that passed without an update, the old value is decayed as if
 * the load had been 0: by ((2^i - 1) / 2^i)^n for n missed ticks. The
 * powers are tabulated in 7-bit fixed point for n = 1, 2, 4, ..., 128
 * (one column per bit of n), and past degrade_zero_ticks[i] ticks nothing
 * is left.
 */
#define DEGRADE_SHIFT 7

static const u8 degrade_zero_ticks[CPU_LOAD_IDX_MAX] = { 0, 8, 32, 64, 128 };
/* clang-format off */
static const u8 degrade_factor[CPU_LOAD_IDX_MAX][DEGRADE_SHIFT + 1] = {
	{ 0, 0, 0, 0, 0, 0, 0, 0 },
	{ 64, 32, 8, 0, 0, 0, 0, 0 },
	{ 96, 72, 40, 12, 1, 0, 0, 0 },
	{ 112, 98, 75, 43, 15, 1, 0, 0 },
	{ 120, 112, 98, 76, 45, 16, 2, 0 },
};
/* clang-format on */

unsigned long decay_load_missed(unsigned long load, unsigned long missed, int idx)
{
	int j = 0;

	if (!missed)
		return load;
	if (missed >= degrade_zero_ticks[idx])
		return 0;
	if (idx == 1) /* (1/2)^n exactly */
		return load >> missed;
	for (; missed; missed >>= 1, j++)
		if (missed & 1)
			load = (load * degrade_factor[idx][j]) >> DEGRADE_SHIFT;
	return load;
}

void update_cpu_load_pending(struct rq *rq, unsigned long this_load, unsigned long pending)
{
	unsigned long scale = 2;

	if (pending < 1)
		pending = 1;
	rq->cpu_load[0] = this_load;
	for (int i = 1; i < CPU_LOAD_IDX_MAX; i++, scale += scale) {
		unsigned long old_load = decay_load_missed(rq->cpu_load[i], pending - 1, i);
		unsigned long new_load = this_load;

		if (new_load > old_load)
			new_load += scale - 1;
		rq->cpu_load[i] = (old_load * (scale - 1) + new_load) >> i;
	}
}

/* The tick is periodic on every CPU, idle ones included: one update per tick. */
void update_cpu_load(struct rq *rq)
{
	update_cpu_load_pending(rq, rq->load.weight, 1);
}

/* ---------------------------------------------------------------- readers */

unsigned long weighted_cpuload(u32 cpu)
{
	return READ_ONCE(cpu_rq(cpu)->load.weight);
}

unsigned long source_load(u32 cpu, int type)
{
	unsigned long total = weighted_cpuload(cpu);
	unsigned long hist;

	if (type == 0 || !sched_feat(LB_BIAS))
		return total;
	hist = READ_ONCE(cpu_rq(cpu)->cpu_load[type - 1]);
	return MIN(hist, total);
}

unsigned long target_load(u32 cpu, int type)
{
	unsigned long total = weighted_cpuload(cpu);
	unsigned long hist;

	if (type == 0 || !sched_feat(LB_BIAS))
		return total;
	hist = READ_ONCE(cpu_rq(cpu)->cpu_load[type - 1]);
	return MAX(hist, total);
}

unsigned long cpu_avg_load_per_task(u32 cpu)
{
	struct rq *rq = cpu_rq(cpu);
	u32 nr = READ_ONCE(rq->nr_running);

	return nr ? READ_ONCE(rq->load.weight) / nr : 0;
}

unsigned long power_of(u32 cpu)
{
	return READ_ONCE(cpu_rq(cpu)->cpu_power);
}

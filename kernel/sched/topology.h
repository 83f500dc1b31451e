/*
 * Scheduling domains, built from a struct machine together with the
 * per-generation data other code hooks in (Michael Wang's balance map) and
 * published as whole generations: what the scheduler's placement and
 * load-balancing code reads to know which CPUs are near.
 */
#ifndef FULCRUM_SCHED_TOPOLOGY_H
#define FULCRUM_SCHED_TOPOLOGY_H

#include "lib/compiler.h"
#include "lib/cpumask.h"
#include "lib/types.h"
#include "machine.h"

/*
 * READER CONTRACT -- read this before touching a domain.
 *
 * Everything built for one topology (every CPU's domains, their groups, the
 * balance maps) lives in one struct sched_topology, a *generation*. A
 * rebuild builds a complete new generation off to the side, checks it, and
 * publishes it with a single atomic pointer store (release). Nothing in a
 * published generation is ever modified or freed while a reader may hold it.
 *
 *   1. Load the generation ONCE per operation (a wake-up, a fork placement,
 *      one load-balancing pass):  t = sched_topology_current();
 *      and reach every domain, group and map entry through that t only.
 *      Never mix pointers from two sched_topology_current() calls.
 *   2. Hold no pointer into t across a quiescent point: the CPU's call of
 *      sched_topology_quiescent() (scheduler tick, idle loop) or anything
 *      that sleeps or reschedules. After the quiescent point, load again.
 *   3. Readers take no lock. Where a tick could land in the middle of the
 *      operation and report a quiescent point (the load balancer runs with
 *      interrupts on), bracket it with t = sched_topology_read_begin(cpu)
 *      ... sched_topology_read_end(cpu) on the CPU doing the reading: two
 *      per-CPU stores, and a quiescent point inside does not count. With
 *      interrupts off for the whole operation (a wake-up under the task's
 *      lock), sched_topology_current() alone is enough.
 *   4. NULL is a normal answer and must be handled: cpu_sd() is NULL for a
 *      CPU that is alone or not in the generation's online mask, a balance
 *      map entry is NULL where the level does not exist or lacks the flag,
 *      and the affine map is NULL where no wake-affine domain spans both.
 *      NULL never means "being rebuilt".
 *
 * This is what makes the crash (linux-scheduler-facts.md 16) impossible here: in Linux with
 * the sbm patch, during a reboot, a wake-up read a per-CPU map entry while
 * CPUs were being taken offline and their domains torn down, and
 * wake_affine() was handed a NULL domain. Here a reader sees either the old generation or
 * the new one, each complete and consistent, never a half-built mix. An old
 * generation is freed only after every CPU that could hold it has passed a
 * quiescent point (see sched_topology_quiescent()).
 *
 * The levels, bottom-up (a row per level; the first CPU's view on a
 * 2-socket, 2-core, 2-thread machine with one node per socket):
 *
 *   level 4+ NUMA  [ 0  1  2  3  4  5  6  7 ]  nodes within SLIT distance d
 *   level 3  NODE  [ 0  1  2  3 ]              same node   (removed: = PKG)
 *   level 2  PKG   [ 0  1  2  3 ]              same package (removed: = MC)
 *   level 1  MC    [ 0  1  2  3 ]              same last-level cache
 *   level 0  SMT   [ 0  1 ]                    same core: hardware threads
 *
 * A level whose span is no bigger than the one below (and adds no flag that
 * means something) is degenerate and left out of the CPU's chain; the
 * others keep their level number, so levels in a chain may have gaps.
 */

/* Domain flags; Linux 3.8's values. */
#define SD_LOAD_BALANCE	       0x0001 /* balance load across this domain's groups */
#define SD_BALANCE_NEWIDLE     0x0002 /* balance when a CPU is about to go idle */
#define SD_BALANCE_EXEC	       0x0004 /* place an exec'ing task in this domain */
#define SD_BALANCE_FORK	       0x0008 /* place a forked task in this domain */
#define SD_BALANCE_WAKE	       0x0010 /* place a waking task (no level has it, as in 3.8) */
#define SD_WAKE_AFFINE	       0x0020 /* a wakee may be pulled next to its waker */
#define SD_SHARE_CPUCAPACITY   0x0080 /* SMT siblings: share one core's capacity */
#define SD_SHARE_CPUPOWER      SD_SHARE_CPUCAPACITY /* Linux 3.8's name */
#define SD_SHARE_PKG_RESOURCES 0x0200		    /* share the last-level cache */
#define SD_SERIALIZE	       0x0400 /* one CPU machine-wide balances such domains at a time */
#define SD_PREFER_SIBLING      0x1000 /* the parent should spread tasks to sibling groups */
#define SD_OVERLAP	       0x2000 /* groups may overlap (NUMA levels) */
#define SD_NUMA		       0x4000 /* spans several NUMA nodes */

#define SCHED_POWER_SHIFT 10
#define SCHED_POWER_SCALE (1U << SCHED_POWER_SHIFT) /* a full CPU's power */
#define SD_SMT_GAIN	  1178 /* a whole SMT core is ~15% more than one thread */
#define RECLAIM_DISTANCE  30   /* NUMA levels at most this far are wake-affine */

/*
 * A group: a set of CPUs a domain balances as one unit. A domain's groups
 * form a circular list; the list of a non-overlapping level is shared by
 * every CPU of the domain's span, each starting it at its own group.
 */
struct sched_group {
	struct sched_group *next; /* circular */
	u32 power;		  /* sum of its CPUs' power (SCHED_POWER_SCALE per full CPU) */
	u32 capacity;		  /* tasks it can run at full speed: power rounded, at least 1 */
	u32 weight;		  /* number of CPUs */
	u32 balance_cpu;	  /* the CPU that balances on the group's behalf: its first */
	struct cpumask cpus;
};

/*
 * A domain's schedstat counters, in /proc/schedstat version 15 order. The
 * lb_ rows are per idle type of the balancing CPU: [0] CPU_IDLE, [1]
 * CPU_NOT_IDLE, [2] CPU_NEWLY_IDLE (enum cpu_idle_type, sched/balance.h).
 * Statistics, not state: updated without a lock, by the domain's CPU
 * except alb_ (the busiest CPU's stopper) and sbe_/sbf_/ttwu_ (placement,
 * select.c). Like the balancer state they start at 0 in every generation.
 */
#define SD_IDLE_TYPES 3

struct sched_domain_stats {
	u64 lb_count[SD_IDLE_TYPES];	       /* load_balance() calls */
	u64 lb_balanced[SD_IDLE_TYPES];	       /* ... that found nothing to do */
	u64 lb_failed[SD_IDLE_TYPES];	       /* ... that found an imbalance but moved nothing */
	u64 lb_imbalance[SD_IDLE_TYPES];       /* sum of the imbalances found (weighted load) */
	u64 lb_gained[SD_IDLE_TYPES];	       /* tasks pulled */
	u64 lb_hot_gained[SD_IDLE_TYPES];      /* ... of which cache-hot */
	u64 lb_nobusyq[SD_IDLE_TYPES];	       /* busiest group found, but no queue to pull from */
	u64 lb_nobusyg[SD_IDLE_TYPES];	       /* no busier group */
	u64 alb_count, alb_failed, alb_pushed; /* active balancing by the stopper */
	u64 sbe_count, sbe_balanced, sbe_pushed;		   /* SD_BALANCE_EXEC placements */
	u64 sbf_count, sbf_balanced, sbf_pushed;		   /* SD_BALANCE_FORK placements */
	u64 ttwu_wake_remote, ttwu_move_affine, ttwu_move_balance; /* wake-ups */
};

/* One CPU's domain at one level. */
struct sched_domain {
	struct sched_domain *parent; /* NULL at the top */
	struct sched_domain *child;  /* NULL at the base */
	struct sched_group *groups;  /* circular; the first holds this domain's CPU */
	const char *name;	     /* the level's: "SMT", "MC", "PKG", "NODE", "NUMA" */
	int level;		     /* index in the generation's level table */
	u32 flags;		     /* SD_* */
	u32 span_weight;
	struct cpumask span;

	/* Balancing parameters, Linux 3.8's defaults for the level (sd_init()). */
	u32 min_interval; /* ms */
	u32 max_interval; /* ms */
	u32 busy_factor;  /* interval multiplier while the CPU is busy */
	u32 imbalance_pct;
	u32 cache_nice_tries;
	u32 busy_idx, idle_idx, newidle_idx, wake_idx, forkexec_idx;
	u32 smt_gain;

	/*
	 * Balancer state, written only by the CPU owning the domain. It starts
	 * afresh in every generation, as Linux's does on a rebuild.
	 */
	u32 balance_interval; /* ms; starts at min_interval */
	u32 nr_balance_failed;
	u64 last_balance;

	/* schedstat counters (balance.c counts, stats.c prints); see below. */
	struct sched_domain_stats stats;
};

/* What a generation knows about one CPU; all NULL/zero for a CPU not online in it. */
struct sched_topology_cpu {
	struct sched_domain *sd;     /* base of the chain */
	struct sched_domain *sd_llc; /* highest domain sharing the LLC (SD_SHARE_PKG_RESOURCES) */
	u32 llc_id;		     /* first CPU of sd_llc's span; the CPU itself without one */
	u32 llc_size;		     /* CPUs in sd_llc; 1 without one */
};

/* The fixed rows of every generation's level table; NUMA levels follow, one per distance. */
enum sd_fixed_level { SD_LV_SMT, SD_LV_MC, SD_LV_PKG, SD_LV_NODE, SD_LV_NUMA };

/* One row of the level table: how a level's spans and flags are made. */
struct sd_level {
	void (*mask)(const struct machine *m, const struct sd_level *tl, u32 cpu,
		     struct cpumask *span);
	u32 flags;
	const char *name;
	u32 distance; /* NUMA levels: the SLIT distance reached; 0 otherwise */
};

/* Machine facts for the summary line, counted over the online CPUs. */
enum llc_sharing { LLC_PER_CORE, LLC_PER_PACKAGE, LLC_PER_NODE, LLC_SPLIT_PACKAGE, LLC_OTHER };

struct topology_summary {
	u32 packages, nodes, cores, threads, llcs;
	enum llc_sharing llc;
};

struct topo_chunk;
struct sched_topology;

/*
 * Per-generation data beyond the domains, owned by whoever needs it: a
 * placement variant's precomputed answers (the balance map, balance_map.c)
 * or a lab's own tables. Its file defines the hook with one line,
 *
 *	SCHED_TOPOLOGY_EXT(balance_map) = { .name = "balance map", .build = sbm_build };
 *
 * and every generation built from then on calls build(t, &data) after the
 * domains and before the checks: it fills *data with memory from
 * topo_alloc(t, ...), which goes away with the generation (so there is no
 * free hook), and returns 0, or -ENOMEM to fail the whole build. Readers
 * get *data back through sched_topology_ext_data(); it is NULL in the empty
 * generation before the first build. The generation code calls the hooks
 * in link order and knows none of them by name.
 */
struct sched_topology_ext {
	const char *name;
	int (*build)(struct sched_topology *t, void **data);
};

#define SCHED_TOPOLOGY_EXT(id)                                                    \
	const struct sched_topology_ext sched_topology_ext_##id __used __section( \
		"sched_topology_exts") __aligned(8)

#define SCHED_TOPOLOGY_EXTS_MAX 4

/* The registered hooks, in link order (the linker's bounds of their section). */
extern const struct sched_topology_ext __start_sched_topology_exts[] __attribute__((weak));
extern const struct sched_topology_ext __stop_sched_topology_exts[] __attribute__((weak));

/* A generation. Read-only once published. */
struct sched_topology {
	u64 gen;	       /* 1 for the first built; 0 is the empty one before any */
	u32 nr_cpus;	       /* CPU numbers valid here: 0 .. nr_cpus - 1 */
	u32 nr_levels;	       /* rows in levels[] */
	struct cpumask online; /* the CPUs it was built for */
	const struct sd_level *levels;
	struct sched_topology_cpu *cpu; /* [nr_cpus] */
	struct topology_summary summary;
	void *ext[SCHED_TOPOLOGY_EXTS_MAX]; /* each hook's data, by its place in the section */

	/* Private to the builder and the grace-period code. */
	struct topo_chunk *chunks;	     /* every byte of the generation */
	struct sched_topology *retired_next; /* waiting to be freed */
	u64 retired_at;			     /* generation that replaced it */
	struct cpumask wait_cpus;	     /* CPUs that must pass a quiescent point */
};

/* ---------------------------------------------------------------- readers */

/*
 * The published generation (acquire). Never NULL: before the first rebuild
 * it is an empty generation in which every accessor answers NULL.
 */
struct sched_topology *sched_topology_current(void);

/*
 * The same, marking a read section on cpu (the CPU calling it, with
 * preemption off): until the matching sched_topology_read_end(cpu), a
 * quiescent point reported on cpu (say, by a tick interrupting the reader)
 * is ignored. Sections nest.
 */
struct sched_topology *sched_topology_read_begin(u32 cpu);
void sched_topology_read_end(u32 cpu);

/* The base of cpu's domain chain in t, or NULL (alone, offline, out of range). */
static inline struct sched_domain *cpu_sd(const struct sched_topology *t, u32 cpu)
{
	return cpu < t->nr_cpus ? t->cpu[cpu].sd : NULL;
}

/* Walks cpu's domains bottom-up. */
#define for_each_domain(t, cpu, sd) for ((sd) = cpu_sd((t), (cpu)); (sd); (sd) = (sd)->parent)

/* Walks a domain's groups once round the ring, starting at the domain's own. */
#define for_each_sd_group(sg, sd) \
	for ((sg) = (sd)->groups; (sg); (sg) = (sg)->next == (sd)->groups ? NULL : (sg)->next)

static inline const struct cpumask *sd_span(const struct sched_domain *sd)
{
	return &sd->span;
}

static inline const struct cpumask *sg_span(const struct sched_group *sg)
{
	return &sg->cpus;
}

/* The data ext's build hook made for generation t, or NULL (the empty generation). */
static inline void *sched_topology_ext_data(const struct sched_topology *t,
					    const struct sched_topology_ext *ext)
{
	size_t i = (size_t)(ext - __start_sched_topology_exts);

	return i < SCHED_TOPOLOGY_EXTS_MAX ? t->ext[i] : NULL;
}

/* The highest domain of cpu sharing its last-level cache, or NULL. */
static inline struct sched_domain *sd_llc(const struct sched_topology *t, u32 cpu)
{
	return cpu < t->nr_cpus ? t->cpu[cpu].sd_llc : NULL;
}

/*
 * Do a and b share a last-level cache in generation t? Only CPUs in t's
 * online mask have entries; any other CPU shares with none (its zeroed
 * llc_id would otherwise match CPU 0's).
 */
static inline bool cpus_share_cache(const struct sched_topology *t, u32 a, u32 b)
{
	if (a >= t->nr_cpus || b >= t->nr_cpus || !cpumask_test_cpu(a, &t->online) ||
	    !cpumask_test_cpu(b, &t->online))
		return false;
	return a == b || t->cpu[a].llc_id == t->cpu[b].llc_id;
}

/* ---------------------------------------------------------------- writers */

/*
 * Builds, checks and publishes a new generation for the CPUs of m that are
 * in online (NULL: all of them). The old generation stays valid for its
 * readers and is freed after a grace period. On failure (-EINVAL: a bad
 * machine description or a built topology that fails its checks, -ENOMEM)
 * nothing is published and the current generation is untouched. Rebuilds
 * may come from any CPU; concurrent ones publish in turn.
 */
int sched_topology_rebuild(const struct machine *m, const struct cpumask *online);

/*
 * Called by each CPU from its timer tick (kernel_timer_tick, after the
 * scheduler's) and its idle loop, holding no pointer into any generation
 * outside a read section (rules 2 and 3 above): records that this CPU has
 * seen the current generation, and frees retired generations whose grace
 * period is over. Any context, interrupts included; never waits. A CPU
 * that has not called it yet counts as a reader that has not reported, so
 * grace periods wait for it; after sched_topology_cpu_offline() it must
 * call this before it reads again.
 */
void sched_topology_quiescent(u32 cpu);

/*
 * Called by a CPU that stops scheduling for good (going offline, halting),
 * after its last read: from now on it never holds the current generation,
 * so no grace period waits for it. Its next sched_topology_quiescent()
 * makes it a reader again.
 */
void sched_topology_cpu_offline(u32 cpu);

/* Retired generations still waiting for their grace period. */
u32 sched_topology_pending(void);

/* ------------------------------------------------ building without publishing */

/*
 * Builds and checks a generation without publishing it (for tools and
 * tests); free it with sched_topology_free(). *out is NULL on failure.
 */
int sched_topology_build(const struct machine *m, const struct cpumask *online,
			 struct sched_topology **out);

/*
 * size bytes of zeroed, 16-byte aligned memory belonging to t, for a
 * build hook (see struct sched_topology_ext); NULL when out of memory.
 */
void *topo_alloc(struct sched_topology *t, size_t size);

/* Frees a generation that was never published. NULL is ignored. */
void sched_topology_free(struct sched_topology *t);

/*
 * Checks a built generation: each span contains its CPU and its child's,
 * the groups of a domain cover its span (disjoint ones unless SD_OVERLAP)
 * with the CPU in the first, group powers set, the balance map (if built)
 * consistent with the chains. Prints each problem with pr_err; 0 or -EINVAL.
 */
int sched_topology_validate(const struct sched_topology *t);

/* --------------------------------------------------------------- printing */

/* Set by the boot options sched_debug and sched_verbose: print every rebuild. */
extern bool sched_debug_enabled;

/* "topology: 2 packages, 2 nodes, 4 cores, 8 threads, LLC per package" */
void sched_topology_print_summary(const struct sched_topology *t);

/*
 * The sched_busy_factor= override every domain built from now on takes
 * (0: each level's own, Linux 3.8's), for sched_model=; boot time only.
 */
void sched_busy_factor_set(u32 factor);
u32 sched_busy_factor_get(void);

/* The level table, then per CPU its domains and groups, Linux style, then its balance map. */
void sched_topology_print_debug(const struct sched_topology *t);

/*
 * Host tests only: forgets every generation (without freeing: the test's
 * fake RAM went away) and every CPU's quiescent state.
 */
void sched_topology_reset_for_tests(void);

#endif

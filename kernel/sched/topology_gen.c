/*
 * Topology generations: their memory and the extension hooks that fill
 * it, publishing a new one with a single pointer store, and freeing an old
 * one only after a grace period in which every CPU that could be reading
 * it has passed a quiescent point.
 */
#include "sched/topology.h"

#include <arch/smp.h>

#include "lib/errno.h"
#include "lib/spinlock.h"
#include "lib/string.h"
#include "mm/heap.h"
#include "printk.h"
#include "sched/topology_internal.h"
#include "trace/trace.h"

/* ---------------------------------------------------------------- memory */

#define TOPO_ALIGN     16
#define TOPO_CHUNK_HDR ALIGN_UP(sizeof(struct topo_chunk), TOPO_ALIGN)

static void *chunk_take(struct topo_chunk *c, size_t size)
{
	void *p;

	if (!c || c->size - c->used < size)
		return NULL;
	p = (u8 *)c + TOPO_CHUNK_HDR + c->used;
	c->used += size;
	return p;
}

#define TOPO_POISON 0x6b

/* A chunk with room for at least size bytes: TOPO_CHUNK_BYTES, or more for a big object. */
static struct topo_chunk *chunk_new(size_t size)
{
	size_t bytes = MAX((size_t)TOPO_CHUNK_BYTES, TOPO_CHUNK_HDR + size);
	struct topo_chunk *c = kzalloc(bytes);

	if (c)
		c->size = bytes - TOPO_CHUNK_HDR;
	return c;
}

struct sched_topology *topo_create(void)
{
	struct topo_chunk *c = chunk_new(sizeof(struct sched_topology));
	struct sched_topology *t;

	if (!c)
		return NULL;
	t = chunk_take(c, ALIGN_UP(sizeof(*t), TOPO_ALIGN));
	t->chunks = c;
	return t;
}

/* Objects are carved from the newest chunk; a full one is left with its tail unused. */
void *topo_alloc(struct sched_topology *t, size_t size)
{
	struct topo_chunk *c;
	void *p;

	if (!size || size > ((size_t)1 << 30))
		return NULL;
	size = ALIGN_UP(size, TOPO_ALIGN);
	p = chunk_take(t->chunks, size);
	if (p)
		return p;
	c = chunk_new(size);
	if (!c)
		return NULL;
	c->next = t->chunks;
	t->chunks = c;
	return chunk_take(c, size);
}

int topo_build_exts(struct sched_topology *t)
{
	const struct sched_topology_ext *ext = __start_sched_topology_exts;

	for (size_t i = 0; ext && ext + i < __stop_sched_topology_exts; i++) {
		int err;

		if (i >= SCHED_TOPOLOGY_EXTS_MAX) {
			pr_err("topology: more than %d extensions, '%s' not built\n",
			       SCHED_TOPOLOGY_EXTS_MAX, ext[i].name);
			return -ENOSPC;
		}
		err = ext[i].build(t, &t->ext[i]);
		if (err)
			return err;
	}
	return 0;
}

void sched_topology_free(struct sched_topology *t)
{
	struct topo_chunk *c, *next;

	if (!t)
		return;
	/*
	 * t lives in its oldest chunk: take the list before freeing anything.
	 * Poison first (non-canonical pointers, impossible counts), so a reader
	 * that outlived its grace period faults at once instead of reading
	 * stale but plausible domains.
	 */
	for (c = t->chunks; c; c = next) {
		next = c->next;
		memset((u8 *)c + TOPO_CHUNK_HDR, TOPO_POISON, c->size);
		kfree(c);
	}
}

/* ------------------------------------------------------------ publishing */

/* What readers see before the first rebuild: no CPUs, so every accessor answers NULL. */
static struct sched_topology empty_topology;

static struct sched_topology *published = &empty_topology;
static u64 published_gen; /* published->gen, readable without touching published */

/*
 * Per CPU, written only by the CPU itself, a cache line each (ticks write
 * them all the time):
 * seen_gen: the newest generation number the CPU had seen at its last
 *	quiescent point; it can hold nothing older. SEEN_OFFLINE: it holds
 *	nothing at all. 0 (never reported) for a CPU that never called in, so
 *	a rebuild waits for it to be safe.
 * read_depth: open sched_topology_read_begin() sections; a quiescent point
 *	reported from an interrupt that landed inside one does not count.
 */
#define SEEN_OFFLINE (~0ULL)

struct topo_cpu_state {
	u64 seen_gen;
	u32 read_depth;
} __aligned(64);

static struct topo_cpu_state cpu_state[MAX_CPUS];

/* Serialises publishing and the retired list; never taken by readers. */
static struct spinlock gen_lock = SPINLOCK_INIT;
static struct sched_topology *retired; /* newest first */
static u32 nr_retired;

struct sched_topology *sched_topology_current(void)
{
	return __atomic_load_n(&published, __ATOMIC_ACQUIRE);
}

/* Has every CPU that could hold r passed a quiescent point since r was replaced? */
static bool grace_period_over(const struct sched_topology *r)
{
	u32 cpu;

	for_each_cpu (cpu, &r->wait_cpus)
		if (__atomic_load_n(&cpu_state[cpu].seen_gen, __ATOMIC_ACQUIRE) < r->retired_at)
			return false;
	return true;
}

/* Frees the retired generations nobody can hold any more. Holds gen_lock. */
static void reclaim_locked(void)
{
	struct sched_topology **pp = &retired;

	while (*pp) {
		struct sched_topology *r = *pp;

		if (grace_period_over(r)) {
			*pp = r->retired_next;
			sched_topology_free(r);
			/* After the free: a waiter that sees 0 pending finds the memory back. */
			__atomic_store_n(&nr_retired, nr_retired - 1, __ATOMIC_RELEASE);
		} else {
			pp = &r->retired_next;
		}
	}
}

/* Reclaim from a tick or the idle loop: never waits for a rebuild in progress. */
static void try_reclaim(void)
{
	if (__atomic_load_n(&nr_retired, __ATOMIC_RELAXED) && spin_trylock(&gen_lock)) {
		reclaim_locked();
		spin_unlock(&gen_lock);
	}
}

int sched_topology_rebuild(const struct machine *m, const struct cpumask *online)
{
	unsigned long flags;
	struct sched_topology *t, *old;
	int err = sched_topology_build(m, online, &t);

	if (err) {
		pr_err("topology: rebuild failed (%d), generation %llu stays\n", err,
		       (unsigned long long)__atomic_load_n(&published_gen, __ATOMIC_RELAXED));
		return err;
	}
	flags = spin_lock_irqsave(&gen_lock); /* irqs off: never preempted holding it */
	old = published;
	t->gen = published_gen + 1;
	if (sched_debug_enabled) /* before anyone else can see, let alone retire, it */
		sched_topology_print_debug(t);
	__atomic_store_n(&published, t, __ATOMIC_RELEASE);
	__atomic_store_n(&published_gen, t->gen, __ATOMIC_RELEASE);
	trace_sched_topology((u32)t->gen, cpumask_weight(&t->online), t->nr_levels);
	/*
	 * Our store of `published` before our loads of seen_gen, against a
	 * returning CPU's store of seen_gen before its load of `published`
	 * (sched_topology_quiescent()): with a full fence on both sides, either
	 * we see its store and wait for it, or it sees the new generation.
	 */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (old != &empty_topology) {
		old->retired_at = t->gen;
		/*
		 * Any CPU running the scheduler may hold old, even one left out
		 * of both generations' domains (a CPU being taken out of
		 * balancing still wakes tasks): wait for every online CPU.
		 */
		cpumask_or(&old->wait_cpus, &old->online, &t->online);
		for (u32 cpu = 0; cpu < m->nr_cpus; cpu++)
			if (arch_cpu_online(cpu))
				cpumask_set_cpu(cpu, &old->wait_cpus);
		old->retired_next = retired;
		retired = old;
		__atomic_store_n(&nr_retired, nr_retired + 1, __ATOMIC_RELAXED);
	}
	reclaim_locked();
	spin_unlock_irqrestore(&gen_lock, flags);
	return 0;
}

struct sched_topology *sched_topology_read_begin(u32 cpu)
{
	if (cpu < MAX_CPUS) {
		__atomic_store_n(&cpu_state[cpu].read_depth, cpu_state[cpu].read_depth + 1,
				 __ATOMIC_RELAXED);
		/* Only this CPU's own interrupts look at read_depth: a compiler barrier will do. */
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
	}
	return sched_topology_current();
}

void sched_topology_read_end(u32 cpu)
{
	if (cpu >= MAX_CPUS || !cpu_state[cpu].read_depth)
		return;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	__atomic_store_n(&cpu_state[cpu].read_depth, cpu_state[cpu].read_depth - 1, __ATOMIC_RELAXED);
}

void sched_topology_quiescent(u32 cpu)
{
	u64 gen;

	if (cpu >= MAX_CPUS)
		return;
	if (__atomic_load_n(&cpu_state[cpu].read_depth, __ATOMIC_RELAXED)) {
		try_reclaim(); /* interrupted a reader: not a quiescent point for this CPU */
		return;
	}
	/* Everything this CPU read from older generations is ordered before the store (release). */
	gen = __atomic_load_n(&published_gen, __ATOMIC_ACQUIRE);
	__atomic_store_n(&cpu_state[cpu].seen_gen, gen, __ATOMIC_RELEASE);
	/* Pairs with the fence in sched_topology_rebuild(). */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	try_reclaim();
}

void sched_topology_cpu_offline(u32 cpu)
{
	if (cpu >= MAX_CPUS)
		return;
	__atomic_store_n(&cpu_state[cpu].seen_gen, SEEN_OFFLINE, __ATOMIC_RELEASE);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	try_reclaim();
}

u32 sched_topology_pending(void)
{
	return __atomic_load_n(&nr_retired, __ATOMIC_ACQUIRE);
}

void sched_topology_reset_for_tests(void)
{
	gen_lock = (struct spinlock)SPINLOCK_INIT;
	published = &empty_topology;
	retired = NULL;
	nr_retired = 0;
	published_gen = 0;
	for (u32 cpu = 0; cpu < MAX_CPUS; cpu++)
		cpu_state[cpu] = (struct topo_cpu_state){ 0 };
}

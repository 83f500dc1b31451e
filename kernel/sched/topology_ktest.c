/*
 * In-kernel test of live topology rebuilds (`ktest=sched_topology_live_rebuild`):
 * every other online CPU walks its domains and balance map in a loop while
 * the boot CPU publishes new generations. No reader may ever see a NULL
 * domain where its snapshot has one, a span without its own CPU, or a
 * child wider than its parent (the sbm crash, linux-scheduler-facts.md 16, made impossible by
 * generations); and once the readers stop, every retired generation is
 * freed.
 */
#include <arch/cpu.h>
#include <arch/smp.h>
#include <arch/time.h>

#include "ktest.h"
#include "machine_boot.h"
#include "mm/heap.h"
#include "sched/balance_map.h"
#include "sched/topology.h"

#define REBUILDS      40
#define GRACE_WAIT_NS 2000000000ULL

static volatile bool stop_readers;
static volatile u32 readers_done, reader_errors;
static volatile u64 reads[MAX_CPUS];

/* One walk over cpu's snapshot; returns false on anything a torn topology would show. */
static bool snapshot_ok(const struct sched_topology *t, u32 cpu)
{
	const struct sched_domain *sd;
	u32 levels = 0;

	if (!cpu_sd(t, cpu))
		return false; /* an online CPU of a multi-CPU machine always has domains */
	for_each_domain (t, cpu, sd) {
		if (!cpumask_test_cpu(cpu, sd_span(sd)) || !sd->groups)
			return false;
		if (sd->child && !cpumask_subset(sd_span(sd->child), sd_span(sd)))
			return false;
		if (++levels > t->nr_levels)
			return false;
	}
	for (u32 other = 0; other < t->nr_cpus; other++) {
		const struct sched_domain *a = sbm_affine_sd(t, cpu, other);

		if (a && (!cpumask_test_cpu(cpu, sd_span(a)) || !cpumask_test_cpu(other, sd_span(a))))
			return false;
	}
	return true;
}

static void reader_loop(void *arg)
{
	u32 cpu = arch_cpu_id();

	while (!READ_ONCE(stop_readers)) {
		const struct sched_topology *t = sched_topology_read_begin(cpu);

		if (!snapshot_ok(t, cpu))
			__atomic_add_fetch(&reader_errors, 1, __ATOMIC_RELAXED);
		sched_topology_read_end(cpu);
		reads[cpu]++;
	}
	__atomic_add_fetch(&readers_done, 1, __ATOMIC_RELEASE);
}

KTEST(sched_topology_live_rebuild);
static int sched_topology_live_rebuild(void)
{
	const struct machine *m = machine_current();
	struct heap_stats before, after;
	struct cpumask online;
	u32 readers = 0, failed_rebuilds = 0, self;
	u64 deadline;

	cpumask_clear(&online);
	for (u32 cpu = 0; cpu < m->nr_cpus; cpu++)
		if (arch_cpu_online(cpu))
			cpumask_set_cpu(cpu, &online);
	heap_get_stats(&before);
	stop_readers = false;
	readers_done = reader_errors = 0;
	self = arch_cpu_id(); /* this test may run on any CPU: the others read */
	for (u32 cpu = 0; cpu < m->nr_cpus; cpu++) {
		reads[cpu] = 0;
		if (cpu != self && arch_cpu_online(cpu) &&
		    arch_call_on_cpu(cpu, reader_loop, NULL, false) == 0)
			readers++;
	}
	for (int i = 0; i < REBUILDS; i++)
		if (sched_topology_rebuild(m, &online))
			failed_rebuilds++;
	WRITE_ONCE(stop_readers, true);
	deadline = arch_clock_ns() + GRACE_WAIT_NS;
	while (READ_ONCE(readers_done) < readers && arch_clock_ns() < deadline)
		arch_cpu_relax();
	/* Ticks on every CPU report quiescent points; then the retired generations go. */
	while (sched_topology_pending() && arch_clock_ns() < deadline)
		arch_wait_for_interrupt();
	heap_get_stats(&after);

	pr_info("KTEST sched_topology_live_rebuild: %d rebuilds, %u readers, %u torn reads, %u pending, heap objects %llu -> %llu\n",
		REBUILDS, readers, reader_errors, sched_topology_pending(),
		(unsigned long long)before.objects, (unsigned long long)after.objects);
	KTEST_EXPECT(failed_rebuilds == 0);
	KTEST_EXPECT(readers_done == readers);
	KTEST_EXPECT(reader_errors == 0);
	for (u32 cpu = 0; cpu < m->nr_cpus; cpu++)
		KTEST_EXPECT(cpu == self || !arch_cpu_online(cpu) || reads[cpu] > 0);
	KTEST_EXPECT(sched_topology_pending() == 0);
	KTEST_EXPECT(after.objects == before.objects);
	return 0;
}

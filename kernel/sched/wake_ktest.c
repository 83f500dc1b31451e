/*
 * In-kernel tests of wake-ups between threads (`selftest=sched`):
 *
 * - sched_wake_pairs: pairs of threads that wake each other (sync
 *   wake-ups, as a pipe's writer makes) must end up sharing a last-level
 *   cache: wake_affine pulls the wakee towards the waker and
 *   select_idle_sibling then picks an idle CPU of the waker's LLC.
 * - sched_rebuild_under_wakeups: the same pairs, unpinned, keep waking
 *   and migrating while the topology is rebuilt 1,000 times, every other
 *   time without the last CPU's domains, so wake-ups and balancing keep
 *   meeting CPUs with no domain at all (the sbm crash, linux-scheduler-facts.md 16, by design
 *   impossible here).
 */
#include <arch/cpu.h>
#include <arch/smp.h>
#include <arch/time.h>

#include "ktest.h"
#include "machine_boot.h"
#include "mm/heap.h"
#include "sched/sched.h"
#include "sched/topology.h"
#include "sched/wait.h"

#define MAX_PAIRS     4
#define WARMUP_ROUNDS 50

struct wake_pair {
	struct wait_queue wq;
	volatile int turn; /* which side may run: 0 or 1 */
	volatile bool stop;
	volatile u32 waker_cpu; /* where the last wake-up came from */
	u64 rounds[2];		/* hand-overs each side made */
	u64 same_llc,
		measured; /* after the warm-up: wake-ups that found the wakee in the waker's LLC */
	struct task *side[2];
};

struct pair_side {
	struct wake_pair *pair;
	int me;
};

static struct wake_pair pairs[MAX_PAIRS];
static struct pair_side sides[MAX_PAIRS][2];

static bool share_llc(u32 a, u32 b)
{
	const struct machine *m = machine_current();

	return a == b || (a < m->nr_cpus && b < m->nr_cpus && m->cpu[a].llc == m->cpu[b].llc);
}

/* Hands the turn to the other side with a sync wake-up, then waits for it back. */
static void pair_side_run(void *arg)
{
	struct pair_side *s = arg;
	struct wake_pair *wp = s->pair;
	int other = 1 - s->me;

	while (!READ_ONCE(wp->stop)) {
		wait_event(&wp->wq, READ_ONCE(wp->turn) == s->me || READ_ONCE(wp->stop));
		if (READ_ONCE(wp->stop))
			break;
		/* Our turn: we were just woken by the other side (or started). */
		if (wp->rounds[0] + wp->rounds[1] > WARMUP_ROUNDS) {
			wp->measured++;
			wp->same_llc += share_llc(READ_ONCE(wp->waker_cpu), arch_cpu_id());
		}
		wp->rounds[s->me]++;
		WRITE_ONCE(wp->waker_cpu, arch_cpu_id());
		WRITE_ONCE(wp->turn, other);
		wake_up_all_sync(&wp->wq, true);
	}
	wake_up_all(&wp->wq);
}

static int pairs_start(u32 n)
{
	for (u32 i = 0; i < n; i++) {
		struct wake_pair *wp = &pairs[i];

		*wp = (struct wake_pair){ .turn = 0 };
		wait_queue_init(&wp->wq);
		for (int side = 0; side < 2; side++) {
			sides[i][side] = (struct pair_side){ .pair = wp, .me = side };
			wp->side[side] = kthread_create(pair_side_run, &sides[i][side],
							"ktest-pair", 0);
			if (!wp->side[side])
				return -1;
		}
	}
	return 0;
}

static void pairs_stop(u32 n)
{
	for (u32 i = 0; i < n; i++) {
		WRITE_ONCE(pairs[i].stop, true);
		wake_up_all(&pairs[i].wq);
	}
	for (u32 i = 0; i < n; i++)
		for (int side = 0; side < 2; side++)
			if (pairs[i].side[side])
				task_reap(pairs[i].side[side]);
}

static u32 pairs_for_machine(void)
{
	u32 n = sched_nr_cpus() / 4;

	return n < 1 ? 1 : n > MAX_PAIRS ? MAX_PAIRS : n;
}

KTEST(sched_wake_pairs);
static int sched_wake_pairs(void)
{
	u32 n = pairs_for_machine();
	u64 measured = 0, same = 0;

	KTEST_EXPECT(pairs_start(n) == 0);
	sched_sleep_ns(300000000);
	pairs_stop(n);
	for (u32 i = 0; i < n; i++) {
		measured += pairs[i].measured;
		same += pairs[i].same_llc;
	}
	pr_info("KTEST sched_wake_pairs: %u pairs, %llu wake-ups measured, %llu (%llu%%) within the waker's LLC\n",
		n, (unsigned long long)measured, (unsigned long long)same,
		(unsigned long long)(measured ? same * 100 / measured : 0));
	KTEST_EXPECT(measured >= 100 * n);
	/* Balancing may move a side now and then; the wake-up path must bring it back. */
	KTEST_EXPECT(same * 100 >= measured * 90);
	return 0;
}

#define REBUILDS    1000
#define MAX_PENDING 8

KTEST(sched_rebuild_under_wakeups);
static int sched_rebuild_under_wakeups(void)
{
	const struct machine *m = machine_current();
	struct cpumask all, fewer;
	struct heap_stats before, after;
	u32 n = pairs_for_machine(), failed = 0, last = 0;
	u64 rounds_before = 0, rounds_after = 0, deadline;

	cpumask_clear(&all);
	for (u32 cpu = 0; cpu < m->nr_cpus; cpu++)
		if (arch_cpu_online(cpu)) {
			cpumask_set_cpu(cpu, &all);
			last = cpu;
		}
	fewer = all;
	if (cpumask_weight(&all) > 1)
		cpumask_clear_cpu(last, &fewer);
	heap_get_stats(&before);
	KTEST_EXPECT(pairs_start(n) == 0);
	sched_sleep_ns(20000000);
	for (u32 i = 0; i < n; i++)
		rounds_before += pairs[i].rounds[0] + pairs[i].rounds[1];
	for (int i = 0; i < REBUILDS; i++) {
		if (sched_topology_rebuild(m, i % 2 ? &fewer : &all))
			failed++;
		/* Let grace periods pass now and then, so retired generations do not pile up. */
		while (sched_topology_pending() > MAX_PENDING)
			sched_sleep_ns(1000000);
	}
	for (u32 i = 0; i < n; i++)
		rounds_after += pairs[i].rounds[0] + pairs[i].rounds[1];
	pairs_stop(n);
	if (sched_topology_rebuild(m, &all)) /* end as the boot left it */
		failed++;
	deadline = arch_clock_ns() + 2000000000ULL;
	while (sched_topology_pending() && arch_clock_ns() < deadline)
		sched_sleep_ns(1000000);
	heap_get_stats(&after);
	pr_info("KTEST sched_rebuild_under_wakeups: %d rebuilds (every other without cpu%u's domains), %u pairs made %llu wake-ups meanwhile, %u pending, heap objects %llu -> %llu\n",
		REBUILDS, cpumask_equal(&all, &fewer) ? MAX_CPUS : last, n,
		(unsigned long long)(rounds_after - rounds_before), sched_topology_pending(),
		(unsigned long long)before.objects, (unsigned long long)after.objects);
	KTEST_EXPECT(failed == 0);
	KTEST_EXPECT(rounds_after > rounds_before); /* the load kept waking throughout */
	KTEST_EXPECT(sched_topology_pending() == 0);
	KTEST_EXPECT(after.objects == before.objects);
	return 0;
}

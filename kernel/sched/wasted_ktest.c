/*
 * In-kernel test of the wasted-CPU accounting (stats.c) and of its online
 * check, sched_wasted_check: a scene with a known wasted core. The last
 * CPU is left out of the scheduling domains (a live rebuild), so nothing
 * balances onto it, and two spinners allowed on it and on its neighbour
 * both land on the neighbour: one always waits while the left-out CPU
 * idles. That is the "decade of wasted cores" bug made on purpose.
 */
#include <arch/smp.h>
#include <arch/time.h>

#include "ktest.h"
#include "machine_boot.h"
#include "sched/sched.h"
#include "sched/topology.h"

#define WASTED_SPIN_MS	400
#define WASTED_MIN_MS	200 /* of the 400: placement and the first ticks take a little */
#define WASTED_SPINNERS 2

static volatile bool wasted_stop;

static void wasted_spin(void *arg)
{
	while (!READ_ONCE(wasted_stop))
		;
}

KTEST(wasted_idle_check);
static int wasted_idle_check(void)
{
	const struct machine *m = machine_current();
	struct cpumask all = CPUMASK_EMPTY, fewer, pair = CPUMASK_EMPTY;
	struct task *t[WASTED_SPINNERS];
	u32 idle = 0, busy;
	u64 before, wasted_ms;

	for (u32 cpu = 0; cpu < m->nr_cpus; cpu++)
		if (arch_cpu_online(cpu)) {
			cpumask_set_cpu(cpu, &all);
			idle = cpu;
		}
	if (cpumask_weight(&all) < 2 || idle == 0) {
		pr_info("KTEST wasted_idle_check: needs two CPUs\n");
		return KTEST_SKIP;
	}
	busy = idle - 1;
	fewer = all;
	cpumask_clear_cpu(idle, &fewer);
	cpumask_set_cpu(busy, &pair);
	cpumask_set_cpu(idle, &pair);
	KTEST_EXPECT(sched_topology_rebuild(m, &fewer) == 0);
	before = cpu_rq(idle)->stats.wasted_idle_ns;
	wasted_stop = false;
	for (int i = 0; i < WASTED_SPINNERS; i++) {
		t[i] = task_create(wasted_spin, NULL, "wasted_spin", 0, &pair, 0);
		KTEST_EXPECT(t[i] != NULL);
		task_get(t[i]); /* ours, for task_reap */
		task_wake_new(t[i]);
	}
	sched_sleep_ns(WASTED_SPIN_MS * 1000000ULL);
	wasted_ms = (cpu_rq(idle)->stats.wasted_idle_ns - before) / 1000000;
	wasted_stop = true;
	for (int i = 0; i < WASTED_SPINNERS; i++)
		KTEST_EXPECT(task_reap(t[i]) == 0);
	KTEST_EXPECT(sched_topology_rebuild(m, &all) == 0); /* as the boot left it */
	pr_info("KTEST wasted_idle_check: cpu%u out of the domains wasted %llu ms of %u while two "
		"spinners shared cpu%u\n",
		idle, (unsigned long long)wasted_ms, WASTED_SPIN_MS, busy);
	KTEST_EXPECT(wasted_ms >= WASTED_MIN_MS);
	return 0;
}

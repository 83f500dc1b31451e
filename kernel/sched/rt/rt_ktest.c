/*
 * In-kernel tests of the real-time class on the real machine: a FIFO
 * spinner at priority 99 on every CPU does not hang it (throttling gives
 * fair tasks their 5%), and two SCHED_RR tasks of one priority on one CPU
 * share it slice by slice.
 */
#include <arch/smp.h>

#include "ktest.h"
#include "machine_boot.h"
#include "sched/rt/rt.h"
#include "sched/sched.h"

#define NSEC_PER_MSEC 1000000ULL
#define RT_KTEST_CPUS 8

static volatile bool rt_ktest_stop;

static void rt_ktest_spin(void *arg)
{
	while (!READ_ONCE(rt_ktest_stop))
		;
}

/* A spinner pinned on cpu with policy/prio (SCHED_NORMAL 0: a fair one), woken; a reference held. */
static struct task *spinner_on(u32 cpu, const char *name, int policy, u32 prio)
{
	struct cpumask one = CPUMASK_EMPTY;
	struct task *t;

	cpumask_set_cpu(cpu, &one);
	t = task_create(rt_ktest_spin, NULL, name, 0, &one, 0);
	if (!t)
		return NULL;
	task_get(t); /* ours, for task_reap */
	if (policy != SCHED_NORMAL && sched_setscheduler_task(t, policy, prio)) {
		task_put(t);
		return NULL;
	}
	task_wake_new(t);
	return t;
}

KTEST(rt_throttle_fifo99_every_cpu);
static int rt_throttle_fifo99_every_cpu(void)
{
	struct task *rt[RT_KTEST_CPUS], *fair[RT_KTEST_CPUS];
	u64 fair_ms[RT_KTEST_CPUS], rt_ms[RT_KTEST_CPUS];
	u32 n = 0;

	if (sysctl_sched_rt_runtime_us < 0) {
		pr_info("KTEST rt_throttle_fifo99_every_cpu: throttling is off (sched_rt_runtime_us=-1)\n");
		return KTEST_SKIP;
	}
	rt_ktest_stop = false;
	for (u32 cpu = 0; cpu < sched_nr_cpus() && n < RT_KTEST_CPUS; cpu++) {
		if (!arch_cpu_online(cpu))
			continue;
		fair[n] = spinner_on(cpu, "rt_kt_fair", SCHED_NORMAL, 0);
		rt[n] = spinner_on(cpu, "rt_kt_fifo99", SCHED_FIFO, 99);
		KTEST_EXPECT(fair[n] && rt[n]);
		n++;
	}
	/*
	 * This thread is fair too: once its sleep is over it runs only at the
	 * start of its CPU's next throttled window, whatever the period's
	 * phase. Between two such wake-ups a second apart every CPU had one
	 * whole window, the 5% its fair spinner gets.
	 */
	sched_sleep_ns(1000 * NSEC_PER_MSEC);
	for (u32 i = 0; i < n; i++) {
		fair_ms[i] = task_sched_runtime(fair[i]);
		rt_ms[i] = task_sched_runtime(rt[i]);
	}
	sched_sleep_ns(1000 * NSEC_PER_MSEC);
	for (u32 i = 0; i < n; i++) {
		fair_ms[i] = (task_sched_runtime(fair[i]) - fair_ms[i]) / NSEC_PER_MSEC;
		rt_ms[i] = (task_sched_runtime(rt[i]) - rt_ms[i]) / NSEC_PER_MSEC;
	}
	rt_ktest_stop = true;
	for (u32 i = 0; i < n; i++) {
		KTEST_EXPECT(task_reap(rt[i]) == 0);
		KTEST_EXPECT(task_reap(fair[i]) == 0);
	}
	for (u32 i = 0; i < n; i++) {
		pr_info("KTEST rt_throttle_fifo99_every_cpu: cpu %u, over one period: FIFO 99 "
			"spinner %llu ms, fair spinner %llu ms\n",
			i, (unsigned long long)rt_ms[i], (unsigned long long)fair_ms[i]);
		/* One or two throttled windows of 50 ms each went to the fair spinner. */
		KTEST_EXPECT(fair_ms[i] >= 20 && fair_ms[i] <= 200);
		KTEST_EXPECT(rt_ms[i] >= 800);
	}
	return 0;
}

KTEST(rt_rr_equal_priority_share);
static int rt_rr_equal_priority_share(void)
{
	u32 cpu = sched_nr_cpus() - 1;
	struct task *a, *b;
	u64 a_ms, b_ms, a_slices, b_slices;

	while (cpu > 0 && !arch_cpu_online(cpu))
		cpu--;
	rt_ktest_stop = false;
	a = spinner_on(cpu, "rt_kt_rr_a", SCHED_RR, 50);
	b = spinner_on(cpu, "rt_kt_rr_b", SCHED_RR, 50);
	KTEST_EXPECT(a && b);
	sched_sleep_ns(800 * NSEC_PER_MSEC);
	a_ms = task_sched_runtime(a) / NSEC_PER_MSEC;
	b_ms = task_sched_runtime(b) / NSEC_PER_MSEC;
	a_slices = READ_ONCE(a->stats.pcount);
	b_slices = READ_ONCE(b->stats.pcount);
	rt_ktest_stop = true;
	KTEST_EXPECT(task_reap(a) == 0);
	KTEST_EXPECT(task_reap(b) == 0);
	pr_info("KTEST rt_rr_equal_priority_share: cpu %u: RR 50 a %llu ms in %llu slices, b %llu ms "
		"in %llu slices\n",
		cpu, (unsigned long long)a_ms, (unsigned long long)a_slices,
		(unsigned long long)b_ms, (unsigned long long)b_slices);
	KTEST_EXPECT(a_ms + b_ms >= 400);
	KTEST_EXPECT(a_ms * 10 >= (a_ms + b_ms) * 35 / 10 && b_ms * 10 >= (a_ms + b_ms) * 35 / 10);
	KTEST_EXPECT(a_slices >= 3 && b_slices >= 3);
	return 0;
}

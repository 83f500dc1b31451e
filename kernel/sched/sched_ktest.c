/*
 * In-kernel scheduler tests, run at boot on real (emulated) CPUs:
 * `ktest=sched_kthread_lifecycle,sched_share,...` or `selftest=sched`.
 * Each measures what the scheduler itself records (runtime per task)
 * over an interval, so the verdicts do not depend on the host's speed.
 */
#include <arch/cpu.h>
#include <arch/smp.h>
#include <arch/time.h>

#include "ktest.h"
#include "mm/heap.h"
#include "sched/sched.h"

#define SPIN_TASKS_MAX 32
#define SHARE_TOLERANCE_PCT 5

struct spinner {
	struct task *task;
	volatile bool *stop;
	volatile u64 loops;
};

static void spin_until_stopped(void *arg)
{
	struct spinner *s = arg;

	while (!READ_ONCE(*s->stop))
		s->loops++;
}

static void sleep_briefly(void *arg)
{
	sched_sleep_ns(1000000);
}

/* Threads start, run, sleep and exit; reaping returns every byte and page. */
KTEST(sched_kthread_lifecycle);
static int sched_kthread_lifecycle(void)
{
	struct heap_stats before, after;
	struct task *t[16];

	heap_get_stats(&before);
	for (int round = 0; round < 4; round++) {
		for (int i = 0; i < 16; i++) {
			t[i] = kthread_create(sleep_briefly, NULL, "ktest-life", 0);
			KTEST_EXPECT(t[i] != NULL);
		}
		for (int i = 0; i < 16; i++)
			KTEST_EXPECT(task_reap(t[i]) == 0);
	}
	heap_get_stats(&after);
	KTEST_EXPECT(after.objects == before.objects);
	return 0;
}

/*
 * Runs n spinners with the given nice values for about ms milliseconds;
 * each spinner's share of the CPU time they used together, in per-mille,
 * lands in share[]. Shares are taken over each spinner's whole life (the
 * runtime the scheduler charged it by the time it exited), which is exact;
 * sampling a running task's runtime mid-way would be off by up to a tick.
 */
static int run_spinners(u32 n, const int *nice, u64 ms, u64 *share, u32 pin_cpu)
{
	static struct spinner s[SPIN_TASKS_MAX];
	static volatile bool stop;
	u64 total = 0;

	stop = false;
	for (u32 i = 0; i < n; i++) {
		s[i] = (struct spinner){ .stop = &stop };
		s[i].task = kthread_create_on_cpu(spin_until_stopped, &s[i], "ktest-spin", nice[i],
						  pin_cpu);
		if (!s[i].task)
			return -1;
	}
	sched_sleep_ns(ms * 1000000);
	WRITE_ONCE(stop, true);
	for (u32 i = 0; i < n; i++) {
		while (READ_ONCE(s[i].task->state) != TASK_DEAD)
			sched_sleep_ns(1000000);
		share[i] = READ_ONCE(s[i].task->se.sum_exec_runtime);
		total += share[i];
	}
	for (u32 i = 0; i < n; i++) {
		task_reap(s[i].task);
		share[i] = total ? share[i] * 1000 / total : 0;
	}
	return 0;
}

/* Equal spinners pinned to one CPU each get 1/n of it, within 5%. */
KTEST(sched_share_one_cpu);
static int sched_share_one_cpu(void)
{
	static const int nice[3] = { 0, 0, 0 };
	u64 share[3];
	u32 cpu = sched_nr_cpus() > 1 ? 1 : 0;

	KTEST_EXPECT(run_spinners(3, nice, 600, share, cpu) == 0);
	pr_info("KTEST sched_share_one_cpu: shares %llu %llu %llu per mille (ideal 333)\n",
		(unsigned long long)share[0], (unsigned long long)share[1],
		(unsigned long long)share[2]);
	for (int i = 0; i < 3; i++)
		KTEST_EXPECT(share[i] * 100 >= 333 * (100 - SHARE_TOLERANCE_PCT) &&
			     share[i] * 100 <= 333 * (100 + SHARE_TOLERANCE_PCT));
	return 0;
}

/* nice 0 against nice 5 on one CPU: 1024:335, i.e. 753:247 per mille, within 5% of each. */
KTEST(sched_share_nice);
static int sched_share_nice(void)
{
	static const int nice[2] = { 0, 5 };
	u64 share[2];
	u32 cpu = sched_nr_cpus() > 1 ? 1 : 0;

	KTEST_EXPECT(run_spinners(2, nice, 600, share, cpu) == 0);
	pr_info("KTEST sched_share_nice: nice 0 got %llu, nice 5 got %llu per mille (ideal 753:247)\n",
		(unsigned long long)share[0], (unsigned long long)share[1]);
	KTEST_EXPECT(share[0] * 100 >= 753 * (100 - SHARE_TOLERANCE_PCT) &&
		     share[0] * 100 <= 753 * (100 + SHARE_TOLERANCE_PCT));
	KTEST_EXPECT(share[1] * 100 >= 247 * (100 - SHARE_TOLERANCE_PCT) &&
		     share[1] * 100 <= 247 * (100 + SHARE_TOLERANCE_PCT));
	return 0;
}

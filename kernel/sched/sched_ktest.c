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
 * Runs n spinners with the given nice values; after a settling time
 * (START_DEBIT delays each newcomer by a slice) measures for ms
 * milliseconds how the CPU time they got divides among them, in
 * per-mille, into share[]. task_sched_runtime() charges a running task up
 * to the moment of reading, so the samples are exact.
 */
static int run_spinners(u32 n, const int *nice, u64 ms, u64 *share, u32 pin_cpu)
{
	static struct spinner s[SPIN_TASKS_MAX];
	static volatile bool stop;
	u64 total = 0, start[SPIN_TASKS_MAX];

	stop = false;
	for (u32 i = 0; i < n; i++) {
		s[i] = (struct spinner){ .stop = &stop };
		s[i].task = kthread_create_on_cpu(spin_until_stopped, &s[i], "ktest-spin", nice[i],
						  pin_cpu);
		if (!s[i].task)
			return -1;
	}
	sched_sleep_ns(100000000);
	for (u32 i = 0; i < n; i++)
		start[i] = task_sched_runtime(s[i].task);
	sched_sleep_ns(ms * 1000000);
	for (u32 i = 0; i < n; i++) {
		share[i] = task_sched_runtime(s[i].task) - start[i];
		total += share[i];
	}
	WRITE_ONCE(stop, true);
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

	KTEST_EXPECT(run_spinners(3, nice, 500, share, cpu) == 0);
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

	KTEST_EXPECT(run_spinners(2, nice, 500, share, cpu) == 0);
	pr_info("KTEST sched_share_nice: nice 0 got %llu, nice 5 got %llu per mille (ideal 753:247)\n",
		(unsigned long long)share[0], (unsigned long long)share[1]);
	KTEST_EXPECT(share[0] * 100 >= 753 * (100 - SHARE_TOLERANCE_PCT) &&
		     share[0] * 100 <= 753 * (100 + SHARE_TOLERANCE_PCT));
	KTEST_EXPECT(share[1] * 100 >= 247 * (100 - SHARE_TOLERANCE_PCT) &&
		     share[1] * 100 <= 247 * (100 + SHARE_TOLERANCE_PCT));
	return 0;
}

/*
 * As many unpinned spinners as CPUs, forked from one CPU: fork placement
 * and balancing must leave no CPU idle and use both sockets' CPUs (each
 * CPU ends up with one spinner on a machine this size).
 */
KTEST(sched_spread);
static int sched_spread(void)
{
	static struct spinner s[SPIN_TASKS_MAX];
	static volatile bool stop;
	u32 n = sched_nr_cpus(), per_cpu[MAX_CPUS] = { 0 }, busiest = 0, idle = 0;

	if (n > SPIN_TASKS_MAX)
		n = SPIN_TASKS_MAX;
	stop = false;
	for (u32 i = 0; i < n; i++) {
		s[i] = (struct spinner){ .stop = &stop };
		s[i].task = kthread_create(spin_until_stopped, &s[i], "ktest-spread", 0);
		KTEST_EXPECT(s[i].task != NULL);
	}
	sched_sleep_ns(300000000); /* fork placement, then periodic balancing */
	for (u32 i = 0; i < n; i++)
		per_cpu[task_cpu(s[i].task)]++;
	WRITE_ONCE(stop, true);
	for (u32 i = 0; i < n; i++)
		task_reap(s[i].task);
	for (u32 c = 0; c < sched_nr_cpus(); c++) {
		busiest = per_cpu[c] > busiest ? per_cpu[c] : busiest;
		idle += per_cpu[c] == 0;
	}
	pr_info("KTEST sched_spread: %u spinners on %u CPUs; the busiest CPU has %u, %u CPUs have none\n",
		n, sched_nr_cpus(), busiest, idle);
	KTEST_EXPECT(busiest <= 2);
	KTEST_EXPECT(idle <= 1); /* the test's own thread sleeps on one CPU: at most one spare */
	return 0;
}

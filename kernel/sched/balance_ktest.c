/*
 * In-kernel test of load balancing (`ktest=balance_spread`, the boot
 * grader of lab 5, docs/labs/lab5-balance.md).
 *
 * Two spinners per CPU are created pinned to one CPU, so fork placement
 * cannot spread them, and then let loose on every CPU. set_cpus_allowed()
 * leaves a task where it is when its CPU stays allowed, and a spinner never
 * sleeps, so wake-up placement never sees them again either: only the
 * balancer (periodic, new-idle, active) can move them. After BS_WAIT_MS
 * each CPU must run two of them, give or take one (the tolerance of the
 * lab's simulator test: 3.8 leaves 3 beside 1 within imbalance_pct on some
 * SMT pairs).
 *
 * No sched_ prefix: `selftest=sched` runs every sched_* test, and this one
 * belongs to the lab's grader and its own boot case.
 */
#include "ktest.h"
#include "lib/printf.h"
#include "sched/sched.h"

#define BS_PER_CPU  2
#define BS_TASKS    32 /* at most; 16 CPUs */
#define BS_WAIT_MS  1000
#define BS_FROM_CPU 0

static volatile bool bs_stop;

static void bs_spin(void *arg)
{
	while (!READ_ONCE(bs_stop))
		;
}

KTEST(balance_spread);
static int balance_spread(void)
{
	static struct task *t[BS_TASKS];
	u32 cpus = sched_nr_cpus(), n = BS_PER_CPU * cpus, per_cpu[MAX_CPUS] = { 0 };
	u32 lo = BS_TASKS, hi = 0, on_from = 0;
	struct cpumask all = CPUMASK_EMPTY;
	char counts[MAX_CPUS * 4] = "", *p = counts;

	if (cpus < 2 || n > BS_TASKS) {
		pr_info("KTEST balance_spread: needs 2 to %u CPUs, this machine has %u\n",
			BS_TASKS / BS_PER_CPU, cpus);
		return KTEST_SKIP;
	}
	bs_stop = false;
	cpumask_set_range(&all, 0, cpus);
	for (u32 i = 0; i < n; i++) {
		t[i] = kthread_create_on_cpu(bs_spin, NULL, "ktest-bspread", 0, BS_FROM_CPU);
		KTEST_EXPECT(t[i] != NULL);
	}
	for (u32 i = 0; i < n; i++)
		on_from += task_cpu(t[i]) == BS_FROM_CPU;
	/* Every spinner starts on one CPU, or the test proves nothing. */
	KTEST_EXPECT(on_from == n);
	for (u32 i = 0; i < n; i++)
		KTEST_EXPECT(set_cpus_allowed(t[i], &all) == 0);
	sched_sleep_ns(BS_WAIT_MS * 1000000ULL);
	for (u32 i = 0; i < n; i++)
		per_cpu[task_cpu(t[i])]++;
	WRITE_ONCE(bs_stop, true);
	for (u32 i = 0; i < n; i++)
		task_reap(t[i]);
	for (u32 c = 0; c < cpus; c++) {
		lo = per_cpu[c] < lo ? per_cpu[c] : lo;
		hi = per_cpu[c] > hi ? per_cpu[c] : hi;
		p += ksnprintf(p, counts + sizeof(counts) - p, "%s%u", c ? "/" : "", per_cpu[c]);
	}
	pr_info("KTEST balance_spread: %u spinners started on CPU %u, after %u ms tasks per CPU %s "
		"(expected %u, tolerance 1)\n",
		n, BS_FROM_CPU, BS_WAIT_MS, counts, BS_PER_CPU);
	KTEST_EXPECT(hi <= BS_PER_CPU + 1);
	KTEST_EXPECT(lo + 1 >= BS_PER_CPU);
	return 0;
}

/*
 * In-kernel test of wake-up preemption (`ktest=wakeup_latency`, the boot
 * grader of lab 3, docs/labs/lab3-sleepers.md).
 *
 * Two spinners and a sleeper share one CPU. The sleeper sleeps 30 ms and
 * then works 1 ms, twenty times over. Each time it wakes, place_entity
 * gives it the sleeper credit (half a latency period before min_vruntime),
 * which puts it more than the wake-up granularity behind the running
 * spinner, so check_preempt_wakeup preempts the spinner on the spot: the
 * sleeper's time queued (its run_delay) after a wake-up stays far under a
 * tick. Without the credit, or without the preemption, it waits until the
 * tick ends the spinner's slice. The spinners must go on sharing the rest
 * (nobody starves).
 *
 * The name has no sched_ prefix on purpose: `selftest=sched` runs every
 * sched_* test, and this one belongs only to the lab's grader.
 */
#include <arch/time.h>

#include "ktest.h"
#include "sched/sched.h"
#include "sched/task.h"
#include "sched/timed_wait.h"

#define WL_ROUNDS	 20
#define WL_SLEEP_NS	 30000000ULL /* long enough to earn the full credit */
#define WL_WORK_NS	 1000000ULL
#define WL_LATE_NS	 1000000ULL /* a wake-up that waited longer did not preempt */
#define WL_LATE_ALLOWED	 2	    /* of WL_ROUNDS, for a wake-up meeting a slice's end */
#define WL_SPINNERS	 2
#define WL_MIN_SHARE_PCT 30 /* of the elapsed time, per spinner; fair is about 48% */

static volatile bool wl_stop;
static u32 wl_late;
static u64 wl_worst_ns, wl_total_ns;

static void wl_spin(void *arg)
{
	while (!READ_ONCE(wl_stop))
		;
}

/* Sleeps and works WL_ROUNDS times; counts the wake-ups that waited over WL_LATE_NS. */
static void wl_sleeper(void *arg)
{
	struct task *self = current_task();

	for (int i = 0; i < WL_ROUNDS; i++) {
		u64 queued, start;

		sleep_ns_interruptible(WL_SLEEP_NS);
		/* Running again: what it waited since the wake-up is in run_delay by now. */
		queued = self->stats.run_delay;
		start = task_sched_runtime(self);
		while (task_sched_runtime(self) - start < WL_WORK_NS)
			;
		/* The work itself may be preempted; count only the wait after the wake-up. */
		if (i) {
			u64 waited = queued - wl_total_ns;

			wl_late += waited > WL_LATE_NS;
			if (waited > wl_worst_ns)
				wl_worst_ns = waited;
		}
		wl_total_ns = self->stats.run_delay;
	}
}

static int wakeup_latency(void)
{
	struct task *spin[WL_SPINNERS], *sleeper;
	struct cpumask one = CPUMASK_EMPTY;
	u32 cpu = sched_nr_cpus() > 1 ? 1 : 0;
	u64 start, elapsed, ran[WL_SPINNERS];

	cpumask_set_cpu(cpu, &one);
	wl_stop = false;
	wl_late = 0;
	wl_worst_ns = wl_total_ns = 0;
	for (int i = 0; i < WL_SPINNERS; i++) {
		spin[i] = kthread_create_on_cpu(wl_spin, NULL, "ktest-wl-spin", 0, cpu);
		KTEST_EXPECT(spin[i] && !set_cpus_allowed(spin[i], &one));
	}
	sched_sleep_ns(50000000); /* both spinners past their START_DEBIT */
	start = arch_clock_ns();
	for (int i = 0; i < WL_SPINNERS; i++)
		ran[i] = task_sched_runtime(spin[i]);
	sleeper = kthread_create_on_cpu(wl_sleeper, NULL, "ktest-wl-sleep", 0, cpu);
	KTEST_EXPECT(sleeper && !set_cpus_allowed(sleeper, &one));
	task_reap(sleeper);
	elapsed = arch_clock_ns() - start;
	for (int i = 0; i < WL_SPINNERS; i++)
		ran[i] = task_sched_runtime(spin[i]) - ran[i];
	WRITE_ONCE(wl_stop, true);
	for (int i = 0; i < WL_SPINNERS; i++)
		task_reap(spin[i]);
	pr_info("KTEST wakeup_latency: cpu%u: %u of %u wake-ups waited over %llu us (worst %llu us); "
		"spinners ran %llu and %llu of %llu ms\n",
		cpu, wl_late, WL_ROUNDS - 1, (unsigned long long)WL_LATE_NS / 1000,
		(unsigned long long)wl_worst_ns / 1000, (unsigned long long)ran[0] / 1000000,
		(unsigned long long)ran[1] / 1000000, (unsigned long long)elapsed / 1000000);
	KTEST_EXPECT(wl_late <= WL_LATE_ALLOWED);
	for (int i = 0; i < WL_SPINNERS; i++)
		KTEST_EXPECT(ran[i] * 100 >= elapsed * WL_MIN_SHARE_PCT);
	return 0;
}
KTEST(wakeup_latency);

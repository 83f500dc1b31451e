/*
 * In-kernel test of the interruptible timed sleep (`ktest=timed_sleep`):
 * a sleep ends at its deadline and not before, a passed deadline returns
 * at once, and the sleeper is off the CPU meanwhile (its CPU time stays
 * far below the time slept). Signals, which only user threads have, are
 * covered by the user tests (t_basic, t_proc).
 */
#include <arch/time.h>

#include "ktest.h"
#include "sched/task.h"
#include "sched/timed_wait.h"

#define SLEEP_NS	   50000000ULL	  /* 50 ms: a dozen ticks at the default 250 Hz */
#define CPU_SHARE_LIMIT_NS (SLEEP_NS / 2) /* spinning would use all of it */

static int timed_sleep(void)
{
	struct task *self = current_task();
	u64 start, slept, cpu_before, cpu_used;

	start = arch_clock_ns();
	cpu_before = task_sched_runtime(self);
	KTEST_EXPECT(sleep_ns_interruptible(SLEEP_NS) == 0);
	slept = arch_clock_ns() - start;
	cpu_used = task_sched_runtime(self) - cpu_before;
	pr_info("timed_sleep: asked %llu ns, slept %llu ns, %llu ns on the CPU\n",
		(unsigned long long)SLEEP_NS, (unsigned long long)slept,
		(unsigned long long)cpu_used);
	KTEST_EXPECT(slept >= SLEEP_NS);
	KTEST_EXPECT(cpu_used < CPU_SHARE_LIMIT_NS);

	/* A deadline already behind us: no sleep at all. */
	KTEST_EXPECT(sleep_until_interruptible(arch_clock_ns() - 1) == 0);
	KTEST_EXPECT(sleep_until_interruptible(0) == 0);
	KTEST_EXPECT(sleep_ns_interruptible(0) == 0);
	return 0;
}
KTEST(timed_sleep);

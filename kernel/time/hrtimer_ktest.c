/*
 * In-kernel test of the high-resolution timers (`ktest=hrtimer_sleep`):
 * short sleeps end at their deadline, not at the tick after it. Twenty
 * sleeps of 200 us take about 4 ms, one or two ticks at the default 250
 * Hz, where tick-granular timers ("nohighres") need at least one tick per
 * sleep. Counted in ticks, not timed, so the verdict is a count.
 */
#include <arch/time.h>

#include "ktest.h"
#include "printk.h"
#include "sched/timed_wait.h"
#include "time/hrtimer.h"

#define NR_SLEEPS 20
#define SLEEP_NS  200000ULL

static int hrtimer_sleep(void)
{
	u64 ticks, start, elapsed;

	if (!hrtimer_highres()) {
		pr_info("hrtimer_sleep: skipped, booted with nohighres\n");
		return KTEST_SKIP;
	}
	ticks = kernel_tick_count(0);
	start = arch_clock_ns();
	for (int i = 0; i < NR_SLEEPS; i++) {
		u64 deadline = arch_clock_ns() + SLEEP_NS;

		KTEST_EXPECT(sleep_until_interruptible(deadline) == 0);
		KTEST_EXPECT(arch_clock_ns() >= deadline);
	}
	ticks = kernel_tick_count(0) - ticks;
	elapsed = arch_clock_ns() - start;
	pr_info("hrtimer_sleep: %d sleeps of %llu us in %llu us, %llu ticks of CPU 0\n", NR_SLEEPS,
		(unsigned long long)(SLEEP_NS / 1000), (unsigned long long)(elapsed / 1000),
		(unsigned long long)ticks);
	KTEST_EXPECT(ticks < NR_SLEEPS / 2);
	return 0;
}
KTEST(hrtimer_sleep);

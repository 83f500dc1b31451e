/*
 * Timed sleeps (timed_wait.h, and task.h's sched_sleep_ns): a wait timer
 * on CPU 0's tick for the deadline -- the kernel's one deadline mechanism
 * -- and, for the interruptible ones, the caller's pending signals for the
 * early way out.
 */
#include "sched/timed_wait.h"

#include <arch/time.h>

#include "lib/errno.h"
#include "proc/current.h"
#include "sched/task.h"
#include "sched/wait.h"

int sleep_until_interruptible(u64 deadline_ns)
{
	struct task *self = current_task();
	bool timed = deadline_ns != SLEEP_FOREVER;
	struct wait_timer timer;
	int ret;

	if (timed)
		wait_timer_arm(&timer, deadline_ns);
	for (;;) {
		/*
		 * The state first, then the tests: a timer or a signal sender
		 * that acts after a test finds us sleeping and wakes us, so
		 * schedule() returns at once. The fence orders the store
		 * before the loads (a sender's wake-up is the mirror image).
		 */
		WRITE_ONCE(self->state, TASK_INTERRUPTIBLE);
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		if (timed && (arch_clock_ns() >= deadline_ns || wait_timer_fired(&timer))) {
			ret = 0;
			break;
		}
		if (current_signal_pending()) {
			ret = -EINTR;
			break;
		}
		schedule();
	}
	WRITE_ONCE(self->state, TASK_RUNNING);
	if (timed)
		wait_timer_disarm(&timer);
	return ret;
}

int sleep_ns_interruptible(u64 ns)
{
	u64 now = arch_clock_ns();
	u64 deadline = ns > SLEEP_FOREVER - 1 - now ? SLEEP_FOREVER - 1 : now + ns;

	return sleep_until_interruptible(deadline);
}

void sched_sleep_ns(u64 ns)
{
	struct task *self = current_task();
	struct wait_timer timer;

	wait_timer_arm(&timer, arch_clock_ns() + ns);
	for (;;) {
		/* As above: the state, then the test; the timer's lock is the barrier. */
		WRITE_ONCE(self->state, TASK_UNINTERRUPTIBLE);
		if (wait_timer_fired(&timer))
			break;
		schedule();
	}
	WRITE_ONCE(self->state, TASK_RUNNING);
	wait_timer_disarm(&timer);
}

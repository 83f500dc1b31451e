/*
 * Clocks and sleeps for user space: clock_gettime/getres, gettimeofday,
 * time, nanosleep, clock_nanosleep. Every clock runs on the kernel clock
 * (arch_clock_ns, the calibrated TSC, 1 ns resolution): MONOTONIC and its
 * RAW and COARSE variants and BOOTTIME are it (nothing suspends here);
 * REALTIME adds the RTC's date (time/realtime.c); the CPU-time
 * clocks are the scheduler's exact runtimes. Sleeps go through
 * sched/timed_wait.h: off the CPU, woken by CPU 0's tick, ended early by
 * a signal.
 */
#include "proc/sys_time.h"

#include <arch/time.h>
#include <arch/uaccess.h>

#include "lib/errno.h"
#include "proc/process.h"
#include "proc/sys_info.h"
#include "proc/syscall.h"
#include "sched/task.h"
#include "sched/timed_wait.h"
#include "time/realtime.h"

/* ---------------------------------------------------------------- reading clocks */

/* Whether which names a clock this kernel serves. */
static bool clock_known(int which)
{
	return which >= CLOCK_REALTIME && which <= CLOCK_BOOTTIME;
}

/* The clock's time in ns; the caller checked clock_known(which). */
static u64 clock_read(int which)
{
	struct cpu_totals totals;

	switch (which) {
	case CLOCK_REALTIME:
	case CLOCK_REALTIME_COARSE:
		return clock_realtime_ns();
	case CLOCK_PROCESS_CPUTIME_ID:
		process_cpu_totals(current_process(), &totals);
		return totals.runtime_ns;
	case CLOCK_THREAD_CPUTIME_ID:
		return task_sched_runtime(current_task());
	default: /* MONOTONIC, MONOTONIC_RAW, MONOTONIC_COARSE, BOOTTIME */
		return arch_clock_ns();
	}
}

/*
 * Unknown ids are -EINVAL, negative ones included: Linux's per-process
 * and per-thread CPU clocks (clock_getcpuclockid) are not served.
 */
static long sys_clock_gettime(int which, struct k_timespec *tp)
{
	struct k_timespec ts;

	if (!clock_known(which))
		return -EINVAL;
	ts = ns_to_timespec(clock_read(which));
	return copy_to_user(tp, &ts, sizeof(ts));
}
SYSCALL_DEFINE2(clock_gettime, int, struct k_timespec *);

/* Every clock here reads the TSC-based kernel clock: 1 ns, the COARSE ones too. */
static long sys_clock_getres(int which, struct k_timespec *tp)
{
	struct k_timespec res = { 0, 1 };

	if (!clock_known(which))
		return -EINVAL;
	return tp ? copy_to_user(tp, &res, sizeof(res)) : 0;
}
SYSCALL_DEFINE2(clock_getres, int, struct k_timespec *);

struct k_timezone {
	s32 tz_minuteswest, tz_dsttime;
};

/* UTC, no daylight saving: the timezone, if asked for, is all zeros. */
static long sys_gettimeofday(struct k_timeval *tv, struct k_timezone *tz)
{
	if (tv) {
		struct k_timeval now = ns_to_timeval(clock_realtime_ns());

		if (copy_to_user(tv, &now, sizeof(now)))
			return -EFAULT;
	}
	if (tz) {
		struct k_timezone zone = { 0, 0 };

		if (copy_to_user(tz, &zone, sizeof(zone)))
			return -EFAULT;
	}
	return 0;
}
SYSCALL_DEFINE2(gettimeofday, struct k_timeval *, struct k_timezone *);

static long sys_time(s64 *tloc)
{
	s64 secs = (s64)(clock_realtime_ns() / NSEC_PER_SEC);

	if (tloc && copy_to_user(tloc, &secs, sizeof(secs)))
		return -EFAULT;
	return secs;
}
SYSCALL_DEFINE1(time, s64 *);

/* ---------------------------------------------------------------- sleeping */

/*
 * Sleeps to deadline (kernel clock). Interrupted by a signal: the time
 * left goes to rem (if given) and the call fails with -EINTR, as Linux's
 * does whenever a handler runs (its restart block, for a signal that
 * runs no handler, has no counterpart here).
 */
static long sleep_to(u64 deadline, struct k_timespec *rem)
{
	struct k_timespec left;
	u64 now;

	if (sleep_until_interruptible(deadline) == 0)
		return 0;
	if (rem) {
		now = arch_clock_ns();
		left = ns_to_timespec(deadline > now ? deadline - now : 0);
		if (copy_to_user(rem, &left, sizeof(left)))
			return -EFAULT;
	}
	return -EINTR;
}

static long sys_nanosleep(const struct k_timespec *req, struct k_timespec *rem)
{
	struct k_timespec ts;

	if (copy_from_user(&ts, req, sizeof(ts)))
		return -EFAULT;
	if (!timespec_valid(&ts))
		return -EINVAL;
	return sleep_to(deadline_after(arch_clock_ns(), timespec_to_ns(&ts)), rem);
}
SYSCALL_DEFINE2(nanosleep, const struct k_timespec *, struct k_timespec *);

/*
 * clock_nanosleep sleeps on REALTIME, MONOTONIC and BOOTTIME; the
 * RAW and COARSE clocks and the thread CPU clock cannot be slept on
 * (-EOPNOTSUPP, as current Linux). Sleeping until the process's CPU time
 * reaches a value is not done here (-EOPNOTSUPP; Linux does it). Like
 * every system call, the raw call returns -errno; the C library turns
 * that into clock_nanosleep's positive error.
 */
static long sys_clock_nanosleep(int which, int flags, const struct k_timespec *req,
				struct k_timespec *rem)
{
	struct k_timespec ts;
	u64 t, deadline;

	switch (which) {
	case CLOCK_REALTIME:
	case CLOCK_MONOTONIC:
	case CLOCK_BOOTTIME:
		break;
	default:
		return clock_known(which) ? -EOPNOTSUPP : -EINVAL;
	}
	if (copy_from_user(&ts, req, sizeof(ts)))
		return -EFAULT;
	if (!timespec_valid(&ts))
		return -EINVAL;
	t = timespec_to_ns(&ts);
	if (!(flags & TIMER_ABSTIME))
		return sleep_to(deadline_after(arch_clock_ns(), t), rem);
	/* A deadline: nothing is "left" to report, so rem is not written. */
	deadline = which == CLOCK_REALTIME ? realtime_to_clock(t, clock_realtime_offset_ns()) : t;
	return sleep_to(deadline, NULL);
}
SYSCALL_DEFINE4(clock_nanosleep, int, int, const struct k_timespec *, struct k_timespec *);

/*
 * Time as user space sees it (sys_time.c): Linux's clock ids and the
 * timespec/timeval layouts of the x86-64 ABI, with the pure checks and
 * conversions the system calls share (host-tested); the wall clock
 * itself is time/realtime.h.
 */
#ifndef FULCRUM_PROC_SYS_TIME_H
#define FULCRUM_PROC_SYS_TIME_H

#include "lib/types.h"

#define NSEC_PER_USEC 1000ULL
#define NSEC_PER_SEC  1000000000ULL

/* Linux's clock ids (include/uapi/linux/time.h); the ones Fulcrum serves. */
#define CLOCK_REALTIME		 0
#define CLOCK_MONOTONIC		 1
#define CLOCK_PROCESS_CPUTIME_ID 2
#define CLOCK_THREAD_CPUTIME_ID	 3
#define CLOCK_MONOTONIC_RAW	 4
#define CLOCK_REALTIME_COARSE	 5
#define CLOCK_MONOTONIC_COARSE	 6
#define CLOCK_BOOTTIME		 7

#define TIMER_ABSTIME 1 /* clock_nanosleep: the time is a deadline */

/* struct timespec / struct timeval of the x86-64 ABI. */
struct k_timespec {
	s64 tv_sec;
	s64 tv_nsec;
};

struct k_timeval {
	s64 tv_sec;
	s64 tv_usec;
};

_Static_assert(sizeof(struct k_timespec) == 16, "x86-64 struct timespec");
_Static_assert(sizeof(struct k_timeval) == 16, "x86-64 struct timeval");

/* The largest time in ns the kernel represents (Linux's KTIME_MAX); longer ones saturate. */
#define KTIME_MAX ((u64)INT64_MAX)

/* Linux's timespec64_valid: seconds not negative, nanoseconds in [0, 1e9). */
static inline bool timespec_valid(const struct k_timespec *ts)
{
	return ts->tv_sec >= 0 && ts->tv_nsec >= 0 && (u64)ts->tv_nsec < NSEC_PER_SEC;
}

/* A valid timespec in ns, saturating at KTIME_MAX (as Linux's timespec64_to_ktime). */
static inline u64 timespec_to_ns(const struct k_timespec *ts)
{
	if ((u64)ts->tv_sec >= KTIME_MAX / NSEC_PER_SEC)
		return KTIME_MAX;
	return (u64)ts->tv_sec * NSEC_PER_SEC + (u64)ts->tv_nsec;
}

static inline struct k_timespec ns_to_timespec(u64 ns)
{
	struct k_timespec ts = { (s64)(ns / NSEC_PER_SEC), (s64)(ns % NSEC_PER_SEC) };

	return ts;
}

/* Microseconds round down, as Linux's gettimeofday and getrusage do. */
static inline struct k_timeval ns_to_timeval(u64 ns)
{
	struct k_timeval tv = { (s64)(ns / NSEC_PER_SEC), (s64)(ns % NSEC_PER_SEC / NSEC_PER_USEC) };

	return tv;
}

/* now + delta, saturating at KTIME_MAX: a deadline that cannot wrap. */
static inline u64 deadline_after(u64 now, u64 delta)
{
	if (now >= KTIME_MAX || delta >= KTIME_MAX - now)
		return KTIME_MAX;
	return now + delta;
}

/*
 * A CLOCK_REALTIME time (ns since the epoch) as a kernel-clock deadline,
 * given realtime = kernel clock + offset: 0 (already past) when it lies
 * before the kernel clock's start.
 */
static inline u64 realtime_to_clock(u64 realtime_ns, u64 realtime_offset_ns)
{
	return realtime_ns > realtime_offset_ns ? realtime_ns - realtime_offset_ns : 0;
}

#endif

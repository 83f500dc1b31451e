/*
 * Interruptible timed sleeps: nanosleep, clock_nanosleep and the like
 * sleep here, off the CPU, until a deadline on the kernel clock
 * (arch_clock_ns) or until a signal is pending for the caller. Built on
 * the wait timers of sched/wait.h, fired from CPU 0's tick, so a sleep
 * ends at the first tick at or after its deadline, never before it.
 */
#ifndef FULCRUM_SCHED_TIMED_WAIT_H
#define FULCRUM_SCHED_TIMED_WAIT_H

#include "lib/types.h"

/* A deadline that never comes: sleeps until a signal. */
#define SLEEP_FOREVER ((u64)-1)

/*
 * Sleeps until arch_clock_ns() >= deadline_ns. Returns 0 at the deadline
 * (at once if it has passed), or -EINTR as soon as a signal is pending
 * for the caller (current_signal_pending(), checked before every sleep
 * and after every wake-up; the sender's wake_up_task cuts it short). A
 * kernel thread has no signals: it sleeps to the deadline. May not be
 * called with a spinlock held or interrupts off.
 */
int sleep_until_interruptible(u64 deadline_ns);

/* The same for ns nanoseconds from now (saturating: a huge ns never wraps). */
int sleep_ns_interruptible(u64 ns);

#endif

/*
 * The scheduler's watchdogs (watchdog.c): the stall watchdog with its
 * fallback to fair, and the soft-lockup, hard-lockup and hung-task
 * detectors. What each checks and what its report looks like is in
 * docs/watchdogs.md.
 */
#ifndef FULCRUM_SCHED_WATCHDOG_H
#define FULCRUM_SCHED_WATCHDOG_H

#include "lib/types.h"

/* Reports made since boot, and who the last of each kind named. */
struct sched_watchdog_counts {
	u64 stalls, soft_lockups, hard_lockups, hung_tasks;
	u32 last_stall_cpu, last_soft_cpu, last_hard_cpu;
	int last_stall_pid, last_soft_pid, last_hung_pid;
	s64 stall_ms, soft_ms, hard_ms, hung_ms; /* the thresholds in force (0: off) */
};

/* A snapshot of the counts (racy reads, for tests). */
void sched_watchdog_counts(struct sched_watchdog_counts *out);

#endif

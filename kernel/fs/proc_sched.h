/* The scheduler's /proc files (proc_sched.c). */
#ifndef FULCRUM_FS_PROC_SCHED_H
#define FULCRUM_FS_PROC_SCHED_H

/* Registers /proc/schedstat, /proc/sys/kernel/sched_*, /proc/fulcrum/{tasks,topology}. */
void proc_sched_init(void);

#endif

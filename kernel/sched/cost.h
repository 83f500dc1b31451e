/*
 * What one scheduler decision costs: select_task_rq_fair() timed call by
 * call with the cycle counter, median of many. The same code measures in
 * the kernel (`sched_cost`, kernel/sched/cost_bench.c) and on the host
 * against a fake machine (tests/bench/select_cost.c), so the two figures
 * compare like with like.
 */
#ifndef FULCRUM_SCHED_COST_H
#define FULCRUM_SCHED_COST_H

#include "sched/sched.h"
#include "sched/select.h"

#define COST_SAMPLES_MAX 4096

/*
 * Calls select_task_rq_fair(p, sd_flag, wake_flags) `samples` times under
 * placement variant v (interrupts off, p->pi_lock held, as a wake-up
 * would), each call timed alone; returns the median in cycles and the CPU
 * the last call chose in *chosen. The chosen variant is put back after.
 */
u64 select_cost_median(struct task *p, const struct sched_placement *v, int sd_flag, int wake_flags,
		       u32 samples, u32 *chosen);

/* The median of n values (sorts them). */
u64 cost_median(u64 *v, u32 n);

#endif

/*
 * CPU load as placement (select.c) and balancing (balance.c) see it: Linux
 * 3.8's instantaneous rq->load.weight and the tick-decayed cpu_load[]
 * history (kernel/sched/load.c). All readers here are lockless snapshots.
 */
#ifndef FULCRUM_SCHED_LOAD_H
#define FULCRUM_SCHED_LOAD_H

#include "sched/sched.h"

/* The sum of the weights queued on cpu, running task included, right now. */
unsigned long weighted_cpuload(u32 cpu);

/*
 * Load of a CPU we might pull from (source) or push to (target) for
 * balancing index type (an sd's busy_idx, idle_idx, wake_idx, ...): type 0
 * is weighted_cpuload(); type n > 0 is compared with cpu_load[n - 1], and
 * with LB_BIAS the source takes the smaller, the target the larger, so
 * migration decisions stay conservative.
 */
unsigned long source_load(u32 cpu, int type);
unsigned long target_load(u32 cpu, int type);

/* Mean weight per queued task on cpu; 0 when nothing is queued. */
unsigned long cpu_avg_load_per_task(u32 cpu);

/* cpu's capacity, SCHED_POWER_SCALE for a whole CPU. */
unsigned long power_of(u32 cpu);

/*
 * cpu_load[idx] after missed ticks without an update: it decays as if the
 * load had been 0 meanwhile ((2^idx - 1) / 2^idx per tick, from fixed-point
 * tables). For idx 1..4.
 */
unsigned long decay_load_missed(unsigned long load, unsigned long missed, int idx);

/*
 * Feeds this_load into rq->cpu_load[] for pending ticks (>= 1): the ticks
 * before the last one are decayed as idle. update_cpu_load() is the
 * periodic tick's case, pending 1; a CPU that skipped ticks while halted
 * passes how many. rq lock held.
 */
void update_cpu_load_pending(struct rq *rq, unsigned long this_load, unsigned long pending);

#endif

/*
 * Per-entity load tracking (PELT, kernel/sched/pelt.c): each fair task and
 * each CPU's fair queue keep geometrically decayed averages of how much of
 * the recent past they were runnable and running, as Linux 5.7+ computes
 * them. The modern load balancer (balance_modern.c) reads these sums; the
 * 3.8 balancer keeps reading cpu_load[] (load.h).
 */
#ifndef FULCRUM_SCHED_PELT_H
#define FULCRUM_SCHED_PELT_H

#include "lib/types.h"

/*
 * Time is counted in units of 1024 ns ("us"); a period is 1024 of them.
 * y is chosen so that y^32 = 1/2: what ran 32 periods ago counts half.
 */
#define PELT_PERIOD	     1024
#define LOAD_AVG_PERIOD	     32
#define LOAD_AVG_MAX	     47742 /* 1024 * (1 + y + y^2 + ...), in integer steps */
#define PELT_MIN_DIVIDER     (LOAD_AVG_MAX - PELT_PERIOD)
#define SCHED_CAPACITY_SHIFT 10
#define SCHED_CAPACITY_SCALE (1UL << SCHED_CAPACITY_SHIFT)

/* y^n * 2^32 for n = 0..31, rounded down (the first is 2^32 - 1). */
extern const u32 runnable_avg_yN_inv[LOAD_AVG_PERIOD];

/*
 * One signal: the sums decay by y per period and gain the time spent
 * runnable / running in the current one; an average is its sum over the
 * largest sum possible (the divider). For a task, load_sum counts
 * runnable time unweighted and load_avg is weighted by the task's weight;
 * for a queue, load_sum is already weighted by the queue's load.
 * runnable_sum and util_sum are scaled by SCHED_CAPACITY_SCALE.
 */
struct sched_avg {
	u64 last_update_time; /* PELT clock (ns) at the last update; 0: not attached to a queue */
	u64 load_sum;
	u64 runnable_sum;
	u32 util_sum;
	u32 period_contrib; /* units of the current, unfinished period already counted */
	unsigned long load_avg;
	unsigned long runnable_avg;
	unsigned long util_avg;
};

/*
 * What tasks that left a queue without its lock (a wake-up on another
 * CPU) still contribute there; the queue subtracts it at its next update.
 * Added and taken with atomic operations, so no lock and no set-up.
 */
struct pelt_removed {
	u32 nr;
	unsigned long load_avg, util_avg, runnable_avg;
};

/* A fair queue's PELT state (struct cfs_rq's pelt field). */
struct cfs_pelt {
	struct sched_avg avg;
	struct pelt_removed removed;
};

struct rq;
struct cfs_rq;
struct task;

/* ------------------------------------------------------------- the arithmetic */

/* val * y^n; 0 once n passes 63 half-lives. */
u64 pelt_decay_load(u64 val, u64 n);

/*
 * Brings sa up to now (ns), the time since its last update spent with the
 * given load (0: not runnable), runnable count and running state. True if
 * at least one period boundary was crossed (the averages need recomputing).
 */
bool pelt_update_sum(struct sched_avg *sa, u64 now, unsigned long load, unsigned long runnable,
		     bool running);

/* Recomputes sa's averages from its sums; load weighs load_sum (1 for a queue). */
void pelt_update_avg(struct sched_avg *sa, unsigned long load);

/* The divider of sa's averages: the largest sum possible at its period_contrib. */
static inline u32 pelt_divider(const struct sched_avg *sa)
{
	return PELT_MIN_DIVIDER + sa->period_contrib;
}

/* ------------------------------------------------------ the fair class's hooks */

/*
 * On only under sched_balance=modern (or set by tests): with it off every
 * hook returns at once, so the 3.8 variant runs exactly as before.
 */
extern bool sched_pelt_enabled;

/*
 * The hooks take rq->lock held and the task's entity on rq's fair queue
 * as fair.c's functions of the same place see it:
 *   pelt_enqueue  enqueue_entity, before the entity counts as queued;
 *                 attaches a task that arrived from another CPU.
 *   pelt_dequeue  dequeue_entity, while it still counts as queued; a
 *                 dequeue other than a sleep (a move) detaches it.
 *   pelt_update   the tick, put_prev and set_next: ages p and the queue.
 */
void pelt_enqueue(struct rq *rq, struct task *p, int flags);
void pelt_dequeue(struct rq *rq, struct task *p, int flags);
void pelt_update(struct rq *rq, struct task *p);

/*
 * p, on no queue, moves to another CPU (fair's migrate_task_rq). If it is
 * still attached to its old queue (a wake-up: no rq lock held), its
 * averages are brought to that queue's last update and left there as
 * removed; either way it is attached again at its next enqueue.
 */
void pelt_migrate(struct task *p);

/* A task joins the fair class: full load, no utilisation yet, attached at its first enqueue. */
void pelt_task_init(struct task *p);

/* Ages rq's queue as it stands (an idle CPU's blocked load decays). rq->lock held. */
void pelt_update_blocked(struct rq *rq);

/* The signals the modern balancer reads, lockless snapshots. */
unsigned long pelt_cpu_load(u32 cpu);
unsigned long pelt_cpu_runnable(u32 cpu);
unsigned long pelt_cpu_util(u32 cpu); /* at most SCHED_CAPACITY_SCALE */
unsigned long pelt_task_load(const struct task *p);
unsigned long pelt_task_util(const struct task *p);

#endif

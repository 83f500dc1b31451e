/*
 * Shared by balance.c (moving tasks, when and where to balance) and
 * balance_find.c (what to move: the busiest group and queue, the
 * imbalance). Nothing outside the balancer includes this.
 */
#ifndef FULCRUM_SCHED_BALANCE_INTERNAL_H
#define FULCRUM_SCHED_BALANCE_INTERNAL_H

#include "sched/balance.h"

/* Flags of one load_balance() pass. */
#define LBF_ALL_PINNED	0x01 /* no task seen may run on dst_cpu */
#define LBF_SOME_PINNED 0x02 /* one may not, but may run on new_dst_cpu of our group */

/* One load_balance() pass: where from, where to, how much. */
struct lb_env {
	struct sched_domain *sd;
	struct rq *src_rq, *dst_rq;
	u32 src_cpu, dst_cpu;
	u32 new_dst_cpu;		   /* with LBF_SOME_PINNED */
	const struct cpumask *dst_grpmask; /* the local group; NULL for new-idle */
	enum cpu_idle_type idle;
	long imbalance;	     /* weighted load still to move */
	struct cpumask cpus; /* CPUs that may still be the source */
	u32 flags;	     /* LBF_* */
	u32 loop, loop_max;
};

/*
 * The decision of 3.8's find_busiest_group(): the busiest group of env->sd
 * seen from env->dst_cpu with env->imbalance set, or NULL (balanced,
 * env->imbalance 0). *balance is cleared, and NULL returned, when another
 * CPU of the local group is the one to balance (periodic balancing only).
 */
struct sched_group *find_busiest_group(struct lb_env *env, bool *balance);

/* The queue in group to pull from, or NULL. */
struct rq *find_busiest_queue(const struct lb_env *env, struct sched_group *group);

#endif

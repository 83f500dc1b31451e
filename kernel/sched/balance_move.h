/*
 * The moves both load balancers make (balance_move.c): a pull of tasks
 * from the busiest queue under both runqueue locks, and active balancing,
 * where the busiest CPU's stopper pushes the task it preempted. Linux 3.8's
 * balancer (balance.c) and the modern one (balance_modern.c) each pass
 * their own mover, which chooses the tasks; locks, clocks, bounds and the
 * stopper's bookkeeping are here, once.
 */
#ifndef FULCRUM_SCHED_BALANCE_MOVE_H
#define FULCRUM_SCHED_BALANCE_MOVE_H

#include "sched/balance.h"

/*
 * A balancer's mover for balance_pull(): moves tasks from the source to
 * the destination queue its env names, both rq locks held and both clocks
 * updated, looking at no more than loop_max tasks (counted from 0 in its
 * env). Returns the number of tasks moved.
 */
typedef int (*balance_mover_fn)(void *env, u32 loop_max);

/*
 * Pulls tasks from busiest to dst with move(env, loop_max), where loop_max
 * is SCHED_NR_MIGRATE or busiest's nr_running if fewer. Called with no rq
 * lock held; turns interrupts off and takes both locks (double_rq_lock)
 * for the move. When tasks moved to a dst that is not this_cpu (the CPU
 * balancing on behalf of its group), dst reschedules, as Linux's
 * load_balance() makes it: dst may be busy, and would otherwise not weigh
 * the newcomers against its running task before its next tick, by which
 * time another group's balancer may have taken them away again. Returns
 * the number of tasks moved.
 */
int balance_pull(struct rq *dst, struct rq *busiest, u32 this_cpu, balance_mover_fn move, void *env);

/*
 * A balancer's push for active balancing, run by busiest's stopper, which
 * has just preempted busiest's running task: moves one task of busiest
 * that may run on target -- the preempted one is now queued like the
 * others; cache-hot or not -- judged on sd, target's lowest balancing
 * domain that spans both CPUs. Both rq locks held, clocks updated,
 * interrupts off. Returns true if a task moved.
 */
typedef bool (*balance_push_fn)(struct sched_domain *sd, struct rq *busiest, struct rq *target);

/*
 * Asks busiest's stopper to push a task to this_cpu with push. Returns
 * false, asking nothing, if busiest's running task may not run on
 * this_cpu (for the caller: all pinned). *started says whether a push was
 * queued; it was not if one is already pending for busiest or busiest's
 * stopper is not running yet. No rq lock held. The push is counted on
 * sd, as above: alb_count, then alb_pushed with lb_gained[CPU_IDLE], or
 * alb_failed.
 */
bool balance_start_active(struct rq *busiest, u32 this_cpu, balance_push_fn push, bool *started);

/* The task a cfs_tasks list node belongs to. */
static inline struct task *cfs_task_of(struct list_head *node)
{
	return list_entry(node, struct task, se.group_node);
}

/* A balancer's test of whether p may move from its env's source to its destination. */
typedef bool (*balance_can_migrate_fn)(struct task *p, void *env);

/*
 * The common body of a balancer's push: moves the first task on busiest's
 * cfs_tasks that can_migrate(p, env) allows to target. Both rq locks held.
 * Returns true if a task moved.
 */
bool balance_push_first(struct rq *busiest, struct rq *target, balance_can_migrate_fn can_migrate,
			void *env);

#endif

/*
 * The load balancers' common moves (balance_move.h): pulling from the
 * busiest queue with a balancer's mover, and active balancing through the
 * busiest CPU's stopper (stop.c) with a balancer's push, and the push's
 * walk of busiest's tasks. Which tasks may move is the balancer's choice
 * (its mover, its can_migrate); this file only locks, bounds, walks and
 * counts.
 */
#include "sched/balance_move.h"

#include <arch/cpu.h>

#include "lib/cpumask.h"
#include "sched/stop.h"
#include "sched/topology.h"

/*
 * A pending active balance per busiest CPU, guarded by that CPU's
 * rq->lock: where to push and with which balancer's push. One table for
 * both balancers, as only one of them runs a CPU's balancing at a time
 * and a push once queued is finished by the one path below.
 */
static struct {
	bool pending;
	u32 push_cpu;
	balance_push_fn push;
} active_balance[MAX_CPUS];

int balance_pull(struct rq *dst, struct rq *busiest, u32 this_cpu, balance_mover_fn move, void *env)
{
	unsigned long flags = arch_irq_save();
	int moved;

	double_rq_lock(dst, busiest);
	update_rq_clock(dst);
	update_rq_clock(busiest);
	moved = move(env, MIN((u32)SCHED_NR_MIGRATE, busiest->nr_running));
	if (moved && dst->cpu != this_cpu)
		resched_curr(dst);
	double_rq_unlock(dst, busiest);
	arch_irq_restore(flags);
	return moved;
}

/*
 * In busiest's stopper, which has just preempted busiest's running task:
 * finds push_cpu's lowest balancing domain spanning busiest and lets the
 * balancer's push move one task there. A push that is no longer pending,
 * or a busiest left with one task (the stopper counts as running), does
 * nothing.
 */
static void active_balance_stop(void *data)
{
	struct rq *busiest = data, *target;
	u32 busiest_cpu = busiest->cpu, target_cpu = active_balance[busiest_cpu].push_cpu;
	unsigned long flags = arch_irq_save();
	struct sched_topology *t = sched_topology_read_begin(busiest_cpu);
	struct sched_domain *sd;

	target = cpu_rq(target_cpu);
	double_rq_lock(busiest, target);
	if (!active_balance[busiest_cpu].pending || busiest == target || busiest->nr_running <= 1)
		goto out;
	for_each_domain (t, target_cpu, sd)
		if ((sd->flags & SD_LOAD_BALANCE) && cpumask_test_cpu(busiest_cpu, sd_span(sd)))
			break;
	if (sd) {
		update_rq_clock(busiest);
		update_rq_clock(target);
		sd->stats.alb_count++;
		if (active_balance[busiest_cpu].push(sd, busiest, target)) {
			sd->stats.lb_gained[CPU_IDLE]++;
			sd->stats.alb_pushed++;
		} else {
			sd->stats.alb_failed++;
		}
	}
out:
	active_balance[busiest_cpu].pending = false;
	double_rq_unlock(busiest, target);
	sched_topology_read_end(busiest_cpu);
	arch_irq_restore(flags);
}

bool balance_start_active(struct rq *busiest, u32 this_cpu, balance_push_fn push, bool *started)
{
	unsigned long flags = spin_lock_irqsave(&busiest->lock);
	bool allowed = cpumask_test_cpu(this_cpu, &busiest->curr->cpus_allowed);

	*started = false;
	if (allowed && !active_balance[busiest->cpu].pending) {
		active_balance[busiest->cpu].pending = true;
		active_balance[busiest->cpu].push_cpu = this_cpu;
		active_balance[busiest->cpu].push = push;
		*started = true;
	}
	spin_unlock_irqrestore(&busiest->lock, flags);
	if (*started && stop_one_cpu(busiest->cpu, active_balance_stop, busiest) != 0) {
		flags = spin_lock_irqsave(&busiest->lock);
		active_balance[busiest->cpu].pending = false; /* no stopper (yet): give up */
		spin_unlock_irqrestore(&busiest->lock, flags);
		*started = false;
	}
	return allowed;
}

bool balance_push_first(struct rq *busiest, struct rq *target, balance_can_migrate_fn can_migrate,
			void *env)
{
	struct list_head *pos, *tmp;

	list_for_each_safe (pos, tmp, &busiest->cfs_tasks) {
		struct task *p = cfs_task_of(pos);

		if (!can_migrate(p, env))
			continue;
		move_queued_task(busiest, target, p);
		return true;
	}
	return false;
}

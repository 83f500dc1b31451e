/*
 * Load balancing between CPUs, Linux 3.8's (docs/linux-scheduler-facts.md sections 21-25): from
 * the tick each CPU balances each of its domains once the domain's
 * interval has passed, pulling tasks from the busiest queue of the
 * busiest group towards itself; a CPU about to go idle does the same at
 * once (new-idle balancing); and when pulling keeps failing because the
 * only movable task is running, the busiest CPU's stopper (stop.c) pushes
 * it over (active balancing).
 *
 * This file chooses the tasks that move and decides when and on which
 * domains to balance; balance_find.c decides how much to move and from
 * where; balance_move.c locks the two queues for a pull and runs the
 * stopper's push, for the modern balancer too. Group and CPU power are
 * fixed when the topology generation is built (no RT-time scaling), so
 * 3.8's update_group_power() has no work here.
 *
 * Locking: a pass holds no lock while it reads loads (lockless snapshots,
 * as in Linux) and takes the two runqueue locks, in CPU order, only to move
 * tasks. Domains are read within sched_topology_read_begin/end on the
 * balancing CPU; a domain's balancer state is written only by that CPU.
 */
#include "sched/balance_internal.h"
#include "sched/balance_move.h"

#include <arch/cpu.h>

#include "lib/cpumask.h"
#include "sched/load.h"
#include "sched/stats.h"
#include "sched/topology.h"
#include "trace/trace.h"

#define NSEC_PER_MSEC 1000000ULL
#define NSEC_PER_SEC  1000000000ULL

/* balance_interval's cap (ms) while every task found was pinned away from us. */
#define MAX_PINNED_INTERVAL 512

/* SD_SERIALIZE domains (NUMA levels) are balanced by one CPU at a time, machine-wide. */
static struct spinlock balancing_lock = SPINLOCK_INIT;

static inline bool time_after_eq64(u64 a, u64 b)
{
	return (s64)(a - b) >= 0;
}

/* ------------------------------------------------------- choosing what moves */

/*
 * Would moving p lose a warm cache? SCHED_IDLE tasks never count as hot; a
 * buddy of its queue (the next or last pick) does while dst has work
 * (CACHE_HOT_BUDDY); otherwise p is hot if it ran within the last
 * sysctl_sched_migration_cost ns (0 disables the test).
 */
static bool task_hot(struct task *p, u64 now, const struct lb_env *env)
{
	struct cfs_rq *cfs_rq = &env->src_rq->cfs;

	if (p->policy == SCHED_IDLE)
		return false;
	if (sched_feat(CACHE_HOT_BUDDY) && env->dst_rq->nr_running &&
	    (&p->se == cfs_rq->next || &p->se == cfs_rq->last))
		return true;
	if (sysctl_sched_migration_cost == 0)
		return false;
	return (s64)(now - p->exec_start) < (s64)sysctl_sched_migration_cost;
}

/*
 * May p move from src to dst? Not if its affinity forbids dst (then note
 * another CPU of our group it could go to, for a second try), not if it
 * is running, and not if it is cache-hot -- unless balancing this domain
 * has already failed more than cache_nice_tries times in a row.
 */
static bool can_migrate_task(struct task *p, struct lb_env *env)
{
	struct sched_domain *sd = env->sd;
	bool hot;

	if (!cpumask_test_cpu(env->dst_cpu, &p->cpus_allowed)) {
		u32 cpu;

		if (!env->dst_grpmask || (env->flags & LBF_SOME_PINNED))
			return false;
		for_each_cpu (cpu, env->dst_grpmask) {
			if (cpu != env->dst_cpu && cpu_rq(cpu) &&
			    cpumask_test_cpu(cpu, &p->cpus_allowed)) {
				env->flags |= LBF_SOME_PINNED;
				env->new_dst_cpu = cpu;
				break;
			}
		}
		return false;
	}
	env->flags &= ~LBF_ALL_PINNED;
	if (task_running(env->src_rq, p))
		return false;
	hot = task_hot(p, env->src_rq->clock_task, env);
	if (!hot || sd->nr_balance_failed > sd->cache_nice_tries) {
		if (hot)
			sd->stats.lb_hot_gained[env->idle]++;
		return true;
	}
	return false;
}

/*
 * Pulls tasks from src to dst until env->imbalance weighted load has
 * moved, both rq locks held. The source's cfs_tasks list is walked from
 * the front, each task looked at once at most (loop_max); one skipped goes
 * to the back. A task more than twice the remaining imbalance is left
 * alone. New-idle balancing stops after one task: this kernel preempts, so
 * it does what 3.8 does under CONFIG_PREEMPT to bound the latency.
 */
static int move_tasks(struct lb_env *env)
{
	struct list_head *tasks = &env->src_rq->cfs_tasks;
	int pulled = 0;

	if (env->imbalance <= 0)
		return 0;
	/* LAB 5 BEGIN move */
	while (!list_empty(tasks)) {
		struct task *p = cfs_task_of(tasks->next);
		unsigned long load = p->load.weight;

		if (++env->loop > env->loop_max)
			break;
		if ((long)(load / 2) > env->imbalance || !can_migrate_task(p, env)) {
			list_del(&p->se.group_node);
			list_add_tail(&p->se.group_node, tasks);
			continue;
		}
		move_queued_task(env->src_rq, env->dst_rq, p);
		pulled++;
		env->imbalance -= (long)load;
		if (env->idle == CPU_NEWLY_IDLE || env->imbalance <= 0)
			break;
	}
	/* LAB 5 SKELETON
	TODO: pull tasks from the front of tasks until env->imbalance has moved (step 4):
	TODO: can_migrate_task() says which may go; move_queued_task() moves one.
	(void)tasks;
	(void)can_migrate_task;
	   LAB 5 END */
	env->sd->stats.lb_gained[env->idle] += (u64)pulled;
	return pulled;
}

/* can_migrate_task() as balance_push_first() calls it. */
static bool can_push_task(struct task *p, void *env)
{
	return can_migrate_task(p, env);
}

/*
 * Active balancing's push (balance_move.h): the first task of busiest that
 * may move to target, whatever its load, cache-hot or not (load_balance()
 * set nr_balance_failed past cache_nice_tries before asking). Both locks
 * held.
 */
static bool push_one_task(struct sched_domain *sd, struct rq *busiest, struct rq *target)
{
	struct lb_env env = {
		.sd = sd,
		.src_rq = busiest,
		.dst_rq = target,
		.src_cpu = busiest->cpu,
		.dst_cpu = target->cpu,
		.idle = CPU_IDLE,
	};

	return balance_push_first(busiest, target, can_push_task, &env);
}

/* The pull's mover (balance_move.h): move_tasks() over at most loop_max tasks. */
static int pull_tasks(void *arg, u32 loop_max)
{
	struct lb_env *env = arg;

	env->loop = 0;
	env->loop_max = loop_max;
	return move_tasks(env);
}

/* ------------------------------------------------------------ load_balance() */

/* Balancing sd has failed often enough that only pushing the running task can help. */
static bool need_active_balance(const struct lb_env *env)
{
	return env->sd->nr_balance_failed > env->sd->cache_nice_tries + 2;
}

int load_balance(u32 this_cpu, struct sched_domain *sd, enum cpu_idle_type idle,
		 bool *continue_balancing)
{
	struct sched_domain_stats *st = &sd->stats;
	struct lb_env env = {
		.sd = sd,
		.dst_cpu = this_cpu,
		.dst_rq = cpu_rq(this_cpu),
		.dst_grpmask = idle == CPU_NEWLY_IDLE ? NULL : sg_span(sd->groups),
		.idle = idle,
		.cpus = sd->span,
	};
	u32 lb_iterations = 0,
	    max_lb_iterations = env.dst_grpmask ? cpumask_weight(env.dst_grpmask) : 0;
	bool started = false;
	struct sched_group *group;
	struct rq *busiest = NULL;
	enum trace_balance_result result = TRACE_BALANCE_FAILED;
	int ld_moved = 0;

	*continue_balancing = true;
	st->lb_count[idle]++;
redo:
	group = find_busiest_group(&env, continue_balancing);
	if (!*continue_balancing)
		goto out_balanced;
	if (!group) {
		st->lb_nobusyg[idle]++;
		goto out_balanced;
	}
	busiest = find_busiest_queue(&env, group);
	if (!busiest) {
		st->lb_nobusyq[idle]++;
		goto out_balanced;
	}
	st->lb_imbalance[idle] += (u64)env.imbalance;
	if (READ_ONCE(busiest->nr_running) > 1) {
		env.flags |= LBF_ALL_PINNED;
		env.src_cpu = busiest->cpu;
		env.src_rq = busiest;
		ld_moved += balance_pull(env.dst_rq, busiest, this_cpu, pull_tasks, &env);
		/*
		 * Some tasks could not come here but could go to another CPU of
		 * our group, on whose behalf we balance: try once per CPU there.
		 */
		while ((env.flags & LBF_SOME_PINNED) && env.imbalance > 0 &&
		       lb_iterations++ < max_lb_iterations) {
			env.dst_cpu = env.new_dst_cpu;
			env.dst_rq = cpu_rq(env.new_dst_cpu);
			env.flags &= ~LBF_SOME_PINNED;
			ld_moved += balance_pull(env.dst_rq, busiest, this_cpu, pull_tasks, &env);
		}
		/* Nothing there may come to us: try the next busiest queue. */
		if (env.flags & LBF_ALL_PINNED) {
			cpumask_clear_cpu(busiest->cpu, &env.cpus);
			if (!cpumask_empty(&env.cpus))
				goto redo;
			goto out_balanced;
		}
	}
	if (!ld_moved) {
		st->lb_failed[idle]++;
		/* New-idle passes are frequent: they must not make tasks look less hot. */
		if (idle != CPU_NEWLY_IDLE)
			sd->nr_balance_failed++;
		if (need_active_balance(&env)) {
			if (!balance_start_active(busiest, this_cpu, push_one_task, &started)) {
				env.flags |= LBF_ALL_PINNED;
				goto out_one_pinned;
			}
			/* Pushed (or being pushed): the next failures start from here. */
			sd->nr_balance_failed = sd->cache_nice_tries + 1;
		}
	} else {
		sd->nr_balance_failed = 0;
	}
	/* Unbalanced: look again soon -- unless a push is under way, then back off. */
	if (!started)
		sd->balance_interval = sd->min_interval;
	else if (sd->balance_interval < sd->max_interval)
		sd->balance_interval *= 2;
	trace_sched_balance(this_cpu, sd->name, idle, env.imbalance, (int)busiest->cpu, ld_moved,
			    ld_moved ? TRACE_BALANCE_MOVED :
			    started  ? TRACE_BALANCE_ACTIVE :
				       TRACE_BALANCE_FAILED);
	return ld_moved;

out_balanced:
	st->lb_balanced[idle]++;
	sd->nr_balance_failed = 0;
	result = TRACE_BALANCE_BALANCED;
out_one_pinned:
	/* Only a pass that found a busiest queue is an event: the others come every tick. */
	if (busiest)
		trace_sched_balance(this_cpu, sd->name, idle, env.imbalance, (int)busiest->cpu, 0,
				    (env.flags & LBF_ALL_PINNED) ? TRACE_BALANCE_FAILED : result);
	if (((env.flags & LBF_ALL_PINNED) && sd->balance_interval < MAX_PINNED_INTERVAL) ||
	    sd->balance_interval < sd->max_interval)
		sd->balance_interval *= 2;
	return 0;
}

/* ------------------------------------------------------ periodic and new-idle */

/* Longest interval between balances of one domain: 100 ms per online CPU (HZ * n / 10). */
static u64 max_balance_interval_ns(const struct sched_topology *t)
{
	u64 n = cpumask_weight(&t->online);

	return (n ? n : 1) * 100 * NSEC_PER_MSEC;
}

/*
 * Balances cpu over its domains bottom-up, each once its interval has
 * passed since its last balance: balance_interval ms, times busy_factor
 * when the CPU is busy (a busy CPU has less reason to pull), at least one
 * ms and at most max_balance_interval_ns(). Above the level where another
 * CPU of our group is the balancer, stop. Sets rq->next_balance to the
 * earliest time a domain is due again.
 */
static void rebalance_domains(struct rq *rq, enum cpu_idle_type idle)
{
	u32 cpu = rq->cpu;
	u64 now = READ_ONCE(rq->clock), next_balance = now + 60 * NSEC_PER_SEC;
	struct sched_topology *t = sched_topology_read_begin(cpu);
	u64 max_interval = max_balance_interval_ns(t);
	bool update_next = false, cont = true;
	struct sched_domain *sd;

	for_each_domain (t, cpu, sd) {
		bool serialize = sd->flags & SD_SERIALIZE;
		u64 interval;

		if (!(sd->flags & SD_LOAD_BALANCE))
			continue;
		interval = sd->balance_interval;
		if (idle != CPU_IDLE)
			interval *= sd->busy_factor;
		interval *= NSEC_PER_MSEC;
		interval = MAX(MIN(interval, max_interval), NSEC_PER_MSEC);
		if (!serialize || spin_trylock(&balancing_lock)) {
			if (time_after_eq64(now, sd->last_balance + interval)) {
				if (load_balance(cpu, sd, idle, &cont))
					idle = idle_cpu(cpu) ? CPU_IDLE : CPU_NOT_IDLE;
				sd->last_balance = now;
			}
			if (serialize)
				spin_unlock(&balancing_lock);
		}
		if ((s64)(next_balance - (sd->last_balance + interval)) > 0) {
			next_balance = sd->last_balance + interval;
			update_next = true;
		}
		if (!cont)
			break;
	}
	sched_topology_read_end(cpu);
	if (update_next)
		WRITE_ONCE(rq->next_balance, next_balance);
}

void trigger_balance_fair(struct rq *rq)
{
	u64 now = READ_ONCE(rq->clock);

	schedstat_account_wasted(rq, now);
	if (!time_after_eq64(now, READ_ONCE(rq->next_balance)))
		return;
	rebalance_domains(rq, idle_cpu(rq->cpu) ? CPU_IDLE : CPU_NOT_IDLE);
}

void idle_balance_fair(struct rq *rq)
{
	rq->idle_stamp = rq->clock;
	/* LAB 5 BEGIN newidle */
	u32 cpu = rq->cpu;
	u64 next_balance = rq->clock + NSEC_PER_SEC;
	struct sched_topology *t;
	struct sched_domain *sd;
	int pulled = 0;

	/* Recent idle periods were shorter than a migration is worth: stay put. */
	if (rq->avg_idle < sysctl_sched_migration_cost)
		return;
	spin_unlock(&rq->lock); /* interrupts stay off */
	t = sched_topology_read_begin(cpu);
	for_each_domain (t, cpu, sd) {
		bool cont;

		if (!(sd->flags & SD_LOAD_BALANCE))
			continue;
		if (sd->flags & SD_BALANCE_NEWIDLE)
			pulled = load_balance(cpu, sd, CPU_NEWLY_IDLE, &cont);
		if ((s64)(next_balance - (sd->last_balance + sd->balance_interval * NSEC_PER_MSEC)) >
		    0)
			next_balance = sd->last_balance + sd->balance_interval * NSEC_PER_MSEC;
		if (pulled)
			break;
	}
	sched_topology_read_end(cpu);
	spin_lock(&rq->lock);
	if (pulled)
		rq->idle_stamp = 0;
	/* Going idle: a next_balance set while busy (times busy_factor) is too far off. */
	if (pulled || (s64)(rq->clock - rq->next_balance) > 0)
		rq->next_balance = next_balance;
	/* LAB 5 SKELETON
	TODO: new-idle balancing (step 5): unless avg_idle is short, drop rq->lock and
	TODO: balance each SD_BALANCE_NEWIDLE domain bottom-up until a task comes.
	   LAB 5 END */
}

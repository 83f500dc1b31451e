/*
 * Load balancing between runqueues (balance.c): Linux 3.8's periodic
 * per-domain balancing from the tick, new-idle balancing, and active
 * balancing of a lone running task through the per-CPU stopper (stop.c).
 * The fair class's idle_balance and trigger_balance hooks point here.
 */
#ifndef FULCRUM_SCHED_BALANCE_H
#define FULCRUM_SCHED_BALANCE_H

#include "sched/sched.h"

/* What the balancing CPU is doing; Linux's order, which schedstat follows. */
enum cpu_idle_type {
	CPU_IDLE,	/* periodic balancing of an idle CPU */
	CPU_NOT_IDLE,	/* periodic balancing of a busy CPU */
	CPU_NEWLY_IDLE, /* the CPU is about to go idle (idle_balance) */
	CPU_MAX_IDLE_TYPES
};

_Static_assert(CPU_MAX_IDLE_TYPES == SD_IDLE_TYPES, "schedstat rows per idle type");

/* Tasks one load_balance() pass looks at, at most (Linux's sysctl_sched_nr_migrate). */
#define SCHED_NR_MIGRATE 32

/*
 * The tick's hook (fair class .trigger_balance): interrupts off, no rq lock
 * held. Accounts wasted idle time (stats.c) and, once rq->clock has passed
 * rq->next_balance, balances rq's CPU over each of its domains whose
 * interval is due. Bounded: per domain at most SCHED_NR_MIGRATE tasks
 * looked at per source queue tried.
 */
void trigger_balance_fair(struct rq *rq);

/*
 * The core's hook when rq is about to go idle (fair class .idle_balance):
 * rq->lock held, interrupts off; the lock is dropped and retaken. Stamps
 * rq->idle_stamp, and unless the CPU's recent idle periods were short
 * (rq->avg_idle < sysctl_sched_migration_cost, kept by the core:
 * rq_update_avg_idle() in sched.h) pulls work from the busiest
 * queue of the lowest domain that has some, one task at most.
 */
void idle_balance_fair(struct rq *rq);

/* ------------------------------------------------ exposed for tests and tools */

/*
 * One load_balance() pass of this_cpu over sd (a domain of this_cpu, read
 * within a sched_topology_read_begin/end section on this_cpu). No rq lock
 * held, interrupts off. Returns the number of tasks pulled.
 * *continue_balancing is cleared when another CPU of the local group is the
 * one to balance this level (and those above).
 */
int load_balance(u32 this_cpu, struct sched_domain *sd, enum cpu_idle_type idle,
		 bool *continue_balancing);

/*
 * find_busiest_group() alone, as load_balance() would call it: sd's busiest
 * group seen from this_cpu, or NULL when the domain counts as balanced;
 * *imbalance is the weighted load to move (0 when balanced).
 */
struct sched_group *balance_find_busiest_group(u32 this_cpu, struct sched_domain *sd,
					       enum cpu_idle_type idle, unsigned long *imbalance);

#endif

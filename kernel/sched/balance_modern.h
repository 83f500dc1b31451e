/*
 * The load balancer of Linux 5.5 and later (Vincent Guittot's rework, with
 * 6.6's SMT balance), chosen by sched_balance=modern: balance_modern.c
 * moves tasks and decides when, balance_modern_find.c classifies groups
 * and says what to move. It reads PELT (pelt.h) instead of cpu_load[].
 * docs/modern-balancer.md explains the design.
 */
#ifndef FULCRUM_SCHED_BALANCE_MODERN_H
#define FULCRUM_SCHED_BALANCE_MODERN_H

#include "sched/balance.h"

/* sched_balance=modern: the fair class's balance hook goes to balance_modern(). */
extern bool sched_balance_modern;

/* Selects the balancer by name ("3.8" or "modern"); -1 for another name. */
int sched_balance_set(const char *name, size_t len);

/* The fair class's balance operation under sched_balance=modern (same contract). */
void balance_modern(struct rq *rq, enum sched_balance_why why);

/*
 * How a group stands, least to most in need of help: Linux 6.6's order
 * without misfit and asym packing (no level of this kernel has asymmetric
 * capacities or SD_ASYM_PACKING).
 */
enum group_type {
	group_has_spare,   /* runs fewer tasks than it has capacity for */
	group_fully_busy,  /* every CPU used, but nobody waits long */
	group_smt_balance, /* an SMT core running two or more tasks, seen by an idle CPU */
	group_imbalanced,  /* affinity kept the level below from balancing */
	group_overloaded,  /* more tasks than capacity: some wait */
};

/* What the imbalance counts. */
enum migration_type { migrate_load, migrate_util, migrate_task };

/* One group as the modern find_busiest_group() sums it up. */
struct sg_mlb_stats {
	unsigned long avg_load; /* group_load per SCHED_CAPACITY_SCALE of capacity (overloaded only) */
	unsigned long group_load, group_util, group_runnable;
	unsigned long group_capacity;
	u32 sum_nr_running, sum_h_nr_running, idle_cpus, group_weight, cores;
	enum group_type group_type;
	bool smt_balance;
};

/* One pass: where from, where to, how much of what. */
struct mlb_env {
	struct sched_domain *sd;
	struct rq *src_rq, *dst_rq;
	u32 src_cpu, dst_cpu, new_dst_cpu;
	const struct cpumask *dst_grpmask;
	enum cpu_idle_type idle;
	long imbalance;
	enum migration_type migration_type;
	struct cpumask cpus;
	u32 flags; /* MLBF_* */
	u32 loop, loop_max;
};

#define MLBF_ALL_PINNED	 0x01 /* no task seen may run on dst_cpu */
#define MLBF_DST_PINNED	 0x02 /* one may not, but may run on new_dst_cpu of our group */
#define MLBF_SOME_PINNED 0x04 /* some task could not come to dst_cpu */
#define MLBF_ACTIVE_LB	 0x08 /* the stopper's pull: the running task was preempted for it */

/* Classifies a group from its sums (exposed for tests). */
enum group_type modern_group_classify(u32 imbalance_pct, bool imbalanced,
				      const struct sg_mlb_stats *sgs);

/* The imbalance_pct of a level under the modern balancer: SMT 110, LLC 117, others 125. */
u32 modern_imbalance_pct(const struct sched_domain *sd);

/*
 * The decision of find_busiest_group(): the busiest group of env->sd seen
 * from env->dst_cpu, with env->imbalance and env->migration_type set, or
 * NULL (balanced). Lockless reads of every queue of the domain.
 */
struct sched_group *modern_find_busiest_group(struct mlb_env *env);

/* The queue in group to pull from for env->migration_type, or NULL. */
struct rq *modern_find_busiest_queue(const struct mlb_env *env, struct sched_group *group);

/* Affinity kept the balance of the domain spanning sg from finishing (sgc->imbalance). */
bool modern_group_imbalance(const struct sched_domain *sd, const struct sched_group *sg);
void modern_set_group_imbalance(const struct sched_domain *parent, u32 first_cpu, bool on);

/* ------------------------------------------------------------ exposed for tests */

/* One load_balance() pass of this_cpu over sd (sched_topology read section; no lock). */
int modern_load_balance(u32 this_cpu, struct sched_domain *sd, enum cpu_idle_type idle,
			bool *continue_balancing);

/* Sets the largest new-idle cost (ns) recorded for cpu's domain sd: tests of the avg_idle gate. */
void modern_set_newidle_cost(const struct sched_domain *sd, u32 cpu, u64 ns);

/* modern_find_busiest_group() alone: the group, *imbalance and *type as load_balance sees them. */
struct sched_group *modern_balance_find_busiest_group(u32 this_cpu, struct sched_domain *sd,
						      enum cpu_idle_type idle, long *imbalance,
						      enum migration_type *type);

#endif

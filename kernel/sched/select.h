/*
 * Task placement for the fair class: where a waking, forked or exec'ing
 * task runs next. Linux 3.8's select_task_rq_fair() in two variants --
 * the stock domain walk and Michael Wang's schedule balance map (RFC v3)
 * -- chosen at boot by sched_select=stock|sbm (docs/linux-scheduler-facts.md sections 12-16).
 */
#ifndef FULCRUM_SCHED_SELECT_H
#define FULCRUM_SCHED_SELECT_H

#include "sched/sched.h"
#include "sched/topology.h"

/* The two placement variants. */
enum sched_select_variant {
	SCHED_SELECT_STOCK, /* 3.8's walk over the waker's domains */
	SCHED_SELECT_SBM,   /* Wang's v3: per-CPU maps, no balancing on wake-up */
};

/*
 * Boot option sched_select= ("stock", the default, or "sbm"); tests may
 * point it at either string. Read on every placement, so switching takes
 * effect with the next one.
 */
extern const char *sched_select;

/* Boot option sched_idle_sibling= ("3.8.13", the default, or "3.8.0"). */
extern const char *sched_idle_sibling;

/* Switches the variant at run time by name ("stock", "sbm"); -EINVAL for another. */
int sched_select_set(const char *name, size_t len);

/* The variant sched_select names (stock for anything but "sbm"). */
enum sched_select_variant sched_select_variant(void);

/*
 * The fair class's select_task_rq: a CPU for p (sd_flag SD_BALANCE_WAKE,
 * _FORK or _EXEC; wake_flags WF_SYNC...) decided on the calling CPU. Runs
 * with p->pi_lock held and no rq lock; other CPUs' loads are read racily,
 * as in Linux. The whole decision reads one topology generation inside a
 * sched_topology_read_begin/end section. Always returns a CPU in
 * p->cpus_allowed that has a runqueue (if p allows any).
 */
u32 select_task_rq_fair(struct task *p, int sd_flag, int wake_flags);

/*
 * The building blocks, exported for tests. Each takes the generation t the
 * caller read once; a NULL domain or group is answered, never followed.
 */

/*
 * Should p, last on task_cpu(p), wake on this_cpu instead? sd is this_cpu's
 * lowest wake-affine domain spanning both; sync: this_cpu's current task
 * (the waker) is about to sleep. NULL sd: false.
 */
bool wake_affine(struct sched_domain *sd, struct task *p, u32 this_cpu, bool sync);

/*
 * An idle CPU sharing target's last-level cache for p, else target; the
 * form chosen by sched_idle_sibling (this_cpu matters to 3.8.0's only).
 */
u32 select_idle_sibling(const struct sched_topology *t, struct task *p, u32 this_cpu, u32 target);

/*
 * The group of sd, other than this_cpu's, where p would add the least load
 * (load index load_idx), or NULL to stay in this_cpu's group: it must be
 * imbalance_pct/2 below the local group's load per unit of power.
 */
struct sched_group *find_idlest_group(struct sched_domain *sd, struct task *p, u32 this_cpu,
				      int load_idx);

/* The least loaded CPU of sg that p may use (this_cpu on a tie), or -1. */
int find_idlest_cpu(const struct sched_group *sg, struct task *p, u32 this_cpu);

#endif

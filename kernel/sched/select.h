/*
 * Task placement for the fair class: where a waking, forked or exec'ing
 * task runs next. Placement variants are registered objects -- Linux
 * 3.8's stock domain walk (select.c) and Michael Wang's schedule balance
 * map, RFC v3 (select_sbm.c) -- chosen by sched_select=NAME
 * (docs/linux-scheduler-facts.md sections 12-16); the
 * select_idle_sibling() they share comes in registered flavours too
 * (3.8.13, 3.8.0), chosen by sched_idle_sibling=NAME.
 */
#ifndef FULCRUM_SCHED_SELECT_H
#define FULCRUM_SCHED_SELECT_H

#include "sched/sched.h"
#include "sched/topology.h"

/* ---------------------------------------------------------------- variants */

#define SCHED_PLACEMENT_NAME_MAX 31 /* the longest name the sysctl takes */

/*
 * A placement variant: one file defines it and registers it with one line,
 *
 *	SCHED_PLACEMENT_REGISTER(sbm_placement);
 *
 * and sched_select=NAME at boot, or writing NAME to
 * /proc/sys/kernel/sched_select (the shell's `sysctl sched_select=NAME`) at
 * run time, makes it the one select_task_rq_fair() calls. A variant that
 * needs per-generation data (a map precomputed from the domains) builds it
 * with its own SCHED_TOPOLOGY_EXT hook (topology.h), as the balance map does.
 */
struct sched_placement {
	const char *name; /* what sched_select= calls it: unique, at most SCHED_PLACEMENT_NAME_MAX */

	/*
	 * Required (a variant without it is not offered). A CPU for p, which
	 * may run on more than one: sd_flag is SD_BALANCE_WAKE, _FORK or
	 * _EXEC, sync says the waker (this_cpu's current task) is about to
	 * sleep. Called by select_task_rq_fair() on this_cpu with p->pi_lock
	 * held and no rq lock, inside a topology read section for generation
	 * t, which is all of the topology it may read. Other CPUs' loads are
	 * racy reads. The answer need not be allowed or online: the caller
	 * moves it to the nearest CPU that is.
	 */
	u32 (*select_task_rq)(const struct sched_topology *t, struct task *p, int sd_flag,
			      bool sync, u32 this_cpu);
};

/*
 * A flavour of select_idle_sibling(): an idle CPU sharing target's
 * last-level cache for p, else target (this_cpu: the waking CPU). Same
 * context as select_task_rq. Registered like a variant, by
 *
 *	SCHED_IDLE_SIBLING_REGISTER(idle_sibling_3_8_0);
 *
 * and chosen by sched_idle_sibling=NAME. A registry of its own rather than
 * more variants: every variant calls select_idle_sibling(), so each
 * flavour works under each variant (sbm with 3.8.0 is a tested pairing)
 * without one variant per pair.
 */
struct sched_idle_sibling {
	const char *name; /* what sched_idle_sibling= calls it; unique */
	/* Required. */
	u32 (*select)(const struct sched_topology *t, struct task *p, u32 this_cpu, u32 target);
};

#define SCHED_PLACEMENT_REGISTER(v)                                                        \
	static const struct sched_placement *const __sched_placement_##v __used __section( \
		"sched_placements") __aligned(8) = &(v)

#define SCHED_IDLE_SIBLING_REGISTER(v)                                                           \
	static const struct sched_idle_sibling *const __sched_idle_sibling_##v __used __section( \
		"sched_idle_siblings") __aligned(8) = &(v)

/* The defaults, in select.c: 3.8's walk and 3.8.13's select_idle_sibling. */
extern const struct sched_placement stock_placement;
extern const struct sched_idle_sibling idle_sibling_3_8_13;

/*
 * The chosen variant and flavour, read once per placement (so a switch
 * takes effect with the next one; no name is compared on that path), and
 * their names, for printing. Set only through the functions below.
 */
extern const struct sched_placement *sched_placement_cur;
extern const struct sched_idle_sibling *sched_idle_sibling_cur;
extern const char *sched_select;
extern const char *sched_idle_sibling;

/* The registered variant / flavour called name[0..len), or NULL. */
const struct sched_placement *sched_placement_find(const char *name, size_t len);
const struct sched_idle_sibling *sched_idle_sibling_find(const char *name, size_t len);

/* The i-th registered variant in link order, NULL past the last. */
const struct sched_placement *sched_placement_at(u32 i);

/*
 * Makes the variant (flavour) called name[0..len) the chosen one: 0, or
 * -EINVAL and nothing changed when none is registered under that name.
 * Any context; the boot options sched_select= and sched_idle_sibling= go
 * through these and warn with the registered names.
 */
int sched_select_set(const char *name, size_t len);
int sched_idle_sibling_set(const char *name, size_t len);

/*
 * Appends the registered variants' names, ", "-separated, to buf[0..size)
 * (NUL-terminated, cut if it does not fit).
 */
void sched_placement_names(char *buf, size_t size);

/*
 * One boot-log line, like the class list:
 *   placement variants: stock sbm; chosen: stock, select_idle_sibling 3.8.13
 */
void sched_placement_print(void);

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
 * flavour chosen by sched_idle_sibling= (this_cpu matters to 3.8.0's only).
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

/*
 * schedstat for one step of a fork/exec balancing descent on sd (sd_flag
 * as given to select_task_rq): pushed, the step moved the task to another
 * CPU.
 */
void count_balance_step(struct sched_domain *sd, int sd_flag, bool pushed);

/* May p run on cpu, a CPU with a runqueue? */
bool cpu_allowed(const struct task *p, u32 cpu);

#endif

/*
 * The sbm placement variant: Michael Wang's schedule balance map, RFC v3
 * (LKML, Jan 2013; docs/linux-scheduler-facts.md section 16), as
 * select_task_rq_fair() under sched_select=sbm. It reads the per-CPU maps
 * that balance_map.c builds with every topology generation instead of
 * walking the waker's domains.
 */
#include "sched/balance_map.h"
#include "sched/select.h"

/* cpu's highest map domain for type strictly below level, or NULL. */
static struct sched_domain *sbm_below(const struct sched_topology *t, u32 cpu, enum sbm_type type,
				      int level)
{
	while (--level >= 0) {
		struct sched_domain *sd = sbm_sd(t, cpu, type, level);

		if (sd)
			return sd;
	}
	return NULL;
}

/*
 * The balance path of the map version: start at the map's top domain of
 * this CPU for type, and after each step continue in the map of the CPU
 * chosen (or kept), at the next level below the one just balanced. The
 * levels strictly fall, so it ends; on a machine whose CPUs' chains are
 * alike it visits what stock_descent() visits.
 */
static u32 sbm_descent(const struct sched_topology *t, struct task *p, enum sbm_type type, u32 cpu)
{
	struct sched_domain *sd = sbm_sd(t, cpu, type, sbm_top_level(t, cpu, type));
	int sd_flag = type == SBM_FORK_TYPE ? SD_BALANCE_FORK : SD_BALANCE_EXEC;
	u32 new_cpu = cpu;

	while (sd) {
		struct sched_group *sg = find_idlest_group(sd, p, cpu, (int)sd->forkexec_idx);
		int idlest = sg ? find_idlest_cpu(sg, p, cpu) : -1;

		count_balance_step(sd, sd_flag, idlest >= 0 && (u32)idlest != cpu);
		if (idlest >= 0)
			new_cpu = cpu = (u32)idlest;
		sd = sbm_below(t, cpu, type, sd->level);
	}
	return new_cpu;
}

/*
 * Wang's v3 (linux-scheduler-facts.md 16: "no load balance for WAKE"). A wake-up does only
 * this: wake_affine() on the map's affine domain for prev (an O(1) lookup
 * instead of the walk; same guards as stock), then select_idle_sibling()
 * on the target. Fork and exec take sbm_descent().
 *
 * Where it differs from stock: a wake-up with no affine domain -- prev
 * outside every wake-affine domain of this CPU (nodes beyond
 * RECLAIM_DISTANCE, a CPU alone), or a waker's CPU p may not use -- still
 * gets select_idle_sibling(prev), where stock returns prev untouched.
 */
static u32 select_sbm(const struct sched_topology *t, struct task *p, int sd_flag, bool sync,
		      u32 this_cpu)
{
	u32 prev = task_cpu(p);

	if (sd_flag & SD_BALANCE_WAKE) {
		struct sched_domain *affine_sd = sbm_affine_sd(t, this_cpu, prev);
		u32 target = prev;

		if (affine_sd && this_cpu != prev && cpumask_test_cpu(this_cpu, &p->cpus_allowed) &&
		    wake_affine(affine_sd, p, this_cpu, sync))
			target = this_cpu;
		return select_idle_sibling(t, p, this_cpu, target);
	}
	if (sd_flag & SD_BALANCE_FORK)
		return sbm_descent(t, p, SBM_FORK_TYPE, this_cpu);
	if (sd_flag & SD_BALANCE_EXEC)
		return sbm_descent(t, p, SBM_EXEC_TYPE, this_cpu);
	return this_cpu;
}

static const struct sched_placement sbm_placement = {
	.name = "sbm",
	.select_task_rq = select_sbm,
};
SCHED_PLACEMENT_REGISTER(sbm_placement);

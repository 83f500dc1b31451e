/*
 * What the modern load balancer moves (Linux 5.5+, 6.6's SMT balance):
 * every group of a domain is summed up from PELT's load, utilisation and
 * runnable averages and its task count, and classified; the worst-off
 * group is the busiest, and the pair (local type, busiest type) chooses
 * how the imbalance is counted -- tasks, utilisation or load -- and how
 * much of it to move. Reads are lockless snapshots, as in Linux; the move
 * re-checks under the runqueue locks.
 *
 * Capacity: every CPU counts SCHED_CAPACITY_SCALE (1024), SMT threads
 * included, as x86 does since Linux 4.19 dropped smt_gain; there is no
 * RT or interrupt pressure to subtract.
 */
#include "sched/balance_modern.h"

#include "sched/pelt.h"
#include "sched/topology.h"

/* The whole domain: the local group, the busiest, and the totals. */
struct sd_mlb_stats {
	struct sched_group *busiest, *local;
	unsigned long total_load, total_capacity, avg_load;
	bool prefer_sibling;
	struct sg_mlb_stats busiest_stat, local_stat;
};

u32 modern_imbalance_pct(const struct sched_domain *sd)
{
	if (sd->flags & SD_SHARE_CPUCAPACITY)
		return 110;
	if (sd->flags & SD_SHARE_PKG_RESOURCES)
		return 117;
	return 125;
}

/* A group is an SMT core when the level below shares capacity and it has more than one CPU. */
static bool sg_is_smt(const struct sched_domain *sd, const struct sched_group *sg)
{
	return sd->child && (sd->child->flags & SD_SHARE_CPUCAPACITY) && sg->weight > 1;
}

/*
 * Cores in sg: its CPUs over the threads per core, which the base (SMT)
 * level of the balancing CPU's chain gives; the machines built here are
 * symmetric, so one core's thread count stands for all.
 */
static u32 sg_cores(const struct sched_domain *sd, const struct sched_group *sg)
{
	const struct sched_domain *base = sd;
	u32 threads = 1;

	while (base->child)
		base = base->child;
	if ((base->flags & SD_SHARE_CPUCAPACITY) && base->span_weight > 1)
		threads = base->span_weight;
	return sg->weight >= threads ? sg->weight / threads : 1;
}

/* ---------------------------------------------------------------- classification */

/* Room left: fewer tasks than CPUs, or utilisation and runnable time below capacity. */
static bool group_has_capacity(u32 imbalance_pct, const struct sg_mlb_stats *sgs)
{
	if (sgs->sum_nr_running < sgs->group_weight)
		return true;
	if (sgs->group_capacity * imbalance_pct < sgs->group_runnable * 100)
		return false;
	if (sgs->group_capacity * 100 > sgs->group_util * imbalance_pct)
		return true;
	return false;
}

/* More tasks than CPUs, and their utilisation or waiting shows it. */
static bool group_is_overloaded(u32 imbalance_pct, const struct sg_mlb_stats *sgs)
{
	if (sgs->sum_nr_running <= sgs->group_weight)
		return false;
	if (sgs->group_capacity * 100 < sgs->group_util * imbalance_pct)
		return true;
	if (sgs->group_capacity * imbalance_pct < sgs->group_runnable * 100)
		return true;
	return false;
}

enum group_type modern_group_classify(u32 imbalance_pct, bool imbalanced,
				      const struct sg_mlb_stats *sgs)
{
	if (group_is_overloaded(imbalance_pct, sgs))
		return group_overloaded;
	if (imbalanced)
		return group_imbalanced;
	if (sgs->smt_balance)
		return group_smt_balance;
	if (!group_has_capacity(imbalance_pct, sgs))
		return group_fully_busy;
	return group_has_spare;
}

/*
 * Sums up sg. 6.6's SMT balance: a remote SMT core running two or more
 * tasks, seen by a CPU that is idle, is worth taking one from -- two
 * tasks on one core's threads run slower than on two cores.
 */
static void update_sg_stats(struct mlb_env *env, struct sched_group *sg, bool local_group,
			    struct sg_mlb_stats *sgs)
{
	u32 cpu;

	*sgs = (struct sg_mlb_stats){ 0 };
	for_each_cpu (cpu, sg_span(sg)) {
		struct rq *rq = cpu_rq(cpu);
		u32 nr;

		if (!rq || !cpumask_test_cpu(cpu, &env->cpus))
			continue;
		sgs->group_load += pelt_cpu_load(cpu);
		sgs->group_util += pelt_cpu_util(cpu);
		sgs->group_runnable += pelt_cpu_runnable(cpu);
		sgs->sum_h_nr_running += READ_ONCE(rq->cfs.nr_running);
		nr = READ_ONCE(rq->nr_running);
		sgs->sum_nr_running += nr;
		if (!nr && idle_cpu(cpu))
			sgs->idle_cpus++;
	}
	sgs->group_weight = sg->weight;
	sgs->group_capacity = (unsigned long)sg->weight * SCHED_CAPACITY_SCALE;
	sgs->cores = sg_cores(env->sd, sg);
	if (!local_group && env->idle != CPU_NOT_IDLE && sg_is_smt(env->sd, sg) &&
	    sgs->sum_h_nr_running > 1)
		sgs->smt_balance = true;
	sgs->group_type = modern_group_classify(modern_imbalance_pct(env->sd),
						modern_group_imbalance(env->sd, sg), sgs);
	/* The average load means something only once the group is overloaded. */
	if (sgs->group_type == group_overloaded)
		sgs->avg_load = sgs->group_load * SCHED_CAPACITY_SCALE / sgs->group_capacity;
}

/* One of the two is an SMT core and the other is not. */
static bool smt_vs_nonsmt(const struct sched_domain *sd, const struct sched_group *a,
			  const struct sched_group *b)
{
	return a && b && sg_is_smt(sd, a) != sg_is_smt(sd, b);
}

/*
 * Does sg (not the local group) replace the busiest so far? A worse type
 * wins; within a type: the highest average load (overloaded, fully busy),
 * the first found (imbalanced), the fewest idle CPUs then the most tasks
 * (has spare, and SMT cores with an idle CPU on either side).
 */
static bool update_sd_pick_busiest(struct mlb_env *env, struct sd_mlb_stats *sds,
				   struct sched_group *sg, struct sg_mlb_stats *sgs)
{
	struct sg_mlb_stats *busiest = &sds->busiest_stat;

	if (!sgs->sum_h_nr_running)
		return false;
	if (sgs->group_type > busiest->group_type)
		return true;
	if (sgs->group_type < busiest->group_type)
		return false;
	switch (sgs->group_type) {
	case group_overloaded:
		return sgs->avg_load > busiest->avg_load;
	case group_imbalanced:
		return false;
	case group_smt_balance:
		if (sgs->idle_cpus != 0 || busiest->idle_cpus != 0)
			goto has_spare;
		/* fall through */
	case group_fully_busy:
		/* avg_load is 0 below overloaded, as in Linux: the last such group wins. */
		if (sgs->avg_load < busiest->avg_load)
			return false;
		/* A tie: keep an SMT busiest, whose two tasks share one core. */
		if (sgs->avg_load == busiest->avg_load && sds->busiest &&
		    sg_is_smt(env->sd, sds->busiest))
			return false;
		return true;
	case group_has_spare:
		/* Do not take the lone task of an SMT core over a non-SMT group's. */
		if (smt_vs_nonsmt(env->sd, sds->busiest, sg))
			return !(sg_is_smt(env->sd, sg) && sgs->sum_h_nr_running <= 1);
	has_spare:
		if (sgs->idle_cpus > busiest->idle_cpus)
			return false;
		if (sgs->idle_cpus == busiest->idle_cpus &&
		    sgs->sum_nr_running <= busiest->sum_nr_running)
			return false;
		return true;
	}
	return true;
}

static void update_sd_stats(struct mlb_env *env, struct sd_mlb_stats *sds)
{
	struct sched_domain *child = env->sd->child;
	struct sched_group *sg;

	sds->prefer_sibling = child && !(child->flags & SD_NUMA);
	sds->busiest_stat.idle_cpus = ~0U;
	sds->busiest_stat.group_type = group_has_spare;
	for_each_sd_group (sg, env->sd) {
		bool local_group = cpumask_test_cpu(env->dst_cpu, sg_span(sg));
		struct sg_mlb_stats sgs;

		update_sg_stats(env, sg, local_group, &sgs);
		sds->total_load += sgs.group_load;
		sds->total_capacity += sgs.group_capacity;
		if (local_group) {
			sds->local = sg;
			sds->local_stat = sgs;
		} else if (update_sd_pick_busiest(env, sds, sg, &sgs)) {
			sds->busiest = sg;
			sds->busiest_stat = sgs;
		}
	}
}

/*
 * Tasks to move so that both groups run as many tasks per core (6.6): the
 * plain difference for groups of equal size, else the difference of the
 * cross products, normalised and rounded; an empty local group may take
 * two to start with.
 */
static long sibling_imbalance(const struct mlb_env *env, const struct sd_mlb_stats *sds,
			      const struct sg_mlb_stats *busiest, const struct sg_mlb_stats *local)
{
	long nb = busiest->cores, nl = local->cores, imb;

	if (env->idle == CPU_NOT_IDLE || !busiest->sum_nr_running)
		return 0;
	if (nb == nl)
		return MAX((long)busiest->sum_nr_running - (long)local->sum_nr_running, 0L);
	imb = MAX(nl * busiest->sum_nr_running - nb * local->sum_nr_running, 0L);
	imb = (2 * imb + nl + nb) / (nl + nb);
	if (imb <= 1 && local->sum_nr_running == 0 && busiest->sum_nr_running > 1)
		imb = 2;
	return imb;
}

/* How much to move, and counted how: 6.6's calculate_imbalance() without misfit and asym. */
static void calculate_imbalance(struct mlb_env *env, struct sd_mlb_stats *sds)
{
	struct sg_mlb_stats *local = &sds->local_stat, *busiest = &sds->busiest_stat;

	if (busiest->group_type == group_smt_balance || busiest->group_type == group_imbalanced) {
		/* One task: fewer tasks sharing a core / any move the next pass can correct. */
		env->migration_type = migrate_task;
		env->imbalance = 1;
		return;
	}
	if (local->group_type == group_has_spare) {
		if (busiest->group_type > group_fully_busy &&
		    !(env->sd->flags & SD_SHARE_PKG_RESOURCES)) {
			/* Fill our spare capacity from an overloaded group beyond the LLC. */
			env->migration_type = migrate_util;
			env->imbalance = (long)(MAX(local->group_capacity, local->group_util) -
						local->group_util);
			if (env->idle != CPU_NOT_IDLE && env->imbalance == 0) {
				env->migration_type = migrate_task;
				env->imbalance = 1;
			}
			return;
		}
		env->migration_type = migrate_task;
		if (busiest->group_weight == 1 || sds->prefer_sibling)
			env->imbalance = sibling_imbalance(env, sds, busiest, local);
		else
			env->imbalance = MAX((long)local->idle_cpus - (long)busiest->idle_cpus, 0L);
		env->imbalance >>= 1; /* move half the difference */
		return;
	}
	if (local->group_type < group_overloaded) {
		/* We become overloaded by pulling: averages matter now. */
		local->avg_load = local->group_load * SCHED_CAPACITY_SCALE / local->group_capacity;
		if (local->avg_load >= busiest->avg_load) {
			env->imbalance = 0;
			return;
		}
		sds->avg_load = sds->total_load * SCHED_CAPACITY_SCALE / sds->total_capacity;
		if (local->avg_load >= sds->avg_load) {
			env->imbalance = 0;
			return;
		}
	}
	/* Both overloaded: towards the domain average, neither side past it. */
	env->migration_type = migrate_load;
	env->imbalance = (long)(MIN((busiest->avg_load - sds->avg_load) * busiest->group_capacity,
				    (sds->avg_load - local->avg_load) * local->group_capacity) /
				SCHED_CAPACITY_SCALE);
}

struct sched_group *modern_find_busiest_group(struct mlb_env *env)
{
	struct sd_mlb_stats sds = { 0 };
	struct sg_mlb_stats *local, *busiest;

	update_sd_stats(env, &sds);
	if (!sds.busiest || !sds.local)
		goto out_balanced;
	busiest = &sds.busiest_stat;
	local = &sds.local_stat;
	/* Averages say nothing right about an affinity-constrained group. */
	if (busiest->group_type == group_imbalanced)
		goto force_balance;
	if (local->group_type > busiest->group_type)
		goto out_balanced;
	if (local->group_type == group_overloaded) {
		if (local->avg_load >= busiest->avg_load)
			goto out_balanced;
		sds.avg_load = sds.total_load * SCHED_CAPACITY_SCALE / sds.total_capacity;
		if (local->avg_load >= sds.avg_load)
			goto out_balanced;
		if (100 * busiest->avg_load <= modern_imbalance_pct(env->sd) * local->avg_load)
			goto out_balanced;
	}
	/* Spread the excess over sibling groups of the level below. */
	if (sds.prefer_sibling && local->group_type == group_has_spare &&
	    sibling_imbalance(env, &sds, busiest, local) > 1)
		goto force_balance;
	if (busiest->group_type != group_overloaded) {
		/* Nobody waits and we are busy: leave it to an idle CPU. */
		if (env->idle == CPU_NOT_IDLE)
			goto out_balanced;
		if (busiest->group_type == group_smt_balance &&
		    smt_vs_nonsmt(env->sd, sds.local, sds.busiest))
			goto force_balance;
		/* Idle CPUs differ by one at most: moving would only move the gap. */
		if (busiest->group_weight > 1 && local->idle_cpus <= busiest->idle_cpus + 1)
			goto out_balanced;
		if (busiest->sum_h_nr_running == 1)
			goto out_balanced;
	}
force_balance:
	calculate_imbalance(env, &sds);
	return env->imbalance ? sds.busiest : NULL;
out_balanced:
	env->imbalance = 0;
	return NULL;
}

struct rq *modern_find_busiest_queue(const struct mlb_env *env, struct sched_group *group)
{
	unsigned long busiest_util = 0, busiest_load = 0, busiest_capacity = 1;
	u32 busiest_nr = 0, cpu;
	struct rq *busiest = NULL;

	for_each_cpu (cpu, sg_span(group)) {
		struct rq *rq = cpu_rq(cpu);
		unsigned long capacity = SCHED_CAPACITY_SCALE, load, util;
		u32 nr;

		if (!rq || !cpumask_test_cpu(cpu, &env->cpus))
			continue;
		nr = READ_ONCE(rq->cfs.nr_running);
		if (!nr)
			continue;
		switch (env->migration_type) {
		case migrate_load:
			/* A lone task heavier than the imbalance would only move it. */
			load = pelt_cpu_load(cpu);
			if (nr == 1 && load > (unsigned long)env->imbalance)
				break;
			if (load * busiest_capacity > busiest_load * capacity) {
				busiest_load = load;
				busiest_capacity = capacity;
				busiest = rq;
			}
			break;
		case migrate_util:
			/* A lone running task cannot be detached, whatever its utilisation. */
			util = pelt_cpu_util(cpu);
			if (nr <= 1)
				continue;
			if (busiest_util < util) {
				busiest_util = util;
				busiest = rq;
			}
			break;
		case migrate_task:
			if (busiest_nr < nr) {
				busiest_nr = nr;
				busiest = rq;
			}
			break;
		}
	}
	return busiest;
}

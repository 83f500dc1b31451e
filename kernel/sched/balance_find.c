/*
 * What the load balancer moves, Linux 3.8's rules (docs/linux-scheduler-facts.md section 23):
 * find_busiest_group() sums up each group of a domain by load, capacity
 * and idleness and decides whether the busiest one is worth pulling from,
 * calculate_imbalance() says how much weighted load to pull, and
 * find_busiest_queue() picks the queue. Loads are 3.8's: weighted_cpuload()
 * and the decayed cpu_load[] history through source_load()/target_load()
 * (load.h), scaled by group power. They are read locklessly, as in Linux:
 * a decision may act on a slightly stale picture; the move itself re-checks
 * under the runqueue locks.
 */
#include "sched/balance_internal.h"

#include "sched/load.h"
#include "sched/topology.h"

/* One group as find_busiest_group() sees it. */
struct sg_lb_stats {
	unsigned long avg_load;	  /* group_load per SCHED_POWER_SCALE of power */
	unsigned long group_load; /* sum of the CPUs' loads, by load index */
	unsigned long sum_nr_running;
	unsigned long sum_weighted_load; /* sum of weighted_cpuload() */
	unsigned long group_capacity;	 /* tasks it runs at full speed */
	unsigned long group_weight;
	unsigned long idle_cpus;
	bool group_imb; /* unbalanced inside, beyond one task's weight */
	bool group_has_capacity;
};

/* The whole domain: the local group ("this"), the busiest, the average. */
struct sd_lb_stats {
	struct sched_group *busiest, *this;
	unsigned long total_load, total_pwr, avg_load;
	unsigned long this_load, this_load_per_task, this_nr_running, this_idle_cpus;
	bool this_has_capacity;
	unsigned long max_load, busiest_load_per_task, busiest_nr_running;
	unsigned long busiest_group_capacity, busiest_group_weight, busiest_idle_cpus;
	bool busiest_has_capacity, group_imb;
};

/* The cpu_load[] index a balance of this kind reads (0: the instant load). */
static int sd_load_idx(const struct sched_domain *sd, enum cpu_idle_type idle)
{
	if (idle == CPU_NOT_IDLE)
		return (int)sd->busy_idx;
	if (idle == CPU_NEWLY_IDLE)
		return (int)sd->newidle_idx;
	return (int)sd->idle_idx;
}

/*
 * Sums up one group. The local group's CPUs are loaded with target_load(),
 * the others' with source_load(), so both ends are biased against moving.
 * For periodic balancing only one CPU of the local group balances the
 * domain -- its first idle CPU, else its first CPU; on any other CPU
 * *balance is cleared and nothing else is computed.
 */
static void update_sg_lb_stats(struct lb_env *env, struct sched_group *sg, int load_idx,
			       bool local_group, bool *balance, struct sg_lb_stats *sgs)
{
	unsigned long max_cpu_load = 0, min_cpu_load = ~0UL;
	unsigned long max_nr_running = 0, min_nr_running = ~0UL, avg_load_per_task = 0;
	u32 cpu, balance_cpu = sg->balance_cpu;
	bool found_idle = false;

	for_each_cpu (cpu, sg_span(sg)) {
		struct rq *rq = cpu_rq(cpu);
		unsigned long load, nr;

		if (!rq || !cpumask_test_cpu(cpu, &env->cpus))
			continue;
		nr = READ_ONCE(rq->nr_running);
		if (local_group) {
			if (!found_idle && idle_cpu(cpu)) {
				found_idle = true;
				balance_cpu = cpu;
			}
			load = target_load(cpu, load_idx);
		} else {
			load = source_load(cpu, load_idx);
			max_cpu_load = MAX(max_cpu_load, load);
			min_cpu_load = MIN(min_cpu_load, load);
			max_nr_running = MAX(max_nr_running, nr);
			min_nr_running = MIN(min_nr_running, nr);
		}
		sgs->group_load += load;
		sgs->sum_nr_running += nr;
		sgs->sum_weighted_load += weighted_cpuload(cpu);
		if (idle_cpu(cpu))
			sgs->idle_cpus++;
	}
	if (local_group && env->idle != CPU_NEWLY_IDLE && balance_cpu != env->dst_cpu) {
		*balance = false;
		return;
	}
	sgs->avg_load = sgs->group_load * SCHED_POWER_SCALE / sg->power;
	/*
	 * Unbalanced inside (say, by affinity): CPU loads differ by at least a
	 * task's average weight and queue lengths by more than one. The
	 * wrapped differences of an empty group fail the second test, as in 3.8.
	 */
	if (sgs->sum_nr_running)
		avg_load_per_task = sgs->sum_weighted_load / sgs->sum_nr_running;
	if (max_cpu_load - min_cpu_load >= avg_load_per_task && max_nr_running - min_nr_running > 1)
		sgs->group_imb = true;
	sgs->group_capacity = sg->capacity; /* power rounded, an SMT thread at least 1 */
	sgs->group_weight = sg->weight;
	sgs->group_has_capacity = sgs->group_capacity > sgs->sum_nr_running;
}

/*
 * Does sg replace the busiest so far? Only if it is more loaded and either
 * runs more tasks than its capacity or is unbalanced inside. (No
 * SD_ASYM_PACKING: no x86 level has it in 3.8.)
 */
static bool update_sd_pick_busiest(const struct sd_lb_stats *sds, const struct sg_lb_stats *sgs)
{
	if (sgs->avg_load <= sds->max_load)
		return false;
	return sgs->sum_nr_running > sgs->group_capacity || sgs->group_imb;
}

static void update_sd_lb_stats(struct lb_env *env, bool *balance, struct sd_lb_stats *sds)
{
	struct sched_domain *child = env->sd->child;
	bool prefer_sibling = child && (child->flags & SD_PREFER_SIBLING);
	int load_idx = sd_load_idx(env->sd, env->idle);
	struct sched_group *sg;

	/* The local group comes first in the ring, so this_has_capacity is known for the rest. */
	for_each_sd_group (sg, env->sd) {
		bool local_group = cpumask_test_cpu(env->dst_cpu, sg_span(sg));
		struct sg_lb_stats sgs = { 0 };

		update_sg_lb_stats(env, sg, load_idx, local_group, balance, &sgs);
		if (local_group && !*balance)
			return;
		sds->total_load += sgs.group_load;
		sds->total_pwr += sg->power;
		/*
		 * The child prefers its siblings: count another group as able to
		 * run one task only, so its excess moves to us -- if we have room.
		 */
		if (prefer_sibling && !local_group && sds->this_has_capacity)
			sgs.group_capacity = MIN(sgs.group_capacity, 1UL);
		if (local_group) {
			sds->this = sg;
			sds->this_load = sgs.avg_load;
			sds->this_nr_running = sgs.sum_nr_running;
			sds->this_load_per_task = sgs.sum_weighted_load;
			sds->this_has_capacity = sgs.group_has_capacity;
			sds->this_idle_cpus = sgs.idle_cpus;
		} else if (update_sd_pick_busiest(sds, &sgs)) {
			sds->busiest = sg;
			sds->max_load = sgs.avg_load;
			sds->busiest_nr_running = sgs.sum_nr_running;
			sds->busiest_idle_cpus = sgs.idle_cpus;
			sds->busiest_group_capacity = sgs.group_capacity;
			sds->busiest_load_per_task = sgs.sum_weighted_load;
			sds->busiest_has_capacity = sgs.group_has_capacity;
			sds->busiest_group_weight = sgs.group_weight;
			sds->group_imb = sgs.group_imb;
		}
	}
}

/*
 * The imbalance is too small for a whole task by the rules of
 * calculate_imbalance(): move one task's load anyway if the busiest group
 * is more than a task (two tasks when ours are as heavy) ahead of us, or if
 * the throughput estimate -- the power used on both sides, before and
 * after the move -- improves.
 */
static void fix_small_imbalance(struct lb_env *env, struct sd_lb_stats *sds)
{
	unsigned long busiest_pwr = sds->busiest->power, this_pwr = sds->this->power;
	unsigned long tmp, pwr_now = 0, pwr_move = 0, scaled_busy_lpt;
	unsigned long imbn = 2;

	if (sds->this_nr_running) {
		sds->this_load_per_task /= sds->this_nr_running;
		if (sds->busiest_load_per_task > sds->this_load_per_task)
			imbn = 1;
	} else {
		sds->this_load_per_task = cpu_avg_load_per_task(env->dst_cpu);
	}
	scaled_busy_lpt = sds->busiest_load_per_task * SCHED_POWER_SCALE / busiest_pwr;
	/* Unsigned as in 3.8: a local group above the busiest wraps and passes. */
	if (sds->max_load - sds->this_load + scaled_busy_lpt >= scaled_busy_lpt * imbn) {
		env->imbalance = (long)sds->busiest_load_per_task;
		return;
	}
	pwr_now += busiest_pwr * MIN(sds->busiest_load_per_task, sds->max_load);
	pwr_now += this_pwr * MIN(sds->this_load_per_task, sds->this_load);
	pwr_now /= SCHED_POWER_SCALE;
	/* The busiest group without one task... */
	tmp = sds->busiest_load_per_task * SCHED_POWER_SCALE / busiest_pwr;
	if (sds->max_load > tmp)
		pwr_move += busiest_pwr * MIN(sds->busiest_load_per_task, sds->max_load - tmp);
	/* ...and ours with it. */
	if (sds->max_load * busiest_pwr < sds->busiest_load_per_task * SCHED_POWER_SCALE)
		tmp = sds->max_load * busiest_pwr / this_pwr;
	else
		tmp = sds->busiest_load_per_task * SCHED_POWER_SCALE / this_pwr;
	pwr_move += this_pwr * MIN(sds->this_load_per_task, sds->this_load + tmp);
	pwr_move /= SCHED_POWER_SCALE;
	if (pwr_move > pwr_now)
		env->imbalance = (long)sds->busiest_load_per_task;
}

/*
 * How much weighted load to pull: bring both groups towards the domain
 * average, without pushing ours above it, the busiest below it, or the
 * busiest below its capacity (tasks beyond capacity are all it gives).
 *
 *   max_pull  = min(busiest_avg - domain_avg, (nr - capacity) * 1024^2 / power)
 *   imbalance = min(max_pull * busiest_power, (domain_avg - this_avg) * this_power) / 1024
 */
static void calculate_imbalance(struct lb_env *env, struct sd_lb_stats *sds)
{
	sds->busiest_load_per_task /= sds->busiest_nr_running;
	if (sds->group_imb)
		sds->busiest_load_per_task = MIN(sds->busiest_load_per_task, sds->avg_load);
	/* LAB 5 BEGIN imbalance */
	unsigned long max_pull, load_above_capacity = ~0UL;

	if (sds->max_load < sds->avg_load) {
		env->imbalance = 0;
		fix_small_imbalance(env, sds);
		return;
	}
	if (!sds->group_imb) {
		unsigned long excess = sds->busiest_nr_running > sds->busiest_group_capacity ?
					       sds->busiest_nr_running - sds->busiest_group_capacity :
					       0;

		load_above_capacity = excess * NICE_0_LOAD * SCHED_POWER_SCALE / sds->busiest->power;
	}
	max_pull = MIN(sds->max_load - sds->avg_load, load_above_capacity);
	env->imbalance = (long)(MIN(max_pull * sds->busiest->power,
				    (sds->avg_load - sds->this_load) * sds->this->power) /
				SCHED_POWER_SCALE);
	if ((unsigned long)env->imbalance < sds->busiest_load_per_task)
		fix_small_imbalance(env, sds);
	/* LAB 5 SKELETON
	TODO: set env->imbalance by the formula above (step 2), with fix_small_imbalance()
	TODO: when the busiest is below the average or the result is less than one task.
	env->imbalance = 0;
	(void)fix_small_imbalance;
	   LAB 5 END */
}

/*
 * Is the busiest group worth pulling from? 3.8's order: the busiest
 * unbalanced inside, or we newly idle with room while it has none -> yes;
 * we as loaded as the busiest or as the domain average -> no; an idle CPU
 * leaves a group alone that has no more tasks than CPUs and at most one
 * idle CPU fewer than ours; otherwise the busiest must exceed us by
 * imbalance_pct.
 */
static bool busiest_worth_pulling(const struct lb_env *env, const struct sd_lb_stats *sds)
{
	/* LAB 5 BEGIN busiest_group */
	if (sds->group_imb)
		return true;
	if (env->idle == CPU_NEWLY_IDLE && sds->this_has_capacity && !sds->busiest_has_capacity)
		return true;
	if (sds->this_load >= sds->max_load || sds->this_load >= sds->avg_load)
		return false;
	if (env->idle == CPU_IDLE)
		return sds->this_idle_cpus > sds->busiest_idle_cpus + 1 ||
		       sds->busiest_nr_running > sds->busiest_group_weight;
	return 100 * sds->max_load > env->sd->imbalance_pct * sds->this_load;
	/* LAB 5 SKELETON
	TODO: decide from sds (docs/labs/lab5-balance.md, step 1); true: pull, false: balanced.
	return false;
	   LAB 5 END */
}

/* The busiest group with env->imbalance set, or NULL (balanced, env->imbalance 0). */
struct sched_group *find_busiest_group(struct lb_env *env, bool *balance)
{
	struct sd_lb_stats sds = { 0 };

	update_sd_lb_stats(env, balance, &sds);
	if (!*balance || !sds.busiest || sds.busiest_nr_running == 0 || !sds.this)
		goto out_balanced;
	sds.avg_load = SCHED_POWER_SCALE * sds.total_load / sds.total_pwr;
	if (!busiest_worth_pulling(env, &sds))
		goto out_balanced;
	calculate_imbalance(env, &sds);
	return sds.busiest;
out_balanced:
	env->imbalance = 0;
	return NULL;
}

/*
 * The queue of group to pull from: the most loaded per unit of power,
 * skipping one whose single task alone outweighs the imbalance (moving it
 * would only move the imbalance).
 */
struct rq *find_busiest_queue(const struct lb_env *env, struct sched_group *group)
{
	/* LAB 5 BEGIN busiest_queue */
	unsigned long max_load = 0;
	struct rq *busiest = NULL;
	u32 cpu;

	for_each_cpu (cpu, sg_span(group)) {
		struct rq *rq = cpu_rq(cpu);
		unsigned long power, capacity, wl;

		if (!rq || cpu == env->dst_cpu || !cpumask_test_cpu(cpu, &env->cpus))
			continue;
		power = power_of(cpu);
		capacity = (power + SCHED_POWER_SCALE / 2) / SCHED_POWER_SCALE;
		if (!capacity && (env->sd->flags & SD_SHARE_CPUPOWER))
			capacity = 1;
		wl = weighted_cpuload(cpu);
		if (capacity && READ_ONCE(rq->nr_running) == 1 && wl > (unsigned long)env->imbalance)
			continue;
		wl = wl * SCHED_POWER_SCALE / power;
		if (wl > max_load) {
			max_load = wl;
			busiest = rq;
		}
	}
	return busiest;
	/* LAB 5 SKELETON
	TODO: the queue of group most loaded per unit of power (step 3), never env->dst_cpu's.
	return NULL;
	   LAB 5 END */
}

struct sched_group *balance_find_busiest_group(u32 this_cpu, struct sched_domain *sd,
					       enum cpu_idle_type idle, unsigned long *imbalance)
{
	struct lb_env env = {
		.sd = sd,
		.dst_cpu = this_cpu,
		.dst_rq = cpu_rq(this_cpu),
		.idle = idle,
		.cpus = sd->span,
	};
	bool balance = true;
	struct sched_group *sg = find_busiest_group(&env, &balance);

	*imbalance = (unsigned long)env.imbalance;
	return sg;
}

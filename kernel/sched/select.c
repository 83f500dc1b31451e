/*
 * Task placement: select_task_rq_fair(), which calls the placement variant
 * sched_select= chose, and the decisions the variants are made of --
 * wake_affine, select_idle_sibling (its 3.8.13 and 3.8.0 flavours),
 * find_idlest_group/cpu -- as Linux 3.8 makes them
 * (docs/linux-scheduler-facts.md sections 12-15). The stock variant, 3.8's
 * walk over the waker's domains, is here; Michael Wang's balance-map
 * version is in select_sbm.c.
 *
 * One generation: a placement loads the topology once, inside a read
 * section, and hands that t to every step, so no decision mixes two
 * generations. Every domain it reaches (a CPU's chain, a map entry, sd_llc)
 * may be NULL and is tested before use: the sbm oops (linux-scheduler-facts.md 16), a NULL affine
 * domain handed to wake_affine during a reboot, has no path here.
 *
 * Load is 3.8's: rq->load.weight through load.h (wake_idx and forkexec_idx
 * are 0 at every level, so each placement sees the instantaneous load).
 * There is no group scheduling, so Linux's effective_load(tg, cpu, wl, wg)
 * is just wl throughout.
 */
#include "sched/select.h"

#include <arch/smp.h>

#include "sched/load.h"
#include "trace/trace.h"

/* ---------------------------------------------------------------- helpers */

/* Has cpu a runqueue whose load we can read? */
static bool cpu_has_rq(u32 cpu)
{
	return cpu < sched_nr_cpus();
}

bool cpu_allowed(const struct task *p, u32 cpu)
{
	return cpu_has_rq(cpu) && cpumask_test_cpu(cpu, &p->cpus_allowed);
}

/* ------------------------------------------------------------ statistics */

/*
 * The counters in their 2.6-era meaning (3.8 declares sbe_* and sbf_* but
 * never counts them): count the steps, balanced those that kept the task
 * in the local group, pushed those that moved it. A wake-up step that
 * moves it (possible only with SD_BALANCE_WAKE, which no level has) is a
 * ttwu_move_balance.
 */
void count_balance_step(struct sched_domain *sd, int sd_flag, bool pushed)
{
	struct sched_domain_stats *s = &sd->stats;

	if (sd_flag & SD_BALANCE_EXEC) {
		s->sbe_count++;
		*(pushed ? &s->sbe_pushed : &s->sbe_balanced) += 1;
	} else if (sd_flag & SD_BALANCE_FORK) {
		s->sbf_count++;
		*(pushed ? &s->sbf_pushed : &s->sbf_balanced) += 1;
	} else if (pushed) {
		s->ttwu_move_balance++;
	}
}

/* ------------------------------------------------------------ wake_affine */

/* The weight of the task running on cpu: the waker, when cpu is the waking CPU. */
static s64 waker_weight(u32 cpu)
{
	struct task *curr = READ_ONCE(cpu_rq(cpu)->curr);

	return curr ? (s64)curr->load.weight : 0;
}

/*
 * 3.8's rule (linux-scheduler-facts.md section 13). With L the loads at sd's wake_idx (p, asleep,
 * is on neither), P the CPUs' power, w_p p's weight and
 * I = 100 + (imbalance_pct - 100) / 2  (105 at SMT, 112 at MC and above):
 *
 *   L_this' = L_this - [sync] w_waker             the waker is about to sleep
 *   balanced  <=>  L_this' <= 0  or
 *                  100 * P_prev * (L_this' + w_p) <= I * P_this * L_prev
 *
 * that is, this CPU with p added is at most I% as loaded as prev was. A
 * balanced sync wake-up is affine at once (and, 3.8's quirk, not counted
 * as an attempt). Otherwise p moves if balanced, or if this CPU is the
 * lighter one and both loads together fit under this CPU's average task:
 *
 *   L_this' <= L_prev  and  L_this' + L_prev <= L_this / nr_running(this)
 *
 * With nice-0 tasks and equal power: a sync wake-up from a CPU whose only
 * task is the waker is always affine; a non-sync one onto a CPU running
 * one task needs L_prev >= 2048 * 100 / 112, i.e. prev runs two tasks.
 */
bool wake_affine(struct sched_domain *sd, struct task *p, u32 this_cpu, bool sync)
{
	u32 prev_cpu = task_cpu(p);
	s64 this_load, load, weight, imbalance;
	s64 tl_per_task;
	bool balanced;
	int idx;

	if (!sd || !cpu_has_rq(this_cpu) || !cpu_has_rq(prev_cpu))
		return false;
	idx = (int)sd->wake_idx;
	load = (s64)source_load(prev_cpu, idx);
	this_load = (s64)target_load(this_cpu, idx);
	if (sync)
		this_load -= waker_weight(this_cpu);
	weight = (s64)p->load.weight;

	/* LAB 4 BEGIN affine */
	if (this_load > 0) {
		s64 this_eff_load = 100 * (s64)power_of(prev_cpu) * (this_load + weight);
		s64 prev_eff_load;

		imbalance = 100 + ((s64)sd->imbalance_pct - 100) / 2;
		prev_eff_load = imbalance * (s64)power_of(this_cpu) * load;
		balanced = this_eff_load <= prev_eff_load;
	} else {
		balanced = true;
	}
	if (sync && balanced)
		return true;

	p->stats.nr_wakeups_affine_attempts++;
	tl_per_task = (s64)cpu_avg_load_per_task(this_cpu);
	if (balanced ||
	    (this_load <= load && this_load + (s64)target_load(prev_cpu, idx) <= tl_per_task)) {
		sd->stats.ttwu_move_affine++;
		p->stats.nr_wakeups_affine++;
		return true;
	}
	return false;
	/* LAB 4 SKELETON
	TODO: balanced if this CPU, with p added (and the waker gone if sync), is at most
	TODO: I% as loaded as prev; a balanced sync wake-up is affine; else count an attempt and
	TODO: move p if balanced or this CPU is lighter and both fit under its average task.
	(void)load;
	(void)this_load;
	(void)weight;
	(void)imbalance;
	(void)tl_per_task;
	(void)balanced;
	return false;
	   LAB 4 END */
}

/* ---------------------------------------------------- select_idle_sibling */

/* Is every CPU of sg idle, and none of them `except`? */
static bool group_idle(const struct sched_group *sg, u32 except)
{
	u32 cpu;

	for_each_cpu (cpu, sg_span(sg))
		if (cpu == except || !idle_cpu(cpu))
			return false;
	return true;
}

/* The first CPU of sg that p may use; MAX_CPUS if none. */
static u32 first_allowed(const struct sched_group *sg, const struct task *p)
{
	u32 cpu;

	for_each_cpu (cpu, sg_span(sg))
		if (cpu_allowed(p, cpu))
			return cpu;
	return MAX_CPUS;
}

/*
 * The scan both forms share: from target's LLC domain down to its lowest,
 * the first group (round each ring from target's own) that p may use and
 * whose CPUs are all idle -- none of them target when skip_target -- gives
 * its first allowed CPU. On the 2-socket SMT machine, for target 0:
 *
 *   MC   groups [0 1] [2 3]     a wholly idle core
 *   SMT  groups [0] [1]         else target's idle sibling thread
 *
 * Nothing found (or target alone, sd_llc NULL): target.
 */
static u32 scan_llc(const struct sched_topology *t, struct task *p, u32 target, bool skip_target)
{
	struct sched_domain *sd;
	struct sched_group *sg;

	/* LAB 4 BEGIN scan */
	for (sd = sd_llc(t, target); sd; sd = sd->child) {
		for_each_sd_group (sg, sd) {
			u32 cpu;

			if (!cpumask_intersects(sg_span(sg), &p->cpus_allowed))
				continue;
			if (!group_idle(sg, skip_target ? target : MAX_CPUS))
				continue;
			cpu = first_allowed(sg, p);
			if (cpu < MAX_CPUS)
				return cpu;
		}
	}
	return target;
	/* LAB 4 SKELETON
	TODO: from sd_llc down, the first group p may use that is wholly idle (and, with
	TODO: skip_target, does not hold target): its first CPU p may use. Else target.
	(void)sd;
	(void)sg;
	(void)skip_target;
	(void)group_idle;
	(void)first_allowed;
	return target;
	   LAB 4 END */
}

/*
 * 3.8.13 (Mike Galbraith's "bouncing cow" fix, upstream in 3.9):
 *
 *   target idle                                   -> target
 *   prev != target, shares target's LLC, idle     -> prev
 *   scan_llc, skipping groups that hold target    -> an idle core / sibling
 *
 * Skipping target's group keeps two wakees from ping-ponging over a
 * package. Unlike Linux, a CPU p may not use is never returned early (Linux
 * left that to select_fallback_rq()).
 */
static u32 select_idle_sibling_3_8_13(const struct sched_topology *t, struct task *p, u32 this_cpu,
				      u32 target)
{
	u32 prev = task_cpu(p);

	/* LAB 4 BEGIN idle_sibling */
	if (cpu_allowed(p, target) && idle_cpu(target))
		return target;
	if (prev != target && cpu_allowed(p, prev) && cpus_share_cache(t, prev, target) &&
	    idle_cpu(prev))
		return prev;
	return scan_llc(t, p, target, true);
	/* LAB 4 SKELETON
	TODO: target if it is idle (and p may use it); else prev if it is idle and shares
	TODO: target's LLC; else scan_llc, skipping target's own groups.
	(void)prev;
	return target;
	   LAB 4 END */
}

const struct sched_idle_sibling idle_sibling_3_8_13 = {
	.name = "3.8.13",
	.select = select_idle_sibling_3_8_13,
};
SCHED_IDLE_SIBLING_REGISTER(idle_sibling_3_8_13);

/*
 * 3.8.0: the waker's CPU or prev if it is the target and idle, else the
 * first wholly idle group of scan_llc (target's own group included).
 */
static u32 select_idle_sibling_3_8_0(const struct sched_topology *t, struct task *p, u32 this_cpu,
				     u32 target)
{
	u32 prev = task_cpu(p);

	if (target == this_cpu && cpu_allowed(p, this_cpu) && idle_cpu(this_cpu))
		return this_cpu;
	if (target == prev && cpu_allowed(p, prev) && idle_cpu(prev))
		return prev;
	return scan_llc(t, p, target, false);
}

static const struct sched_idle_sibling idle_sibling_3_8_0 = {
	.name = "3.8.0",
	.select = select_idle_sibling_3_8_0,
};
SCHED_IDLE_SIBLING_REGISTER(idle_sibling_3_8_0);

u32 select_idle_sibling(const struct sched_topology *t, struct task *p, u32 this_cpu, u32 target)
{
	return READ_ONCE(sched_idle_sibling_cur)->select(t, p, this_cpu, target);
}

/* ------------------------------------------------ find_idlest_group / cpu */

/*
 * 3.8's fork/exec balancing step (linux-scheduler-facts.md section 14). Per group p may use, the
 * load per unit of power:
 *
 *   avg(g) = SCHED_POWER_SCALE * sum_{i in g} load(i) / power(g)
 *
 * with load = source_load for the local group (this_cpu's, underestimated)
 * and target_load for the others (overestimated). The least loaded other
 * group wins unless the local one is already lighter by the margin
 *
 *   100 * avg(local) < (100 + (imbalance_pct - 100) / 2) * avg(idlest)
 *
 * (112: a remote group must be ~12% lighter at MC and above, ~5% at SMT).
 * Ties go to the first group round the ring. Unlike 3.8, a local group
 * holding no CPU p may use does not keep p local: Linux then returned a
 * CPU p could not run on and relied on select_fallback_rq().
 */
struct sched_group *find_idlest_group(struct sched_domain *sd, struct task *p, u32 this_cpu,
				      int load_idx)
{
	struct sched_group *sg, *idlest = NULL;
	unsigned long min_load = (unsigned long)-1, this_load = 0;
	unsigned long imbalance;
	bool have_local = false;

	if (!sd)
		return NULL;
	imbalance = 100 + (sd->imbalance_pct - 100) / 2;
	for_each_sd_group (sg, sd) {
		bool local = cpumask_test_cpu(this_cpu, sg_span(sg));
		unsigned long load = 0, avg_load;
		u32 cpu;

		if (!cpumask_intersects(sg_span(sg), &p->cpus_allowed))
			continue;
		for_each_cpu (cpu, sg_span(sg)) {
			if (!cpu_has_rq(cpu))
				continue;
			load += local ? source_load(cpu, load_idx) : target_load(cpu, load_idx);
		}
		avg_load = load * SCHED_POWER_SCALE / (sg->power ? sg->power : SCHED_POWER_SCALE);
		if (local) {
			this_load = avg_load;
			have_local = true;
		} else if (avg_load < min_load) {
			min_load = avg_load;
			idlest = sg;
		}
	}
	if (!idlest || (have_local && 100 * this_load < imbalance * min_load))
		return NULL;
	return idlest;
}

/* argmin over sg's CPUs p may use of weighted_cpuload(); this_cpu wins a tie. */
int find_idlest_cpu(const struct sched_group *sg, struct task *p, u32 this_cpu)
{
	unsigned long min_load = (unsigned long)-1;
	int idlest = -1;
	u32 cpu;

	if (!sg)
		return -1;
	for_each_cpu (cpu, sg_span(sg)) {
		unsigned long load;

		if (!cpu_allowed(p, cpu))
			continue;
		load = weighted_cpuload(cpu);
		if (load < min_load || (load == min_load && cpu == this_cpu)) {
			min_load = load;
			idlest = (int)cpu;
		}
	}
	return idlest;
}

/* The load index a balancing step reads: wake_idx for wake-ups, forkexec_idx otherwise. */
static int balance_idx(const struct sched_domain *sd, int sd_flag)
{
	return (int)(sd_flag & SD_BALANCE_WAKE ? sd->wake_idx : sd->forkexec_idx);
}

/* --------------------------------------------------------- stock variant */

/*
 * 3.8's slow path, from this CPU's domain sd down: at each level with
 * sd_flag, move to the idlest CPU of the idlest group, then go on from the
 * moved-to CPU's highest flagged domain smaller than the level left (by
 * span weight, as 3.8 re-walks); stay and go one level down otherwise.
 */
static u32 stock_descent(const struct sched_topology *t, struct task *p, struct sched_domain *sd,
			 int sd_flag, u32 cpu, u32 new_cpu)
{
	while (sd) {
		struct sched_domain *tmp;
		struct sched_group *sg;
		u32 weight;
		int idlest;

		if (!(sd->flags & (u32)sd_flag)) {
			sd = sd->child;
			continue;
		}
		sg = find_idlest_group(sd, p, cpu, balance_idx(sd, sd_flag));
		idlest = sg ? find_idlest_cpu(sg, p, cpu) : -1;
		count_balance_step(sd, sd_flag, idlest >= 0 && (u32)idlest != cpu);
		if (idlest < 0) {
			sd = sd->child;
			continue;
		}
		new_cpu = (u32)idlest;
		if (new_cpu == cpu) {
			sd = sd->child;
			continue;
		}
		cpu = new_cpu;
		weight = sd->span_weight;
		sd = NULL;
		for_each_domain (t, cpu, tmp) {
			if (weight <= tmp->span_weight)
				break;
			if (tmp->flags & (u32)sd_flag)
				sd = tmp;
		}
	}
	return new_cpu;
}

/*
 * 3.8's select_task_rq_fair (linux-scheduler-facts.md section 12): one walk up this CPU's domains
 * (those with SD_LOAD_BALANCE) finds
 *
 *   affine_sd  the lowest SD_WAKE_AFFINE domain holding prev, for a
 *              wake-up whose waker's CPU p may use (want_affine);
 *   sd         the highest domain below it with sd_flag.
 *
 * With affine_sd: p goes to this CPU if wake_affine() agrees -- never asked
 * when this CPU is prev (linux-scheduler-facts.md 12: comparing a CPU with itself, one side
 * sync-discounted, pulled wakees onto a busy SMT thread) -- then to an idle
 * CPU near that target (sched_features=WAKE_AFFINE_ON_PREV asks it on prev
 * too, as before 2010, and keeps prev when it refuses). Without affine_sd:
 * stock_descent() from sd. No level has SD_BALANCE_WAKE, so a wake-up
 * without affine_sd stays on prev with no idle search at all; fork and
 * exec always descend from the top.
 */
static u32 select_stock(const struct sched_topology *t, struct task *p, int sd_flag, bool sync,
			u32 this_cpu)
{
	struct sched_domain *tmp, *affine_sd = NULL, *sd = NULL;
	u32 prev = task_cpu(p), new_cpu = this_cpu;
	bool want_affine = false;

	if (sd_flag & SD_BALANCE_WAKE) {
		want_affine = cpumask_test_cpu(this_cpu, &p->cpus_allowed);
		new_cpu = prev;
	}
	for_each_domain (t, this_cpu, tmp) {
		if (!(tmp->flags & SD_LOAD_BALANCE))
			continue;
		if (want_affine && (tmp->flags & SD_WAKE_AFFINE) &&
		    cpumask_test_cpu(prev, sd_span(tmp))) {
			affine_sd = tmp;
			break;
		}
		if (tmp->flags & (u32)sd_flag)
			sd = tmp;
	}
	if (affine_sd) {
		u32 target = prev;

		/*
		 * Before the check (sched_features=WAKE_AFFINE_ON_PREV): a refused
		 * affine wake-up fell through to the balancing path, which with no
		 * SD_BALANCE_WAKE level (as here) leaves p on prev, unsearched.
		 */
		if (this_cpu == prev && sched_feat(WAKE_AFFINE_ON_PREV) &&
		    !wake_affine(affine_sd, p, this_cpu, sync))
			return prev;
		if (this_cpu != prev && wake_affine(affine_sd, p, this_cpu, sync))
			target = this_cpu;
		return select_idle_sibling(t, p, this_cpu, target);
	}
	return stock_descent(t, p, sd, sd_flag, this_cpu, new_cpu);
}

const struct sched_placement stock_placement = {
	.name = "stock",
	.select_task_rq = select_stock,
};
SCHED_PLACEMENT_REGISTER(stock_placement);

/* ------------------------------------------------------------ entry point */

/*
 * Is cpu a CPU of generation t? Before the first build (an empty
 * generation) every CPU with a runqueue counts.
 */
static bool cpu_in_gen(const struct sched_topology *t, u32 cpu)
{
	return cpumask_empty(&t->online) || cpumask_test_cpu(cpu, &t->online);
}

/* The first CPU of mask p may use and t has, or MAX_CPUS. */
static u32 first_usable(const struct sched_topology *t, const struct task *p,
			const struct cpumask *mask)
{
	u32 c;

	for_each_cpu (c, mask)
		if (cpu_allowed(p, c) && cpu_in_gen(t, c))
			return c;
	return MAX_CPUS;
}

/*
 * cpu if p may run there and t has it; otherwise the nearest such CPU: the
 * first in cpu's smallest domain holding one, else the first anywhere,
 * else (nothing online allowed) any allowed CPU. Linux returns the bad CPU
 * and lets the core's select_fallback_rq() pick one (same node first).
 */
static u32 allowed_or_nearest(const struct sched_topology *t, const struct task *p, u32 cpu)
{
	struct sched_domain *sd;
	u32 c;

	if (cpu_allowed(p, cpu) && cpu_in_gen(t, cpu))
		return cpu;
	for_each_domain (t, cpu, sd) {
		c = first_usable(t, p, sd_span(sd));
		if (c < MAX_CPUS)
			return c;
	}
	c = first_usable(t, p, &p->cpus_allowed);
	if (c < MAX_CPUS)
		return c;
	for_each_cpu (c, &p->cpus_allowed)
		if (cpu_allowed(p, c))
			return c;
	return cpu;
}

/*
 * sched_select's fields for a decision already made. The reason is read
 * off the outcome, the same for every placement variant: prev_cpu kept;
 * a wake-up moved to the waker's CPU (wake-affine); a wake-up moved
 * elsewhere (an idle CPU near the target); fork and exec moved (the
 * idlest-group walk). sd_level: the smallest domain of target holding
 * prev_cpu, the level the task crossed.
 */
static void trace_select_decision(const struct sched_topology *t, const struct task *p, int sd_flag,
				  u32 this_cpu, u32 target)
{
	u32 prev = task_cpu(p);
	enum trace_select_reason why = TRACE_SELECT_IDLEST;
	const char *level = NULL;
	struct sched_domain *sd;

	if (target == prev)
		why = TRACE_SELECT_PREV;
	else if ((sd_flag & SD_BALANCE_WAKE) && target == this_cpu)
		why = TRACE_SELECT_AFFINE;
	else if (sd_flag & SD_BALANCE_WAKE)
		why = TRACE_SELECT_IDLE_SIBLING;
	if (target != prev)
		for_each_domain (t, target, sd)
			if (cpumask_test_cpu(prev, sd_span(sd))) {
				level = sd->name;
				break;
			}
	trace_sched_select(p, prev, this_cpu, target, level, why);
}

u32 select_task_rq_fair(struct task *p, int sd_flag, int wake_flags)
{
	u32 this_cpu = arch_cpu_id(), cpu;
	bool sync = wake_flags & WF_SYNC;
	struct sched_topology *t;

	/* Nowhere else to go. 3.8 returns prev: the same CPU unless the mask just changed. */
	if (p->nr_cpus_allowed == 1) {
		cpu = cpumask_first(&p->cpus_allowed);
		return cpu_has_rq(cpu) ? cpu : task_cpu(p);
	}

	t = sched_topology_read_begin(this_cpu);
	cpu = READ_ONCE(sched_placement_cur)->select_task_rq(t, p, sd_flag, sync, this_cpu);
	cpu = allowed_or_nearest(t, p, cpu);
	if (unlikely(trace_active))
		trace_select_decision(t, p, sd_flag, this_cpu, cpu);
	sched_topology_read_end(this_cpu);
	return cpu;
}

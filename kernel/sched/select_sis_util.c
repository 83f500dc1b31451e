/*
 * select_idle_sibling as Linux 6.12 has it (sched_idle_sibling=6.12, the
 * flavour sched_model=linux-6.12 picks): target, then prev, then an idle
 * SMT sibling of prev, then a scan of target's last-level cache whose depth
 * SIS_UTIL limits by how busy that cache's CPUs have been (PELT).
 *
 * The SIS_UTIL rule (Chen Yu, 5.20): with x the LLC's mean utilisation
 * per CPU (0..1024) and pct its imbalance_pct (117), a wake-up examines
 *
 *	nr = llc_weight * (1024 - min(1024, x^2 * pct^2 / (10000 * 1024))) / 1024
 *
 * CPUs: all of them when the cache is idle, none once x reaches 1024 *
 * 100 / pct (85%), where an LLC group counts as overloaded and an idle CPU
 * is unlikely. Linux refreshes nr at each periodic balance of the LLC
 * level; here it is computed from the same PELT sums at each wake-up, so
 * it is never older than the signals. With PELT off (sched_balance=3.8)
 * every utilisation reads 0 and the scan is never cut short.
 *
 * Not modelled: the recently used CPU (p->recent_used_cpu; Fulcrum's task
 * has no such field), the per-CPU kthread stacking rule (no kthread wakes
 * user tasks here), asymmetric capacities and clusters (no topology here
 * has them), and the idle-core hint: Linux keeps a "this LLC may have an
 * idle core" flag that a failed full scan clears; this flavour looks at
 * the cores themselves, so the answer is exact rather than a hint.
 */
#include "sched/balance_modern.h"
#include "sched/features.h"
#include "sched/pelt.h"
#include "sched/select.h"

/* The SMT siblings of cpu (cpu included), or NULL on a machine without SMT. */
static const struct cpumask *smt_span(const struct sched_topology *t, u32 cpu)
{
	struct sched_domain *sd = cpu_sd(t, cpu);

	return sd && (sd->flags & SD_SHARE_CPUCAPACITY) ? sd_span(sd) : NULL;
}

/* Is every thread of cpu's core idle? */
static bool core_idle(const struct sched_topology *t, u32 cpu)
{
	const struct cpumask *smt = smt_span(t, cpu);
	u32 sib;

	if (!smt)
		return idle_cpu(cpu);
	for_each_cpu (sib, smt)
		if (!idle_cpu(sib))
			return false;
	return true;
}

/* Does target's LLC hold a wholly idle core with a thread p may use? */
static bool llc_has_idle_core(const struct sched_topology *t, const struct sched_domain *llc,
			      struct task *p)
{
	u32 cpu;

	for_each_cpu (cpu, sd_span(llc))
		if (cpu_allowed(p, cpu) && core_idle(t, cpu))
			return true;
	return false;
}

/* SIS_UTIL's scan depth for llc: the formula above, in Linux's integer steps. */
static u32 idle_scan_depth(const struct sched_domain *llc)
{
	u64 weight = llc->span_weight, sum = 0, x, tmp, pct = modern_imbalance_pct(llc);
	u32 cpu;

	for_each_cpu (cpu, sd_span(llc))
		sum += pelt_cpu_util(cpu);
	x = sum / weight;
	tmp = x * x * pct * pct / (10000 * SCHED_CAPACITY_SCALE);
	if (tmp > SCHED_CAPACITY_SCALE)
		tmp = SCHED_CAPACITY_SCALE;
	return (u32)((SCHED_CAPACITY_SCALE - tmp) * weight / SCHED_CAPACITY_SCALE);
}

/* An idle SMT sibling of core_cpu (not core_cpu itself) in llc that p may use, or MAX_CPUS. */
static u32 select_idle_smt(const struct sched_topology *t, const struct sched_domain *llc,
			   struct task *p, u32 core_cpu)
{
	const struct cpumask *smt = smt_span(t, core_cpu);
	u32 cpu;

	if (!smt)
		return MAX_CPUS;
	for_each_cpu (cpu, smt)
		if (cpu != core_cpu && cpumask_test_cpu(cpu, sd_span(llc)) && cpu_allowed(p, cpu) &&
		    idle_cpu(cpu))
			return cpu;
	return MAX_CPUS;
}

/*
 * Linux's select_idle_cpu: round llc from the CPU after target. Looking
 * for a whole idle core, every CPU may be examined (the first idle one
 * seen is the answer if no core is idle); otherwise only SIS_UTIL's depth.
 */
static u32 select_idle_cpu(const struct sched_topology *t, const struct sched_domain *llc,
			   struct task *p, bool has_idle_core, u32 target)
{
	u32 nr = MAX_CPUS + 1, first_idle = MAX_CPUS;

	if (sched_feat(SIS_UTIL)) {
		nr = idle_scan_depth(llc) + 1;
		if (nr == 1) /* an overloaded cache: do not look */
			return MAX_CPUS;
	}
	for (u32 i = 1; i <= t->nr_cpus; i++) {
		u32 cpu = (target + i) % t->nr_cpus;

		if (!cpumask_test_cpu(cpu, sd_span(llc)) || !cpu_allowed(p, cpu))
			continue;
		if (has_idle_core) {
			if (core_idle(t, cpu))
				return cpu;
			if (first_idle == MAX_CPUS && idle_cpu(cpu))
				first_idle = cpu;
			continue;
		}
		if (--nr == 0)
			return MAX_CPUS;
		if (idle_cpu(cpu))
			return cpu;
	}
	return first_idle;
}

static u32 select_idle_sibling_6_12(const struct sched_topology *t, struct task *p, u32 this_cpu,
				    u32 target)
{
	u32 prev = task_cpu(p), cpu;
	struct sched_domain *llc;
	bool has_idle_core = false;

	(void)this_cpu;
	if (cpu_allowed(p, target) && idle_cpu(target))
		return target;
	/* The previous CPU is cache affine and idle: take it. */
	if (prev != target && cpu_allowed(p, prev) && cpus_share_cache(t, prev, target) &&
	    idle_cpu(prev))
		return prev;
	llc = sd_llc(t, target);
	if (!llc)
		return target;
	if (smt_span(t, target)) {
		has_idle_core = llc_has_idle_core(t, llc, p);
		if (!has_idle_core && cpus_share_cache(t, prev, target)) {
			cpu = select_idle_smt(t, llc, p, prev);
			if (cpu < MAX_CPUS)
				return cpu;
		}
	}
	cpu = select_idle_cpu(t, llc, p, has_idle_core, target);
	return cpu < MAX_CPUS ? cpu : target;
}

const struct sched_idle_sibling idle_sibling_6_12 = {
	.name = "6.12",
	.select = select_idle_sibling_6_12,
};
SCHED_IDLE_SIBLING_REGISTER(idle_sibling_6_12);

/*
 * Invariant checks of a built generation, run on every build before it can
 * be published: the domain chains, their groups and the balance maps. The
 * same conditions Linux's sched_domain_debug_one() reports, and a few more.
 */
#include "sched/topology.h"

#include <stdarg.h>

#include "lib/errno.h"
#include "lib/printf.h"
#include "printk.h"
#include "sched/balance_map.h"

#define MAX_REPORTS 16 /* a broken build can break everywhere: print the first few */

struct check {
	const struct sched_topology *t;
	u32 errors;
};

/* One problem, with the CPU and domain it was found in. */
static __printf(4, 5) void report(struct check *c, u32 cpu, const struct sched_domain *sd,
				  const char *fmt, ...)
{
	char msg[160];
	va_list ap;

	if (c->errors++ >= MAX_REPORTS)
		return;
	va_start(ap, fmt);
	kvsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (sd)
		pr_err("topology: ERROR: CPU%u level %d %s: %s\n", cpu, sd->level, sd->name, msg);
	else
		pr_err("topology: ERROR: CPU%u: %s\n", cpu, msg);
}

static const char *list(char *buf, size_t size, const struct cpumask *m)
{
	cpumask_print(buf, size, m);
	return buf;
}

/* The groups of sd: a closed ring of non-empty groups inside the span that covers it. */
static void check_groups(struct check *c, u32 cpu, const struct sched_domain *sd)
{
	const struct sched_group *sg = sd->groups;
	struct cpumask covered = CPUMASK_EMPTY;
	char a[96], b[96];
	u32 n = 0;

	if (!sg) {
		report(c, cpu, sd, "no groups");
		return;
	}
	if (!cpumask_test_cpu(cpu, &sg->cpus))
		report(c, cpu, sd, "first group %s does not hold the CPU",
		       list(a, sizeof(a), &sg->cpus));
	if (sd->child && !cpumask_equal(&sg->cpus, &sd->child->span))
		report(c, cpu, sd, "first group %s is not the child's span %s",
		       list(a, sizeof(a), &sg->cpus), list(b, sizeof(b), &sd->child->span));
	do {
		if (++n > sd->span_weight) {
			report(c, cpu, sd, "group ring does not close within %u groups",
			       sd->span_weight);
			return;
		}
		if (cpumask_empty(&sg->cpus)) {
			report(c, cpu, sd, "empty group");
			return;
		}
		if (!cpumask_subset(&sg->cpus, &sd->span))
			report(c, cpu, sd, "group %s outside span %s",
			       list(a, sizeof(a), &sg->cpus), list(b, sizeof(b), &sd->span));
		if (!(sd->flags & SD_OVERLAP) && cpumask_intersects(&covered, &sg->cpus))
			report(c, cpu, sd, "repeated CPUs: group %s", list(a, sizeof(a), &sg->cpus));
		if ((sd->flags & SD_OVERLAP) && cpumask_subset(&sg->cpus, &covered))
			report(c, cpu, sd, "group %s adds no CPU", list(a, sizeof(a), &sg->cpus));
		if (!sg->power || !sg->capacity)
			report(c, cpu, sd, "group %s power not set", list(a, sizeof(a), &sg->cpus));
		if (sg->weight != cpumask_weight(&sg->cpus))
			report(c, cpu, sd, "group %s weight %u", list(a, sizeof(a), &sg->cpus),
			       sg->weight);
		cpumask_or(&covered, &covered, &sg->cpus);
		sg = sg->next;
	} while (sg && sg != sd->groups);
	if (!sg)
		report(c, cpu, sd, "group ring broken (NULL next)");
	if (!cpumask_equal(&covered, &sd->span))
		report(c, cpu, sd, "groups %s don't span the domain %s",
		       list(a, sizeof(a), &covered), list(b, sizeof(b), &sd->span));
}

static void check_chain(struct check *c, u32 cpu)
{
	const struct sched_topology *t = c->t;
	const struct sched_domain *sd, *child = NULL;
	char a[96], b[96];
	u32 depth = 0;

	for (sd = t->cpu[cpu].sd; sd; child = sd, sd = sd->parent) {
		if (++depth > t->nr_levels) {
			report(c, cpu, NULL, "domain chain longer than the %u levels", t->nr_levels);
			return;
		}
		if (sd->level < 0 || (u32)sd->level >= t->nr_levels)
			report(c, cpu, sd, "level out of range");
		if (sd->child != child)
			report(c, cpu, sd, "child link does not match the chain");
		if (child && sd->level <= child->level)
			report(c, cpu, sd, "level not above the child's %d", child->level);
		if (!cpumask_test_cpu(cpu, &sd->span))
			report(c, cpu, sd, "span %s does not hold the CPU",
			       list(a, sizeof(a), &sd->span));
		if (!cpumask_subset(&sd->span, &t->online))
			report(c, cpu, sd, "span %s has CPUs that are not online",
			       list(a, sizeof(a), &sd->span));
		if (sd->span_weight != cpumask_weight(&sd->span))
			report(c, cpu, sd, "span weight %u for %s", sd->span_weight,
			       list(a, sizeof(a), &sd->span));
		if (child && !cpumask_subset(&child->span, &sd->span))
			report(c, cpu, sd, "span %s does not hold the child's %s",
			       list(a, sizeof(a), &sd->span), list(b, sizeof(b), &child->span));
		if (!sd->min_interval || sd->max_interval < sd->min_interval || !sd->imbalance_pct)
			report(c, cpu, sd, "balancing parameters not set");
		check_groups(c, cpu, sd);
	}
}

static bool in_chain(const struct sched_topology *t, u32 cpu, const struct sched_domain *want)
{
	const struct sched_domain *sd;

	for_each_domain (t, cpu, sd)
		if (sd == want)
			return true;
	return false;
}

/* Every entry of cpu's map names one of its own domains, as sbm_build_cpu() defines them. */
static void check_sbm(struct check *c, u32 cpu)
{
	static const u32 flag[SBM_MAX_TYPE] = { SD_BALANCE_EXEC, SD_BALANCE_FORK, SD_BALANCE_WAKE };
	const struct sched_topology *t = c->t;
	const struct sched_domain *sd;
	u32 other;

	for (int type = 0; type < SBM_MAX_TYPE; type++) {
		int top = -1;

		for (u32 l = 0; l < t->nr_levels; l++) {
			sd = sbm_sd(t, cpu, type, (int)l);
			if (!sd)
				continue;
			if (!in_chain(t, cpu, sd) || sd->level != (int)l || !(sd->flags & flag[type]))
				report(c, cpu, NULL, "balance map type %d level %u is wrong", type,
				       l);
			top = (int)l;
		}
		if (sbm_top_level(t, cpu, type) != top)
			report(c, cpu, NULL, "balance map type %d top level %d, not %d", type,
			       sbm_top_level(t, cpu, type), top);
	}
	for (other = 0; other < t->nr_cpus; other++) {
		const struct sched_domain *want = NULL;

		for_each_domain (t, cpu, sd) {
			if ((sd->flags & (SD_LOAD_BALANCE | SD_WAKE_AFFINE)) ==
				    (SD_LOAD_BALANCE | SD_WAKE_AFFINE) &&
			    cpumask_test_cpu(other, &sd->span)) {
				want = sd;
				break;
			}
		}
		if (sbm_affine_sd(t, cpu, other) != want)
			report(c, cpu, NULL, "affine map entry for CPU%u is wrong", other);
	}
}

int sched_topology_validate(const struct sched_topology *t)
{
	struct check c = { .t = t };
	u32 cpu;

	for (cpu = 0; cpu < t->nr_cpus; cpu++) {
		if (!cpumask_test_cpu(cpu, &t->online)) {
			if (t->cpu[cpu].sd || (sbm_map(t, cpu) && sbm_map(t, cpu)->affine_map))
				report(&c, cpu, NULL, "not online but has domains");
			continue;
		}
		check_chain(&c, cpu);
		check_sbm(&c, cpu);
	}
	if (c.errors > MAX_REPORTS)
		pr_err("topology: ... %u more errors\n", c.errors - MAX_REPORTS);
	return c.errors ? -EINVAL : 0;
}

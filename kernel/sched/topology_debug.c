/*
 * What the topology code prints: the one-line machine summary at boot and,
 * with sched_debug (alias sched_verbose), Linux's per-CPU domain and group
 * listings followed by each CPU's balance map.
 */
#include "sched/topology.h"

#include <stdarg.h>

#include "cmdline.h"
#include "lib/printf.h"
#include "lib/string.h"
#include "printk.h"
#include "sched/balance_map.h"
#include "sched/topology_internal.h"

bool sched_debug_enabled;
BOOT_OPTION_BOOL(sched_debug, "sched_debug", &sched_debug_enabled,
		 "print the sched domains, groups and balance map at every rebuild");
BOOT_OPTION_BOOL(sched_verbose, "sched_verbose", &sched_debug_enabled, "the same as sched_debug");

/* ---------------------------------------------------------------- summary */

void topology_count(struct sched_topology *t, const struct machine *m)
{
	struct topology_summary *s = &t->summary;
	bool per_core = true, per_pkg = true, per_node = true, in_pkg = true;
	u32 i, j;

	*s = (struct topology_summary){ .nodes = m->nr_nodes };
	for_each_cpu (i, &t->online) {
		const struct machine_cpu *a = &m->cpu[i];
		bool new_pkg = true, new_core = true, new_llc = true;

		for_each_cpu (j, &t->online) {
			const struct machine_cpu *b = &m->cpu[j];
			bool same_pkg = a->package == b->package;
			bool same_core = same_pkg && a->core == b->core;
			bool same_llc = a->llc == b->llc;

			if (j < i) {
				new_pkg &= !same_pkg;
				new_core &= !same_core;
				new_llc &= !same_llc;
			}
			per_core &= same_llc == same_core;
			per_pkg &= same_llc == same_pkg;
			per_node &= same_llc == (a->node == b->node);
			in_pkg &= !same_llc || same_pkg;
		}
		s->threads++;
		s->packages += new_pkg;
		s->cores += new_core;
		s->llcs += new_llc;
	}
	if (per_pkg)
		s->llc = LLC_PER_PACKAGE;
	else if (per_core)
		s->llc = LLC_PER_CORE;
	else if (per_node)
		s->llc = LLC_PER_NODE;
	else if (in_pkg)
		s->llc = LLC_SPLIT_PACKAGE;
	else
		s->llc = LLC_OTHER;
}

static const char *plural(u32 n)
{
	return n == 1 ? "" : "s";
}

void sched_topology_print_summary(const struct sched_topology *t)
{
	const struct topology_summary *s = &t->summary;
	char llc[48];

	switch (s->llc) {
	case LLC_PER_PACKAGE:
		ksnprintf(llc, sizeof(llc), "LLC per package");
		break;
	case LLC_PER_CORE:
		ksnprintf(llc, sizeof(llc), "LLC per core");
		break;
	case LLC_PER_NODE:
		ksnprintf(llc, sizeof(llc), "LLC per node");
		break;
	case LLC_SPLIT_PACKAGE:
		if (s->packages && s->llcs % s->packages == 0)
			ksnprintf(llc, sizeof(llc), "%u LLCs per package", s->llcs / s->packages);
		else
			ksnprintf(llc, sizeof(llc), "%u LLCs within packages", s->llcs);
		break;
	default:
		ksnprintf(llc, sizeof(llc), "%u LLCs", s->llcs);
		break;
	}
	pr_info("topology: %u package%s, %u node%s, %u core%s, %u thread%s, %s\n", s->packages,
		plural(s->packages), s->nodes, plural(s->nodes), s->cores, plural(s->cores),
		s->threads, plural(s->threads), llc);
}

/* ---------------------------------------------------------------- listing */

/*
 * One printed line built from pieces: flushed to printk when the buffer is
 * nearly full (continuing with KERN_CONT), so a domain with hundreds of
 * groups still prints whole.
 */
struct line {
	char buf[240];
	size_t len;
	bool flushed;
};

static void line_flush(struct line *l)
{
	if (!l->len)
		return;
	if (l->flushed)
		pr_cont("%s", l->buf);
	else
		pr_info("%s", l->buf);
	l->flushed = true;
	l->len = 0;
	l->buf[0] = '\0';
}

static __printf(2, 3) void line_add(struct line *l, const char *fmt, ...)
{
	char piece[128];
	va_list ap;
	size_t n;

	va_start(ap, fmt);
	kvsnprintf(piece, sizeof(piece), fmt, ap);
	va_end(ap);
	n = strnlen(piece, sizeof(piece));
	if (l->len + n + 1 > sizeof(l->buf))
		line_flush(l);
	ksnprintf(l->buf + l->len, sizeof(l->buf) - l->len, "%s", piece);
	l->len += n;
}

static void line_end(struct line *l)
{
	line_add(l, "\n");
	line_flush(l);
}

static const char *list(char *buf, size_t size, const struct cpumask *m)
{
	cpumask_print(buf, size, m);
	return buf;
}

/*
 * Linux's listing (sched_domain_debug_one()): position in the chain, span
 * and level name; then the groups, each as "first-cpu:{ span=... }" with
 * its power as cap= when it is not one full CPU's.
 */
static void print_domain(const struct sched_domain *sd, int pos)
{
	const struct sched_group *sg;
	struct line l = { .len = 0 };
	char span[96];

	line_add(&l, "%*s domain-%d: ", pos, "", pos);
	if (!(sd->flags & SD_LOAD_BALANCE)) {
		line_add(&l, "does not load-balance");
		line_end(&l);
		return;
	}
	line_add(&l, "span=%s level=%s", list(span, sizeof(span), &sd->span), sd->name);
	line_end(&l);
	l = (struct line){ .len = 0 };
	line_add(&l, "%*s groups:", pos + 1, "");
	for_each_sd_group (sg, sd) {
		line_add(&l, " %u:{ span=%s", sg->balance_cpu, list(span, sizeof(span), &sg->cpus));
		if (sg->power != SCHED_POWER_SCALE)
			line_add(&l, " cap=%u", sg->power);
		line_add(&l, " }%s", sg->next != sd->groups ? "," : "");
	}
	line_end(&l);
}

/* "exec=0:SMT,1:MC,4:NUMA": the levels of one balance type. */
static void print_sbm_type(struct line *l, const struct sched_topology *t, u32 cpu,
			   enum sbm_type type, const char *name)
{
	bool any = false;

	line_add(l, " %s=", name);
	for (u32 lv = 0; lv < t->nr_levels; lv++) {
		const struct sched_domain *sd = sbm_sd(t, cpu, type, (int)lv);

		if (sd) {
			line_add(l, "%s%d:%s", any ? "," : "", sd->level, sd->name);
			any = true;
		}
	}
	if (!any)
		line_add(l, "none");
}

/* "CPU0 affine map: 0-1 0:SMT, 2-3 1:MC, 4-7 4:NUMA": the CPUs each domain is affine for. */
static void print_affine(const struct sched_topology *t, u32 cpu)
{
	const struct sched_domain *sd;
	struct cpumask none = t->online, cpus;
	struct line l = { .len = 0 };
	char span[96];
	bool any = false;
	u32 c;

	line_add(&l, "CPU%u affine map:", cpu);
	for_each_domain (t, cpu, sd) {
		cpumask_clear(&cpus);
		for_each_cpu (c, &t->online)
			if (sbm_affine_sd(t, cpu, c) == sd)
				cpumask_set_cpu(c, &cpus);
		if (cpumask_empty(&cpus))
			continue;
		cpumask_andnot(&none, &none, &cpus);
		line_add(&l, "%s %s %d:%s", any ? "," : "", list(span, sizeof(span), &cpus),
			 sd->level, sd->name);
		any = true;
	}
	if (!cpumask_empty(&none))
		line_add(&l, "%s %s none", any ? "," : "", list(span, sizeof(span), &none));
	line_end(&l);
}

void sched_topology_print_debug(const struct sched_topology *t)
{
	const struct sched_domain *sd;
	struct line l = { .len = 0 };
	u32 cpu;

	line_add(&l, "sched-domain levels (generation %llu):", (unsigned long long)t->gen);
	for (u32 lv = 0; lv < t->nr_levels; lv++) {
		line_add(&l, " %u:%s", lv, t->levels[lv].name);
		if (t->levels[lv].distance)
			line_add(&l, "(%u)", t->levels[lv].distance);
	}
	line_end(&l);
	for_each_cpu (cpu, &t->online) {
		int pos = 0;

		if (!cpu_sd(t, cpu)) {
			pr_info("CPU%u attaching NULL sched-domain.\n", cpu);
		} else {
			pr_info("CPU%u attaching sched-domain(s):\n", cpu);
			for_each_domain (t, cpu, sd)
				print_domain(sd, pos++);
		}
		l = (struct line){ .len = 0 };
		line_add(&l, "CPU%u balance map:", cpu);
		print_sbm_type(&l, t, cpu, SBM_EXEC_TYPE, "exec");
		print_sbm_type(&l, t, cpu, SBM_FORK_TYPE, "fork");
		print_sbm_type(&l, t, cpu, SBM_WAKE_TYPE, "wake");
		line_end(&l);
		print_affine(t, cpu);
	}
}

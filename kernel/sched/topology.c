/*
 * The domain builder: turns a struct machine into one generation of
 * scheduling domains, bottom-up from a table of levels as Linux 3.8's
 * build_sched_domains() does, then drops each CPU's degenerate levels.
 */
#include "sched/topology.h"

#include "cmdline.h"
#include "lib/errno.h"
#include "lib/string.h"
#include "mm/heap.h"
#include "printk.h"
#include "sched/topology_internal.h"

/* ------------------------------------------------------------ the levels */

static void smt_mask(const struct machine *m, const struct sd_level *tl, u32 cpu, struct cpumask *span)
{
	const struct machine_cpu *c = &m->cpu[cpu];

	for (u32 j = 0; j < m->nr_cpus; j++)
		if (m->cpu[j].package == c->package && m->cpu[j].core == c->core)
			cpumask_set_cpu(j, span);
}

static void llc_mask(const struct machine *m, const struct sd_level *tl, u32 cpu, struct cpumask *span)
{
	for (u32 j = 0; j < m->nr_cpus; j++)
		if (m->cpu[j].llc == m->cpu[cpu].llc)
			cpumask_set_cpu(j, span);
}

static void pkg_mask(const struct machine *m, const struct sd_level *tl, u32 cpu, struct cpumask *span)
{
	for (u32 j = 0; j < m->nr_cpus; j++)
		if (m->cpu[j].package == m->cpu[cpu].package)
			cpumask_set_cpu(j, span);
}

static void node_mask(const struct machine *m, const struct sd_level *tl, u32 cpu,
		      struct cpumask *span)
{
	for (u32 j = 0; j < m->nr_cpus; j++)
		if (m->cpu[j].node == m->cpu[cpu].node)
			cpumask_set_cpu(j, span);
}

/* As sched_init_numa(): the CPUs of every node within tl->distance of cpu's node. */
static void numa_mask(const struct machine *m, const struct sd_level *tl, u32 cpu,
		      struct cpumask *span)
{
	u32 node = m->cpu[cpu].node;

	for (u32 j = 0; j < m->nr_cpus; j++)
		if (m->distance[node][m->cpu[j].node] <= tl->distance)
			cpumask_set_cpu(j, span);
}

#define SD_BALANCE_FLAGS (SD_LOAD_BALANCE | SD_BALANCE_NEWIDLE | SD_BALANCE_EXEC | SD_BALANCE_FORK)
#define SD_SMT_FLAGS \
	(SD_BALANCE_FLAGS | SD_WAKE_AFFINE | SD_SHARE_CPUCAPACITY | SD_SHARE_PKG_RESOURCES)
#define SD_MC_FLAGS   (SD_BALANCE_FLAGS | SD_WAKE_AFFINE | SD_SHARE_PKG_RESOURCES)
#define SD_PKG_FLAGS  (SD_BALANCE_FLAGS | SD_WAKE_AFFINE | SD_PREFER_SIBLING)
/* Placement and wake-affine only up to RECLAIM_DISTANCE: see sd_numa_flags(). */
#define SD_NUMA_FLAGS (SD_LOAD_BALANCE | SD_BALANCE_NEWIDLE | SD_SERIALIZE | SD_OVERLAP | SD_NUMA)

/*
 * The fixed levels; one NUMA level per distinct SLIT distance follows them.
 * Linux 3.8 on x86 has SMT, MC and CPU, where CPU is the node. We keep the
 * package and the node apart: with one package per node (the usual case)
 * NODE is degenerate and dropped; with several packages in a node (no SRAT,
 * numa=off) it is the level that balances between them; with several nodes
 * in a package (sub-NUMA clustering) its span is widened to the package
 * below it and it is dropped.
 */
static const struct sd_level fixed_levels[] = {
	[SD_LV_SMT] = { smt_mask, SD_SMT_FLAGS, "SMT", 0 },
	[SD_LV_MC] = { llc_mask, SD_MC_FLAGS, "MC", 0 },
	[SD_LV_PKG] = { pkg_mask, SD_PKG_FLAGS, "PKG", 0 },
	[SD_LV_NODE] = { node_mask, SD_PKG_FLAGS, "NODE", 0 },
};

_Static_assert(ARRAY_SIZE(fixed_levels) == SD_LV_NUMA, "NUMA levels follow the fixed ones");

#define NR_FIXED_LEVELS ARRAY_SIZE(fixed_levels)

static u32 sd_numa_flags(u32 distance)
{
	if (distance <= RECLAIM_DISTANCE)
		return SD_NUMA_FLAGS | SD_BALANCE_EXEC | SD_BALANCE_FORK | SD_WAKE_AFFINE;
	return SD_NUMA_FLAGS;
}

/*
 * The level table of a generation: the fixed levels, then a NUMA level for
 * each distinct distance above LOCAL_DISTANCE in the distance matrix, in
 * increasing order. Linux's sched_init_numa() reads node 0's row only (and
 * warns under sched_debug when it is not representative); we take every
 * row, so a machine whose node 0 is unusual still gets all its levels.
 */
static int build_levels(struct sched_topology *t, const struct machine *m)
{
	bool seen[256] = { false };
	u32 nr_numa = 0, l = NR_FIXED_LEVELS;
	struct sd_level *levels;

	for (u32 i = 0; i < m->nr_nodes; i++)
		for (u32 j = 0; j < m->nr_nodes; j++)
			if (m->distance[i][j] > LOCAL_DISTANCE && !seen[m->distance[i][j]]) {
				seen[m->distance[i][j]] = true;
				nr_numa++;
			}
	levels = topo_alloc(t, (NR_FIXED_LEVELS + nr_numa) * sizeof(*levels));
	if (!levels)
		return -ENOMEM;
	memcpy(levels, fixed_levels, sizeof(fixed_levels));
	for (u32 d = LOCAL_DISTANCE + 1; d < 256; d++) {
		if (!seen[d])
			continue;
		levels[l].mask = numa_mask;
		levels[l].flags = sd_numa_flags(d);
		levels[l].name = "NUMA";
		levels[l].distance = d;
		l++;
	}
	t->levels = levels;
	t->nr_levels = l;
	return 0;
}

/*
 * Linux 3.8 multiplies a busy CPU's balance interval by 64 (32 across
 * NUMA nodes); Linux 5.10 and later use 16 everywhere. 0 keeps 3.8's.
 */
static s64 sd_busy_factor_override;
BOOT_OPTION_INT(sched_busy_factor, "sched_busy_factor", &sd_busy_factor_override, 0, 1024,
		"every domain's busy_factor (0: Linux 3.8's, 64, or 32 across NUMA nodes)");

void sched_busy_factor_set(u32 factor)
{
	sd_busy_factor_override = factor;
}

u32 sched_busy_factor_get(void)
{
	return (u32)sd_busy_factor_override;
}

/*
 * The one place where a level's flags become its balancing parameters:
 * Linux 3.8's SD_SIBLING_INIT, SD_MC_INIT, SD_CPU_INIT and sd_numa_init()
 * (docs/linux-scheduler-facts.md section 18). Intervals are in milliseconds.
 */
static void sd_init(struct sched_domain *sd, u32 flags)
{
	sd->flags = flags;
	sd->imbalance_pct = 125;
	sd->busy_factor = 64;
	sd->min_interval = 1;
	sd->max_interval = 4;
	sd->cache_nice_tries = 1;
	sd->busy_idx = 2;
	sd->newidle_idx = 0;
	sd->wake_idx = 0;
	sd->forkexec_idx = 0;
	if (flags & SD_SHARE_CPUCAPACITY) { /* SMT siblings */
		sd->imbalance_pct = 110;
		sd->max_interval = 2;
		sd->cache_nice_tries = 0;
		sd->busy_idx = 0;
		sd->idle_idx = 0;
		sd->smt_gain = SD_SMT_GAIN;
	} else if (flags & SD_SHARE_PKG_RESOURCES) { /* a shared LLC */
		sd->idle_idx = 0;
	} else if (flags & SD_NUMA) { /* intervals grow with the span */
		sd->busy_factor = 32;
		sd->min_interval = sd->span_weight;
		sd->max_interval = 2 * sd->span_weight;
		sd->cache_nice_tries = 2;
		sd->busy_idx = 3;
		sd->idle_idx = 2;
	} else { /* package, node */
		sd->idle_idx = 1;
	}
	if (sd_busy_factor_override)
		sd->busy_factor = (u32)sd_busy_factor_override;
	sd->balance_interval = sd->min_interval;
}

/* ------------------------------------------------------------ the builder */

struct build {
	struct sched_topology *t;
	const struct machine *m;
	struct sched_domain **built; /* [cpu * nr_levels + level], before degeneration */
	u32 *power;		     /* [cpu]: the CPU's power */
	bool warned;
};

static struct sched_domain **built_at(const struct build *b, u32 cpu, int level)
{
	return &b->built[cpu * b->t->nr_levels + (u32)level];
}

/* cpu's highest built domain below level, or NULL: the level's group for cpu comes from it. */
static struct sched_domain *built_below(const struct build *b, u32 cpu, int level)
{
	while (--level >= 0)
		if (*built_at(b, cpu, level))
			return *built_at(b, cpu, level);
	return NULL;
}

/*
 * cpu's chain as Linux builds it: a domain per level, span = the level's
 * mask within the online CPUs, stopping at the first span that holds them
 * all. A span is widened to hold its child's: for NODE and NUMA levels
 * over a package of several nodes that is by design; below them it means
 * the machine description is inconsistent, which is reported once.
 */
static int build_chain(struct build *b, u32 cpu)
{
	struct sched_topology *t = b->t;
	struct sched_domain *child = NULL;

	for (u32 l = 0; l < t->nr_levels; l++) {
		const struct sd_level *tl = &t->levels[l];
		struct sched_domain *sd = topo_alloc(t, sizeof(*sd));

		if (!sd)
			return -ENOMEM;
		tl->mask(b->m, tl, cpu, &sd->span);
		cpumask_and(&sd->span, &sd->span, &t->online);
		cpumask_set_cpu(cpu, &sd->span);
		if (child && !cpumask_subset(&child->span, &sd->span)) {
			if (l <= SD_LV_PKG && !b->warned) {
				pr_warn("topology: CPU%u: %s span does not hold %s span; widened\n",
					cpu, tl->name, child->name);
				b->warned = true;
			}
			cpumask_or(&sd->span, &sd->span, &child->span);
		}
		sd->span_weight = cpumask_weight(&sd->span);
		sd->level = (int)l;
		sd->name = tl->name;
		sd_init(sd, tl->flags);
		sd->child = child;
		if (child)
			child->parent = sd;
		*built_at(b, cpu, (int)l) = sd;
		child = sd;
		if (cpumask_equal(&sd->span, &t->online))
			break;
	}
	return 0;
}

/*
 * A CPU's power as Linux 3.8's update_cpu_power() sets it at build time:
 * SCHED_POWER_SCALE, or for one of w > 1 SMT siblings its share of
 * smt_gain (1178 / w, so 589 for two threads). The balancer may refine it.
 */
static u32 cpu_power(const struct build *b, u32 cpu)
{
	const struct sched_domain *smt = *built_at(b, cpu, SD_LV_SMT);
	u32 w = smt->span_weight;

	if (w <= 1)
		return SCHED_POWER_SCALE;
	return (SCHED_POWER_SCALE * (SD_SMT_GAIN / w)) >> SCHED_POWER_SHIFT;
}

static struct sched_group *new_group(struct build *b, const struct cpumask *cpus)
{
	struct sched_group *sg = topo_alloc(b->t, sizeof(*sg));
	u32 cpu;

	if (!sg)
		return NULL;
	sg->cpus = *cpus;
	for_each_cpu (cpu, cpus)
		sg->power += b->power[cpu];
	sg->capacity = (sg->power + SCHED_POWER_SCALE / 2) / SCHED_POWER_SCALE;
	if (!sg->capacity) /* as fix_small_capacity() decides for an SMT thread */
		sg->capacity = 1;
	sg->weight = cpumask_weight(cpus);
	sg->balance_cpu = cpumask_first(cpus);
	return sg;
}

/* Appends sg to the ring being built (closed as it goes). */
static void ring_add(struct sched_group **first, struct sched_group **last, struct sched_group *sg)
{
	if (!*first)
		*first = sg;
	else
		(*last)->next = sg;
	sg->next = *first;
	*last = sg;
}

static struct sched_group *ring_find(struct sched_group *ring, u32 cpu)
{
	struct sched_group *sg = ring;

	do {
		if (cpumask_test_cpu(cpu, &sg->cpus))
			return sg;
		sg = sg->next;
	} while (sg != ring);
	return NULL;
}

/* Which group of a non-overlapping level j belongs to: the first CPU of its child's span. */
static u32 group_key(const struct build *b, u32 j, int level)
{
	const struct sched_domain *below = built_below(b, j, level);

	return below ? cpumask_first(&below->span) : j;
}

/*
 * Groups of a non-overlapping level, as 3.8's build_sched_groups(): the
 * span split by the child domains of its CPUs, in order of their first
 * CPUs. Every CPU with the same span shares the ring, each entering it at
 * its own group; it is built once, for the first of them.
 */
static int build_groups(struct build *b, u32 cpu, struct sched_domain *sd)
{
	struct sched_group *first = NULL, *last = NULL, *sg;
	u32 owner = cpumask_first(&sd->span), j, k;
	struct cpumask covered = CPUMASK_EMPTY;

	if (owner != cpu) {
		struct sched_domain *osd = *built_at(b, owner, sd->level);

		if (osd && osd->groups && cpumask_equal(&osd->span, &sd->span)) {
			sd->groups = ring_find(osd->groups, cpu);
			if (sd->groups)
				return 0;
		}
	}
	for_each_cpu (j, &sd->span) {
		struct cpumask cpus = CPUMASK_EMPTY;
		u32 key;

		if (cpumask_test_cpu(j, &covered))
			continue;
		key = group_key(b, j, sd->level);
		for_each_cpu (k, &sd->span)
			if (!cpumask_test_cpu(k, &covered) && group_key(b, k, sd->level) == key)
				cpumask_set_cpu(k, &cpus);
		cpumask_or(&covered, &covered, &cpus);
		sg = new_group(b, &cpus);
		if (!sg)
			return -ENOMEM;
		ring_add(&first, &last, sg);
	}
	sd->groups = ring_find(first, cpu);
	return 0;
}

/*
 * The group an overlapping level gets for j: the span of j's highest
 * domain below the level that fits inside sd's span (descending as later
 * Linux does when a sibling's child reaches outside), or j alone.
 */
static void overlap_group_span(const struct build *b, const struct sched_domain *sd, u32 j,
			       struct cpumask *cpus)
{
	const struct sched_domain *below = built_below(b, j, sd->level);

	while (below && !cpumask_subset(&below->span, &sd->span))
		below = below->child;
	cpumask_clear(cpus);
	if (below)
		*cpus = below->span;
	else
		cpumask_set_cpu(j, cpus);
}

/*
 * Groups of a NUMA level, as 3.8's build_overlap_sched_groups(): for each
 * CPU of the span not yet covered, the span of its domain one level down.
 * Those may overlap (hence SD_OVERLAP), so the ring is this CPU's own. It
 * starts with cpu's group, which is exactly its child's span.
 */
static int build_overlap_groups(struct build *b, u32 cpu, struct sched_domain *sd)
{
	struct sched_group *first = NULL, *last = NULL, *sg;
	struct cpumask covered = CPUMASK_EMPTY, cpus;
	u32 j;

	for (int pass = 0; pass < 2; pass++) {
		for_each_cpu (j, &sd->span) {
			if ((pass == 0) != (j >= cpu) || cpumask_test_cpu(j, &covered))
				continue;
			overlap_group_span(b, sd, j, &cpus);
			cpumask_or(&covered, &covered, &cpus);
			sg = new_group(b, &cpus);
			if (!sg)
				return -ENOMEM;
			ring_add(&first, &last, sg);
		}
	}
	sd->groups = first;
	return 0;
}

/* ------------------------------------------------------ degenerate levels */

/* Flags that only mean something for a domain with two groups or more. */
#define SD_FLAGS_NEED_GROUPS                                                              \
	(SD_LOAD_BALANCE | SD_BALANCE_NEWIDLE | SD_BALANCE_EXEC | SD_BALANCE_FORK |       \
	 SD_BALANCE_WAKE | SD_SHARE_CPUCAPACITY | SD_SHARE_PKG_RESOURCES | SD_SERIALIZE | \
	 SD_PREFER_SIBLING | SD_OVERLAP | SD_NUMA)

static bool sd_single_group(const struct sched_domain *sd)
{
	return sd->groups->next == sd->groups;
}

static bool sd_degenerate(const struct sched_domain *sd)
{
	if (sd->span_weight == 1)
		return true;
	if ((sd->flags & SD_FLAGS_NEED_GROUPS) && !sd_single_group(sd))
		return false;
	return !(sd->flags & SD_WAKE_AFFINE);
}

/*
 * Is parent useless above sd? Linux 3.8's rule: it is itself degenerate,
 * or it spans the same CPUs and, once the flags needing groups are
 * discounted for a single-group parent, adds no flag sd lacks. 3.8 counted
 * neither SD_PREFER_SIBLING nor SD_SERIALIZE (on a multi-node machine) as
 * needing groups, so a one-group CPU level survived over an identical MC
 * level (the quirk Alex Shi's 2013 series removed); we count them, as
 * later Linux does, and hand SD_PREFER_SIBLING down in attach_chain().
 */
static bool sd_parent_degenerate(const struct sched_domain *sd, const struct sched_domain *parent)
{
	u32 pflags = parent->flags;

	if (sd_degenerate(parent))
		return true;
	if (!cpumask_equal(&sd->span, &parent->span))
		return false;
	if (sd_single_group(parent))
		pflags &= ~(u32)SD_FLAGS_NEED_GROUPS;
	return !(pflags & ~sd->flags);
}

/*
 * cpu's chain without its degenerate levels, as 3.8's cpu_attach_domain():
 * drop degenerate parents bottom-up, then the base if it is degenerate.
 * A dropped parent's SD_PREFER_SIBLING passes to the domain below it,
 * which spans the same CPUs, so the level above still spreads over it.
 */
static struct sched_domain *attach_chain(struct sched_domain *sd)
{
	struct sched_domain *tmp = sd;

	while (tmp && tmp->parent) {
		struct sched_domain *parent = tmp->parent;

		if (sd_parent_degenerate(tmp, parent)) {
			tmp->parent = parent->parent;
			if (parent->parent)
				parent->parent->child = tmp;
			if (parent->flags & SD_PREFER_SIBLING)
				tmp->flags |= SD_PREFER_SIBLING;
		} else {
			tmp = parent;
		}
	}
	if (sd && sd_degenerate(sd)) {
		sd = sd->parent;
		if (sd)
			sd->child = NULL;
	}
	return sd;
}

/* The highest domain sharing the LLC, and the id and size that go with it. */
static void set_llc(struct sched_topology *t, u32 cpu)
{
	struct sched_topology_cpu *tc = &t->cpu[cpu];
	struct sched_domain *sd;

	tc->sd_llc = NULL;
	for_each_domain (t, cpu, sd)
		if (sd->flags & SD_SHARE_PKG_RESOURCES)
			tc->sd_llc = sd;
	tc->llc_id = tc->sd_llc ? cpumask_first(&tc->sd_llc->span) : cpu;
	tc->llc_size = tc->sd_llc ? tc->sd_llc->span_weight : 1;
}

/* ---------------------------------------------------------------- driving */

/* The description must be usable before anything is built from it. */
static int check_machine(const struct machine *m, const struct cpumask *online)
{
	u32 cpu;

	if (!m->nr_cpus || m->nr_cpus > MAX_CPUS || !m->nr_nodes || m->nr_nodes > MAX_NODES) {
		pr_err("topology: bad machine: %u CPUs, %u nodes\n", m->nr_cpus, m->nr_nodes);
		return -EINVAL;
	}
	if (cpumask_empty(online) || cpumask_next(m->nr_cpus - 1, online) < MAX_CPUS) {
		pr_err("topology: online CPUs must be some of the machine's %u\n", m->nr_cpus);
		return -EINVAL;
	}
	for (cpu = 0; cpu < m->nr_cpus; cpu++) { /* offline ones too: the masks look at all */
		if (m->cpu[cpu].node >= m->nr_nodes) {
			pr_err("topology: CPU%u on node %u of %u\n", cpu, m->cpu[cpu].node,
			       m->nr_nodes);
			return -EINVAL;
		}
	}
	return 0;
}

static int build_domains(struct build *b)
{
	struct sched_topology *t = b->t;
	u32 cpu;
	int err;

	b->built = topo_alloc(t, (size_t)t->nr_cpus * t->nr_levels * sizeof(*b->built));
	b->power = topo_alloc(t, (size_t)t->nr_cpus * sizeof(*b->power));
	if (!b->built || !b->power)
		return -ENOMEM;
	for_each_cpu (cpu, &t->online) {
		err = build_chain(b, cpu);
		if (err)
			return err;
		b->power[cpu] = cpu_power(b, cpu);
	}
	for_each_cpu (cpu, &t->online) {
		for (u32 l = 0; l < t->nr_levels; l++) {
			struct sched_domain *sd = *built_at(b, cpu, (int)l);

			if (!sd)
				break;
			if (sd->flags & SD_OVERLAP)
				err = build_overlap_groups(b, cpu, sd);
			else
				err = build_groups(b, cpu, sd);
			if (err)
				return err;
		}
	}
	for_each_cpu (cpu, &t->online) {
		t->cpu[cpu].sd = attach_chain(*built_at(b, cpu, SD_LV_SMT));
		set_llc(t, cpu);
	}
	return 0;
}

int sched_topology_build(const struct machine *m, const struct cpumask *online,
			 struct sched_topology **out)
{
	struct build b = { .m = m };
	struct cpumask all = CPUMASK_EMPTY;
	struct sched_topology *t;
	int err;

	*out = NULL;
	if (!online) {
		cpumask_set_range(&all, 0, m->nr_cpus);
		online = &all;
	}
	err = check_machine(m, online);
	if (err)
		return err;
	t = topo_create();
	if (!t)
		return -ENOMEM;
	b.t = t;
	t->nr_cpus = m->nr_cpus;
	t->online = *online;
	t->cpu = topo_alloc(t, (size_t)m->nr_cpus * sizeof(*t->cpu));
	err = t->cpu ? build_levels(t, m) : -ENOMEM;
	if (!err)
		err = build_domains(&b);
	if (!err)
		err = topo_build_exts(t);
	if (!err)
		err = sched_topology_validate(t);
	if (err) {
		sched_topology_free(t);
		return err;
	}
	topology_count(t, m);
	*out = t;
	return 0;
}

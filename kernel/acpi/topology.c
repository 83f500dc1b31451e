/*
 * ACPI topology: combines the parsed MADT, SRAT and SLIT into struct machine
 * (CPU numbers, NUMA nodes, distances) with the fallbacks for missing tables,
 * and drives the whole boot-time read from the RSDP on.
 */
#include "acpi/topology.h"

#include <arch/memory.h>

#include "cmdline.h"
#include "lib/errno.h"
#include "lib/printf.h"
#include "lib/string.h"
#include "printk.h"

static const char *numa_mode = "on";
static const char *const numa_choices[] = { "on", "off", NULL };
BOOT_OPTION_STRING(numa, "numa", &numa_mode, numa_choices,
		   "off: one NUMA node with every CPU and all memory, whatever the SRAT says");

static s64 maxcpus = MAX_CPUS;
BOOT_OPTION_INT(maxcpus, "maxcpus", &maxcpus, 0, 1 << 20,
		"use at most this many CPUs, the boot CPU included (0: the boot CPU only)");

static bool nosmp;
BOOT_OPTION_BOOL(nosmp, "nosmp", &nosmp, "run on the boot CPU only");

void acpi_machine_options_get(struct acpi_machine_options *opts)
{
	opts->numa_off = strcmp(numa_mode, "off") == 0;
	opts->nosmp = nosmp;
	opts->maxcpus = (u32)maxcpus;
}

/* ---------------------------------------------------------------- CPUs */

static void add_cpu(struct machine *m, u32 apic_id, u32 acpi_uid)
{
	struct machine_cpu *c = &m->cpu[m->nr_cpus++];

	memset(c, 0, sizeof(*c));
	c->apic_id = apic_id;
	c->acpi_uid = acpi_uid;
}

/* How many CPUs the options allow, MAX_CPUS at most and the boot CPU at least. */
static u32 cpu_limit(const struct acpi_machine_options *opts)
{
	u32 limit = MAX_CPUS;

	if (opts->nosmp)
		return 1;
	if (opts->maxcpus < limit)
		limit = opts->maxcpus;
	return limit ? limit : 1;
}

/*
 * CPU 0 is the boot CPU: it is already running, and per-CPU data, the idle
 * task and every "CPU 0" assumption in later code refer to it. The rest
 * keep MADT order, which firmware uses to express its preferred ordering.
 */
static void place_cpus(const struct acpi_madt_info *madt, u32 boot_apic_id,
		       const struct acpi_machine_options *opts, struct machine *m,
		       struct acpi_machine_notes *notes)
{
	u32 limit = cpu_limit(opts), boot = ~0u;

	if (madt && madt->count.enabled == 0)
		pr_warn("ACPI: MADT lists no enabled CPU; running on the boot CPU only\n");
	if (!madt || madt->count.enabled == 0) {
		add_cpu(m, boot_apic_id == ACPI_BOOT_CPU_FIRST_ENABLED ? 0 : boot_apic_id,
			ACPI_UID_UNKNOWN);
		return;
	}
	for (u32 i = 0; i < madt->nr_cpus; i++) {
		const struct acpi_madt_cpu *c = &madt->cpu[i];

		if (c->enabled &&
		    (boot_apic_id == ACPI_BOOT_CPU_FIRST_ENABLED || c->apic_id == boot_apic_id)) {
			boot = i;
			break;
		}
	}
	if (boot == ~0u) {
		pr_warn("ACPI: the boot CPU (APIC ID 0x%x) is not an enabled MADT entry; added as "
			"CPU 0\n",
			boot_apic_id);
		notes->boot_cpu_not_in_madt = true;
		add_cpu(m, boot_apic_id, ACPI_UID_UNKNOWN);
	} else {
		add_cpu(m, madt->cpu[boot].apic_id, madt->cpu[boot].acpi_uid);
	}
	for (u32 i = 0; i < madt->nr_cpus; i++) {
		const struct acpi_madt_cpu *c = &madt->cpu[i];

		if (!c->enabled || i == boot)
			continue;
		if (m->nr_cpus >= limit) {
			notes->cpus_left_out++;
			continue;
		}
		add_cpu(m, c->apic_id, c->acpi_uid);
	}
	if (!notes->cpus_left_out)
		return;
	if (opts->nosmp)
		pr_info("ACPI: nosmp: %u enabled CPUs left out\n", notes->cpus_left_out);
	else if (limit < MAX_CPUS)
		pr_info("ACPI: maxcpus=%u: %u enabled CPUs left out\n", opts->maxcpus,
			notes->cpus_left_out);
	else
		pr_warn("ACPI: only %d CPUs supported: %u enabled CPUs left out\n", MAX_CPUS,
			notes->cpus_left_out);
}

/* ---------------------------------------------------------------- nodes */

/* Inserts d into the ascending list dom[0..*n) unless present; false if it is full. */
static bool add_domain(u32 *dom, u32 *n, u32 max, u32 d)
{
	u32 i = 0;

	while (i < *n && dom[i] < d)
		i++;
	if (i < *n && dom[i] == d)
		return true;
	if (*n >= max)
		return false;
	memmove(&dom[i + 1], &dom[i], (*n - i) * sizeof(*dom));
	dom[i] = d;
	(*n)++;
	return true;
}

/*
 * The SRAT's distinct domains in ascending order, at most MAX_NODES + 1
 * (one more than fits, so the caller can tell it overflowed).
 */
static u32 srat_domains(const struct acpi_srat_info *srat, u32 dom[MAX_NODES + 1])
{
	u32 n = 0;

	for (u32 i = 0; i < srat->nr_cpus; i++)
		if (!add_domain(dom, &n, MAX_NODES + 1, srat->cpu[i].domain))
			return n;
	for (u32 i = 0; i < srat->nr_mem; i++)
		if (!add_domain(dom, &n, MAX_NODES + 1, srat->mem[i].domain))
			return n;
	return n;
}

static s32 node_of_domain(const struct machine *m, u32 domain)
{
	for (u32 n = 0; n < m->nr_nodes; n++)
		if (m->node[n].proximity_domain == domain)
			return (s32)n;
	return -1;
}

/* Gives node n its SRAT memory ranges, each shrunk inward to whole pages. */
static void node_memory(const struct acpi_srat_info *srat, struct machine *m, u32 n,
			struct acpi_machine_notes *notes)
{
	struct machine_node *node = &m->node[n];

	for (u32 i = 0; i < srat->nr_mem; i++) {
		const struct acpi_srat_mem *r = &srat->mem[i];
		u64 start = ALIGN_UP(r->base, PAGE_SIZE);
		u64 end = ALIGN_DOWN(r->base + r->length, PAGE_SIZE);

		if (r->domain != node->proximity_domain || start < r->base || end <= start)
			continue;
		if (node->nr_mem >= MAX_NODE_MEM_RANGES) {
			if (notes->mem_ranges_dropped++ == 0)
				pr_warn("ACPI: node %u has more than %d memory ranges; the rest "
					"are not recorded\n",
					n, MAX_NODE_MEM_RANGES);
			continue;
		}
		node->mem[node->nr_mem].start = start;
		node->mem[node->nr_mem].end = end;
		node->nr_mem++;
	}
}

static void one_node(struct machine *m)
{
	m->nr_nodes = 1;
	memset(&m->node[0], 0, sizeof(m->node[0]));
	for (u32 c = 0; c < m->nr_cpus; c++)
		m->cpu[c].node = 0;
}

/* Nodes from the SRAT's domains; false (and nothing set) if the SRAT cannot give them. */
static bool srat_nodes(const struct acpi_srat_info *srat, struct machine *m,
		       struct acpi_machine_notes *notes)
{
	u32 dom[MAX_NODES + 1];
	u32 n = srat_domains(srat, dom);

	notes->srat_domains = n;
	if (n == 0) {
		pr_warn("ACPI: SRAT has no enabled entries; one NUMA node\n");
		return false;
	}
	if (n > MAX_NODES) {
		pr_warn("ACPI: SRAT has more than %d proximity domains; one NUMA node\n", MAX_NODES);
		return false;
	}
	m->nr_nodes = n;
	for (u32 i = 0; i < n; i++) {
		memset(&m->node[i], 0, sizeof(m->node[i]));
		m->node[i].proximity_domain = dom[i];
		node_memory(srat, m, i, notes);
	}
	for (u32 c = 0; c < m->nr_cpus; c++) {
		s64 d = acpi_srat_cpu_domain(srat, m->cpu[c].apic_id);
		s32 node = d < 0 ? -1 : node_of_domain(m, (u32)d);

		if (node < 0) {
			if (notes->cpus_without_node++ == 0)
				pr_warn("ACPI: SRAT does not place CPU %u (APIC ID 0x%x); put on "
					"node 0\n",
					c, m->cpu[c].apic_id);
			node = 0;
		}
		m->cpu[c].node = (u32)node;
	}
	if (notes->cpus_without_node > 1)
		pr_warn("ACPI: %u CPUs in all are missing from the SRAT; all put on node 0\n",
			notes->cpus_without_node);
	return true;
}

/* ---------------------------------------------------------------- distances */

static void default_distances(struct machine *m)
{
	for (u32 i = 0; i < MAX_NODES; i++)
		for (u32 j = 0; j < MAX_NODES; j++)
			m->distance[i][j] = i == j ? LOCAL_DISTANCE : REMOTE_DISTANCE;
}

/*
 * The SLIT is indexed by proximity domain; node i stands for domain
 * node[i].proximity_domain. Pairs the SLIT does not cover keep 10/20.
 */
static bool slit_distances(const struct acpi_slit_info *slit, struct machine *m)
{
	u32 uncovered = 0;

	for (u32 i = 0; i < m->nr_nodes; i++) {
		for (u32 j = 0; j < m->nr_nodes; j++) {
			u32 di = m->node[i].proximity_domain, dj = m->node[j].proximity_domain;

			if (di >= slit->localities || dj >= slit->localities) {
				uncovered++;
				continue;
			}
			m->distance[i][j] = slit->distance[di][dj];
		}
	}
	if (uncovered)
		pr_warn("ACPI: SLIT (%u localities) does not cover every SRAT domain; %u "
			"distances are 10/20 defaults\n",
			slit->localities, uncovered);
	return uncovered == 0;
}

int acpi_build_machine(const struct acpi_madt_info *madt, const struct acpi_srat_info *srat,
		       const struct acpi_slit_info *slit, u32 boot_apic_id,
		       const struct acpi_machine_options *opts, struct machine *out,
		       struct acpi_machine_notes *notes)
{
	struct acpi_machine_notes scratch;
	u32 dom[MAX_NODES + 1];

	if (!notes)
		notes = &scratch;
	memset(notes, 0, sizeof(*notes));
	memset(out, 0, sizeof(*out));
	notes->have_madt = madt != NULL;
	notes->have_srat = srat != NULL;
	notes->have_slit = slit != NULL;
	notes->numa_off = opts->numa_off;
	if (madt) {
		notes->madt_enabled = madt->count.enabled;
		notes->madt_disabled = madt->count.disabled;
		notes->madt_online_capable = madt->count.online_capable;
	} else {
		pr_warn("ACPI: no MADT; running on the boot CPU only\n");
	}
	if (slit) {
		notes->slit_localities = slit->localities;
		notes->slit_valid = slit->valid;
	}

	place_cpus(madt, boot_apic_id, opts, out, notes);

	default_distances(out);
	if (opts->numa_off || !srat || !srat_nodes(srat, out, notes)) {
		if (srat && opts->numa_off)
			notes->srat_domains = srat_domains(srat, dom);
		one_node(out);
		return 0;
	}
	notes->numa_from_srat = true;
	if (slit && slit->valid)
		notes->distances_from_slit = slit_distances(slit, out);
	return 0;
}

void acpi_machine_print(const struct acpi_machine_notes *notes, const struct machine *m)
{
	char madt[64], srat[64], slit[64];

	if (notes->have_madt && notes->madt_online_capable)
		ksnprintf(madt, sizeof(madt), "MADT %u CPUs (%u disabled, %u online-capable)",
			  notes->madt_enabled, notes->madt_disabled, notes->madt_online_capable);
	else if (notes->have_madt)
		ksnprintf(madt, sizeof(madt), "MADT %u CPUs (%u disabled)", notes->madt_enabled,
			  notes->madt_disabled);
	else
		ksnprintf(madt, sizeof(madt), "no MADT (boot CPU only)");

	if (notes->numa_from_srat)
		ksnprintf(srat, sizeof(srat), "SRAT %u nodes", m->nr_nodes);
	else if (notes->have_srat && notes->numa_off)
		ksnprintf(srat, sizeof(srat), "SRAT %u domains (numa=off: 1 node)",
			  notes->srat_domains);
	else if (notes->have_srat)
		ksnprintf(srat, sizeof(srat), "SRAT unusable (1 node)");
	else
		ksnprintf(srat, sizeof(srat), "no SRAT (1 node)");

	if (notes->distances_from_slit)
		ksnprintf(slit, sizeof(slit), "SLIT %ux%u", notes->slit_localities,
			  notes->slit_localities);
	else if (notes->have_slit && !notes->slit_valid)
		ksnprintf(slit, sizeof(slit), "SLIT invalid (distances 10/20)");
	else if (notes->have_slit && notes->numa_from_srat)
		ksnprintf(slit, sizeof(slit), "SLIT %ux%u partial (10/20 where missing)",
			  notes->slit_localities, notes->slit_localities);
	else if (notes->have_slit)
		ksnprintf(slit, sizeof(slit), "SLIT %ux%u unused", notes->slit_localities,
			  notes->slit_localities);
	else
		ksnprintf(slit, sizeof(slit), "no SLIT (distances 10/20)");

	pr_info("ACPI: %s, %s, %s; using %u CPUs\n", madt, srat, slit, m->nr_cpus);
}

/* ---------------------------------------------------------------- boot path */

/* Boot-time scratch: too big for a kernel stack, used once. */
static struct acpi_tables tables;
static struct acpi_madt_info madt_info;
static struct acpi_srat_info srat_info;
static struct acpi_slit_info slit_info;

/* Finds the RSDP: the loader's copy first, then the BIOS areas. */
static int find_rsdp(const struct boot_info *bi, acpi_map_fn map, void *ctx,
		     struct acpi_rsdp_info *rsdp)
{
	const void *p;
	u64 phys;

	if (bi && bi->rsdp_len) {
		if (acpi_rsdp_check(bi->rsdp, bi->rsdp_len, rsdp) == 0)
			return 0;
		pr_warn("ACPI: the loader's RSDP copy is invalid; searching the BIOS areas\n");
	}
	if (acpi_rsdp_find_bios(map, ctx, &phys) != 0)
		return -ENOENT;
	/* The scan proved 20 bytes good; a 2.0 RSDP may end right at the ROM's top. */
	p = map(phys, ACPI_RSDP_V2_LEN, ctx);
	if (p && acpi_rsdp_check(p, ACPI_RSDP_V2_LEN, rsdp) == 0)
		return 0;
	p = map(phys, ACPI_RSDP_V1_LEN, ctx);
	return p ? acpi_rsdp_check(p, ACPI_RSDP_V1_LEN, rsdp) : -ENOENT;
}

static void print_table(const struct acpi_table_info *t, void *arg)
{
	const char *note = "";

	if (t->refused)
		note = " (bad checksum, refused)";
	else if (!t->checksum_ok)
		note = " (bad checksum)";
	pr_info("ACPI: %-4s 0x%016llx %06x%s\n", t->signature, (unsigned long long)t->phys,
		t->length, note);
}

/* The table's contents if there is exactly one usable copy, else the first, with a warning. */
static const struct acpi_table_info *find_one(const char *sig)
{
	u32 count;
	const struct acpi_table_info *t = acpi_find_table(&tables, sig, &count);

	if (count > 1)
		pr_warn("ACPI: %u %s tables; using the first\n", count, sig);
	return t;
}

int acpi_read_machine(const struct boot_info *bi, acpi_map_fn map, void *ctx, u32 boot_apic_id,
		      struct machine *out)
{
	const struct acpi_table_info *t;
	const struct acpi_madt_info *madt = NULL;
	const struct acpi_srat_info *srat = NULL;
	const struct acpi_slit_info *slit = NULL;
	struct acpi_machine_options opts;
	struct acpi_machine_notes notes;
	struct acpi_rsdp_info rsdp;
	int ret = -ENOENT;

	memset(&tables, 0, sizeof(tables));
	acpi_machine_options_get(&opts);
	if (acpi_disabled()) {
		pr_info("ACPI: disabled by acpi=off\n");
	} else if (find_rsdp(bi, map, ctx, &rsdp) != 0) {
		pr_warn("ACPI: no RSDP found\n");
	} else {
		pr_info("ACPI: RSDP revision %u (%s)%s\n", rsdp.revision, rsdp.oem_id,
			rsdp.revision >= 2 && !rsdp.v2_ok ? ", 2.0 part invalid" : "");
		if (acpi_tables_read(&rsdp, map, ctx, acpi_checksum_policy(), &tables) == 0)
			ret = 0;
		acpi_tables_for_each(&tables, print_table, NULL);
	}

	if (ret == 0) {
		t = find_one(ACPI_MADT_SIGNATURE);
		if (t && acpi_madt_parse(t->data, t->length, &madt_info) == 0)
			madt = &madt_info;
		t = find_one(ACPI_SRAT_SIGNATURE);
		if (t && acpi_srat_parse(t->data, t->length, &srat_info) == 0)
			srat = &srat_info;
		t = find_one(ACPI_SLIT_SIGNATURE);
		if (t && acpi_slit_parse(t->data, t->length, &slit_info) == 0)
			slit = &slit_info;
		if (!madt)
			ret = -ENOENT;
	}
	acpi_build_machine(madt, srat, slit, boot_apic_id, &opts, out, &notes);
	acpi_machine_print(&notes, out);
	return ret;
}

void acpi_for_each_table(void (*fn)(const struct acpi_table_info *table, void *arg), void *arg)
{
	acpi_tables_for_each(&tables, fn, arg);
}

int acpi_read_tables(const struct boot_info *bi, acpi_map_fn map, void *ctx, struct acpi_tables *out)
{
	struct acpi_rsdp_info rsdp;

	memset(out, 0, sizeof(*out));
	if (acpi_disabled() || find_rsdp(bi, map, ctx, &rsdp) != 0)
		return -ENOENT;
	return acpi_tables_read(&rsdp, map, ctx, acpi_checksum_policy(), out);
}

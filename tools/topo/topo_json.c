/*
 * fulcrum-topo --json: the whole view as one JSON object, for scripts and
 * tests. Fields are added, never renamed: tests/tools/test_fulcrum_topo.py
 * and users' scripts read them. Every string goes through json_str().
 */
#include <stdio.h>

#include "lib/cpumask.h"
#include "sched/balance_map.h"
#include "topo.h"

/* "2-5,8": a CPU list fits easily; 256 CPUs at worst "0,2,...,254" (about 700 bytes). */
#define CPULIST_MAX 1024

/* ---------------------------------------------------------------- pieces */

/* A JSON string: quotes, backslashes and every byte outside printable ASCII escaped. */
static void json_str(const char *s)
{
	putchar('"');
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			printf("\\%c", *p);
		else if (*p < 0x20 || *p >= 0x7f)
			printf("\\u%04x", *p); /* a firmware byte, shown as its Latin-1 character */
		else
			putchar(*p);
	}
	putchar('"');
}

/* A number, or null when negative (the helpers' "none"). */
static void json_num_or_null(s64 v)
{
	if (v < 0)
		printf("null");
	else
		printf("%lld", (long long)v);
}

static const char *json_bool(bool b)
{
	return b ? "true" : "false";
}

static void json_u32_list(const char *name, const u32 *v, u32 n, const char *after)
{
	printf("\"%s\": [", name);
	for (u32 i = 0; i < n; i++)
		printf("%s%u", i ? ", " : "", v[i]);
	printf("]%s", after);
}

/* "span": [0, 1], "cpulist": "0-1" */
static void json_mask(const struct cpumask *m)
{
	char list[CPULIST_MAX];
	bool first = true;
	u32 cpu;

	printf("\"span\": [");
	for_each_cpu (cpu, m) {
		printf("%s%u", first ? "" : ", ", cpu);
		first = false;
	}
	cpumask_print(list, sizeof(list), m);
	printf("], \"cpulist\": ");
	json_str(list);
}

/* ---------------------------------------------------------------- machine */

/* One entry of "cpus"; cpu is the kernel's CPU number, or -1 for an entry it does not use. */
static void json_cpu(const struct topo_view *v, bool first, s64 cpu, u32 apic_id, u32 acpi_uid,
		     bool enabled, bool online_capable, bool x2apic, bool in_madt, s64 node)
{
	const struct machine_cpu *c = cpu >= 0 ? &v->m->cpu[cpu] : NULL;

	printf("%s\n    {\"cpu\": ", first ? "" : ",");
	json_num_or_null(cpu);
	printf(", \"apic_id\": %u, \"acpi_uid\": ", apic_id);
	json_num_or_null(acpi_uid == ACPI_UID_UNKNOWN ? -1 : (s64)acpi_uid);
	printf(", \"enabled\": %s, \"online_capable\": %s, \"x2apic\": %s, \"in_madt\": %s, "
	       "\"node\": ",
	       json_bool(enabled), json_bool(online_capable), json_bool(x2apic), json_bool(in_madt));
	json_num_or_null(node);
	if (v->have_layout) {
		printf(", \"package\": ");
		json_num_or_null(c ? (s64)c->package : -1);
		printf(", \"core\": ");
		json_num_or_null(c ? (s64)c->core : -1);
		printf(", \"thread\": ");
		json_num_or_null(c ? (s64)c->thread : -1);
		printf(", \"llc\": ");
		json_num_or_null(c ? (s64)c->llc : -1);
	}
	printf("}");
}

/*
 * Every MADT processor entry in MADT order, disabled ones included; a boot
 * CPU the MADT does not list (or the lone CPU without a MADT) comes first.
 */
static void json_cpus(const struct topo_view *v)
{
	const struct machine *m = v->m;
	bool first = true;

	printf("  \"cpus\": [");
	for (u32 c = 0; c < m->nr_cpus; c++) {
		if (topo_cpu_in_madt(v, c))
			continue;
		json_cpu(v, first, c, m->cpu[c].apic_id, m->cpu[c].acpi_uid, true, false, false,
			 false, m->cpu[c].node);
		first = false;
	}
	for (u32 i = 0; v->madt && i < v->madt->nr_cpus; i++) {
		const struct acpi_madt_cpu *e = &v->madt->cpu[i];

		json_cpu(v, first, topo_madt_entry_cpu(v, i), e->apic_id, e->acpi_uid, e->enabled,
			 e->online_capable, e->x2apic, true, topo_madt_entry_node(v, i));
		first = false;
	}
	printf("\n  ],\n");
}

static void json_nodes(const struct topo_view *v)
{
	const struct machine *m = v->m;
	static u32 ids[MAX_CPUS];

	printf("  \"nodes\": [");
	for (u32 i = 0; i < m->nr_nodes; i++) {
		const struct machine_node *node = &m->node[i];
		u32 n = 0;

		printf("%s\n    {\"id\": %u, \"proximity_domain\": %u, ", i ? "," : "", i,
		       node->proximity_domain);
		for (u32 c = 0; c < m->nr_cpus; c++)
			if (m->cpu[c].node == i)
				ids[n++] = m->cpu[c].apic_id;
		json_u32_list("cpus", ids, n, ", \"memory\": [");
		for (u32 r = 0; r < node->nr_mem; r++)
			printf("%s[%llu, %llu]", r ? ", " : "",
			       (unsigned long long)node->mem[r].start,
			       (unsigned long long)(node->mem[r].end - node->mem[r].start));
		printf("]}");
	}
	printf("\n  ],\n  \"distances\": [");
	for (u32 i = 0; i < m->nr_nodes; i++) {
		printf("%s[", i ? ", " : "");
		for (u32 j = 0; j < m->nr_nodes; j++)
			printf("%s%u", j ? ", " : "", m->distance[i][j]);
		printf("]");
	}
	printf("],\n  \"distances_from_slit\": %s,\n", json_bool(v->notes->distances_from_slit));
}

/* ---------------------------------------------------------------- tables */

static void json_madt(const struct acpi_madt_info *md)
{
	static u32 ids[ACPI_MADT_MAX_CPUS];
	u32 n;

	if (!md) {
		printf("  \"madt\": null,\n");
		return;
	}
	printf("  \"madt\": {\n    \"revision\": %u, \"lapic_address\": %llu, "
	       "\"lapic_address_overridden\": %s,\n    ",
	       md->revision, (unsigned long long)md->lapic_address, json_bool(md->lapic_overridden));
	n = 0;
	for (u32 i = 0; i < md->nr_cpus; i++)
		if (md->cpu[i].enabled)
			ids[n++] = md->cpu[i].apic_id;
	json_u32_list("enabled_apic_ids", ids, n, ",\n    ");
	n = 0;
	for (u32 i = 0; i < md->nr_cpus; i++)
		if (md->cpu[i].online_capable)
			ids[n++] = md->cpu[i].apic_id;
	json_u32_list("online_capable_apic_ids", ids, n, ",\n    ");
	json_u32_list("duplicate_apic_ids", md->dup_id, md->nr_dup_ids, ",\n    ");
	printf("\"enabled_count\": %u, \"disabled_entry_count\": %u, "
	       "\"online_capable_disabled_count\": %u,\n    \"duplicate_count\": %u, "
	       "\"x2apic_count\": %u, \"unknown_entry_count\": %u, "
	       "\"malformed_entry_count\": %u, \"truncated\": %s,\n    \"io_apics\": [",
	       md->count.enabled, md->count.disabled, md->count.online_capable, md->count.duplicates,
	       md->count.x2apic, md->count.unknown, md->count.malformed, json_bool(md->truncated));
	for (u32 i = 0; i < md->nr_ioapics; i++)
		printf("%s{\"id\": %u, \"address\": %u, \"gsi_base\": %u}", i ? ", " : "",
		       md->ioapic[i].id, md->ioapic[i].address, md->ioapic[i].gsi_base);
	printf("], \"interrupt_overrides\": %u, \"nmis\": %u\n  },\n", md->nr_overrides, md->nr_nmis);
}

static void json_srat(const struct acpi_srat_info *s, const struct acpi_machine_notes *notes)
{
	const struct acpi_srat_counts *k;

	if (!s) {
		printf("  \"srat\": null,\n");
		return;
	}
	k = &s->count;
	printf("  \"srat\": {\n    \"revision\": %u, \"enabled_cpu_affinity_count\": %u, "
	       "\"disabled_cpu_affinity_count\": %u,\n    \"x2apic_affinity_count\": %u, "
	       "\"memory_range_count\": %u, \"disabled_memory_entry_count\": %u,\n    "
	       "\"empty_memory_entry_count\": %u, \"hotplug_memory_range_count\": %u, "
	       "\"non_volatile_memory_range_count\": %u,\n    \"unknown_entry_count\": %u, "
	       "\"malformed_entry_count\": %u, \"truncated\": %s, \"domain_count\": %u\n  },\n",
	       s->revision, k->cpu_enabled, k->cpu_disabled, k->x2apic, k->mem_enabled,
	       k->mem_disabled, k->mem_empty, k->mem_hot_pluggable, k->mem_non_volatile, k->unknown,
	       k->malformed, json_bool(s->truncated), notes->srat_domains);
}

static void json_slit(const struct acpi_slit_info *sl)
{
	if (!sl) {
		printf("  \"slit\": null");
		return;
	}
	printf("  \"slit\": {\"localities\": %u, \"valid\": %s, \"matrix\": [", sl->localities,
	       json_bool(sl->valid));
	for (u32 i = 0; i < sl->localities; i++) {
		printf("%s[", i ? ", " : "");
		for (u32 j = 0; j < sl->localities; j++)
			printf("%s%u", j ? ", " : "", sl->distance[i][j]);
		printf("]");
	}
	printf("]}");
}

/* The RSDT/XSDT walk of --memdump. Signatures are firmware bytes: escaped. */
static void json_tables(const struct acpi_tables *tables)
{
	printf(",\n  \"tables\": [");
	for (u32 i = 0; i < tables->nr; i++) {
		const struct acpi_table_info *t = &tables->table[i];

		printf("%s\n    {\"signature\": ", i ? "," : "");
		json_str(t->signature);
		printf(", \"phys\": %llu, \"length\": %u, \"checksum_ok\": %s}",
		       (unsigned long long)t->phys, t->length, json_bool(t->checksum_ok));
	}
	printf("\n  ]");
}

/* ---------------------------------------------------------------- domains */

static const struct {
	u32 flag;
	const char *name;
} sd_flag_names[] = {
	{ SD_LOAD_BALANCE, "SD_LOAD_BALANCE" },
	{ SD_BALANCE_NEWIDLE, "SD_BALANCE_NEWIDLE" },
	{ SD_BALANCE_EXEC, "SD_BALANCE_EXEC" },
	{ SD_BALANCE_FORK, "SD_BALANCE_FORK" },
	{ SD_BALANCE_WAKE, "SD_BALANCE_WAKE" },
	{ SD_WAKE_AFFINE, "SD_WAKE_AFFINE" },
	{ SD_SHARE_CPUCAPACITY, "SD_SHARE_CPUCAPACITY" },
	{ SD_SHARE_PKG_RESOURCES, "SD_SHARE_PKG_RESOURCES" },
	{ SD_SERIALIZE, "SD_SERIALIZE" },
	{ SD_PREFER_SIBLING, "SD_PREFER_SIBLING" },
	{ SD_OVERLAP, "SD_OVERLAP" },
	{ SD_NUMA, "SD_NUMA" },
};

/* "flags": ["SD_LOAD_BALANCE", ...], "flags_value": 559; unnamed bits as "0x...". */
static void json_flags(u32 flags)
{
	u32 rest = flags;
	bool first = true;

	printf("\"flags\": [");
	for (size_t i = 0; i < sizeof(sd_flag_names) / sizeof(sd_flag_names[0]); i++) {
		if (!(flags & sd_flag_names[i].flag))
			continue;
		printf("%s\"%s\"", first ? "" : ", ", sd_flag_names[i].name);
		rest &= ~sd_flag_names[i].flag;
		first = false;
	}
	if (rest)
		printf("%s\"0x%x\"", first ? "" : ", ", rest);
	printf("], \"flags_value\": %u", flags);
}

static void json_levels(const struct sched_topology *t)
{
	printf(",\n  \"levels\": [");
	for (u32 lv = 0; lv < t->nr_levels; lv++) {
		printf("%s{\"level\": %u, \"name\": ", lv ? ", " : "", lv);
		json_str(t->levels[lv].name);
		printf(", \"distance\": ");
		json_num_or_null(t->levels[lv].distance ? (s64)t->levels[lv].distance : -1);
		printf("}");
	}
	printf("]");
}

static const char *llc_sharing_name(enum llc_sharing llc)
{
	switch (llc) {
	case LLC_PER_CORE:
		return "per core";
	case LLC_PER_PACKAGE:
		return "per package";
	case LLC_PER_NODE:
		return "per node";
	case LLC_SPLIT_PACKAGE:
		return "split package";
	default:
		return "other";
	}
}

static void json_summary(const struct sched_topology *t)
{
	const struct topology_summary *s = &t->summary;

	printf(",\n  \"summary\": {\"packages\": %u, \"nodes\": %u, \"cores\": %u, "
	       "\"threads\": %u, \"llcs\": %u, \"llc\": ",
	       s->packages, s->nodes, s->cores, s->threads, s->llcs);
	json_str(llc_sharing_name(s->llc));
	printf("}");
}

/* One domain: its level, span, flags, balancing parameters and groups. */
static void json_domain(const struct sched_domain *sd, bool first)
{
	const struct sched_group *sg;

	printf("%s\n      {\"level\": %d, \"name\": ", first ? "" : ",", sd->level);
	json_str(sd->name);
	printf(", ");
	json_mask(&sd->span);
	printf(", ");
	json_flags(sd->flags);
	printf(",\n       \"imbalance_pct\": %u, \"min_interval\": %u, \"max_interval\": %u, "
	       "\"busy_factor\": %u, \"cache_nice_tries\": %u,\n       \"groups\": [",
	       sd->imbalance_pct, sd->min_interval, sd->max_interval, sd->busy_factor,
	       sd->cache_nice_tries);
	for_each_sd_group (sg, sd) {
		printf("%s{\"cpu\": %u, ", sg == sd->groups ? "" : ", ", sg->balance_cpu);
		json_mask(&sg->cpus);
		printf(", \"power\": %u, \"capacity\": %u}", sg->power, sg->capacity);
	}
	printf("]}");
}

/* Per CPU its chain bottom-up; a CPU with nothing to balance has no levels. */
static void json_domains(const struct sched_topology *t)
{
	const struct sched_domain *sd;
	bool first_cpu = true;
	u32 cpu;

	printf(",\n  \"domains\": [");
	for_each_cpu (cpu, &t->online) {
		bool first = true;

		printf("%s\n    {\"cpu\": %u, \"levels\": [", first_cpu ? "" : ",", cpu);
		for_each_domain (t, cpu, sd) {
			json_domain(sd, first);
			first = false;
		}
		printf("%s]}", first ? "" : "\n    ");
		first_cpu = false;
	}
	printf("\n  ]");
}

/* {"level": 1, "name": "MC"} for a domain, null for none. */
static void json_sd_ref(const struct sched_domain *sd)
{
	if (!sd) {
		printf("null");
		return;
	}
	printf("{\"level\": %d, \"name\": ", sd->level);
	json_str(sd->name);
	printf("}");
}

static void json_sbm_type(const struct sched_topology *t, u32 cpu, enum sbm_type type,
			  const char *name, const char *after)
{
	printf("\"%s\": [", name);
	for (u32 lv = 0; lv < t->nr_levels; lv++) {
		printf("%s", lv ? ", " : "");
		json_sd_ref(sbm_sd(t, cpu, type, (int)lv));
	}
	printf("]%s", after);
}

/*
 * Per CPU: for exec, fork and wake, the domain the map names at each level
 * of the level table (null where none); the top level of each; and the
 * affine map, indexed by the other CPU's number.
 */
static void json_balance_map(const struct sched_topology *t)
{
	bool first_cpu = true;
	u32 cpu;

	printf(",\n  \"balance_map\": [");
	for_each_cpu (cpu, &t->online) {
		printf("%s\n    {\"cpu\": %u,\n     ", first_cpu ? "" : ",", cpu);
		json_sbm_type(t, cpu, SBM_EXEC_TYPE, "exec", ",\n     ");
		json_sbm_type(t, cpu, SBM_FORK_TYPE, "fork", ",\n     ");
		json_sbm_type(t, cpu, SBM_WAKE_TYPE, "wake", ",");
		printf("\n     \"top_level\": {\"exec\": %d, \"fork\": %d, \"wake\": %d},\n     "
		       "\"affine\": [",
		       sbm_top_level(t, cpu, SBM_EXEC_TYPE), sbm_top_level(t, cpu, SBM_FORK_TYPE),
		       sbm_top_level(t, cpu, SBM_WAKE_TYPE));
		for (u32 other = 0; other < t->nr_cpus; other++) {
			printf("%s", other ? ", " : "");
			json_sd_ref(sbm_affine_sd(t, cpu, other));
		}
		printf("]}");
		first_cpu = false;
	}
	printf("\n  ]");
}

/* ---------------------------------------------------------------- all */

void topo_print_json(const struct topo_view *v)
{
	printf("{\n");
	json_cpus(v);
	json_nodes(v);
	json_madt(v->madt);
	json_srat(v->srat, v->notes);
	json_slit(v->slit);
	if (v->tables)
		json_tables(v->tables);
	if (v->have_layout)
		printf(",\n  \"layout\": {\"threads_bits\": %u, \"cores_bits\": %u, "
		       "\"package_shift\": %u, \"llc_bits\": %u}",
		       v->threads_bits, v->cores_bits, v->layout.pkg_shift, v->layout.llc_shift);
	else
		printf(",\n  \"layout\": null");
	if (v->t) {
		json_levels(v->t);
		json_summary(v->t);
		json_domains(v->t);
		json_balance_map(v->t);
	}
	printf("\n}\n");
}

/*
 * fulcrum-topo's output for people: a CPU table, the nodes and distances,
 * and, given the APIC-ID layout, the domains and balance map printed by the
 * kernel's own code exactly as its sched_debug boot log shows them.
 */
#include <stdio.h>

#include "lib/cpumask.h"
#include "printk.h"
#include "topo.h"

/* "0-3,8-11": the CPUs of node n, as the kernel prints CPU lists. */
static void print_node_cpus(const struct machine *m, u32 n)
{
	struct cpumask cpus = CPUMASK_EMPTY;
	char list[1024];

	for (u32 c = 0; c < m->nr_cpus; c++)
		if (m->cpu[c].node == n)
			cpumask_set_cpu(c, &cpus);
	if (cpumask_empty(&cpus)) {
		printf("none");
		return;
	}
	/* Longest list: every other CPU of 256, "0,2,...,254" -- well under 1 KiB. */
	cpumask_print(list, sizeof(list), &cpus);
	printf("%s", list);
}

static void print_cpus(const struct topo_view *v)
{
	const struct machine *m = v->m;

	printf("\nCPU  APIC ID  ACPI UID  node%s\n",
	       v->have_layout ? "  package  core  thread  LLC" : "");
	for (u32 c = 0; c < m->nr_cpus; c++) {
		const struct machine_cpu *cpu = &m->cpu[c];
		char uid[16] = "-", apic[16];

		if (cpu->acpi_uid != ACPI_UID_UNKNOWN)
			snprintf(uid, sizeof(uid), "%u", cpu->acpi_uid);
		snprintf(apic, sizeof(apic), "0x%x", cpu->apic_id);
		printf("%3u  %7s  %8s  %4u", c, apic, uid, cpu->node);
		if (v->have_layout)
			printf("  %7u  %4u  %6u  %3u", cpu->package, cpu->core, cpu->thread,
			       cpu->llc);
		printf("\n");
	}
	if (v->madt && v->madt->count.disabled)
		printf("(the MADT also lists %u disabled entries, %u of them online-capable: not "
		       "used)\n",
		       v->madt->count.disabled, v->madt->count.online_capable);
}

static void print_nodes(const struct topo_view *v)
{
	const struct machine *m = v->m;

	printf("\n");
	for (u32 n = 0; n < m->nr_nodes; n++) {
		printf("node %u (proximity domain %u): CPUs ", n, m->node[n].proximity_domain);
		print_node_cpus(m, n);
		printf("; memory");
		if (m->node[n].nr_mem == 0)
			printf(v->notes->numa_from_srat ? " none" : " all");
		for (u32 r = 0; r < m->node[n].nr_mem; r++)
			printf(" [0x%llx-0x%llx]", (unsigned long long)m->node[n].mem[r].start,
			       (unsigned long long)m->node[n].mem[r].end - 1);
		printf("\n");
	}
}

static void print_distances(const struct topo_view *v)
{
	const struct machine *m = v->m;

	printf("\nnode distances (%s):\nnode",
	       v->notes->distances_from_slit ? "SLIT" : "10/20 default");
	for (u32 j = 0; j < m->nr_nodes; j++)
		printf(" %4u", j);
	printf("\n");
	for (u32 i = 0; i < m->nr_nodes; i++) {
		printf("%4u", i);
		for (u32 j = 0; j < m->nr_nodes; j++)
			printf(" %4u", m->distance[i][j]);
		printf("\n");
	}
}

/* The line the kernel prints after reading CPUID (arch/x86_64/cpu_topology.c), for this layout. */
static void print_layout(const struct topo_view *v)
{
	const struct apic_id_layout *l = &v->layout;

	pr_info("cpu topology (%s): APIC ID = package << %u | core | thread (%u bit%s); LLC shared "
		"by 2^%u IDs%s\n",
		l->source, l->pkg_shift, l->smt_bits, l->smt_bits == 1 ? "" : "s", l->llc_shift,
		l->llc_shift == l->pkg_shift ? " (one per package)" : "");
}

void topo_print_text(const struct topo_view *v)
{
	print_cpus(v);
	print_nodes(v);
	print_distances(v);
	if (!v->have_layout) {
		printf("\n(give --threads-bits and --cores-bits to see the sched domains)\n");
		return;
	}
	printf("\n");
	print_layout(v); /* printk writes to stdout too (topo_arch.c), so the order holds */
	if (v->t) {
		sched_topology_print_debug(v->t);
		sched_topology_print_summary(v->t);
	}
}

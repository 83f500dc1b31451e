/*
 * fulcrum-topo's result, shared by its reader (fulcrum_topo.c) and its two
 * printers (topo_text.c for people, topo_json.c for programs).
 */
#ifndef FULCRUM_TOOLS_TOPO_H
#define FULCRUM_TOOLS_TOPO_H

#include "acpi/topology.h"
#include "cpuid_topology.h"
#include "machine.h"
#include "sched/topology.h"

/* Everything the tool found out about one machine; printers only read it. */
struct topo_view {
	const struct acpi_madt_info *madt; /* NULL: no MADT, or an unusable one */
	const struct acpi_srat_info *srat;
	const struct acpi_slit_info *slit;
	const struct acpi_tables *tables; /* the RSDT/XSDT walk (--memdump); else NULL */
	const struct acpi_machine_notes *notes;
	const struct machine *m; /* what the kernel would use */

	/* The APIC-ID bit layout, given on the command line (CPUID is not in the tables). */
	bool have_layout;
	u32 threads_bits, cores_bits;
	struct apic_id_layout layout; /* pkg_shift = threads + cores bits; llc_shift */

	/* The domains and balance map built from m with that layout; NULL without one. */
	const struct sched_topology *t;
};

/*
 * The machine CPU number of the MADT processor entry i, or -1 when the
 * kernel would not use it (disabled, online-capable, beyond maxcpus=).
 */
s64 topo_madt_entry_cpu(const struct topo_view *v, u32 i);

/* Whether machine CPU c comes from a MADT entry (not so for a boot CPU the MADT misses). */
bool topo_cpu_in_madt(const struct topo_view *v, u32 c);

/* The node of MADT entry i: its CPU's, else its SRAT domain's; -1 if unknown. */
s64 topo_madt_entry_node(const struct topo_view *v, u32 i);

/* Human-readable: CPU table, nodes, distances; with a layout the boot log's domain listing. */
void topo_print_text(const struct topo_view *v);

/* One JSON object on stdout (see the usage text and README for its fields). */
void topo_print_json(const struct topo_view *v);

#endif

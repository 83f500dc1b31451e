/*
 * ACPI's view of the machine: MADT + SRAT + SLIT combined into struct
 * machine (CPUs, NUMA nodes, distances), with the fallbacks real machines
 * need when a table is missing, and the one call boot makes to get it all.
 */
#ifndef FULCRUM_ACPI_TOPOLOGY_H
#define FULCRUM_ACPI_TOPOLOGY_H

#include "acpi/madt.h"
#include "acpi/slit.h"
#include "acpi/srat.h"
#include "acpi/tables.h"
#include "boot/boot_info.h"
#include "lib/types.h"
#include "machine.h"

/* boot_apic_id value meaning "the first enabled MADT entry" (host tools have no CPUID). */
#define ACPI_BOOT_CPU_FIRST_ENABLED 0xFFFFFFFFu
/* acpi_uid of a boot CPU the MADT does not list. */
#define ACPI_UID_UNKNOWN	    0xFFFFFFFFu

/* The boot options that shape the machine (numa=, maxcpus=, nosmp), as plain values. */
struct acpi_machine_options {
	bool numa_off; /* one node, distance 10 */
	bool nosmp;    /* the boot CPU only */
	u32 maxcpus;   /* at most this many CPUs, the boot CPU included; 0 acts as 1 */
};

/* The options as set on the command line (defaults: NUMA on, SMP on, no cap). */
void acpi_machine_options_get(struct acpi_machine_options *opts);

/* What acpi_build_machine() found and fell back on, for the summary line and tools. */
struct acpi_machine_notes {
	bool have_madt, have_srat, have_slit;
	u32 madt_enabled, madt_disabled, madt_online_capable;
	u32 srat_domains; /* distinct proximity domains with an enabled entry */
	u32 slit_localities;
	bool slit_valid;
	bool numa_from_srat;	  /* nodes are the SRAT's domains (not the one-node fallback) */
	bool distances_from_slit; /* else 10 local / 20 remote */
	bool numa_off;		  /* numa=off made it one node */
	bool boot_cpu_not_in_madt;
	u32 cpus_without_node;	/* CPUs the SRAT does not place: put on node 0 */
	u32 cpus_left_out;	/* enabled CPUs beyond maxcpus=/nosmp/MAX_CPUS */
	u32 mem_ranges_dropped; /* SRAT ranges beyond MAX_NODE_MEM_RANGES for their node */
};

/*
 * Builds *out from parsed tables; any of madt, srat, slit may be NULL
 * (absent or unusable). The boot CPU (APIC ID boot_apic_id) becomes CPU 0,
 * the other enabled MADT CPUs follow in MADT order; online-capable CPUs
 * are not included. package/core/thread/llc are left 0 for CPUID to fill.
 *
 * Nodes: the SRAT's proximity domains (from enabled processor and memory
 * entries) numbered densely in ascending domain order, so node i < node j
 * iff domain i < domain j. That keeps the numbering independent of the
 * order the firmware lists entries in, and is the identity on the usual
 * domains 0..n-1. A node's mem[] holds its SRAT ranges shrunk inward to
 * whole pages; nr_mem == 0 on the one-node fallback means "all memory".
 *
 * Fallbacks: no MADT (or none enabled) -> the boot CPU only; no SRAT, more
 * than MAX_NODES domains or numa=off -> one node; no usable SLIT, or one
 * that does not cover a node's domain -> 10 local, 20 remote. Each is
 * reported with pr_warn or pr_info. notes may be NULL. Returns 0.
 */
int acpi_build_machine(const struct acpi_madt_info *madt, const struct acpi_srat_info *srat,
		       const struct acpi_slit_info *slit, u32 boot_apic_id,
		       const struct acpi_machine_options *opts, struct machine *out,
		       struct acpi_machine_notes *notes);

/* The boot summary: "ACPI: MADT 8 CPUs (0 disabled), SRAT 2 nodes, SLIT 2x2". */
void acpi_machine_print(const struct acpi_machine_notes *notes, const struct machine *m);

/*
 * The whole boot path: RSDP (the loader's copy in bi, else the BIOS areas
 * through map) -> RSDT/XSDT -> MADT, SRAT, SLIT -> *out, honouring acpi=,
 * acpi_bad_checksum=, numa=, maxcpus= and nosmp, printing the tables found
 * and the summary. *out is always a usable machine (at least the boot CPU
 * on one node). Returns 0 if ACPI described the machine, -ENOENT if it
 * fell back for lack of (usable) tables or because of acpi=off.
 * Boot-time and not reentrant: the parsed tables live in static storage.
 */
int acpi_read_machine(const struct boot_info *bi, acpi_map_fn map, void *ctx, u32 boot_apic_id,
		      struct machine *out);

/*
 * The table list alone, read into *out for a caller that needs it before
 * acpi_read_machine() runs (the timer calibration looks for the HPET and
 * FADT). Returns 0, or -ENOENT (acpi=off, no RSDP, no usable root table).
 */
int acpi_read_tables(const struct boot_info *bi, acpi_map_fn map, void *ctx, struct acpi_tables *out);

/*
 * Calls fn on every table the last acpi_read_machine() listed (refused ones
 * too), so their physical ranges can be kept out of the page allocator.
 */
void acpi_for_each_table(void (*fn)(const struct acpi_table_info *table, void *arg), void *arg);

#endif

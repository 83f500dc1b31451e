/*
 * The SRAT (System Resource Affinity Table): which proximity domain (NUMA
 * node, in firmware terms) each processor and memory range belongs to.
 * A pure parser over a byte buffer; topology.c turns domains into nodes.
 */
#ifndef FULCRUM_ACPI_SRAT_H
#define FULCRUM_ACPI_SRAT_H

#include "acpi/tables.h"
#include "lib/compiler.h"
#include "lib/types.h"

#define ACPI_SRAT_SIGNATURE "SRAT"

struct acpi_srat {
	struct acpi_sdt_header header;
	u32 table_revision; /* reserved, 1 */
	u64 reserved;
} __packed;
_Static_assert(sizeof(struct acpi_srat) == 48, "SRAT header");

enum acpi_srat_type {
	ACPI_SRAT_CPU_AFFINITY = 0,
	ACPI_SRAT_MEM_AFFINITY = 1,
	ACPI_SRAT_X2APIC_AFFINITY = 2,
};

struct acpi_srat_entry_header {
	u8 type;
	u8 length;
} __packed;
_Static_assert(sizeof(struct acpi_srat_entry_header) == 2, "SRAT entry header");

#define ACPI_SRAT_ENABLED	    0x1 /* all three types */
#define ACPI_SRAT_MEM_HOT_PLUGGABLE 0x2 /* memory affinity */
#define ACPI_SRAT_MEM_NON_VOLATILE  0x4 /* memory affinity */

/*
 * Processor local APIC affinity. The domain's low byte is at offset 2 and
 * its upper three bytes at 9-11; before SRAT revision 2 those were reserved.
 */
struct acpi_srat_cpu_affinity {
	struct acpi_srat_entry_header h;
	u8 proximity_lo;
	u8 apic_id;
	u32 flags;
	u8 local_sapic_eid;
	u8 proximity_hi[3];
	u32 clock_domain;
} __packed;
_Static_assert(sizeof(struct acpi_srat_cpu_affinity) == 16, "SRAT processor affinity");

struct acpi_srat_mem_affinity {
	struct acpi_srat_entry_header h;
	u32 proximity_domain; /* only the low byte before SRAT revision 2 */
	u16 reserved1;
	u32 base_lo, base_hi;
	u32 length_lo, length_hi;
	u32 reserved2;
	u32 flags;
	u64 reserved3;
} __packed;
_Static_assert(sizeof(struct acpi_srat_mem_affinity) == 40, "SRAT memory affinity");

struct acpi_srat_x2apic_affinity {
	struct acpi_srat_entry_header h;
	u16 reserved1;
	u32 proximity_domain;
	u32 x2apic_id;
	u32 flags;
	u32 clock_domain;
	u32 reserved2;
} __packed;
_Static_assert(sizeof(struct acpi_srat_x2apic_affinity) == 24, "SRAT x2APIC affinity");

/* ---------------------------------------------------------------- parsed form */

#define ACPI_SRAT_MAX_CPUS 1024
#define ACPI_SRAT_MAX_MEM  128

/* An enabled processor affinity entry (type 0 or 2). */
struct acpi_srat_cpu {
	u32 apic_id;
	u32 domain;
	bool x2apic;
};

/* An enabled memory affinity entry. */
struct acpi_srat_mem {
	u32 domain;
	u64 base, length;
	bool hot_pluggable, non_volatile;
};

struct acpi_srat_counts {
	u32 cpu_enabled;       /* processor entries (both types) with the enabled flag */
	u32 cpu_disabled;      /* processor entries without it: skipped */
	u32 x2apic;	       /* type-2 entries, enabled or not */
	u32 mem_enabled;       /* memory entries kept (zero-length ones are not) */
	u32 mem_disabled;      /* memory entries without the enabled flag: skipped */
	u32 mem_empty;	       /* enabled memory entries of length 0: skipped */
	u32 mem_hot_pluggable; /* kept memory entries flagged hot-pluggable */
	u32 mem_non_volatile;  /* kept memory entries flagged non-volatile */
	u32 unknown;	       /* other entry types, skipped by length */
	u32 malformed;	       /* known types too short for their layout */
	u32 dropped;	       /* entries lost because a list was full */
};

struct acpi_srat_info {
	u8 revision;
	bool truncated; /* the walk stopped at a broken entry */
	u32 nr_cpus;
	struct acpi_srat_cpu cpu[ACPI_SRAT_MAX_CPUS];
	u32 nr_mem;
	struct acpi_srat_mem mem[ACPI_SRAT_MAX_MEM];
	struct acpi_srat_counts count;
};

/*
 * Parses the SRAT in buf[0..len). Enabled processor and memory entries are
 * kept in table order; disabled ones are only counted. Length checks and
 * messages as for the MADT (acpi_madt_parse). Returns 0, or -EINVAL if the
 * header is unusable.
 */
int acpi_srat_parse(const void *buf, size_t len, struct acpi_srat_info *out);

/* The domain of a processor by APIC ID, or -1 if the SRAT does not place it. */
s64 acpi_srat_cpu_domain(const struct acpi_srat_info *srat, u32 apic_id);

#endif

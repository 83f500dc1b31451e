/*
 * The MADT ("APIC" table): which processors and interrupt controllers the
 * firmware describes. A pure parser: a byte buffer in, a plain struct out;
 * the SMP code decides which CPUs to start.
 */
#ifndef FULCRUM_ACPI_MADT_H
#define FULCRUM_ACPI_MADT_H

#include "acpi/tables.h"
#include "lib/compiler.h"
#include "lib/types.h"

#define ACPI_MADT_SIGNATURE "APIC"

struct acpi_madt {
	struct acpi_sdt_header header;
	u32 lapic_address; /* 32-bit local APIC base, unless a type-5 entry overrides it */
	u32 flags;	   /* bit 0: PC-AT compatible dual 8259s present */
} __packed;
_Static_assert(sizeof(struct acpi_madt) == 44, "MADT header");

/* Interrupt controller structure types this parser reads. */
enum acpi_madt_type {
	ACPI_MADT_LAPIC = 0,
	ACPI_MADT_IOAPIC = 1,
	ACPI_MADT_IRQ_OVERRIDE = 2,
	ACPI_MADT_LAPIC_NMI = 4,
	ACPI_MADT_LAPIC_OVERRIDE = 5,
	ACPI_MADT_X2APIC = 9,
	ACPI_MADT_X2APIC_NMI = 0xA,
};

struct acpi_madt_entry_header {
	u8 type;
	u8 length; /* of the whole entry */
} __packed;
_Static_assert(sizeof(struct acpi_madt_entry_header) == 2, "MADT entry header");

/* Processor local APIC flags (types 0 and 9). */
#define ACPI_MADT_ENABLED	 0x1
#define ACPI_MADT_ONLINE_CAPABLE 0x2 /* meaningful from MADT revision 5 on */

struct acpi_madt_lapic {
	struct acpi_madt_entry_header h;
	u8 acpi_uid;
	u8 apic_id;
	u32 flags;
} __packed;
_Static_assert(sizeof(struct acpi_madt_lapic) == 8, "MADT local APIC");

struct acpi_madt_ioapic {
	struct acpi_madt_entry_header h;
	u8 id;
	u8 reserved;
	u32 address;
	u32 gsi_base;
} __packed;
_Static_assert(sizeof(struct acpi_madt_ioapic) == 12, "MADT I/O APIC");

struct acpi_madt_irq_override {
	struct acpi_madt_entry_header h;
	u8 bus; /* 0: ISA */
	u8 source;
	u32 gsi;
	u16 flags; /* MPS INTI flags: polarity bits 0-1, trigger mode bits 2-3 */
} __packed;
_Static_assert(sizeof(struct acpi_madt_irq_override) == 10, "MADT interrupt source override");

struct acpi_madt_lapic_nmi {
	struct acpi_madt_entry_header h;
	u8 acpi_uid; /* 0xFF: every processor */
	u16 flags;
	u8 lint; /* LINT0 or LINT1 */
} __packed;
_Static_assert(sizeof(struct acpi_madt_lapic_nmi) == 6, "MADT local APIC NMI");

struct acpi_madt_lapic_override {
	struct acpi_madt_entry_header h;
	u16 reserved;
	u64 address;
} __packed;
_Static_assert(sizeof(struct acpi_madt_lapic_override) == 12, "MADT local APIC address override");

struct acpi_madt_x2apic {
	struct acpi_madt_entry_header h;
	u16 reserved;
	u32 x2apic_id;
	u32 flags;
	u32 acpi_uid;
} __packed;
_Static_assert(sizeof(struct acpi_madt_x2apic) == 16, "MADT local x2APIC");

struct acpi_madt_x2apic_nmi {
	struct acpi_madt_entry_header h;
	u16 flags;
	u32 acpi_uid; /* 0xFFFFFFFF: every processor */
	u8 lint;
	u8 reserved[3];
} __packed;
_Static_assert(sizeof(struct acpi_madt_x2apic_nmi) == 12, "MADT local x2APIC NMI");

/* ---------------------------------------------------------------- parsed form */

#define ACPI_MADT_MAX_CPUS	1024 /* processor entries kept, placeholders included */
#define ACPI_MADT_MAX_IOAPICS	32
#define ACPI_MADT_MAX_OVERRIDES 32
#define ACPI_MADT_MAX_NMIS	256
#define ACPI_MADT_MAX_DUP_IDS	32

/* One processor entry (type 0 or 9), in MADT order. */
struct acpi_madt_cpu {
	u32 apic_id;
	u32 acpi_uid;
	bool enabled;	     /* usable now */
	bool online_capable; /* not enabled, but may be brought online later (revision >= 5) */
	bool x2apic;	     /* from a type-9 entry */
};

struct acpi_madt_ioapic_info {
	u32 id;
	u32 address;
	u32 gsi_base;
};

struct acpi_madt_override_info {
	u8 bus, source;
	u32 gsi;
	u16 flags;
};

struct acpi_madt_nmi_info {
	u32 acpi_uid; /* ACPI_MADT_NMI_ALL_CPUS: every processor */
	u16 flags;
	u8 lint;
};
#define ACPI_MADT_NMI_ALL_CPUS 0xFFFFFFFFu

struct acpi_madt_counts {
	u32 enabled;	    /* CPUs usable now, each APIC ID once */
	u32 disabled;	    /* processor entries not enabled (online-capable ones too) */
	u32 online_capable; /* of those, the ones that may come online later */
	u32 duplicates;	    /* usable entries repeating an earlier usable APIC ID: dropped */
	u32 x2apic;	    /* type-9 entries */
	u32 unknown;	    /* entries of types not read here, skipped by their length */
	u32 malformed;	    /* too short for their type, or a broadcast ID: skipped */
	u32 dropped;	    /* entries lost because a list above was full */
};

struct acpi_madt_info {
	u8 revision;
	u32 flags;
	u64 lapic_address; /* after any type-5 override */
	bool lapic_overridden;
	bool truncated; /* the walk stopped at a broken entry; what came before is kept */

	u32 nr_cpus;
	struct acpi_madt_cpu cpu[ACPI_MADT_MAX_CPUS];
	u32 nr_ioapics;
	struct acpi_madt_ioapic_info ioapic[ACPI_MADT_MAX_IOAPICS];
	u32 nr_overrides;
	struct acpi_madt_override_info override[ACPI_MADT_MAX_OVERRIDES];
	u32 nr_nmis;
	struct acpi_madt_nmi_info nmi[ACPI_MADT_MAX_NMIS];
	u32 nr_dup_ids;
	u32 dup_id[ACPI_MADT_MAX_DUP_IDS]; /* each duplicated APIC ID once */

	struct acpi_madt_counts count;
};

/*
 * Parses the MADT in buf[0..len) (the table's own length field is checked
 * against len; the checksum is the table walker's business). Processor
 * entries are kept in MADT order: usable ones (enabled, or online-capable
 * from revision 5 on) once per APIC ID, disabled placeholders as they
 * come. A zero-length entry or one running past the table's end stops the
 * walk with a pr_warn (out->truncated); everything odd is reported and
 * counted. Returns 0, or -EINVAL if the header itself is unusable.
 */
int acpi_madt_parse(const void *buf, size_t len, struct acpi_madt_info *out);

#endif

/*
 * Where each CPU sits (package, core, thread, last-level cache), decoded
 * from its APIC ID with the field widths CPUID reports. The decoding is
 * pure (CPUID comes in through a function pointer) so host tests can feed
 * it the leaves of machines we do not have.
 */
#ifndef FULCRUM_X86_CPUID_TOPOLOGY_H
#define FULCRUM_X86_CPUID_TOPOLOGY_H

#include "machine.h"
#include "x86.h"

struct apic_id_layout {
	u32 smt_bits;  /* low APIC ID bits numbering threads within a core */
	u32 pkg_shift; /* APIC ID >> pkg_shift is the package */
	u32 llc_shift; /* APIC ID >> llc_shift names the last-level cache */
	u32 llc_level; /* 2 or 3; 0 when unknown (LLC taken as per package) */
	const char *source;
};

typedef struct cpuid_regs (*cpuid_reader_t)(u32 leaf, u32 subleaf);

/*
 * Reads the layout from leaf 0x1F or 0xB (either vendor), else the legacy
 * leaves 0x1/0x4 (Intel) or 0x80000008/0x8000001E (AMD); the LLC from leaf
 * 0x4, else AMD's 0x8000001D.
 */
void cpuid_read_layout(cpuid_reader_t cpuid_fn, struct apic_id_layout *out);

/* Fills m's package/core/thread/llc for every CPU from its apic_id, numbered densely. */
void cpuid_apply_layout(const struct apic_id_layout *l, struct machine *m);

#endif

/* Segment descriptors and the TSS with its interrupt stacks (IST), one set per CPU. */
#ifndef FULCRUM_X86_GDT_H
#define FULCRUM_X86_GDT_H

#include "lib/compiler.h"
#include "lib/types.h"

/* IST slots (1-based, as the IDT names them). */
enum ist_slot {
	IST_DOUBLE_FAULT = 1,
	IST_NMI = 2,
	IST_MACHINE_CHECK = 3,
	IST_COUNT = 3,
};

#define IST_STACK_SIZE 16384
#define GDT_ENTRIES    7

struct tss {
	u32 reserved0;
	u64 rsp[3];
	u64 reserved1;
	u64 ist[7];
	u64 reserved2;
	u16 reserved3;
	u16 iopb_offset;
} __packed;
_Static_assert(sizeof(struct tss) == 104, "TSS layout");

struct cpu_local;

/*
 * Loads c's GDT and TSS on the calling CPU and reloads every segment
 * register; c->ist_stack[] must point at IST_COUNT stacks of IST_STACK_SIZE.
 * Then sets up the CPU for ring 3 (user_cpu_init). The GS base may not be
 * set yet.
 */
void gdt_init_cpu(struct cpu_local *c);

#endif

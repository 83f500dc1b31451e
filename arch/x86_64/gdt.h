/* Segment descriptors and the TSS with its interrupt stacks (IST). */
#ifndef FULCRUM_X86_GDT_H
#define FULCRUM_X86_GDT_H

#include "lib/types.h"

/* IST slots (1-based, as the IDT names them). */
enum ist_slot {
	IST_DOUBLE_FAULT = 1,
	IST_NMI = 2,
	IST_MACHINE_CHECK = 3,
	IST_COUNT = 3,
};

#define IST_STACK_SIZE 16384

/* Loads the GDT and TSS on the boot CPU and reloads every segment register. */
void gdt_init(void);

/* True if addr lies in one of the IST stacks; names it in *name. */
bool gdt_ist_stack_of(u64 addr, u64 *lo, u64 *hi, const char **name);

#endif

/*
 * The IDT: all 256 vectors point at the stubs in isr.asm. Double fault,
 * NMI and machine check run on their own IST stacks so they can report
 * even when the kernel stack is gone.
 */
#include "gdt.h"
#include "lib/compiler.h"
#include "trap.h"
#include "x86.h"

struct idt_gate {
	u16 offset_low;
	u16 selector;
	u8 ist;
	u8 type_attr;
	u16 offset_mid;
	u32 offset_high;
	u32 reserved;
} __packed;
_Static_assert(sizeof(struct idt_gate) == 16, "IDT gate layout");

#define GATE_INTERRUPT 0x8e /* present, DPL 0, 64-bit interrupt gate (IF cleared) */
#define GATE_DPL3      0x60 /* ring 3 may raise it with an int instruction */

extern const u64 isr_stub_table[256];
static struct idt_gate idt[256] __aligned(16);

static void set_gate(int vec, u64 handler, u8 ist)
{
	idt[vec] = (struct idt_gate){
		.offset_low = (u16)handler,
		.selector = KERNEL_CS,
		.ist = ist,
		.type_attr = GATE_INTERRUPT,
		.offset_mid = (u16)(handler >> 16),
		.offset_high = (u32)(handler >> 32),
	};
}

void idt_load(void)
{
	struct desc_ptr idtr = { sizeof(idt) - 1, (u64)idt };

	__asm__ volatile("lidt %0" : : "m"(idtr));
}

void idt_init(void)
{
	for (int v = 0; v < 256; v++)
		set_gate(v, isr_stub_table[v], 0);
	idt[X86_DF].ist = IST_DOUBLE_FAULT;
	idt[X86_NMI].ist = IST_NMI;
	idt[X86_MC].ist = IST_MACHINE_CHECK;
	/* int3 and into from user code are #BP and #OF (SIGTRAP, SIGSEGV), as on Linux, not #GP. */
	idt[X86_BP].type_attr |= GATE_DPL3;
	idt[X86_OF].type_attr |= GATE_DPL3;
	idt_load();
}

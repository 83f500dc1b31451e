/*
 * GDT and TSS, one of each per CPU (a TSS is busy while loaded, and each
 * CPU needs its own IST stacks). Long mode ignores segment bases and
 * limits for code and data; the GDT matters for privilege levels, the
 * syscall selector layout and the TSS, whose IST stacks give double
 * faults, NMIs and machine checks a known-good stack even when the
 * current one is broken, and whose rsp0 is where ring-3 entries land.
 */
#include "gdt.h"

#include "cpu_local.h"
#include "lib/string.h"
#include "user_entry.h"
#include "x86.h"

/*
 * Selector order is fixed by syscall/sysret: kernel code, kernel data,
 * then user data before user code (STAR[63:48] + 8 and + 16).
 */
static const u64 gdt_template[GDT_ENTRIES] = {
	0,
	0x00af9a000000ffff, /* 0x08 kernel code: long mode, DPL 0 */
	0x00cf92000000ffff, /* 0x10 kernel data */
	0x00cff2000000ffff, /* 0x18 user data, DPL 3 */
	0x00affa000000ffff, /* 0x20 user code: long mode, DPL 3 */
	0,
	0, /* 0x28 TSS: 16-byte system descriptor */
};

static void set_tss_descriptor(u64 *gdt, const struct tss *tss)
{
	u64 base = (u64)tss, limit = sizeof(*tss) - 1;

	gdt[5] = (limit & 0xffff) | ((base & 0xffffff) << 16) |
		 (0x89UL << 40) /* present, 64-bit TSS */
		 | (((limit >> 16) & 0xf) << 48) | (((base >> 24) & 0xff) << 56);
	gdt[6] = base >> 32;
}

void gdt_init_cpu(struct cpu_local *c)
{
	struct desc_ptr gdtr = { sizeof(c->gdt) - 1, (u64)c->gdt };

	memcpy(c->gdt, gdt_template, sizeof(c->gdt));
	memset(&c->tss, 0, sizeof(c->tss));
	for (int i = 0; i < IST_COUNT; i++)
		c->tss.ist[i] = (u64)c->ist_stack[i] + IST_STACK_SIZE;
	c->tss.iopb_offset = sizeof(c->tss); /* no I/O permission bitmap */
	/* Ring-3 entries use the running task's stack; until a task has one, the CPU's own. */
	c->tss.rsp[0] = (u64)c->kernel_stack + KERNEL_STACK_SIZE;
	c->syscall_rsp = c->tss.rsp[0];
	set_tss_descriptor(c->gdt, &c->tss);

	__asm__ volatile("lgdt %0\n\t"
			 "pushq %1\n\t"
			 "leaq 1f(%%rip), %%rax\n\t"
			 "pushq %%rax\n\t"
			 "lretq\n"
			 "1:\n\t"
			 "movw %w2, %%ds\n\t"
			 "movw %w2, %%es\n\t"
			 "movw %w2, %%ss\n\t"
			 "ltr %w3"
			 :
			 : "m"(gdtr), "i"(KERNEL_CS), "r"(KERNEL_DS), "r"(TSS_SEL)
			 : "rax", "memory");
	user_cpu_init(c); /* the SYSCALL MSRs, SMEP and SMAP: this is every CPU's first stop */
}

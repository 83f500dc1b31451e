/*
 * GDT and TSS. Long mode ignores segment bases and limits for code and
 * data; the GDT matters for privilege levels, the syscall selector layout
 * and the TSS, whose IST stacks give double faults, NMIs and machine
 * checks a known-good stack even when the current one is broken.
 */
#include "gdt.h"

#include "lib/compiler.h"
#include "x86.h"

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

/*
 * Selector order is fixed by syscall/sysret: kernel code, kernel data,
 * then user data before user code (STAR[63:48] + 8 and + 16).
 */
static u64 gdt[7] __aligned(16) = {
	0,
	0x00af9a000000ffff, /* 0x08 kernel code: long mode, DPL 0 */
	0x00cf92000000ffff, /* 0x10 kernel data */
	0x00cff2000000ffff, /* 0x18 user data, DPL 3 */
	0x00affa000000ffff, /* 0x20 user code: long mode, DPL 3 */
	0, 0,		    /* 0x28 TSS: 16-byte system descriptor */
};

static struct tss tss __aligned(16);
static u8 ist_stacks[IST_COUNT][IST_STACK_SIZE] __aligned(16);
static const char *const ist_names[IST_COUNT] = { "#DF stack", "NMI stack", "#MC stack" };

static void set_tss_descriptor(void)
{
	u64 base = (u64)&tss, limit = sizeof(tss) - 1;

	gdt[5] = (limit & 0xffff) | ((base & 0xffffff) << 16) | (0x89UL << 40) /* present, 64-bit TSS */
		 | (((limit >> 16) & 0xf) << 48) | (((base >> 24) & 0xff) << 56);
	gdt[6] = base >> 32;
}

void gdt_init(void)
{
	struct desc_ptr gdtr = { sizeof(gdt) - 1, (u64)gdt };

	for (int i = 0; i < IST_COUNT; i++)
		tss.ist[i] = (u64)&ist_stacks[i][IST_STACK_SIZE];
	tss.iopb_offset = sizeof(tss); /* no I/O permission bitmap */
	set_tss_descriptor();

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
}

bool gdt_ist_stack_of(u64 addr, u64 *lo, u64 *hi, const char **name)
{
	for (int i = 0; i < IST_COUNT; i++) {
		u64 b = (u64)ist_stacks[i], e = b + IST_STACK_SIZE;

		if (addr >= b && addr < e) {
			*lo = b;
			*hi = e;
			*name = ist_names[i];
			return true;
		}
	}
	return false;
}

/* Per-CPU arch state: the boot CPU's static copy and the GS-base plumbing. */
#include "cpu_local.h"

#include <arch/smp.h>

#include "x86.h"

extern u8 boot_stack_bottom[];

struct cpu_local *cpu_locals[MAX_CPUS];

static struct cpu_local boot_local;
static u8 boot_ist_stacks[IST_COUNT][IST_STACK_SIZE] __aligned(16);

void cpu_local_install(struct cpu_local *c)
{
	c->self = c;
	wrmsr(MSR_GS_BASE, (u64)c);
	cpu_locals[c->cpu] = c;
}

struct cpu_local *cpu_local_boot(void)
{
	if (!boot_local.self) {
		for (int i = 0; i < IST_COUNT; i++)
			boot_local.ist_stack[i] = boot_ist_stacks[i];
		boot_local.kernel_stack = boot_stack_bottom;
		boot_local.cpu = 0;
	}
	return &boot_local;
}

unsigned int arch_cpu_id(void)
{
	return this_cpu_local()->cpu;
}

/* The arch/cpu.h interface: interrupt masking, pausing and halting. */
#include <arch/cpu.h>

#include "x86.h"

unsigned long arch_irq_save(void)
{
	unsigned long flags = read_rflags();

	__asm__ volatile("cli" ::: "memory");
	return flags;
}

void arch_irq_restore(unsigned long flags)
{
	if (flags & RFLAGS_IF)
		__asm__ volatile("sti" ::: "memory");
}

void arch_irq_enable(void)
{
	__asm__ volatile("sti" ::: "memory");
}

void arch_irq_disable(void)
{
	__asm__ volatile("cli" ::: "memory");
}

void arch_cpu_relax(void)
{
	__asm__ volatile("pause" ::: "memory");
}

void arch_wait_for_interrupt(void)
{
	/* sti takes effect after the next instruction, so no wake-up is lost. */
	__asm__ volatile("sti; hlt" ::: "memory");
}

void arch_halt(void)
{
	for (;;)
		__asm__ volatile("cli; hlt" ::: "memory");
}

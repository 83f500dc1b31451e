/*
 * Exception and interrupt dispatch. Until user space exists every
 * exception is a kernel bug and ends in an oops; an NMI during a panic is
 * another CPU being told to stop.
 */
#include <arch/cpu.h>

#include "irq.h"
#include "oops.h"
#include "panic.h"
#include "trap.h"

static volatile u32 cpus_stopped;

unsigned int nmi_stopped_cpus(void)
{
	return __atomic_load_n(&cpus_stopped, __ATOMIC_ACQUIRE);
}

void trap_dispatch(struct trap_frame *f)
{
	if (f->vector == X86_NMI) {
		if (machine_stopping()) {
			/* Another CPU is reporting a fatal error: stand down for good. */
			__atomic_add_fetch(&cpus_stopped, 1, __ATOMIC_RELEASE);
			arch_halt();
		}
		return;
	}
	if (f->vector < X86_NR_EXCEPTIONS)
		oops(f); /* does not return */
	irq_dispatch(f);
}

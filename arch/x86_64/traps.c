/*
 * Exception and interrupt dispatch. Until user space exists every
 * exception is a kernel bug and ends in an oops; an NMI during a panic is
 * another CPU being told to stop.
 */
#include <arch/cpu.h>

#include "oops.h"
#include "panic.h"
#include "trap.h"

static u64 spurious_interrupts;

void trap_dispatch(struct trap_frame *f)
{
	if (f->vector == X86_NMI && panic_in_progress())
		arch_halt();
	if (f->vector < X86_NR_EXCEPTIONS)
		oops(f); /* does not return */
	spurious_interrupts++;
}

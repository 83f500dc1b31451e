/*
 * Exception and interrupt dispatch. An exception in ring 3 is the
 * process's (user_fault); in the kernel it is a bug and ends in an oops,
 * unless it hit a user access that has a fix-up. An NMI during a panic is
 * another CPU being told to stop.
 */
#include <arch/cpu.h>

#include "irq.h"
#include "oops.h"
#include "panic.h"
#include "trap.h"
#include "user_entry.h"
#include "x86.h"

static volatile u32 cpus_stopped;

unsigned int nmi_stopped_cpus(void)
{
	return __atomic_load_n(&cpus_stopped, __ATOMIC_ACQUIRE);
}

/* Exceptions a process causes and answers for; double faults and machine checks are not. */
static bool user_owned(u64 vector)
{
	return vector != X86_DF && vector != X86_MC;
}

void trap_dispatch(struct trap_frame *f)
{
	if (f->vector == X86_NMI) {
		if (machine_stopping()) {
			/* Another CPU is reporting a fatal error: stand down for good. */
			__atomic_add_fetch(&cpus_stopped, 1, __ATOMIC_RELEASE);
			arch_halt();
		}
		nmi_backtrace_handle(f); /* a watchdog asked for this CPU's trace */
		return;
	}
	if (f->vector < X86_NR_EXCEPTIONS) {
		if (trap_from_user(f) && user_owned(f->vector))
			user_exception(f);
		else if ((f->vector != X86_PF && f->vector != X86_GP) ||
			 !uaccess_fixup(f, f->vector == X86_PF ? read_cr2() : 0))
			oops(f); /* does not return */
		return;
	}
	irq_dispatch(f);
	if (trap_from_user(f))
		user_exit_work(f);
}

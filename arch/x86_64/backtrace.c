/*
 * Call traces on request: the code the timer tick interrupted (a soft
 * lockup), a switched-out task (a hung task) and another CPU, reached by
 * an NMI even when it spins with interrupts off (a hard lockup). They use
 * the same frame-pointer walk and symbols as the oops report.
 */
#include <arch/backtrace.h>
#include <arch/context.h>
#include <arch/smp.h>

#include "apic.h"
#include "cpu_local.h"
#include "debug/ksyms.h"
#include "printk.h"
#include "stacktrace.h"
#include "trap.h"
#include "tsc.h"

/* Per CPU: 1 while a backtrace is asked of it, 0 once it printed one. */
static volatile u32 backtrace_pending[MAX_CPUS];

static void print_rip(u64 cs, u64 rip)
{
	u64 offset, size;
	const char *sym = ksym_lookup(rip, &offset, &size);

	if (sym)
		pr_emerg("RIP: %04llx:%s+0x%llx/0x%llx\n", (unsigned long long)cs, sym,
			 (unsigned long long)offset, (unsigned long long)size);
	else
		pr_emerg("RIP: %04llx:0x%016llx\n", (unsigned long long)cs, (unsigned long long)rip);
}

static void show_frame(const struct trap_frame *f)
{
	print_rip(f->cs, f->rip);
	pr_emerg("RSP: %04llx:%016llx EFLAGS: %08llx\n", (unsigned long long)f->ss,
		 (unsigned long long)f->rsp, (unsigned long long)f->rflags);
	pr_emerg("Call Trace:\n");
	if (f->cs & 3)
		pr_emerg(" <user mode>\n");
	else
		stacktrace_print_fault(f->rip, f->rsp, f->rbp);
}

void arch_show_interrupted(void)
{
	const struct trap_frame *f = this_cpu_local()->irq_frame;

	if (f)
		show_frame(f);
}

void arch_show_task_trace(const struct arch_context *ctx, const void *stack, u64 size)
{
	/* context_switch_stacks left r15, r14, r13, r12, rbx, rbp and its return address at rsp. */
	const u64 *saved = (const u64 *)ctx->rsp;
	u64 lo = (u64)stack, hi = lo + size;

	pr_emerg("Call Trace:\n");
	if (!stack || ctx->rsp < lo || ctx->rsp + 7 * 8 > hi) {
		pr_emerg(" <no saved context on its stack>\n");
		return;
	}
	stacktrace_print_address(saved[6]);
	stacktrace_print_within(saved[5], lo, hi);
}

bool nmi_backtrace_handle(const struct trap_frame *f)
{
	struct cpu_local *c = this_cpu_local();
	const char *comm;
	int pid = 0;

	if (!__atomic_load_n(&backtrace_pending[c->cpu], __ATOMIC_ACQUIRE))
		return false;
	pr_emerg("NMI backtrace for cpu %u\n", c->cpu);
	comm = kernel_current_task_name(&pid);
	pr_emerg("CPU: %u PID: %d Comm: %s\n", c->cpu, pid, comm ? comm : "swapper");
	show_frame(f);
	__atomic_store_n(&backtrace_pending[c->cpu], 0, __ATOMIC_RELEASE);
	return true;
}

bool arch_cpu_backtrace(unsigned int cpu, u64 wait_us)
{
	u64 waited = 0;

	if (cpu >= MAX_CPUS || cpu == this_cpu_local()->cpu || !cpu_locals[cpu] ||
	    !cpu_locals[cpu]->online)
		return false;
	__atomic_store_n(&backtrace_pending[cpu], 1, __ATOMIC_RELEASE);
	apic_send_ipi(cpu_locals[cpu]->apic_id, ICR_NMI);
	while (__atomic_load_n(&backtrace_pending[cpu], __ATOMIC_ACQUIRE) && waited < wait_us) {
		tsc_delay_us(100);
		waited += 100;
	}
	return !__atomic_load_n(&backtrace_pending[cpu], __ATOMIC_ACQUIRE);
}

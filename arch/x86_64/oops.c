/*
 * Oops reports in the shape kernel developers already read in Linux's:
 * the cause, the faulting function as symbol+offset/size, the registers,
 * the control registers and a symbolized call trace. Then panic().
 */
#include "oops.h"

#include <arch/cpu.h>
#include <arch/memory.h>
#include <arch/smp.h>

#include "cpu_local.h"
#include "debug/ksyms.h"
#include "panic.h"
#include "printk.h"
#include "stacktrace.h"
#include "x86.h"

static const char *const exception_names[X86_NR_EXCEPTIONS] = {
	[X86_DE] = "divide error",
	[X86_DB] = "debug exception",
	[X86_NMI] = "NMI",
	[X86_BP] = "int3",
	[X86_OF] = "overflow",
	[X86_BR] = "bounds",
	[X86_UD] = "invalid opcode",
	[X86_NM] = "device not available",
	[X86_DF] = "double fault",
	[9] = "coprocessor segment overrun",
	[X86_TS] = "invalid TSS",
	[X86_NP] = "segment not present",
	[X86_SS] = "stack segment",
	[X86_GP] = "general protection fault",
	[X86_PF] = "page fault",
	[X86_MF] = "coprocessor error",
	[X86_AC] = "alignment check",
	[X86_MC] = "machine check",
	[X86_XM] = "SIMD exception",
	[X86_VE] = "virtualization exception",
	[X86_CP] = "control protection fault",
	[X86_HV] = "hypervisor injection",
	[X86_VC] = "VMM communication exception",
	[X86_SX] = "security exception",
};

static int oops_count;

static const char *exception_name(u64 vector)
{
	const char *name = vector < X86_NR_EXCEPTIONS ? exception_names[vector] : NULL;

	return name ? name : "reserved exception";
}

static void print_page_fault_cause(const struct trap_frame *f, u64 cr2)
{
	u64 err = f->error_code;
	const char *access = err & PF_INSTR ? "instruction fetch" :
			     err & PF_WRITE ? "write access" :
					      "read access";
	const char *what = err & PF_RSVD    ? "reserved bit violation" :
			   err & PF_PRESENT ? "permissions violation" :
					      "not-present page";
	const char *stack;

	if (stack_guard_hit(cr2, &stack))
		pr_emerg("BUG: stack guard page was hit at %016llx (%s)\n", (unsigned long long)cr2,
			 stack);
	else if (cr2 < PAGE_SIZE)
		pr_emerg("BUG: unable to handle kernel NULL pointer dereference at %016llx\n",
			 (unsigned long long)cr2);
	else
		pr_emerg("BUG: unable to handle kernel paging request at %016llx\n",
			 (unsigned long long)cr2);
	pr_emerg("#PF: %s %s in %s mode\n", err & PF_USER ? "user" : "supervisor", access,
		 err & PF_USER ? "user" : "kernel");
	pr_emerg("#PF: error_code(0x%04llx) - %s\n", (unsigned long long)err, what);
	pr_emerg("Oops: %04llx [#%d] SMP\n", (unsigned long long)err, oops_count);
}

static void print_cause(const struct trap_frame *f, u64 cr2)
{
	const char *stack;

	switch (f->vector) {
	case X86_PF:
		print_page_fault_cause(f, cr2);
		break;
	case X86_DF:
		if (stack_guard_hit(cr2, &stack))
			pr_emerg("BUG: kernel stack overflow: guard page of the %s hit at %016llx\n",
				 stack, (unsigned long long)cr2);
		pr_emerg("PANIC: double fault, error_code: 0x%llx\n",
			 (unsigned long long)f->error_code);
		break;
	default:
		pr_emerg("%s: %04llx [#%d] SMP\n", exception_name(f->vector),
			 (unsigned long long)f->error_code, oops_count);
		break;
	}
}

static void print_symbol_line(const char *label, u64 cs, u64 addr)
{
	u64 offset, size;
	const char *sym = ksym_lookup(addr, &offset, &size);

	if (sym)
		pr_emerg("%s: %04llx:%s+0x%llx/0x%llx\n", label, (unsigned long long)cs, sym,
			 (unsigned long long)offset, (unsigned long long)size);
	else
		pr_emerg("%s: %04llx:0x%016llx\n", label, (unsigned long long)cs,
			 (unsigned long long)addr);
}

static void print_registers(const struct trap_frame *f, u64 cr2)
{
	print_symbol_line("RIP", f->cs, f->rip);
	pr_emerg("RSP: %04llx:%016llx EFLAGS: %08llx\n", (unsigned long long)f->ss,
		 (unsigned long long)f->rsp, (unsigned long long)f->rflags);
	pr_emerg("RAX: %016llx RBX: %016llx RCX: %016llx\n", (unsigned long long)f->rax,
		 (unsigned long long)f->rbx, (unsigned long long)f->rcx);
	pr_emerg("RDX: %016llx RSI: %016llx RDI: %016llx\n", (unsigned long long)f->rdx,
		 (unsigned long long)f->rsi, (unsigned long long)f->rdi);
	pr_emerg("RBP: %016llx R08: %016llx R09: %016llx\n", (unsigned long long)f->rbp,
		 (unsigned long long)f->r8, (unsigned long long)f->r9);
	pr_emerg("R10: %016llx R11: %016llx R12: %016llx\n", (unsigned long long)f->r10,
		 (unsigned long long)f->r11, (unsigned long long)f->r12);
	pr_emerg("R13: %016llx R14: %016llx R15: %016llx\n", (unsigned long long)f->r13,
		 (unsigned long long)f->r14, (unsigned long long)f->r15);
	pr_emerg("FS:  %016llx GS:  %016llx\n", (unsigned long long)rdmsr(MSR_FS_BASE),
		 (unsigned long long)rdmsr(MSR_GS_BASE));
	pr_emerg("CR0: %016llx CR2: %016llx CR3: %016llx CR4: %016llx\n",
		 (unsigned long long)read_cr0(), (unsigned long long)cr2,
		 (unsigned long long)read_cr3(), (unsigned long long)read_cr4());
}

void oops(struct trap_frame *f)
{
	u64 cr2 = read_cr2();
	const char *comm;
	int pid = 0;

	if (!machine_stop_claim()) {
		/* A fault while reporting one, or a second CPU faulting: say so briefly and stop. */
		pr_emerg("BUG: %s at %016llx during a fatal error; this CPU stops\n",
			 exception_name(f->vector), (unsigned long long)f->rip);
		arch_halt();
	}
	printk_enter_panic();
	oops_count++;
	print_cause(f, cr2);
	comm = kernel_current_task_name(&pid);
	if (comm)
		pr_emerg("CPU: %u PID: %d Comm: %s Not tainted (%s)\n", this_cpu_local()->cpu, pid,
			 comm, exception_name(f->vector));
	else
		pr_emerg("CPU: %u PID: 0 Comm: swapper/%u Not tainted (%s)\n",
			 this_cpu_local()->cpu, this_cpu_local()->cpu, exception_name(f->vector));
	print_registers(f, cr2);
	pr_emerg("Call Trace:\n");
	stacktrace_print_fault(f->rip, f->rsp, f->rbp);
	pr_emerg("---[ end trace %016llx ]---\n", (unsigned long long)f->rip);
	panic("Fatal exception");
}

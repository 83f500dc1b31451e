/*
 * Ring 3 from the C side: each CPU's SYSCALL set-up (MSRs, SMEP, SMAP),
 * the system-call and exception paths between the entry stubs and
 * kernel/proc (syscall_dispatch, user_fault, exit_to_user), the first
 * entry to user mode, and the thread's FS base.
 */
#include <arch/context.h>
#include <arch/cpu.h>
#include <arch/fpu.h>
#include <arch/user.h>

#include "cpu_local.h"
#include "lib/errno.h"
#include "printk.h"
#include "user_entry.h"

/* Read by the stac/clac macros in frame.inc. */
u8 uaccess_smap_on;
static bool smep_on;

#define CHECK_SAME(field)                                                    \
	_Static_assert(__builtin_offsetof(struct user_regs, field) ==        \
			       __builtin_offsetof(struct trap_frame, field), \
		       "user_regs." #field)
CHECK_SAME(r15);
CHECK_SAME(r11);
CHECK_SAME(rbp);
CHECK_SAME(rcx);
CHECK_SAME(rax);
CHECK_SAME(vector);
CHECK_SAME(error_code);
CHECK_SAME(rip);
CHECK_SAME(cs);
CHECK_SAME(rflags);
CHECK_SAME(rsp);
CHECK_SAME(ss);
_Static_assert(sizeof(struct user_regs) == sizeof(struct trap_frame), "user_regs size");
_Static_assert(__builtin_offsetof(struct cpu_local, syscall_rsp) == CPU_LOCAL_SYSCALL_RSP,
	       "cpu_local.syscall_rsp (user_entry.asm)");
_Static_assert(__builtin_offsetof(struct cpu_local, user_rsp) == CPU_LOCAL_USER_RSP,
	       "cpu_local.user_rsp (user_entry.asm)");
_Static_assert(ARCH_FAULT_PAGE == X86_PF && ARCH_PF_WRITE == PF_WRITE &&
		       ARCH_PF_PRESENT == PF_PRESENT && ARCH_PF_INSTR == PF_INSTR,
	       "arch/user.h fault decoding");

/* SYSCALL clears these: no interrupts until the stack is ours, no stray DF, TF or AC. */
#define SYSCALL_RFLAGS_MASK \
	(RFLAGS_TF | RFLAGS_IF | RFLAGS_DF | RFLAGS_IOPL | RFLAGS_NT | RFLAGS_AC)

void user_cpu_init(struct cpu_local *c)
{
	struct cpuid_regs leaf7 = { 0 };
	u64 cr4 = read_cr4();

	if (cpuid(0, 0).eax >= 7)
		leaf7 = cpuid(7, 0);
	/*
	 * STAR: SYSCALL loads CS = 0x08, SS = 0x10; SYSRET loads CS = base + 16,
	 * SS = base + 8 with RPL 3, so base 0x10 gives user code 0x23 and user
	 * data 0x1b (the GDT's order).
	 */
	wrmsr(MSR_STAR, ((u64)(USER_DS & ~3UL) - 8) << 48 | (u64)KERNEL_CS << 32);
	wrmsr(MSR_LSTAR, (u64)syscall_entry);
	wrmsr(MSR_CSTAR, 0); /* no 32-bit user code segment exists */
	wrmsr(MSR_FMASK, SYSCALL_RFLAGS_MASK);
	wrmsr(MSR_EFER, rdmsr(MSR_EFER) | EFER_SCE);
	wrmsr(MSR_KERNEL_GS_BASE, 0); /* the user's GS base, swapped in on the way out */

	/* CR0.WP is on since boot: kernel writes respect read-only user pages (copy-on-write). */
	if (leaf7.ebx & (1U << 7))
		cr4 |= CR4_SMEP;
	if (leaf7.ebx & (1U << 20))
		cr4 |= CR4_SMAP;
	write_cr4(cr4);
	fpu_cpu_init(c->cpu == 0); /* SSE for user code: CR0.EM/TS off, CR4.OSFXSR */
	if (c->cpu == 0) {
		smep_on = cr4 & CR4_SMEP;
		uaccess_smap_on = (cr4 & CR4_SMAP) != 0;
		pr_info("user: SYSCALL entry ready; SMEP %s, SMAP %s\n", smep_on ? "on" : "off",
			uaccess_smap_on ? "on" : "off");
	}
}

bool user_smep_on(void)
{
	return smep_on;
}

/*
 * Everything a return to ring 3 needs, interrupts on: the kernel's exit
 * work, then registers made safe to load. A rip iretq cannot take is the
 * process's fault (a #GP), reported like one.
 */
static void prepare_return(struct user_regs *regs)
{
	exit_to_user(regs);
	user_regs_sanitize(regs);
	while (!user_regs_can_iret(regs)) {
		user_fault(regs, X86_GP, 0, 0);
		exit_to_user(regs);
		user_regs_sanitize(regs);
	}
}

u64 arch_syscall(struct user_regs *regs)
{
	regs->rax = (u64)syscall_dispatch(regs);
	prepare_return(regs);
	return user_regs_can_sysret(regs);
}

void user_exception(struct trap_frame *f)
{
	u64 cr2 = f->vector == X86_PF ? read_cr2() : 0; /* before anything can fault again */
	struct user_regs *regs = trap_user_regs(f);

	arch_irq_enable();
	user_fault(regs, (int)f->vector, f->error_code, cr2);
	prepare_return(regs);
	arch_irq_disable();
}

void user_exit_work(struct trap_frame *f)
{
	arch_irq_enable();
	prepare_return(trap_user_regs(f));
	arch_irq_disable();
}

void arch_user_regs_init(struct user_regs *regs, uintptr_t rip, uintptr_t rsp)
{
	*regs = (struct user_regs){
		.rip = rip,
		.rsp = rsp,
		.cs = USER_CS,
		.ss = USER_DS,
		.rflags = RFLAGS_IF | RFLAGS_FIXED,
	};
}

void arch_return_to_user(const struct user_regs *regs)
{
	struct user_regs r = *regs; /* on this stack, which iretq leaves for good */

	user_regs_sanitize(&r);
	while (!user_regs_can_iret(&r)) {
		user_fault(&r, X86_GP, 0, 0);
		exit_to_user(&r); /* delivers the signal: a handler, or the end of the process */
		user_regs_sanitize(&r);
	}
	arch_irq_disable();
	user_iret(&r);
}

int arch_set_fs_base(u64 base)
{
	unsigned long flags;
	struct cpu_local *c;

	if (base >= USER_ADDR_END)
		return -EPERM; /* a non-canonical base would fault in WRMSR */
	flags = arch_irq_save();
	c = this_cpu_local();
	if (c->ctx)
		c->ctx->fs_base = base;
	wrmsr(MSR_FS_BASE, base);
	arch_irq_restore(flags);
	return 0;
}

u64 arch_get_fs_base(void)
{
	return rdmsr(MSR_FS_BASE);
}

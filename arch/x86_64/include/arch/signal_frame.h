/*
 * Signal frames on the user stack, in Linux's x86-64 layout (the
 * rt_sigframe that musl's and glibc's handlers and __restore_rt expect),
 * and what kernel/proc needs to know of the registers to deliver signals:
 * which system call they return from, how to make it again, and what a
 * fault from ring 3 means as a siginfo code.
 */
#ifndef FULCRUM_ARCH_SIGNAL_FRAME_H
#define FULCRUM_ARCH_SIGNAL_FRAME_H

#include <arch/user.h>

#include "lib/types.h"

struct k_siginfo; /* kernel/proc/siginfo.h: Linux's 128-byte siginfo_t */

/* The thread's alternate signal stack (sigaltstack); size 0: none. */
struct arch_sigstack {
	u64 sp;
	u64 size;
};

/*
 * Builds the frame for a handler of sig below the interrupted stack (or
 * at the top of the alternate stack for SA_ONSTACK when the thread is not
 * already on it): the return address (restorer: SA_RESTORER's
 * __restore_rt), a ucontext (uc_stack from ss, the registers, the x87/SSE
 * state, uc_sigmask = old_mask) and the siginfo; then points regs at the
 * handler (rdi = sig, rsi = &info, rdx = &uc) and gives the handler fresh
 * x87/SSE state. -EFAULT, regs and state untouched, when the stack cannot
 * take the frame or there is no SA_RESTORER: the caller kills the process
 * with SIGSEGV, as Linux does.
 */
int arch_signal_frame_setup(struct user_regs *regs, int sig, const struct k_siginfo *info,
			    u64 handler, u64 flags, u64 restorer, u64 old_mask,
			    const struct arch_sigstack *ss);

/*
 * rt_sigreturn: reloads the registers, the x87/SSE state, the mask
 * (*mask) and the alternate stack (*ss, size 0 for SS_DISABLE) from the
 * frame regs->rsp points just past (the handler's ret popped its return
 * address). Selectors and privileged flags are forced to user values and
 * MXCSR to bits the CPU accepts. regs no longer count as a system call
 * (a restored rax of -ERESTARTSYS is not restarted). -EFAULT for a frame
 * that cannot be read: the caller kills the process with SIGSEGV.
 */
int arch_signal_frame_restore(struct user_regs *regs, u64 *mask, struct arch_sigstack *ss);

/* Is sp on the alternate stack ss? */
static inline bool arch_on_sigstack(const struct arch_sigstack *ss, u64 sp)
{
	return ss->size && sp > ss->sp && sp - ss->sp <= ss->size;
}

/* The system call these registers return from, or -1 (an exception, an interrupt, sigreturn). */
static inline long user_regs_syscall_orig(const struct user_regs *r)
{
	return r->vector == USER_REGS_SYSCALL ? (long)r->error_code : -1;
}

/* The value a system call returns in them. */
static inline long user_regs_return(const struct user_regs *r)
{
	return (long)r->rax;
}

/* Makes the system call again on return: back over the 2-byte syscall, its number in rax. */
static inline void user_regs_restart_syscall(struct user_regs *r)
{
	r->rax = r->error_code;
	r->rip -= 2;
}

/* Marks regs as not returning from a system call (nothing to restart). */
static inline void user_regs_clear_syscall(struct user_regs *r)
{
	r->error_code = (u64)-1;
}

/* si_code values of the fault signals (Linux's). */
#define ARCH_SEGV_MAPERR 1
#define ARCH_SEGV_ACCERR 2
#define ARCH_ILL_ILLOPN	 2
#define ARCH_FPE_INTDIV	 1
#define ARCH_FPE_FLTINV	 7
#define ARCH_BUS_ADRALN	 1
#define ARCH_TRAP_BRKPT	 1
#define ARCH_SI_KERNEL	 0x80

/*
 * The siginfo of an exception from ring 3: its si_code, and si_addr (the
 * faulting address for a page fault, the instruction for #UD, #DE, x87 and
 * SIMD errors, 0 for #GP as Linux reports it).
 */
static inline int arch_user_fault_code(int vector, u64 error_code, u64 fault_addr, u64 rip, u64 *addr)
{
	*addr = 0;
	switch (vector) {
	case ARCH_FAULT_PAGE:
		*addr = fault_addr;
		return error_code & ARCH_PF_PRESENT ? ARCH_SEGV_ACCERR : ARCH_SEGV_MAPERR;
	case 0: /* divide error */
		*addr = rip;
		return ARCH_FPE_INTDIV;
	case 16: /* x87 error */
	case 19: /* SIMD error */
		*addr = rip;
		return ARCH_FPE_FLTINV;
	case 6: /* invalid opcode */
		*addr = rip;
		return ARCH_ILL_ILLOPN;
	case 3: /* int3 */
	case 1: /* debug */
		*addr = rip;
		return ARCH_TRAP_BRKPT;
	case 17: /* alignment check */
		*addr = fault_addr;
		return ARCH_BUS_ADRALN;
	default: /* #GP and the rest: no address to report */
		return ARCH_SI_KERNEL;
	}
}

#endif

/*
 * Entering and leaving ring 3: the saved user registers, the first return
 * to user mode, the thread's FS base, and the three calls the arch layer
 * makes into kernel/proc. kernel/ reads system-call numbers and arguments
 * through the accessors, never by register name.
 */
#ifndef FULCRUM_ARCH_USER_H
#define FULCRUM_ARCH_USER_H

#include "lib/compiler.h"
#include "lib/types.h"

/* The vector field of registers saved by the system-call entry (not an interrupt). */
#define USER_REGS_SYSCALL 0x100

/*
 * The user registers as the entry stubs save them at the top of the
 * task's kernel stack (the same layout as an interrupt frame).
 */
struct user_regs {
	u64 r15, r14, r13, r12, r11, r10, r9, r8;
	u64 rbp, rdi, rsi, rdx, rcx, rbx, rax;
	u64 vector;	/* the interrupt or exception, or USER_REGS_SYSCALL */
	u64 error_code; /* an exception's error code; for a system call its number (rax at entry) */
	u64 rip, cs, rflags, rsp, ss;
};

/*
 * Loads every register from regs and enters ring 3 (the first entry after
 * execve, a fork child). Selectors and privileged flags are forced to user
 * values; a non-canonical rip is reported to user_fault as a #GP.
 */
__noreturn void arch_return_to_user(const struct user_regs *regs);

/* Fresh registers: all zero, rip and rsp as given, interrupts enabled. */
void arch_user_regs_init(struct user_regs *regs, uintptr_t rip, uintptr_t rsp);

/*
 * The calling thread's FS base (arch_prctl ARCH_SET_FS); each switch
 * restores it. 0, or -EPERM for a base outside user space.
 */
int arch_set_fs_base(u64 base);
u64 arch_get_fs_base(void);

static inline long user_regs_syscall_nr(const struct user_regs *r)
{
	return (long)r->rax;
}

/* System-call argument i (0..5): rdi rsi rdx r10 r8 r9; 0 for any other i. */
static inline long user_regs_arg(const struct user_regs *r, int i)
{
	switch (i) {
	case 0:
		return (long)r->rdi;
	case 1:
		return (long)r->rsi;
	case 2:
		return (long)r->rdx;
	case 3:
		return (long)r->r10;
	case 4:
		return (long)r->r8;
	case 5:
		return (long)r->r9;
	default:
		return 0;
	}
}

static inline void user_regs_set_return(struct user_regs *r, long value)
{
	r->rax = (u64)value;
}

static inline uintptr_t user_regs_ip(const struct user_regs *r)
{
	return r->rip;
}

static inline uintptr_t user_regs_sp(const struct user_regs *r)
{
	return r->rsp;
}

static inline void user_regs_set_ip(struct user_regs *r, uintptr_t ip)
{
	r->rip = ip;
}

static inline void user_regs_set_sp(struct user_regs *r, uintptr_t sp)
{
	r->rsp = sp;
}

/* ---------------------------------------------------------------- user faults */

#define ARCH_FAULT_PAGE 14 /* the page-fault vector */

/* Page-fault error-code bits the decoding below reads. */
#define ARCH_PF_PRESENT 0x1
#define ARCH_PF_WRITE	0x2
#define ARCH_PF_INSTR	0x10

/*
 * A page fault vm_fault may resolve: a missing page, or a write to a
 * present one (copy-on-write). A present page refusing a read or an
 * instruction fetch is final (vm_fault cannot tell a fetch from a read).
 * *write says whether it was a write.
 */
static inline bool arch_user_fault_is_page(int vector, u64 error_code, bool *write)
{
	*write = vector == ARCH_FAULT_PAGE && (error_code & ARCH_PF_WRITE);
	if (vector != ARCH_FAULT_PAGE)
		return false;
	return !(error_code & ARCH_PF_PRESENT) ||
	       ((error_code & ARCH_PF_WRITE) && !(error_code & ARCH_PF_INSTR));
}

/* The Linux signal an exception from ring 3 raises (SIGSEGV unless said otherwise). */
static inline int arch_user_fault_signal(int vector)
{
	switch (vector) {
	case 0:		  /* divide error */
	case 16:	  /* x87 error */
	case 19:	  /* SIMD error */
		return 8; /* SIGFPE */
	case 1:		  /* debug */
	case 3:		  /* int3 */
		return 5; /* SIGTRAP */
	case 6:
		return 4; /* SIGILL */
	case 17:	  /* alignment check */
		return 7; /* SIGBUS */
	default:
		return 11; /* SIGSEGV */
	}
}

/* A few words saying what happened, for the report. */
static inline const char *arch_user_fault_cause(int vector, u64 error_code)
{
	bool present = error_code & ARCH_PF_PRESENT;

	switch (vector) {
	case 0:
		return "divide error";
	case 1:
		return "debug trap";
	case 3:
		return "breakpoint";
	case 4:
		return "overflow";
	case 5:
		return "bound range exceeded";
	case 6:
		return "invalid opcode";
	case 7:
		return "device not available";
	case 11:
		return "segment not present";
	case 12:
		return "stack segment fault";
	case 13:
		return "general protection fault";
	case 16:
		return "x87 floating-point error";
	case 17:
		return "alignment check";
	case 19:
		return "SIMD floating-point error";
	case ARCH_FAULT_PAGE:
		if (error_code & ARCH_PF_INSTR)
			return present ? "page fault (exec, protection)" :
					 "page fault (exec, not present)";
		if (error_code & ARCH_PF_WRITE)
			return present ? "page fault (write, protection)" :
					 "page fault (write, not present)";
		return present ? "page fault (read, protection)" : "page fault (read, not present)";
	default:
		return "exception";
	}
}

/* ---------------------------------------------------------------- kernel/proc's side */

/* Runs system call regs->rax with interrupts on; the result goes to rax. */
long syscall_dispatch(struct user_regs *regs);

/*
 * An exception from ring 3 (interrupts on; fault_addr is CR2 for a page
 * fault, else 0): resolve it (vm_fault) or end the process. May return
 * with regs rewritten (a signal handler's frame).
 */
void user_fault(struct user_regs *regs, int vector, u64 error_code, u64 fault_addr);

/*
 * Before every return to ring 3, interrupts on: may schedule and deliver
 * signals (may rewrite regs).
 */
void exit_to_user(struct user_regs *regs);

#endif

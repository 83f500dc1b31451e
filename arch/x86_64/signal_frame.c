/*
 * Linux's x86-64 signal frame: what a handler finds on its stack and what
 * rt_sigreturn reads back. The layout is ABI (libc's __restore_rt, its
 * ucontext_t and every debugger know it), so it is Linux's to the byte:
 *
 *	higher addresses    the interrupted stack, then its 128-byte red zone
 *	                    FXSAVE image (512 bytes, 64-aligned)  <- uc_mcontext.fpstate
 *	frame + 312         siginfo (128 bytes)                   <- rsi
 *	frame + 8           ucontext (304 bytes)                  <- rdx
 *	frame               return address: the restorer         <- rsp, with (rsp + 8) % 16 == 0
 *
 * User memory is reached only through copy_to_user/copy_from_user, and
 * nothing read back is trusted: selectors and flags are forced to user
 * values and MXCSR to bits the CPU takes, so a forged frame can hurt only
 * its own process.
 */
#include <arch/fpu.h>
#include <arch/signal_frame.h>
#include <arch/uaccess.h>

#include "lib/compiler.h"
#include "lib/errno.h"
#include "lib/string.h"
#include "proc/siginfo.h"
#include "user_entry.h"

/* struct sigcontext: the registers in Linux's order. */
struct sigcontext64 {
	u64 r8, r9, r10, r11, r12, r13, r14, r15;
	u64 rdi, rsi, rbp, rbx, rdx, rax, rcx, rsp, rip;
	u64 eflags;
	u16 cs, gs, fs, ss;
	u64 err, trapno, oldmask, cr2;
	u64 fpstate; /* user address of the FXSAVE image; 0: none (fresh state on return) */
	u64 reserved1[8];
};

struct ucontext64 {
	u64 uc_flags;
	u64 uc_link;
	struct k_stack uc_stack;
	struct sigcontext64 uc_mcontext;
	u64 uc_sigmask;
};

struct rt_sigframe {
	u64 pretcode;
	struct ucontext64 uc;
	struct k_siginfo info;
};

_Static_assert(sizeof(struct sigcontext64) == 256, "struct sigcontext");
_Static_assert(sizeof(struct ucontext64) == 304, "struct ucontext");
_Static_assert(sizeof(struct rt_sigframe) == 440, "struct rt_sigframe");
_Static_assert(__builtin_offsetof(struct ucontext64, uc_mcontext) == 40, "uc_mcontext");
_Static_assert(__builtin_offsetof(struct ucontext64, uc_sigmask) == 296, "uc_sigmask");
_Static_assert(__builtin_offsetof(struct sigcontext64, eflags) == 136, "sigcontext eflags");
_Static_assert(__builtin_offsetof(struct sigcontext64, fpstate) == 184, "sigcontext fpstate");
_Static_assert(__builtin_offsetof(struct rt_sigframe, info) == 312, "rt_sigframe info");

#define UC_SIGCONTEXT_SS     0x2
#define UC_STRICT_RESTORE_SS 0x4

#define SIGFRAME_REDZONE  128 /* the System V ABI's area below rsp that leaf code may use */
#define SIGFRAME_FP_ALIGN 64  /* what XSAVE would need; FXSAVE needs 16 */

/* sigaction flags the frame depends on (kernel/proc/siginfo.h has the full set). */
_Static_assert(SA_RESTORER == 0x04000000 && SA_ONSTACK == 0x08000000, "SA_ flags");

static void save_regs(struct sigcontext64 *sc, const struct user_regs *r, const struct k_siginfo *info)
{
	sc->r8 = r->r8, sc->r9 = r->r9, sc->r10 = r->r10, sc->r11 = r->r11;
	sc->r12 = r->r12, sc->r13 = r->r13, sc->r14 = r->r14, sc->r15 = r->r15;
	sc->rdi = r->rdi, sc->rsi = r->rsi, sc->rbp = r->rbp, sc->rbx = r->rbx;
	sc->rdx = r->rdx, sc->rax = r->rax, sc->rcx = r->rcx, sc->rsp = r->rsp;
	sc->rip = r->rip;
	sc->eflags = r->rflags;
	sc->cs = USER_CS;
	sc->ss = USER_DS;
	/* An exception's number and error code, and CR2 for a page fault, as Linux reports them. */
	if (r->vector < 32) {
		sc->trapno = r->vector;
		sc->err = r->error_code;
		if (r->vector == ARCH_FAULT_PAGE)
			sc->cr2 = info->u.fault.addr;
	}
}

static void load_regs(struct user_regs *r, const struct sigcontext64 *sc)
{
	r->r8 = sc->r8, r->r9 = sc->r9, r->r10 = sc->r10, r->r11 = sc->r11;
	r->r12 = sc->r12, r->r13 = sc->r13, r->r14 = sc->r14, r->r15 = sc->r15;
	r->rdi = sc->rdi, r->rsi = sc->rsi, r->rbp = sc->rbp, r->rbx = sc->rbx;
	r->rdx = sc->rdx, r->rax = sc->rax, r->rcx = sc->rcx, r->rsp = sc->rsp;
	r->rip = sc->rip;
	r->rflags = sc->eflags & ~RFLAGS_RF;
	user_regs_sanitize(r); /* user selectors; no IOPL, NT or VM; interrupts on */
}

int arch_signal_frame_setup(struct user_regs *regs, int sig, const struct k_siginfo *info,
			    u64 handler, u64 flags, u64 restorer, u64 old_mask,
			    const struct arch_sigstack *ss)
{
	struct rt_sigframe f;
	struct fpu_state fp;
	bool was_on_stack = arch_on_sigstack(ss, regs->rsp);
	bool to_alt = (flags & SA_ONSTACK) && ss->size && !was_on_stack;
	u64 sp = to_alt ? ss->sp + ss->size : regs->rsp - SIGFRAME_REDZONE, fp_addr, frame;

	if (!(flags & SA_RESTORER))
		return -EFAULT; /* x86-64 has no kernel-provided return path: Linux refuses too */
	fp_addr = ALIGN_DOWN(sp - sizeof(fp), SIGFRAME_FP_ALIGN);
	/* The ABI's entry alignment: as if the handler had been called, (rsp + 8) % 16 == 0. */
	frame = ALIGN_DOWN(fp_addr - sizeof(f), 16) - 8;
	if (frame >= sp)
		return -EFAULT; /* the stack pointer wrapped below zero */
	if ((to_alt || was_on_stack) && !arch_on_sigstack(ss, frame + 1))
		return -EFAULT; /* the alternate stack overflowed */

	memset(&f, 0, sizeof(f));
	f.pretcode = restorer;
	f.uc.uc_flags = UC_SIGCONTEXT_SS | UC_STRICT_RESTORE_SS;
	f.uc.uc_stack.ss_sp = ss->sp;
	f.uc.uc_stack.ss_size = ss->size;
	f.uc.uc_stack.ss_flags = !ss->size ? SS_DISABLE : was_on_stack ? SS_ONSTACK : 0;
	save_regs(&f.uc.uc_mcontext, regs, info);
	f.uc.uc_mcontext.oldmask = old_mask;
	f.uc.uc_mcontext.fpstate = fp_addr;
	f.uc.uc_sigmask = old_mask;
	f.info = *info;
	f.info.si_signo = sig;

	fpu_save_current(&fp);
	memset(fp.sw_reserved, 0, sizeof(fp.sw_reserved)); /* no XSAVE extension follows */
	if (copy_to_user((void *)fp_addr, &fp, sizeof(fp)) ||
	    copy_to_user((void *)frame, &f, sizeof(f)))
		return -EFAULT;

	regs->rdi = (u64)sig;
	regs->rsi = frame + __builtin_offsetof(struct rt_sigframe, info);
	regs->rdx = frame + __builtin_offsetof(struct rt_sigframe, uc);
	regs->rax = 0; /* no vector registers used, for a handler declared without a prototype */
	regs->rip = handler;
	regs->rsp = frame;
	regs->rflags &= ~(RFLAGS_DF | RFLAGS_TF | RFLAGS_RF); /* the ABI wants DF clear at a call */
	user_regs_sanitize(regs);
	fpu_reset_current(); /* the handler starts with the default MXCSR and x87 control word */
	return 0;
}

int arch_signal_frame_restore(struct user_regs *regs, u64 *mask, struct arch_sigstack *ss)
{
	u64 frame = regs->rsp - 8; /* the handler's ret took the return address */
	struct ucontext64 uc;
	struct fpu_state fp;
	u64 fp_addr;

	if (copy_from_user(&uc, (const void *)(frame + __builtin_offsetof(struct rt_sigframe, uc)),
			   sizeof(uc)))
		return -EFAULT;
	fp_addr = uc.uc_mcontext.fpstate;
	if (fp_addr && copy_from_user(&fp, (const void *)fp_addr, sizeof(fp)))
		return -EFAULT;

	/* Everything is read: nothing below can fail, so a bad frame changed nothing. */
	load_regs(regs, &uc.uc_mcontext);
	user_regs_clear_syscall(regs);
	if (fp_addr)
		fpu_restore_current(&fp); /* MXCSR masked inside: FXRSTOR cannot #GP on it */
	else
		fpu_reset_current();
	*mask = uc.uc_sigmask;
	if (uc.uc_stack.ss_flags & SS_DISABLE) {
		ss->sp = 0;
		ss->size = 0;
	} else {
		ss->sp = uc.uc_stack.ss_sp;
		ss->size = uc.uc_stack.ss_size;
	}
	return 0;
}

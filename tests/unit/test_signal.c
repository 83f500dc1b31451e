/*
 * Host tests of signals: the rules (kernel/proc/signal_rules.h: which
 * signal comes next, default actions, handler masks, sigprocmask,
 * restarts, SIGCHLD codes) and Linux's x86-64 signal frame
 * (arch/x86_64/signal_frame.c) built on a "user" stack in host memory and
 * read back by rt_sigreturn, with forged and unreadable frames. The x87/SSE
 * registers are a variable here (fake_fpu.c).
 */
#include <stdlib.h>
#include <string.h>

#include <arch/fpu.h>
#include <arch/signal_frame.h>
#include <arch/uaccess.h>

#include "fake_fpu.h"
#include "fake_uaccess.h"
#include "proc/siginfo.h"
#include "proc/signal_rules.h"
#include "unit.h"
#include "user_entry.h"

/* ---------------------------------------------------------------- the rules */

START_TEST(test_sig_next_order)
{
	bool shared;

	ck_assert_int_eq(sig_next(0, 0, 0, &shared), 0);
	/* lowest first */
	ck_assert_int_eq(sig_next(sig_bit(SIGUSR2) | sig_bit(SIGTERM), 0, 0, &shared), SIGUSR2);
	ck_assert(!shared);
	/* the thread's own set before the process's, even with a lower number there */
	ck_assert_int_eq(sig_next(sig_bit(SIGTERM), sig_bit(SIGHUP), 0, &shared), SIGTERM);
	ck_assert(!shared);
	ck_assert_int_eq(sig_next(0, sig_bit(SIGHUP) | sig_bit(SIGCHLD), 0, &shared), SIGHUP);
	ck_assert(shared);
	/* a synchronous fault before a lower-numbered signal */
	ck_assert_int_eq(sig_next(sig_bit(SIGINT) | sig_bit(SIGSEGV), 0, 0, &shared), SIGSEGV);
	/* SIGKILL before everything, from either set */
	ck_assert_int_eq(sig_next(sig_bit(SIGHUP) | sig_bit(SIGKILL), 0, 0, &shared), SIGKILL);
	ck_assert_int_eq(sig_next(sig_bit(SIGSEGV), sig_bit(SIGKILL), 0, &shared), SIGKILL);
	ck_assert(shared);
	/* real-time signals are signals too */
	ck_assert_int_eq(sig_next(sig_bit(64), 0, 0, &shared), 64);
}
END_TEST

START_TEST(test_sig_next_blocked)
{
	bool shared;
	u64 all = ~0ULL;

	/* blocked signals wait; SIGKILL and SIGSTOP cannot be blocked */
	ck_assert_int_eq(sig_next(sig_bit(SIGUSR1), 0, sig_bit(SIGUSR1), &shared), 0);
	ck_assert_int_eq(sig_next(sig_bit(SIGUSR1), sig_bit(SIGUSR2), sig_bit(SIGUSR1), &shared),
			 SIGUSR2);
	ck_assert(shared);
	ck_assert_int_eq(sig_next(sig_bit(SIGKILL), 0, all, &shared), SIGKILL);
	ck_assert_int_eq(sig_next(0, sig_bit(SIGSTOP), all, &shared), SIGSTOP);
	ck_assert_int_eq(sig_next(sig_bit(SIGSEGV) | sig_bit(SIGTERM), 0, all, &shared), 0);
}
END_TEST

START_TEST(test_default_actions)
{
	static const int ignored[] = { SIGCHLD, SIGURG,	 SIGWINCH, SIGCONT,
				       SIGSTOP, SIGTSTP, SIGTTIN,  SIGTTOU };
	static const int fatal[] = { SIGHUP,	SIGINT,	 SIGQUIT, SIGILL,    SIGTRAP, SIGABRT,
				     SIGBUS,	SIGFPE,	 SIGKILL, SIGUSR1,   SIGSEGV, SIGUSR2,
				     SIGPIPE,	SIGALRM, SIGTERM, SIGSTKFLT, SIGXCPU, SIGXFSZ,
				     SIGVTALRM, SIGPROF, SIGIO,	  SIGPWR,    SIGSYS,  SIGRTMIN,
				     40,	64 };

	for (size_t i = 0; i < sizeof(ignored) / sizeof(ignored[0]); i++)
		ck_assert_msg(sig_default_action(ignored[i]) == SIG_DEFAULT_IGNORE, "signal %d",
			      ignored[i]);
	for (size_t i = 0; i < sizeof(fatal) / sizeof(fatal[0]); i++)
		ck_assert_msg(sig_default_action(fatal[i]) == SIG_DEFAULT_TERMINATE, "signal %d",
			      fatal[i]);

	ck_assert(sig_handler_ignores(SIGCHLD, SIG_DFL));
	ck_assert(!sig_handler_ignores(SIGTERM, SIG_DFL));
	ck_assert(sig_handler_ignores(SIGTERM, SIG_IGN));
	ck_assert(!sig_handler_ignores(SIGCHLD, 0x401000)); /* a handler catches it */
	ck_assert(!sig_handler_ignores(SIGKILL, SIG_IGN));  /* never ignored, whatever is set */

	ck_assert(!sig_valid(0) && sig_valid(1) && sig_valid(64) && !sig_valid(65));
	ck_assert(!sig_valid(-1));
}
END_TEST

START_TEST(test_handler_mask)
{
	u64 old = sig_bit(SIGUSR2);

	/* the old mask, the action's, and the signal itself */
	ck_assert_uint_eq(sig_handler_mask(SIGTERM, old, sig_bit(SIGINT), 0),
			  old | sig_bit(SIGINT) | sig_bit(SIGTERM));
	/* SA_NODEFER: not the signal itself */
	ck_assert_uint_eq(sig_handler_mask(SIGTERM, old, 0, SA_NODEFER), old);
	/* an action's mask never blocks SIGKILL or SIGSTOP */
	ck_assert_uint_eq(sig_handler_mask(SIGTERM, 0, ~0ULL, 0), ~SIG_UNBLOCKABLE);
}
END_TEST

START_TEST(test_procmask)
{
	u64 out = 0;
	u64 old = sig_bit(SIGUSR1);

	ck_assert_int_eq(sig_procmask(SIG_BLOCK, old, sig_bit(SIGTERM), &out), 0);
	ck_assert_uint_eq(out, old | sig_bit(SIGTERM));
	ck_assert_int_eq(sig_procmask(SIG_UNBLOCK, out, sig_bit(SIGUSR1), &out), 0);
	ck_assert_uint_eq(out, sig_bit(SIGTERM));
	ck_assert_int_eq(sig_procmask(SIG_SETMASK, out, sig_bit(SIGHUP), &out), 0);
	ck_assert_uint_eq(out, sig_bit(SIGHUP));
	/* SIGKILL and SIGSTOP are silently left out, as Linux does */
	ck_assert_int_eq(sig_procmask(SIG_BLOCK, 0, sig_bit(SIGKILL) | sig_bit(SIGSTOP), &out), 0);
	ck_assert_uint_eq(out, 0);
	out = 123;
	ck_assert_int_eq(sig_procmask(3, 0, 0, &out), -EINVAL);
	ck_assert_int_eq(sig_procmask(-1, 0, 0, &out), -EINVAL);
	ck_assert_uint_eq(out, 123);
}
END_TEST

START_TEST(test_restart_rules)
{
	/* not from a system call, or another result: nothing to do */
	ck_assert_int_eq(sig_restart_action(false, -ERESTARTSYS, true, 0), SIG_RESTART_NONE);
	ck_assert_int_eq(sig_restart_action(true, -EINTR, true, 0), SIG_RESTART_NONE);
	ck_assert_int_eq(sig_restart_action(true, 5, false, 0), SIG_RESTART_NONE);
	/* no handler ran: made again, SA_RESTART or not */
	ck_assert_int_eq(sig_restart_action(true, -ERESTARTSYS, false, 0), SIG_RESTART_CALL);
	/* a handler: SA_RESTART says */
	ck_assert_int_eq(sig_restart_action(true, -ERESTARTSYS, true, SA_RESTART), SIG_RESTART_CALL);
	ck_assert_int_eq(sig_restart_action(true, -ERESTARTSYS, true, SA_SIGINFO), SIG_RESTART_EINTR);
	/* select/ppoll's -ERESTARTNOHAND: made again only when no handler ran */
	ck_assert_int_eq(sig_restart_action(true, -ERESTARTNOHAND, false, 0), SIG_RESTART_CALL);
	ck_assert_int_eq(sig_restart_action(true, -ERESTARTNOHAND, true, SA_RESTART),
			 SIG_RESTART_EINTR);
	ck_assert_int_eq(sig_restart_action(true, -ERESTARTNOHAND, true, 0), SIG_RESTART_EINTR);
	ck_assert_int_eq(sig_restart_action(false, -ERESTARTNOHAND, false, 0), SIG_RESTART_NONE);
}
END_TEST

START_TEST(test_chld_codes)
{
	int code, status;

	sig_chld_code(11 << 8, &code, &status); /* exit(11) */
	ck_assert_int_eq(code, CLD_EXITED);
	ck_assert_int_eq(status, 11);
	sig_chld_code(0, &code, &status);
	ck_assert_int_eq(code, CLD_EXITED);
	ck_assert_int_eq(status, 0);
	sig_chld_code(SIGKILL, &code, &status);
	ck_assert_int_eq(code, CLD_KILLED);
	ck_assert_int_eq(status, SIGKILL);
	sig_chld_code(SIGSEGV | 0x80, &code, &status); /* with a core dump */
	ck_assert_int_eq(code, CLD_DUMPED);
	ck_assert_int_eq(status, SIGSEGV);
}
END_TEST

/* ---------------------------------------------------------------- frames */

#define STACK_BYTES 65536
#define HANDLER	    0x401230UL
#define RESTORER    0x401100UL

/* Offsets in Linux's frame (the ABI; signal_frame.c asserts its structs match). */
#define UC_OFF	   8
#define INFO_OFF   312
#define MC_OFF	   40	    /* uc_mcontext in the ucontext */
#define MC_RIP	   (16 * 8) /* gregs: r8..r15 rdi rsi rbp rbx rdx rax rcx rsp rip eflags csgsfs */
#define MC_EFL	   (17 * 8)
#define MC_CSGSFS  (18 * 8)
#define MC_FPSTATE 184
#define UC_SIGMASK 296
#define UC_STACK   16

static u8 *stack_mem;
static u8 *alt_mem;
static struct arch_sigstack no_alt;

static void frames_setup(void)
{
	stack_mem = calloc(1, STACK_BYTES);
	alt_mem = calloc(1, STACK_BYTES);
	ck_assert(stack_mem && alt_mem);
	ck_assert(access_ok(stack_mem, STACK_BYTES) && access_ok(alt_mem, STACK_BYTES));
	fake_uaccess_fail_after = -1;
	memset(&no_alt, 0, sizeof(no_alt));
	memset(&fake_fpu_live, 0, sizeof(fake_fpu_live));
	fake_fpu_live.fcw = 0x27f;    /* some state that is not the default */
	fake_fpu_live.mxcsr = 0x1fa0; /* a changed rounding mode */
	for (int i = 0; i < 16; i++)
		memset(fake_fpu_live.xmm[i], 0x40 + i, 16);
}

static void frames_teardown(void)
{
	free(stack_mem);
	free(alt_mem);
	fake_uaccess_fail_after = -1;
}

/* Registers as a system call leaves them: every register distinct, rsp odd-aligned. */
static struct user_regs syscall_regs(u64 rsp)
{
	struct user_regs r;
	u64 *w = (u64 *)&r;

	for (size_t i = 0; i < sizeof(r) / 8; i++)
		w[i] = 0x1000 + i * 0x11;
	r.vector = USER_REGS_SYSCALL;
	r.error_code = 0; /* read(2) */
	r.rax = (u64)-EINTR;
	r.rip = 0x402345;
	r.rflags = RFLAGS_IF | RFLAGS_FIXED | RFLAGS_DF | RFLAGS_CF;
	r.cs = USER_CS;
	r.ss = USER_DS;
	r.rsp = rsp;
	return r;
}

static struct k_siginfo kill_info(int sig, int pid)
{
	struct k_siginfo info;

	memset(&info, 0, sizeof(info));
	info.si_signo = sig;
	info.si_code = SI_USER;
	info.u.kill.pid = pid;
	return info;
}

static u64 rd64(u64 addr)
{
	u64 v;

	memcpy(&v, (const void *)addr, 8);
	return v;
}

static void wr64(u64 addr, u64 v)
{
	memcpy((void *)addr, &v, 8);
}

START_TEST(test_frame_layout)
{
	u64 top = (u64)stack_mem + STACK_BYTES - 24; /* not 16-aligned on purpose */
	struct user_regs r = syscall_regs(top), before = r;
	struct k_siginfo info = kill_info(SIGUSR1, 77);
	struct fpu_state fpu_before = fake_fpu_live;
	u64 frame, uc, fp;

	ck_assert_int_eq(arch_signal_frame_setup(&r, SIGUSR1, &info, HANDLER, SA_RESTORER, RESTORER,
						 0x5a5a, &no_alt),
			 0);
	frame = r.rsp;
	/* below the red zone, aligned as if called */
	ck_assert_uint_le(frame, top - 128 - 440 - 512);
	ck_assert_uint_eq((frame + 8) % 16, 0);
	ck_assert_uint_eq(r.rip, HANDLER);
	ck_assert_uint_eq(r.rdi, SIGUSR1);
	ck_assert_uint_eq(r.rsi, frame + INFO_OFF);
	ck_assert_uint_eq(r.rdx, frame + UC_OFF);
	ck_assert_uint_eq(r.rax, 0);
	ck_assert(!(r.rflags & RFLAGS_DF)); /* the ABI wants DF clear at a call */
	ck_assert(r.rflags & RFLAGS_IF);
	ck_assert_uint_eq(r.cs, USER_CS);
	ck_assert_uint_eq(r.ss, USER_DS);
	/* the callee-saved and other registers are the interrupted code's, untouched */
	ck_assert_uint_eq(r.rbx, before.rbx);
	ck_assert_uint_eq(r.r15, before.r15);

	/* the return address, the siginfo, the ucontext */
	ck_assert_uint_eq(rd64(frame), RESTORER);
	ck_assert_int_eq(*(s32 *)(frame + INFO_OFF), SIGUSR1);
	ck_assert_int_eq(*(s32 *)(frame + INFO_OFF + 8), SI_USER);
	ck_assert_int_eq(*(s32 *)(frame + INFO_OFF + 16), 77);
	uc = frame + UC_OFF;
	ck_assert_uint_eq(rd64(uc + UC_SIGMASK), 0x5a5a);
	ck_assert_int_eq(*(s32 *)(uc + UC_STACK + 8), SS_DISABLE);
	ck_assert_uint_eq(rd64(uc + MC_OFF + 0), before.r8);
	ck_assert_uint_eq(rd64(uc + MC_OFF + 13 * 8), (u64)-EINTR); /* rax */
	ck_assert_uint_eq(rd64(uc + MC_OFF + 15 * 8), top);	    /* rsp */
	ck_assert_uint_eq(rd64(uc + MC_OFF + MC_RIP), before.rip);
	ck_assert_uint_eq(rd64(uc + MC_OFF + MC_EFL), before.rflags);
	ck_assert_uint_eq(rd64(uc + MC_OFF + MC_CSGSFS) & 0xffff, USER_CS);

	/* the x87/SSE image: 64-aligned between the frame and the red zone, the live state */
	fp = rd64(uc + MC_OFF + MC_FPSTATE);
	ck_assert_uint_eq(fp % 64, 0);
	ck_assert_uint_ge(fp, frame + 440);
	ck_assert_uint_le(fp + 512, top - 128);
	ck_assert_int_eq(memcmp((void *)fp, &fpu_before, sizeof(fpu_before)), 0);
	ck_assert_int_eq(((u8 *)fp)[160 + 15 * 16], 0x4f); /* xmm15 */
	/* the handler starts with the default state */
	ck_assert_uint_eq(fake_fpu_live.fcw, FPU_DEFAULT_FCW);
	ck_assert_uint_eq(fake_fpu_live.mxcsr, FPU_DEFAULT_MXCSR);
	ck_assert_uint_eq(fake_fpu_live.xmm[3][0], 0);
}
END_TEST

START_TEST(test_frame_round_trip)
{
	u64 top = (u64)stack_mem + STACK_BYTES - 64;
	struct user_regs r = syscall_regs(top), before = r;
	struct fpu_state fpu_before = fake_fpu_live;
	struct k_siginfo info = kill_info(SIGTERM, 5);
	struct arch_sigstack ss = { 123, 456 };
	u64 mask = 0;

	ck_assert_int_eq(arch_signal_frame_setup(&r, SIGTERM, &info, HANDLER, SA_RESTORER | SA_RESTART,
						 RESTORER, sig_bit(SIGUSR2), &no_alt),
			 0);
	/* the handler runs: it clobbers registers and SSE state, then returns */
	r.rbx = r.r12 = r.rcx = r.r11 = 0xdead;
	memset(fake_fpu_live.xmm, 0x99, sizeof(fake_fpu_live.xmm));
	r.rsp += 8; /* its ret popped the return address into __restore_rt */
	r.rax = 15; /* __restore_rt: mov $15, %eax; syscall */
	r.vector = USER_REGS_SYSCALL;
	r.error_code = 15;

	ck_assert_int_eq(arch_signal_frame_restore(&r, &mask, &ss), 0);
	ck_assert_uint_eq(mask, sig_bit(SIGUSR2));
	ck_assert_uint_eq(ss.sp, 0); /* the frame said SS_DISABLE */
	ck_assert_uint_eq(ss.size, 0);
	ck_assert_uint_eq(r.rbx, before.rbx);
	ck_assert_uint_eq(r.r12, before.r12);
	ck_assert_uint_eq(r.rcx, before.rcx);
	ck_assert_uint_eq(r.r11, before.r11);
	ck_assert_uint_eq(r.rax, before.rax);
	ck_assert_uint_eq(r.rsp, before.rsp);
	ck_assert_uint_eq(r.rip, before.rip);
	ck_assert_uint_eq(r.rflags, before.rflags);
	ck_assert_int_eq(memcmp(&fake_fpu_live, &fpu_before, sizeof(fake_fpu_live)), 0);
	/* no longer a system call: a restored rax of -ERESTARTSYS must not restart sigreturn */
	ck_assert_int_eq(user_regs_syscall_orig(&r), -1);
}
END_TEST

START_TEST(test_restore_distrusts_frame)
{
	u64 top = (u64)stack_mem + STACK_BYTES;
	struct user_regs r = syscall_regs(top);
	struct k_siginfo info = kill_info(SIGUSR1, 1);
	struct arch_sigstack ss;
	u64 mask, uc, fp;

	ck_assert_int_eq(arch_signal_frame_setup(&r, SIGUSR1, &info, HANDLER, SA_RESTORER, RESTORER,
						 0, &no_alt),
			 0);
	uc = r.rsp + UC_OFF;
	fp = rd64(uc + MC_OFF + MC_FPSTATE);
	/* forge: kernel selectors, IOPL 3, NT, interrupts off, every MXCSR bit, SIGKILL blocked */
	wr64(uc + MC_OFF + MC_CSGSFS, (u64)KERNEL_DS << 48 | KERNEL_CS);
	wr64(uc + MC_OFF + MC_EFL, RFLAGS_IOPL | RFLAGS_NT | RFLAGS_CF);
	wr64(uc + UC_SIGMASK, ~0ULL);
	*(u32 *)(fp + 24) = 0xffffffff;
	memset((u8 *)fp + 464, 0xee, 48);
	r.rsp += 8;
	ck_assert_int_eq(arch_signal_frame_restore(&r, &mask, &ss), 0);
	ck_assert_uint_eq(r.cs, USER_CS);
	ck_assert_uint_eq(r.ss, USER_DS);
	ck_assert(!(r.rflags & (RFLAGS_IOPL | RFLAGS_NT)));
	ck_assert(r.rflags & RFLAGS_IF);
	ck_assert(r.rflags & RFLAGS_CF);
	ck_assert_uint_eq(fake_fpu_live.mxcsr, FPU_MXCSR_MASK_DEFAULT); /* reserved bits gone */
	ck_assert_uint_eq(fake_fpu_live.sw_reserved[0], 0);
	ck_assert_uint_eq(mask, ~0ULL); /* signal.c strips SIGKILL/SIGSTOP: sig_blockable */

	/* no fpstate: the registers get the default state */
	r = syscall_regs(top);
	ck_assert_int_eq(arch_signal_frame_setup(&r, SIGUSR1, &info, HANDLER, SA_RESTORER, RESTORER,
						 0, &no_alt),
			 0);
	wr64(r.rsp + UC_OFF + MC_OFF + MC_FPSTATE, 0);
	fake_fpu_live.fcw = 0x7f;
	r.rsp += 8;
	ck_assert_int_eq(arch_signal_frame_restore(&r, &mask, &ss), 0);
	ck_assert_uint_eq(fake_fpu_live.fcw, FPU_DEFAULT_FCW);
}
END_TEST

START_TEST(test_bad_frames)
{
	u64 top = (u64)stack_mem + STACK_BYTES;
	struct user_regs r, before;
	struct k_siginfo info = kill_info(SIGUSR1, 1);
	struct arch_sigstack ss;
	u64 mask = 77;

	/* rt_sigreturn with rsp at NULL, in the kernel half, or with a wild fpstate */
	r = syscall_regs(0x100);
	before = r;
	ck_assert_int_eq(arch_signal_frame_restore(&r, &mask, &ss), -EFAULT);
	ck_assert_int_eq(memcmp(&r, &before, sizeof(r)), 0);
	r.rsp = 0xffff800000001000UL;
	ck_assert_int_eq(arch_signal_frame_restore(&r, &mask, &ss), -EFAULT);
	ck_assert_uint_eq(mask, 77);

	r = syscall_regs(top);
	ck_assert_int_eq(arch_signal_frame_setup(&r, SIGUSR1, &info, HANDLER, SA_RESTORER, RESTORER,
						 0, &no_alt),
			 0);
	wr64(r.rsp + UC_OFF + MC_OFF + MC_FPSTATE, 0xffffffff80001000UL);
	r.rsp += 8;
	before = r;
	ck_assert_int_eq(arch_signal_frame_restore(&r, &mask, &ss), -EFAULT);
	ck_assert_int_eq(memcmp(&r, &before, sizeof(r)), 0); /* nothing half-restored */

	/* no SA_RESTORER: refused (x86-64 has no other way back) */
	r = syscall_regs(top);
	before = r;
	ck_assert_int_eq(arch_signal_frame_setup(&r, SIGUSR1, &info, HANDLER, 0, 0, 0, &no_alt),
			 -EFAULT);
	ck_assert_int_eq(memcmp(&r, &before, sizeof(r)), 0);

	/* a stack that cannot take the frame: regs and registers untouched */
	struct fpu_state fpu_before = fake_fpu_live;
	r = syscall_regs(0x10100);
	before = r;
	ck_assert_int_eq(arch_signal_frame_setup(&r, SIGUSR1, &info, HANDLER, SA_RESTORER, RESTORER,
						 0, &no_alt),
			 -EFAULT);
	ck_assert_int_eq(memcmp(&r, &before, sizeof(r)), 0);
	r = syscall_regs(600); /* below the red zone and the frame, it would wrap */
	ck_assert_int_eq(arch_signal_frame_setup(&r, SIGUSR1, &info, HANDLER, SA_RESTORER, RESTORER,
						 0, &no_alt),
			 -EFAULT);
	r = syscall_regs(top);
	before = r;
	fake_uaccess_fail_after = 1; /* the FP image goes, the frame faults */
	ck_assert_int_eq(arch_signal_frame_setup(&r, SIGUSR1, &info, HANDLER, SA_RESTORER, RESTORER,
						 0, &no_alt),
			 -EFAULT);
	ck_assert_int_eq(memcmp(&r, &before, sizeof(r)), 0);
	ck_assert_int_eq(memcmp(&fake_fpu_live, &fpu_before, sizeof(fake_fpu_live)), 0);
}
END_TEST

START_TEST(test_alt_stack)
{
	u64 top = (u64)stack_mem + STACK_BYTES;
	struct arch_sigstack alt = { (u64)alt_mem, STACK_BYTES };
	struct k_siginfo info = kill_info(SIGSEGV, 0);
	struct user_regs r = syscall_regs(top);
	u64 first;

	/* without SA_ONSTACK the alternate stack is not used */
	ck_assert_int_eq(arch_signal_frame_setup(&r, SIGSEGV, &info, HANDLER, SA_RESTORER, RESTORER,
						 0, &alt),
			 0);
	ck_assert(r.rsp < top && r.rsp > (u64)stack_mem);
	ck_assert_int_eq(*(s32 *)(r.rsp + UC_OFF + UC_STACK + 8), 0); /* set up, not on it */

	/* with it: at the top of the alternate stack */
	r = syscall_regs(top);
	ck_assert_int_eq(arch_signal_frame_setup(&r, SIGSEGV, &info, HANDLER,
						 SA_RESTORER | SA_ONSTACK, RESTORER, 0, &alt),
			 0);
	first = r.rsp;
	ck_assert(arch_on_sigstack(&alt, first));
	ck_assert_uint_eq((first + 8) % 16, 0);
	ck_assert_uint_ge(first, (u64)alt_mem + STACK_BYTES - 2048);
	ck_assert_uint_eq(rd64(first + UC_OFF + UC_STACK), (u64)alt_mem);
	ck_assert_uint_eq(rd64(first + UC_OFF + UC_STACK + 16), STACK_BYTES);

	/* a signal in that handler nests below it on the same stack, and says so */
	ck_assert_int_eq(arch_signal_frame_setup(&r, SIGSEGV, &info, HANDLER,
						 SA_RESTORER | SA_ONSTACK, RESTORER, 0, &alt),
			 0);
	ck_assert(r.rsp < first && arch_on_sigstack(&alt, r.rsp));
	ck_assert_int_eq(*(s32 *)(r.rsp + UC_OFF + UC_STACK + 8), SS_ONSTACK);

	/* an alternate stack too small for a frame overflows: refused */
	alt.size = 256;
	r = syscall_regs(top);
	ck_assert_int_eq(arch_signal_frame_setup(&r, SIGSEGV, &info, HANDLER,
						 SA_RESTORER | SA_ONSTACK, RESTORER, 0, &alt),
			 -EFAULT);
}
END_TEST

START_TEST(test_syscall_restart_regs)
{
	struct user_regs r = syscall_regs(0x7ffffffde000);

	r.error_code = 0; /* read */
	r.rax = (u64)-ERESTARTSYS;
	r.rcx = r.rip; /* as SYSCALL left them */
	r.r11 = r.rflags;
	ck_assert(user_regs_can_sysret(&r));
	ck_assert_int_eq(user_regs_syscall_orig(&r), 0);
	ck_assert_int_eq(user_regs_return(&r), -ERESTARTSYS);
	user_regs_restart_syscall(&r);
	ck_assert_uint_eq(r.rax, 0);		/* the number again */
	ck_assert_uint_eq(r.rip, 0x402345 - 2); /* back over "syscall" (0f 05) */
	ck_assert(!user_regs_can_sysret(&r));	/* rcx no longer matches: iretq returns it */
	user_regs_clear_syscall(&r);
	ck_assert_int_eq(user_regs_syscall_orig(&r), -1);
	r.vector = 14; /* a page fault is no system call */
	r.error_code = 6;
	ck_assert_int_eq(user_regs_syscall_orig(&r), -1);
}
END_TEST

START_TEST(test_fault_codes)
{
	u64 addr;

	ck_assert_int_eq(arch_user_fault_code(14, ARCH_PF_WRITE, 0x1234, 0x400000, &addr),
			 SEGV_MAPERR);
	ck_assert_uint_eq(addr, 0x1234);
	ck_assert_int_eq(arch_user_fault_code(14, ARCH_PF_PRESENT | ARCH_PF_WRITE, 0x5000, 0x400000,
					      &addr),
			 SEGV_ACCERR);
	ck_assert_uint_eq(addr, 0x5000);
	ck_assert_int_eq(arch_user_fault_code(6, 0, 0, 0x400010, &addr), ILL_ILLOPN);
	ck_assert_uint_eq(addr, 0x400010);
	ck_assert_int_eq(arch_user_fault_code(0, 0, 0, 0x400020, &addr), FPE_INTDIV);
	ck_assert_uint_eq(addr, 0x400020);
	ck_assert_int_eq(arch_user_fault_code(13, 0, 0, 0x400030, &addr), SI_KERNEL);
	ck_assert_uint_eq(addr, 0);
	ck_assert_int_eq(arch_user_fault_code(3, 0, 0, 0x400040, &addr), TRAP_BRKPT);
	/* the signals they come with */
	ck_assert_int_eq(arch_user_fault_signal(14), SIGSEGV);
	ck_assert_int_eq(arch_user_fault_signal(13), SIGSEGV);
	ck_assert_int_eq(arch_user_fault_signal(6), SIGILL);
	ck_assert_int_eq(arch_user_fault_signal(0), SIGFPE);
	ck_assert_int_eq(arch_user_fault_signal(3), SIGTRAP);
}
END_TEST

Suite *signal_suite(void)
{
	Suite *s = suite_create("signal");
	TCase *rules = tcase_create("rules");
	TCase *frames = tcase_create("frames");

	tcase_add_test(rules, test_sig_next_order);
	tcase_add_test(rules, test_sig_next_blocked);
	tcase_add_test(rules, test_default_actions);
	tcase_add_test(rules, test_handler_mask);
	tcase_add_test(rules, test_procmask);
	tcase_add_test(rules, test_restart_rules);
	tcase_add_test(rules, test_chld_codes);
	tcase_add_test(rules, test_fault_codes);
	suite_add_tcase(s, rules);

	tcase_add_checked_fixture(frames, frames_setup, frames_teardown);
	tcase_add_test(frames, test_frame_layout);
	tcase_add_test(frames, test_frame_round_trip);
	tcase_add_test(frames, test_restore_distrusts_frame);
	tcase_add_test(frames, test_bad_frames);
	tcase_add_test(frames, test_alt_stack);
	tcase_add_test(frames, test_syscall_restart_regs);
	suite_add_tcase(s, frames);
	return s;
}

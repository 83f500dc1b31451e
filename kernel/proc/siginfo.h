/*
 * The signal ABI user space sees, as Linux x86-64 defines it: signal
 * numbers, sigaction flags, siginfo_t (what an SA_SIGINFO handler gets)
 * and stack_t (sigaltstack, a frame's uc_stack).
 */
#ifndef FULCRUM_PROC_SIGINFO_H
#define FULCRUM_PROC_SIGINFO_H

#include "lib/types.h"

#define SIGHUP	  1
#define SIGINT	  2
#define SIGQUIT	  3
#define SIGILL	  4
#define SIGTRAP	  5
#define SIGABRT	  6
#define SIGBUS	  7
#define SIGFPE	  8
#define SIGKILL	  9
#define SIGUSR1	  10
#define SIGSEGV	  11
#define SIGUSR2	  12
#define SIGPIPE	  13
#define SIGALRM	  14
#define SIGTERM	  15
#define SIGSTKFLT 16
#define SIGCHLD	  17
#define SIGCONT	  18
#define SIGSTOP	  19
#define SIGTSTP	  20
#define SIGTTIN	  21
#define SIGTTOU	  22
#define SIGURG	  23
#define SIGXCPU	  24
#define SIGXFSZ	  25
#define SIGVTALRM 26
#define SIGPROF	  27
#define SIGWINCH  28
#define SIGIO	  29
#define SIGPWR	  30
#define SIGSYS	  31
#define SIGRTMIN  32 /* 32..64: real-time signals */

/* sigaction handlers */
#define SIG_DFL 0
#define SIG_IGN 1

/* sigaction flags */
#define SA_NOCLDSTOP 1
#define SA_NOCLDWAIT 2
#define SA_SIGINFO   4
#define SA_RESTORER  0x04000000
#define SA_ONSTACK   0x08000000
#define SA_RESTART   0x10000000
#define SA_NODEFER   0x40000000
#define SA_RESETHAND 0x80000000

/* rt_sigprocmask */
#define SIG_BLOCK   0
#define SIG_UNBLOCK 1
#define SIG_SETMASK 2

/* si_code: who sent it, or what happened */
#define SI_USER	    0	 /* kill */
#define SI_KERNEL   0x80 /* the kernel, for no more specific reason */
#define SI_TIMER    (-2) /* a POSIX timer expired */
#define SI_TKILL    (-6) /* tkill, tgkill */
#define ILL_ILLOPN  2	 /* SIGILL: illegal operand (#UD) */
#define FPE_INTDIV  1	 /* SIGFPE: integer divide by zero (#DE) */
#define FPE_FLTINV  7	 /* SIGFPE: floating-point invalid operation */
#define SEGV_MAPERR 1	 /* SIGSEGV: address not mapped */
#define SEGV_ACCERR 2	 /* SIGSEGV: access not allowed by the mapping */
#define BUS_ADRALN  1	 /* SIGBUS: misaligned address */
#define TRAP_BRKPT  1	 /* SIGTRAP: breakpoint */
#define CLD_EXITED  1	 /* SIGCHLD: the child called exit */
#define CLD_KILLED  2	 /* SIGCHLD: a signal killed it */
#define CLD_DUMPED  3	 /* SIGCHLD: a signal killed it and it dumped core */

/* Linux's siginfo_t on x86-64: 128 bytes, the union at offset 16. */
struct k_siginfo {
	s32 si_signo;
	s32 si_errno;
	s32 si_code;
	s32 pad0;
	union {
		struct {
			s32 pid; /* the sender */
			u32 uid;
		} kill; /* SI_USER, SI_TKILL */
		struct {
			s32 pid; /* the child */
			u32 uid;
			s32 status; /* exit code (CLD_EXITED) or signal (CLD_KILLED) */
			s32 pad;
			s64 utime, stime; /* clock ticks (USER_HZ, 100 a second) */
		} chld;
		struct {
			u64 addr; /* the faulting address, or instruction */
		} fault;
		struct {
			s32 tid;     /* the timer's id */
			s32 overrun; /* intervals missed before this expiry */
			u64 sigval;  /* sigev_value */
		} timer;	     /* SI_TIMER */
		u8 bytes[112];
	} u;
};

_Static_assert(sizeof(struct k_siginfo) == 128, "siginfo_t is 128 bytes");
_Static_assert(__builtin_offsetof(struct k_siginfo, u.kill.pid) == 16, "si_pid");
_Static_assert(__builtin_offsetof(struct k_siginfo, u.timer.sigval) == 24, "si_value");
_Static_assert(__builtin_offsetof(struct k_siginfo, u.chld.status) == 24, "si_status");
_Static_assert(__builtin_offsetof(struct k_siginfo, u.chld.utime) == 32, "si_utime");
_Static_assert(__builtin_offsetof(struct k_siginfo, u.fault.addr) == 16, "si_addr");

/* USER_HZ: the clock ticks siginfo's si_utime/si_stime count. */
#define SIGINFO_TICK_NS 10000000ULL

/* stack_t: an alternate signal stack (sigaltstack, uc_stack). */
struct k_stack {
	u64 ss_sp;
	s32 ss_flags;
	s32 pad;
	u64 ss_size;
};

_Static_assert(sizeof(struct k_stack) == 24, "stack_t is 24 bytes");

#define SS_ONSTACK  1	 /* ss_flags: currently running on it */
#define SS_DISABLE  2	 /* ss_flags: none */
#define MINSIGSTKSZ 2048 /* a smaller alternate stack is refused (ENOMEM) */

#endif

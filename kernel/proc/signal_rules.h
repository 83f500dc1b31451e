/*
 * The rules of POSIX signals as Linux applies them, as pure functions over
 * signal sets: which signal a thread takes next, what a default action
 * does, what a handler's mask is, and whether an interrupted system call
 * restarts. signal.c applies them under its locks; the host unit tests
 * check them directly.
 */
#ifndef FULCRUM_PROC_SIGNAL_RULES_H
#define FULCRUM_PROC_SIGNAL_RULES_H

#include "lib/errno.h"
#include "lib/types.h"
#include "proc/siginfo.h"

#define SIG_MAX 64 /* signals are 1..64; bit (sig - 1) of a u64 set */

static inline u64 sig_bit(int sig)
{
	return 1ULL << (sig - 1);
}

static inline bool sig_valid(long sig)
{
	return sig >= 1 && sig <= SIG_MAX;
}

/* SIGKILL and SIGSTOP can be neither caught, ignored nor blocked. */
#define SIG_UNBLOCKABLE (sig_bit(SIGKILL) | sig_bit(SIGSTOP))

/* Faults the thread itself caused: taken before anything else, so the fault's context is right. */
#define SIG_SYNCHRONOUS                                                            \
	(sig_bit(SIGSEGV) | sig_bit(SIGBUS) | sig_bit(SIGILL) | sig_bit(SIGTRAP) | \
	 sig_bit(SIGFPE) | sig_bit(SIGSYS))

/* A mask as a thread may hold it. */
static inline u64 sig_blockable(u64 mask)
{
	return mask & ~SIG_UNBLOCKABLE;
}

/* The lowest signal in set, or 0. */
static inline int sig_lowest(u64 set)
{
	return set ? __builtin_ctzll(set) + 1 : 0;
}

/*
 * The signal a thread takes next from its own pending set and its
 * process's, or 0: SIGKILL first, then a synchronous fault, then the
 * lowest number, the thread's own set before the process's (Linux's
 * order). *shared says which set it came from.
 */
static inline int sig_next(u64 thread_pending, u64 shared_pending, u64 blocked, bool *shared)
{
	u64 own = thread_pending & ~sig_blockable(blocked);
	u64 proc = shared_pending & ~sig_blockable(blocked);
	u64 kill = sig_bit(SIGKILL);

	*shared = false;
	if (own & kill)
		return SIGKILL;
	if (proc & kill) {
		*shared = true;
		return SIGKILL;
	}
	if (own & SIG_SYNCHRONOUS)
		return sig_lowest(own & SIG_SYNCHRONOUS);
	if (own)
		return sig_lowest(own);
	if (proc & SIG_SYNCHRONOUS) {
		*shared = true;
		return sig_lowest(proc & SIG_SYNCHRONOUS);
	}
	*shared = proc != 0;
	return sig_lowest(proc);
}

/*
 * What SIG_DFL does: ignore or terminate (the process, with the signal as
 * its wait status). No core dumps are written, so the core-dumping
 * signals just terminate. Job control does not exist here: the stop
 * signals (SIGSTOP, SIGTSTP, SIGTTIN, SIGTTOU) are ignored like SIGCONT,
 * where Linux would stop the process.
 */
enum sig_default { SIG_DEFAULT_TERMINATE, SIG_DEFAULT_IGNORE };

#define SIG_DEFAULT_IGNORED                                                          \
	(sig_bit(SIGCHLD) | sig_bit(SIGURG) | sig_bit(SIGWINCH) | sig_bit(SIGCONT) | \
	 sig_bit(SIGSTOP) | sig_bit(SIGTSTP) | sig_bit(SIGTTIN) | sig_bit(SIGTTOU))

static inline enum sig_default sig_default_action(int sig)
{
	return sig_bit(sig) & SIG_DEFAULT_IGNORED ? SIG_DEFAULT_IGNORE : SIG_DEFAULT_TERMINATE;
}

/* Does this handler (SIG_DFL, SIG_IGN or an address) throw sig away? SIGKILL is never ignored. */
static inline bool sig_handler_ignores(int sig, u64 handler)
{
	if (sig == SIGKILL)
		return false;
	return handler == SIG_IGN ||
	       (handler == SIG_DFL && sig_default_action(sig) == SIG_DEFAULT_IGNORE);
}

/* The mask while a handler for sig runs: the old one, the action's, and sig unless SA_NODEFER. */
static inline u64 sig_handler_mask(int sig, u64 old_blocked, u64 sa_mask, u64 sa_flags)
{
	u64 m = old_blocked | sa_mask;

	if (!(sa_flags & SA_NODEFER))
		m |= sig_bit(sig);
	return sig_blockable(m);
}

/* rt_sigprocmask: the new mask, or -EINVAL for an unknown how. */
static inline int sig_procmask(int how, u64 old, u64 set, u64 *out)
{
	switch (how) {
	case SIG_BLOCK:
		*out = sig_blockable(old | set);
		return 0;
	case SIG_UNBLOCK:
		*out = sig_blockable(old & ~set);
		return 0;
	case SIG_SETMASK:
		*out = sig_blockable(set);
		return 0;
	default:
		return -EINVAL;
	}
}

/*
 * A system call that returned -ERESTARTSYS because a signal came: it is
 * made again when no handler runs (the signal was ignored or the thread
 * went on) or the handler has SA_RESTART, else it fails with -EINTR.
 * -ERESTARTNOHAND (select, pselect6, ppoll) ignores SA_RESTART: any
 * handler makes it -EINTR.
 */
enum sig_restart { SIG_RESTART_NONE, SIG_RESTART_CALL, SIG_RESTART_EINTR };

static inline enum sig_restart sig_restart_action(bool in_syscall, long ret, bool handler,
						  u64 sa_flags)
{
	if (!in_syscall || (ret != -ERESTARTSYS && ret != -ERESTARTNOHAND))
		return SIG_RESTART_NONE;
	if (!handler || (ret == -ERESTARTSYS && (sa_flags & SA_RESTART)))
		return SIG_RESTART_CALL;
	return SIG_RESTART_EINTR;
}

/* SIGCHLD's si_code and si_status for a child that ended with this wait status. */
static inline void sig_chld_code(int wait_status, int *code, int *status)
{
	if ((wait_status & 0x7f) == 0) {
		*code = CLD_EXITED;
		*status = (wait_status >> 8) & 0xff;
	} else {
		*code = wait_status & 0x80 ? CLD_DUMPED : CLD_KILLED;
		*status = wait_status & 0x7f;
	}
}

#endif

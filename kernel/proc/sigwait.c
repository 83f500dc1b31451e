/*
 * rt_sigtimedwait (and so sigwaitinfo, sigtimedwait and sigwait, which
 * libc builds on it): waits for one of a set of signals and takes it
 * without running its handler, as Linux's do_sigtimedwait. The set is
 * unblocked for the wait so that its signals wake the caller, and blocked
 * again after; a signal outside the set that is not blocked ends the wait
 * with -EINTR (and is delivered), the timeout with -EAGAIN.
 */
#include <arch/time.h>
#include <arch/uaccess.h>

#include "lib/errno.h"
#include "proc/process.h"
#include "proc/sigwait.h"
#include "proc/signal.h"
#include "proc/signal_rules.h"
#include "proc/sys_time.h"
#include "proc/syscall.h"
#include "sched/timed_wait.h"

long sys_rt_sigtimedwait(const u64 *uset, struct k_siginfo *uinfo, const struct k_timespec *uts,
			 size_t sigsetsize)
{
	u64 set, deadline = SLEEP_FOREVER, old;
	struct k_siginfo info;
	struct k_timespec ts;
	int sig, err = 0;

	if (sigsetsize != sizeof(set))
		return -EINVAL;
	if (copy_from_user(&set, uset, sizeof(set)))
		return -EFAULT;
	set &= ~(sig_bit(SIGKILL) | sig_bit(SIGSTOP));
	if (uts) {
		if (copy_from_user(&ts, uts, sizeof(ts)))
			return -EFAULT;
		if (!timespec_valid(&ts))
			return -EINVAL;
		deadline = deadline_after(arch_clock_ns(), timespec_to_ns(&ts));
	}
	sig = signal_dequeue(set, &info);
	if (!sig && !(uts && !ts.tv_sec && !ts.tv_nsec)) {
		old = READ_ONCE(current_task()->sig_blocked);
		signal_set_blocked(old & ~set);
		for (;;) {
			err = sleep_until_interruptible(deadline);
			sig = signal_dequeue(set, &info);
			if (sig || !err)
				break;
			if (signal_pending(current_task()))
				break; /* a signal outside the set: it is delivered, the wait ends */
		}
		signal_set_blocked(old);
	}
	if (!sig)
		return err ? -EINTR : -EAGAIN;
	if (uinfo && copy_to_user(uinfo, &info, sizeof(info)))
		return -EFAULT;
	return sig;
}
SYSCALL_DEFINE4(rt_sigtimedwait, const u64 *, struct k_siginfo *, const struct k_timespec *, size_t);

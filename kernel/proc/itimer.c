/*
 * The real-time interval timer of a process: setitimer/getitimer
 * (ITIMER_REAL) and alarm. It is a high-resolution timer
 * (time/hrtimer.h) in struct process; at expiry it sends SIGALRM to the
 * process (si_code SI_KERNEL, as Linux) and, with an interval, restarts
 * itself one interval on, skipping intervals already missed. fork does not
 * inherit it, execve keeps it, the last thread's exit cancels it.
 * ITIMER_VIRTUAL and ITIMER_PROF (CPU-time timers) are not served: -EINVAL.
 */
#include "proc/itimer.h"

#include <arch/time.h>
#include <arch/uaccess.h>

#include "lib/errno.h"
#include "lib/spinlock.h"
#include "proc/process.h"
#include "proc/signal.h"
#include "proc/sys_time.h"
#include "proc/syscall.h"

#define ITIMER_REAL    0
#define ITIMER_VIRTUAL 1
#define ITIMER_PROF    2

struct k_itimerval {
	struct k_timeval it_interval;
	struct k_timeval it_value;
};

/*
 * Serializes starts and cancels of every process's timer (hrtimer.h asks
 * its owner to). The callback never takes it, so a cancel may wait for a
 * callback under it.
 */
static struct spinlock itimer_lock = SPINLOCK_INIT;

static enum hrtimer_restart itimer_expired(struct hrtimer *t)
{
	struct process *p = container_of(t, struct process, itimer_real);
	struct k_siginfo info = { .si_signo = SIGALRM, .si_code = SI_KERNEL };
	u64 interval = READ_ONCE(p->itimer_interval_ns), now;

	signal_send_process_info(p, &info);
	if (!interval)
		return HRTIMER_NORESTART;
	now = arch_clock_ns();
	t->expires += interval;
	if (t->expires <= now)
		t->expires += ((now - t->expires) / interval + 1) * interval;
	return HRTIMER_RESTART;
}

void itimer_init(struct process *p)
{
	hrtimer_init(&p->itimer_real, itimer_expired);
	p->itimer_interval_ns = 0;
}

void itimer_exit(struct process *p)
{
	unsigned long flags = spin_lock_irqsave(&itimer_lock);

	p->itimer_interval_ns = 0;
	hrtimer_cancel(&p->itimer_real);
	spin_unlock_irqrestore(&itimer_lock, flags);
}

static bool timeval_ok(const struct k_timeval *tv)
{
	return tv->tv_sec >= 0 && tv->tv_usec >= 0 && tv->tv_usec < 1000000;
}

static u64 timeval_ns(const struct k_timeval *tv)
{
	u64 sec = (u64)tv->tv_sec;

	if (sec >= KTIME_MAX / NSEC_PER_SEC)
		return KTIME_MAX;
	return sec * NSEC_PER_SEC + (u64)tv->tv_usec * 1000;
}

/* A positive time that rounds down to 0 us reads 1 us, as Linux, so a pending timer never shows 0. */
static struct k_timeval ns_timeval_up(u64 ns)
{
	struct k_timeval tv = ns_to_timeval(ns);

	if (ns && !tv.tv_sec && !tv.tv_usec)
		tv.tv_usec = 1;
	return tv;
}

/* The current setting; itimer_lock held. */
static void itimer_get_locked(struct process *p, struct k_itimerval *out)
{
	u64 now = arch_clock_ns(), left = 0;

	if (hrtimer_pending(&p->itimer_real)) {
		u64 expires = READ_ONCE(p->itimer_real.expires);

		left = expires > now ? expires - now : 1;
	}
	out->it_value = ns_timeval_up(left);
	out->it_interval = ns_to_timeval(p->itimer_interval_ns);
}

/* Arms (value > 0) or disarms the timer; itimer_lock held. */
static void itimer_set_locked(struct process *p, u64 value_ns, u64 interval_ns)
{
	hrtimer_cancel(&p->itimer_real);
	WRITE_ONCE(p->itimer_interval_ns, value_ns ? interval_ns : 0);
	if (value_ns)
		hrtimer_start(&p->itimer_real, deadline_after(arch_clock_ns(), value_ns));
}

static long sys_getitimer(int which, struct k_itimerval *uval)
{
	struct process *p = current_process();
	struct k_itimerval v;
	unsigned long flags;

	if (which != ITIMER_REAL)
		return -EINVAL;
	flags = spin_lock_irqsave(&itimer_lock);
	itimer_get_locked(p, &v);
	spin_unlock_irqrestore(&itimer_lock, flags);
	return copy_to_user(uval, &v, sizeof(v));
}
SYSCALL_DEFINE2(getitimer, int, struct k_itimerval *);

/* A NULL new value disarms, as Linux still accepts (with a warning there). */
static long sys_setitimer(int which, const struct k_itimerval *unew, struct k_itimerval *uold)
{
	struct process *p = current_process();
	struct k_itimerval nv = { { 0, 0 }, { 0, 0 } }, ov;
	unsigned long flags;

	if (which != ITIMER_REAL)
		return -EINVAL;
	if (unew && copy_from_user(&nv, unew, sizeof(nv)))
		return -EFAULT;
	if (!timeval_ok(&nv.it_value) || !timeval_ok(&nv.it_interval))
		return -EINVAL;
	flags = spin_lock_irqsave(&itimer_lock);
	itimer_get_locked(p, &ov);
	itimer_set_locked(p, timeval_ns(&nv.it_value), timeval_ns(&nv.it_interval));
	spin_unlock_irqrestore(&itimer_lock, flags);
	return uold ? copy_to_user(uold, &ov, sizeof(ov)) : 0;
}
SYSCALL_DEFINE3(setitimer, int, const struct k_itimerval *, struct k_itimerval *);

/*
 * alarm(s): the timer to s seconds, no interval; returns the seconds that
 * were left, rounded to the nearest and at least 1 if any time was left
 * (Linux's rule).
 */
static long sys_alarm(unsigned int seconds)
{
	struct process *p = current_process();
	struct k_itimerval ov;
	unsigned long flags;
	long left;

	flags = spin_lock_irqsave(&itimer_lock);
	itimer_get_locked(p, &ov);
	itimer_set_locked(p, (u64)seconds * NSEC_PER_SEC, 0);
	spin_unlock_irqrestore(&itimer_lock, flags);
	left = (long)ov.it_value.tv_sec;
	if ((!left && ov.it_value.tv_usec) || ov.it_value.tv_usec >= 500000)
		left++;
	return left;
}
SYSCALL_DEFINE1(alarm, unsigned int);

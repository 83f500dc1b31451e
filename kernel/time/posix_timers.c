/*
 * POSIX timers: timer_create, timer_settime, timer_gettime,
 * timer_getoverrun and timer_delete, as Linux's kernel/time/posix-timers.c
 * for the clocks the kernel clock can serve. Each timer is an hrtimer on
 * the CPU of the thread that arms it; at expiry it sends its signal to
 * the process (SIGEV_SIGNAL) or to one of its threads (SIGEV_THREAD_ID),
 * or nothing (SIGEV_NONE), with si_code SI_TIMER, the timer's id, the
 * overrun and sigev_value, and restarts itself one interval on. A
 * process's timers go when its last thread exits and at execve.
 */
#include "time/posix_timers.h"

#include <arch/time.h>
#include <arch/uaccess.h>

#include "lib/compiler.h"
#include "lib/errno.h"
#include "lib/list.h"
#include "lib/spinlock.h"
#include "mm/heap.h"
#include "proc/process.h"
#include "proc/signal.h"
#include "proc/sys_time.h"
#include "proc/syscall.h"
#include "time/hrtimer.h"
#include "time/realtime.h"

#define SIGEV_SIGNAL	     0
#define SIGEV_NONE	     1
#define SIGEV_THREAD	     2 /* libc's: the kernel treats it as SIGEV_SIGNAL */
#define SIGEV_THREAD_ID	     4
#define SIG_LAST	     64
#define CLOCK_REALTIME_ALARM 8
#define CLOCK_BOOTTIME_ALARM 9
#define CLOCK_TAI	     11
#define TIMERS_MAX	     1024 /* per process; more is -EAGAIN (Linux: RLIMIT_SIGPENDING) */
#define OVERRUN_MAX	     0x7fffffff /* DELAYTIMER_MAX */

struct k_sigevent {
	u64 sigev_value;
	s32 sigev_signo;
	s32 sigev_notify;
	union {
		s32 tid; /* SIGEV_THREAD_ID */
		u8 pad[48];
	} u;
};
_Static_assert(sizeof(struct k_sigevent) == 64, "struct sigevent is 64 bytes on x86-64");

struct k_itimerspec {
	struct k_timespec it_interval;
	struct k_timespec it_value;
};

struct k_itimer {
	struct hrtimer timer;
	struct list_head node; /* in process->posix_timers */
	struct process *p;
	struct task *target; /* SIGEV_THREAD_ID's thread, counted; else NULL */
	int id, clockid, notify, signo;
	u64 sigval;
	u64 interval_ns;
	int overrun; /* the last expiry's; written by the callback */
};

/*
 * Guards every process's list and the timers' settings, and serializes
 * starts and cancels (hrtimer.h asks the owner to). The callback never
 * takes it, so a cancel may wait for a callback under it.
 */
static struct spinlock posix_timers_lock = SPINLOCK_INIT;

static enum hrtimer_restart timer_expired(struct hrtimer *t)
{
	struct k_itimer *kt = container_of(t, struct k_itimer, timer);
	struct k_siginfo info = { .si_signo = kt->signo, .si_code = SI_TIMER };
	u64 missed = 0;

	if (kt->interval_ns) {
		u64 now = arch_clock_ns(), late = now > t->expires ? now - t->expires : 0;

		missed = late / kt->interval_ns;
		t->expires += (missed + 1) * kt->interval_ns;
	}
	WRITE_ONCE(kt->overrun, (int)MIN(missed, (u64)OVERRUN_MAX));
	info.u.timer.tid = kt->id;
	info.u.timer.overrun = kt->overrun;
	info.u.timer.sigval = kt->sigval;
	if (kt->notify == SIGEV_THREAD_ID)
		signal_send_thread_info(kt->target, &info);
	else if (kt->notify != SIGEV_NONE)
		signal_send_process_info(kt->p, &info);
	return kt->interval_ns ? HRTIMER_RESTART : HRTIMER_NORESTART;
}

/* The caller's timer id; posix_timers_lock held. */
static struct k_itimer *find_locked(struct process *p, int id)
{
	struct list_head *pos;

	list_for_each (pos, &p->posix_timers) {
		struct k_itimer *kt = list_entry(pos, struct k_itimer, node);

		if (kt->id == id)
			return kt;
	}
	return NULL;
}

static void free_timer(struct k_itimer *kt)
{
	if (kt->target)
		task_put(kt->target);
	kfree(kt);
}

/* Cancels and unlinks kt; posix_timers_lock held. The caller frees it after unlocking. */
static void remove_locked(struct k_itimer *kt)
{
	kt->interval_ns = 0;
	hrtimer_cancel(&kt->timer);
	list_del(&kt->node);
}

void posix_timers_exit(struct process *p)
{
	for (;;) {
		unsigned long flags = spin_lock_irqsave(&posix_timers_lock);
		struct k_itimer *kt = NULL;

		if (!list_empty(&p->posix_timers)) {
			kt = list_first_entry(&p->posix_timers, struct k_itimer, node);
			remove_locked(kt);
		}
		spin_unlock_irqrestore(&posix_timers_lock, flags);
		if (!kt)
			return;
		free_timer(kt);
	}
}

/* Linux's clocks with timers: -EINVAL for no clock, -EOPNOTSUPP for one without timers here. */
static int clock_check(int clockid)
{
	switch (clockid) {
	case CLOCK_REALTIME:
	case CLOCK_MONOTONIC:
	case CLOCK_BOOTTIME:
	case CLOCK_REALTIME_ALARM:
	case CLOCK_BOOTTIME_ALARM:
	case CLOCK_TAI:
		return 0;
	case CLOCK_MONOTONIC_RAW:
	case CLOCK_REALTIME_COARSE:
	case CLOCK_MONOTONIC_COARSE:
	case CLOCK_PROCESS_CPUTIME_ID: /* Linux has CPU-time timers; Fulcrum does not */
	case CLOCK_THREAD_CPUTIME_ID:
		return -EOPNOTSUPP;
	default:
		return -EINVAL;
	}
}

/* Linux's good_sigevent; a SIGEV_THREAD_ID thread is looked up and counted into kt. */
static int sigevent_check(struct process *p, const struct k_sigevent *ev, struct k_itimer *kt)
{
	kt->notify = ev->sigev_notify;
	kt->signo = ev->sigev_signo;
	kt->sigval = ev->sigev_value;
	switch (ev->sigev_notify) {
	case SIGEV_THREAD_ID:
		kt->target = thread_find(ev->u.tid);
		if (!kt->target || kt->target->proc != p)
			return -EINVAL;
		__attribute__((fallthrough));
	case SIGEV_SIGNAL:
	case SIGEV_THREAD:
		return ev->sigev_signo <= 0 || ev->sigev_signo > SIG_LAST ? -EINVAL : 0;
	case SIGEV_NONE:
		return 0;
	default:
		return -EINVAL;
	}
}

long sys_timer_create(int clockid, const struct k_sigevent *uev, int *uid)
{
	struct process *p = current_process();
	struct k_itimer *kt;
	struct k_sigevent ev;
	unsigned long flags;
	struct list_head *pos;
	int err, count = 0;

	err = clock_check(clockid);
	if (err)
		return err;
	if (uev && copy_from_user(&ev, uev, sizeof(ev)))
		return -EFAULT;
	kt = kzalloc(sizeof(*kt));
	if (!kt)
		return -ENOMEM;
	hrtimer_init(&kt->timer, timer_expired);
	kt->p = p;
	kt->clockid = clockid;
	err = uev ? sigevent_check(p, &ev, kt) : 0;
	if (err) {
		free_timer(kt);
		return err;
	}
	flags = spin_lock_irqsave(&posix_timers_lock);
	list_for_each (pos, &p->posix_timers)
		count++;
	if (count >= TIMERS_MAX) {
		spin_unlock_irqrestore(&posix_timers_lock, flags);
		free_timer(kt);
		return -EAGAIN;
	}
	kt->id = p->posix_timer_next_id++;
	if (p->posix_timer_next_id < 0)
		p->posix_timer_next_id = 0;
	if (!uev) {
		/* No sigevent: SIGALRM to the process, the id as its value (Linux's default). */
		kt->notify = SIGEV_SIGNAL;
		kt->signo = SIGALRM;
		kt->sigval = (u64)kt->id;
	}
	list_add_tail(&kt->node, &p->posix_timers);
	spin_unlock_irqrestore(&posix_timers_lock, flags);
	if (copy_to_user(uid, &kt->id, sizeof(kt->id))) {
		sys_timer_delete(kt->id);
		return -EFAULT;
	}
	return 0;
}
SYSCALL_DEFINE3(timer_create, int, const struct k_sigevent *, int *);

/* The time left and the interval; posix_timers_lock held. */
static void setting_locked(struct k_itimer *kt, struct k_itimerspec *out)
{
	u64 now = arch_clock_ns(), left = 0;

	if (hrtimer_pending(&kt->timer)) {
		u64 expires = READ_ONCE(kt->timer.expires);

		left = expires > now ? expires - now : 1;
	}
	out->it_value = ns_to_timespec(left);
	out->it_interval = ns_to_timespec(kt->interval_ns);
}

long sys_timer_settime(int id, int flags, const struct k_itimerspec *unew, struct k_itimerspec *uold)
{
	struct process *p = current_process();
	struct k_itimerspec nv, ov;
	struct k_itimer *kt;
	unsigned long irq;
	u64 value, deadline = 0;

	if (!unew)
		return -EINVAL;
	if (copy_from_user(&nv, unew, sizeof(nv)))
		return -EFAULT;
	if (!timespec_valid(&nv.it_value) || !timespec_valid(&nv.it_interval))
		return -EINVAL;
	value = timespec_to_ns(&nv.it_value);
	irq = spin_lock_irqsave(&posix_timers_lock);
	kt = find_locked(p, id);
	if (!kt) {
		spin_unlock_irqrestore(&posix_timers_lock, irq);
		return -EINVAL;
	}
	if (value) {
		u64 now = arch_clock_ns();
		bool realtime = kt->clockid == CLOCK_REALTIME ||
				kt->clockid == CLOCK_REALTIME_ALARM || kt->clockid == CLOCK_TAI;

		if (!(flags & TIMER_ABSTIME))
			deadline = deadline_after(now, value);
		else if (realtime)
			deadline = realtime_to_clock(value, clock_realtime_offset_ns());
		else
			deadline = value;
	}
	setting_locked(kt, &ov);
	hrtimer_cancel(&kt->timer);
	kt->interval_ns = value ? timespec_to_ns(&nv.it_interval) : 0;
	WRITE_ONCE(kt->overrun, 0);
	if (value)
		hrtimer_start(&kt->timer, deadline);
	spin_unlock_irqrestore(&posix_timers_lock, irq);
	return uold && copy_to_user(uold, &ov, sizeof(ov)) ? -EFAULT : 0;
}
SYSCALL_DEFINE4(timer_settime, int, int, const struct k_itimerspec *, struct k_itimerspec *);

long sys_timer_gettime(int id, struct k_itimerspec *ucur)
{
	struct process *p = current_process();
	struct k_itimerspec cur;
	struct k_itimer *kt;
	unsigned long irq = spin_lock_irqsave(&posix_timers_lock);

	kt = find_locked(p, id);
	if (kt)
		setting_locked(kt, &cur);
	spin_unlock_irqrestore(&posix_timers_lock, irq);
	if (!kt)
		return -EINVAL;
	return copy_to_user(ucur, &cur, sizeof(cur)) ? -EFAULT : 0;
}
SYSCALL_DEFINE2(timer_gettime, int, struct k_itimerspec *);

long sys_timer_getoverrun(int id)
{
	struct process *p = current_process();
	unsigned long irq = spin_lock_irqsave(&posix_timers_lock);
	struct k_itimer *kt = find_locked(p, id);
	long ret = kt ? READ_ONCE(kt->overrun) : -EINVAL;

	spin_unlock_irqrestore(&posix_timers_lock, irq);
	return ret;
}
SYSCALL_DEFINE1(timer_getoverrun, int);

long sys_timer_delete(int id)
{
	struct process *p = current_process();
	unsigned long irq = spin_lock_irqsave(&posix_timers_lock);
	struct k_itimer *kt = find_locked(p, id);

	if (kt)
		remove_locked(kt);
	spin_unlock_irqrestore(&posix_timers_lock, irq);
	if (!kt)
		return -EINVAL;
	free_timer(kt);
	return 0;
}
SYSCALL_DEFINE1(timer_delete, int);

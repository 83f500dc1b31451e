/*
 * timerfd: a timer read through a file descriptor (timerfd_create,
 * timerfd_settime, timerfd_gettime), as Linux's fs/timerfd.c. Each is a
 * high-resolution timer (time/hrtimer.h) on the CPU that armed it; at
 * expiry it counts one expiration (and with an interval, the intervals
 * missed as well), wakes readers and pollers and moves on. read() returns
 * the count as a u64 and zeroes it; it blocks while the count is 0.
 */
#include "time/timerfd.h"

#include <arch/time.h>
#include <arch/uaccess.h>

#include "fs/fdtable.h"
#include "fs/file.h"
#include "fs/iov_iter.h"
#include "fs/stat.h"
#include "ipc/counter_fd.h"
#include "lib/compiler.h"
#include "lib/errno.h"
#include "lib/spinlock.h"
#include "mm/heap.h"
#include "proc/current.h"
#include "proc/sys_time.h"
#include "proc/syscall.h"
#include "sched/task.h"
#include "sched/wait.h"
#include "time/realtime.h"

#define TFD_TIMER_ABSTIME	1
#define TFD_TIMER_CANCEL_ON_SET 2
#define TFD_SETTIME_FLAGS	(TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET)
#define TFD_CREATE_FLAGS	(O_CLOEXEC | O_NONBLOCK)
#define CLOCK_REALTIME_ALARM	8
#define CLOCK_BOOTTIME_ALARM	9

struct k_itimerspec {
	struct k_timespec it_interval;
	struct k_timespec it_value;
};

struct timerfd {
	struct hrtimer timer;
	/*
	 * Serializes settime and release (the starts and cancels hrtimer.h
	 * asks the owner to order); the callback never takes it.
	 */
	struct spinlock set_lock;
	/* counter.count: expirations not read yet; its lock also guards interval_ns */
	struct counter_fd counter;
	int clockid;
	u64 interval_ns;
};

static enum hrtimer_restart timerfd_expired(struct hrtimer *t)
{
	struct timerfd *ctx = container_of(t, struct timerfd, timer);
	enum hrtimer_restart ret = HRTIMER_NORESTART;
	unsigned long flags = spin_lock_irqsave(&ctx->counter.lock);
	u64 now = arch_clock_ns();

	ctx->counter.count++;
	if (ctx->interval_ns) {
		u64 late = now > t->expires ? now - t->expires : 0;
		u64 missed = late / ctx->interval_ns;

		/* Like hrtimer_forward: the intervals already gone count as expirations too. */
		ctx->counter.count += missed;
		t->expires += (missed + 1) * ctx->interval_ns;
		ret = HRTIMER_RESTART;
	}
	spin_unlock_irqrestore(&ctx->counter.lock, flags);
	wake_up_all(&ctx->counter.wq);
	return ret;
}

static struct timerfd *ctx_of(struct file *f);

/* read() takes every expiration counted so far. */
static bool take_ticks(struct counter_fd *c, u64 *out)
{
	*out = c->count;
	c->count = 0;
	return *out != 0;
}

static long timerfd_read(struct file *f, struct iov_iter *to)
{
	return counter_fd_read(&ctx_of(f)->counter, f, to, take_ticks, false);
}

static unsigned int timerfd_poll(struct file *f, struct poll_table *pt)
{
	return counter_fd_poll(&ctx_of(f)->counter, pt, 0);
}

static void timerfd_fstat(struct file *f, struct kstat *st)
{
	(void)f;
	counter_fd_fstat(st);
}

static void timerfd_release(struct file *f)
{
	struct timerfd *ctx = ctx_of(f);
	unsigned long flags = spin_lock_irqsave(&ctx->set_lock);

	ctx->interval_ns = 0;
	hrtimer_cancel(&ctx->timer);
	spin_unlock_irqrestore(&ctx->set_lock, flags);
	kfree(ctx);
}

static const struct file_ops timerfd_ops = {
	.read = timerfd_read,
	.poll = timerfd_poll,
	.fstat = timerfd_fstat,
	.release = timerfd_release,
};

static struct timerfd *ctx_of(struct file *f)
{
	return f->private_data;
}

static bool clock_ok(int clockid)
{
	return clockid == CLOCK_REALTIME || clockid == CLOCK_MONOTONIC || clockid == CLOCK_BOOTTIME ||
	       clockid == CLOCK_REALTIME_ALARM || clockid == CLOCK_BOOTTIME_ALARM;
}

static bool is_realtime(int clockid)
{
	return clockid == CLOCK_REALTIME || clockid == CLOCK_REALTIME_ALARM;
}

long sys_timerfd_create(int clockid, int flags)
{
	struct timerfd *ctx;
	struct file *f;
	int fd;

	if (!clock_ok(clockid) || (flags & ~TFD_CREATE_FLAGS))
		return -EINVAL;
	ctx = kzalloc(sizeof(*ctx));
	if (!ctx)
		return -ENOMEM;
	hrtimer_init(&ctx->timer, timerfd_expired);
	ctx->set_lock = (struct spinlock)SPINLOCK_INIT;
	counter_fd_init(&ctx->counter, 0);
	ctx->clockid = clockid;
	f = file_alloc(&timerfd_ops, O_RDWR | ((unsigned int)flags & O_NONBLOCK), ctx);
	if (!f) {
		kfree(ctx);
		return -ENOMEM;
	}
	fd = fd_alloc(current_files(), f, 0, flags & O_CLOEXEC);
	if (fd < 0)
		fput(f);
	return fd;
}
SYSCALL_DEFINE2(timerfd_create, int, int);

/* The file of a timerfd descriptor, with a reference; NULL and *err (-EBADF, -EINVAL). */
static struct file *timerfd_get(int fd, long *err)
{
	struct file *f = fget(fd);

	*err = -EBADF;
	if (f && f->ops != &timerfd_ops) {
		fput(f);
		*err = -EINVAL;
		return NULL;
	}
	return f;
}

/* The time left and the interval; set_lock held. */
static void current_setting(struct timerfd *ctx, struct k_itimerspec *out)
{
	u64 now = arch_clock_ns(), left = 0;

	if (hrtimer_pending(&ctx->timer)) {
		u64 expires = READ_ONCE(ctx->timer.expires);

		left = expires > now ? expires - now : 1;
	}
	out->it_value = ns_to_timespec(left);
	out->it_interval = ns_to_timespec(READ_ONCE(ctx->interval_ns));
}

long sys_timerfd_settime(int fd, int flags, const struct k_itimerspec *unew, struct k_itimerspec *uold)
{
	struct k_itimerspec nv, ov;
	struct timerfd *ctx;
	unsigned long irq, lflags;
	struct file *f;
	u64 value, deadline = 0;
	long err;

	/* Linux's order: the copy, then the flags and times, then the descriptor. */
	if (copy_from_user(&nv, unew, sizeof(nv)))
		return -EFAULT;
	if ((flags & ~TFD_SETTIME_FLAGS) || !timespec_valid(&nv.it_value) ||
	    !timespec_valid(&nv.it_interval))
		return -EINVAL;
	f = timerfd_get(fd, &err);
	if (!f)
		return err;
	ctx = ctx_of(f);
	value = timespec_to_ns(&nv.it_value);
	if (value) {
		u64 now = arch_clock_ns();

		if (!(flags & TFD_TIMER_ABSTIME))
			deadline = deadline_after(now, value);
		else if (is_realtime(ctx->clockid))
			deadline = realtime_to_clock(value, clock_realtime_offset_ns());
		else
			deadline = value;
	}
	irq = spin_lock_irqsave(&ctx->set_lock);
	current_setting(ctx, &ov);
	hrtimer_cancel(&ctx->timer);
	lflags = spin_lock_irqsave(&ctx->counter.lock);
	ctx->counter.count = 0;
	ctx->interval_ns = value ? timespec_to_ns(&nv.it_interval) : 0;
	spin_unlock_irqrestore(&ctx->counter.lock, lflags);
	if (value)
		hrtimer_start(&ctx->timer, deadline);
	spin_unlock_irqrestore(&ctx->set_lock, irq);
	fput(f);
	return uold && copy_to_user(uold, &ov, sizeof(ov)) ? -EFAULT : 0;
}
SYSCALL_DEFINE4(timerfd_settime, int, int, const struct k_itimerspec *, struct k_itimerspec *);

long sys_timerfd_gettime(int fd, struct k_itimerspec *ucur)
{
	struct k_itimerspec cur;
	unsigned long irq;
	struct file *f;
	long err;

	f = timerfd_get(fd, &err);
	if (!f)
		return err;
	irq = spin_lock_irqsave(&ctx_of(f)->set_lock);
	current_setting(ctx_of(f), &cur);
	spin_unlock_irqrestore(&ctx_of(f)->set_lock, irq);
	fput(f);
	return copy_to_user(ucur, &cur, sizeof(cur)) ? -EFAULT : 0;
}
SYSCALL_DEFINE2(timerfd_gettime, int, struct k_itimerspec *);

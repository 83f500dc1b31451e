/*
 * eventfd and eventfd2: a 64-bit counter behind a file descriptor, as
 * Linux's fs/eventfd.c. write() adds to it (blocking while the sum would
 * reach 2^64 - 1), read() takes all of it, or 1 with EFD_SEMAPHORE
 * (blocking while it is 0); poll reports POLLIN while it is above 0 and
 * POLLOUT while another 1 fits.
 */
#include "ipc/eventfd.h"

#include <arch/uaccess.h>

#include "fs/fdtable.h"
#include "fs/file.h"
#include "fs/iov_iter.h"
#include "fs/stat.h"
#include "ipc/poll.h"
#include "lib/errno.h"
#include "lib/spinlock.h"
#include "mm/heap.h"
#include "proc/current.h"
#include "proc/syscall.h"
#include "sched/task.h"
#include "sched/wait.h"

#define EFD_SEMAPHORE 1
#define EFD_FLAGS     (O_CLOEXEC | O_NONBLOCK | EFD_SEMAPHORE)
#define EFD_MAX	      (~0ULL - 1) /* the largest count; writes that would pass it wait */

struct eventfd {
	struct spinlock lock; /* count */
	struct wait_queue wq; /* readers and writers */
	u64 count;
	bool semaphore;
};

static struct eventfd *ctx_of(struct file *f)
{
	return f->private_data;
}

/*
 * Waits until try(ctx, arg) succeeds (returns true, under ctx->lock), or
 * fails with -EAGAIN (O_NONBLOCK) or -EINTR (a signal).
 */
static int wait_for(struct file *f, bool (*try)(struct eventfd *, u64 *), u64 *arg)
{
	struct eventfd *ctx = ctx_of(f);
	struct waiter w = { .task = NULL };
	unsigned long flags;
	int err = 0;
	bool done;

	for (;;) {
		wait_prepare_state(&ctx->wq, &w, TASK_INTERRUPTIBLE);
		flags = spin_lock_irqsave(&ctx->lock);
		done = try(ctx, arg);
		spin_unlock_irqrestore(&ctx->lock, flags);
		if (done)
			break;
		if (file_nonblock(f)) {
			err = -EAGAIN;
			break;
		}
		if (current_signal_pending()) {
			err = -EINTR;
			break;
		}
		schedule();
	}
	wait_finish(&ctx->wq, &w);
	if (!err)
		wake_up_all(&ctx->wq); /* the other side may go on now */
	return err;
}

static bool try_take(struct eventfd *ctx, u64 *out)
{
	if (!ctx->count)
		return false;
	*out = ctx->semaphore ? 1 : ctx->count;
	ctx->count -= *out;
	return true;
}

static bool try_add(struct eventfd *ctx, u64 *value)
{
	if (EFD_MAX - ctx->count < *value)
		return false;
	ctx->count += *value;
	return true;
}

static long eventfd_read(struct file *f, struct iov_iter *to)
{
	unsigned long flags;
	u64 value;
	int err;

	if (iov_iter_count(to) < sizeof(value))
		return -EINVAL;
	err = wait_for(f, try_take, &value);
	if (err)
		return err;
	if (copy_to_iter(&value, sizeof(value), to) != sizeof(value)) {
		flags = spin_lock_irqsave(&ctx_of(f)->lock);
		ctx_of(f)->count += value; /* nothing was read: give it back */
		spin_unlock_irqrestore(&ctx_of(f)->lock, flags);
		return -EFAULT;
	}
	return sizeof(value);
}

static long eventfd_write(struct file *f, struct iov_iter *from)
{
	u64 value;
	int err;

	if (iov_iter_count(from) < sizeof(value))
		return -EINVAL;
	if (copy_from_iter(&value, sizeof(value), from) != sizeof(value))
		return -EFAULT;
	if (value == ~0ULL)
		return -EINVAL;
	err = wait_for(f, try_add, &value);
	return err ? err : (long)sizeof(value);
}

static unsigned int eventfd_poll(struct file *f, struct poll_table *pt)
{
	struct eventfd *ctx = ctx_of(f);
	unsigned int mask = 0;
	u64 count;

	poll_wait(&ctx->wq, pt);
	count = __atomic_load_n(&ctx->count, __ATOMIC_ACQUIRE);
	if (count)
		mask |= POLLIN | POLLRDNORM;
	if (count < EFD_MAX)
		mask |= POLLOUT | POLLWRNORM;
	return mask;
}

static void eventfd_fstat(struct file *f, struct kstat *st)
{
	st->st_dev = KDEV_ANON;
	st->st_mode = 0600; /* an anonymous inode: no file type bits, as Linux */
	st->st_nlink = 1;
	st->st_blksize = 4096;
}

static void eventfd_release(struct file *f)
{
	kfree(ctx_of(f));
}

static const struct file_ops eventfd_ops = {
	.read = eventfd_read,
	.write = eventfd_write,
	.poll = eventfd_poll,
	.fstat = eventfd_fstat,
	.release = eventfd_release,
};

long sys_eventfd2(unsigned int initval, int flags)
{
	struct eventfd *ctx;
	struct file *f;
	int fd;

	if (flags & ~EFD_FLAGS)
		return -EINVAL;
	ctx = kzalloc(sizeof(*ctx));
	if (!ctx)
		return -ENOMEM;
	ctx->lock = (struct spinlock)SPINLOCK_INIT;
	wait_queue_init(&ctx->wq);
	ctx->count = initval;
	ctx->semaphore = flags & EFD_SEMAPHORE;
	f = file_alloc(&eventfd_ops, O_RDWR | ((unsigned int)flags & O_NONBLOCK), ctx);
	if (!f) {
		kfree(ctx);
		return -ENOMEM;
	}
	fd = fd_alloc(current_files(), f, 0, flags & O_CLOEXEC);
	if (fd < 0)
		fput(f);
	return fd;
}
SYSCALL_DEFINE2(eventfd2, unsigned int, int);

long sys_eventfd(unsigned int initval)
{
	return sys_eventfd2(initval, 0);
}
SYSCALL_DEFINE1(eventfd, unsigned int);

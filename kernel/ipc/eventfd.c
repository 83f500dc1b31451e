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
#include "ipc/counter_fd.h"
#include "lib/compiler.h"
#include "lib/errno.h"
#include "mm/heap.h"
#include "proc/current.h"
#include "proc/syscall.h"

#define EFD_SEMAPHORE 1
#define EFD_FLAGS     (O_CLOEXEC | O_NONBLOCK | EFD_SEMAPHORE)
#define EFD_MAX	      (~0ULL - 1) /* the largest count; writes that would pass it wait */

struct eventfd {
	struct counter_fd counter;
	bool semaphore;
};

static struct eventfd *ctx_of(struct file *f)
{
	return f->private_data;
}

static bool try_take(struct counter_fd *c, u64 *out)
{
	if (!c->count)
		return false;
	*out = container_of(c, struct eventfd, counter)->semaphore ? 1 : c->count;
	c->count -= *out;
	return true;
}

static bool try_add(struct counter_fd *c, u64 *value)
{
	if (EFD_MAX - c->count < *value)
		return false;
	c->count += *value;
	return true;
}

static long eventfd_read(struct file *f, struct iov_iter *to)
{
	return counter_fd_read(&ctx_of(f)->counter, f, to, try_take, true);
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
	err = counter_fd_wait(&ctx_of(f)->counter, f, try_add, &value, true);
	return err ? err : (long)sizeof(value);
}

static unsigned int eventfd_poll(struct file *f, struct poll_table *pt)
{
	return counter_fd_poll(&ctx_of(f)->counter, pt, EFD_MAX);
}

static void eventfd_fstat(struct file *f, struct kstat *st)
{
	(void)f;
	counter_fd_fstat(st);
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
	counter_fd_init(&ctx->counter, initval);
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

/* The 8-byte counter behind eventfd and timerfd (see counter_fd.h). */
#include "ipc/counter_fd.h"

#include "fs/file.h"
#include "fs/iov_iter.h"
#include "fs/stat.h"
#include "ipc/poll.h"
#include "lib/errno.h"
#include "proc/current.h"
#include "sched/task.h"

void counter_fd_init(struct counter_fd *c, u64 count)
{
	c->lock = (struct spinlock)SPINLOCK_INIT;
	wait_queue_init(&c->wq);
	c->count = count;
}

int counter_fd_wait(struct counter_fd *c, struct file *f, bool (*try)(struct counter_fd *, u64 *),
		    u64 *arg, bool wake_others)
{
	struct waiter w = { .task = NULL };
	unsigned long flags;
	int err = 0;
	bool done;

	for (;;) {
		wait_prepare_state(&c->wq, &w, TASK_INTERRUPTIBLE);
		flags = spin_lock_irqsave(&c->lock);
		done = try(c, arg);
		spin_unlock_irqrestore(&c->lock, flags);
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
	wait_finish(&c->wq, &w);
	if (!err && wake_others)
		wake_up_all(&c->wq);
	return err;
}

long counter_fd_read(struct counter_fd *c, struct file *f, struct iov_iter *to,
		     bool (*take)(struct counter_fd *, u64 *), bool wake_others)
{
	unsigned long flags;
	u64 value;
	int err;

	if (iov_iter_count(to) < sizeof(value))
		return -EINVAL;
	err = counter_fd_wait(c, f, take, &value, wake_others);
	if (err)
		return err;
	if (copy_to_iter(&value, sizeof(value), to) != sizeof(value)) {
		flags = spin_lock_irqsave(&c->lock);
		c->count += value; /* nothing was read: give it back */
		spin_unlock_irqrestore(&c->lock, flags);
		return -EFAULT;
	}
	return sizeof(value);
}

unsigned int counter_fd_poll(struct counter_fd *c, struct poll_table *pt, u64 max)
{
	unsigned int mask = 0;
	u64 count;

	poll_wait(&c->wq, pt);
	count = __atomic_load_n(&c->count, __ATOMIC_ACQUIRE);
	if (count)
		mask |= POLLIN | POLLRDNORM;
	if (count < max)
		mask |= POLLOUT | POLLWRNORM;
	return mask;
}

void counter_fd_fstat(struct kstat *st)
{
	st->st_dev = KDEV_ANON;
	st->st_mode = 0600; /* an anonymous inode: no file type bits, as Linux */
	st->st_nlink = 1;
	st->st_blksize = 4096;
}

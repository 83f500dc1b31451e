/*
 * A 64-bit counter read through a file descriptor, 8 bytes at a time
 * (counter_fd.c): the read, wait and poll eventfd (ipc/eventfd.c) and
 * timerfd (time/timerfd.c) share. Each says how its count is taken or
 * added to; blocking, O_NONBLOCK, signals and giving a count back when the
 * copy to user memory fails are here.
 */
#ifndef FULCRUM_IPC_COUNTER_FD_H
#define FULCRUM_IPC_COUNTER_FD_H

#include "lib/spinlock.h"
#include "lib/types.h"
#include "sched/wait.h"

struct file;
struct iov_iter;
struct kstat;
struct poll_table;

struct counter_fd {
	struct spinlock lock; /* count, and whatever the owner keeps with it */
	struct wait_queue wq; /* readers, writers and pollers */
	u64 count;
};

void counter_fd_init(struct counter_fd *c, u64 count);

/*
 * Tries try(c, arg) under c->lock until it returns true, sleeping on c->wq
 * between tries. Returns 0, or -EAGAIN (f is O_NONBLOCK) or -EINTR (a
 * signal) with try never succeeding. With wake_others, a success wakes
 * c->wq (the other side may go on).
 */
int counter_fd_wait(struct counter_fd *c, struct file *f, bool (*try)(struct counter_fd *, u64 *),
		    u64 *arg, bool wake_others);

/*
 * read(2) of the counter: -EINVAL for a buffer under 8 bytes, else waits as
 * counter_fd_wait() for take(c, &value) and copies value out, adding it
 * back to the count if the copy fails (-EFAULT). Returns 8 or the error.
 */
long counter_fd_read(struct counter_fd *c, struct file *f, struct iov_iter *to,
		     bool (*take)(struct counter_fd *, u64 *), bool wake_others);

/* poll: POLLIN while the count is above 0; POLLOUT while it is below max (0: never). */
unsigned int counter_fd_poll(struct counter_fd *c, struct poll_table *pt, u64 max);

/* fstat of an anonymous inode, as Linux gives eventfd and timerfd. */
void counter_fd_fstat(struct kstat *st);

#endif

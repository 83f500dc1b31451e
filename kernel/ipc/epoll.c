/*
 * epoll: epoll_create, epoll_create1, epoll_ctl, epoll_wait and
 * epoll_pwait, level-triggered, over poll's machinery (ipc/poll.h). An
 * epoll file keeps its interest list -- (descriptor, file, events, data)
 * -- and each wait polls every registered file at once, sleeping on all
 * their queues until one is ready, as poll(2) would. An entry whose
 * descriptor no longer names its file (it was closed) is dropped at the
 * next wait, which is when Linux's would have gone for a file closed for
 * good.
 */
#include "ipc/epoll.h"

#include <arch/uaccess.h>

#include "fs/fdtable.h"
#include "fs/file.h"
#include "fs/stat.h"
#include "ipc/poll.h"
#include "ipc/sleeplock.h"
#include "lib/errno.h"
#include "lib/string.h"
#include "mm/heap.h"
#include "proc/current.h"
#include "proc/syscall.h"

#define EPOLL_CTL_ADD 1
#define EPOLL_CTL_DEL 2
#define EPOLL_CTL_MOD 3

#define EPOLLEXCLUSIVE (1U << 28)
#define EPOLLWAKEUP    (1U << 29)
#define EPOLLONESHOT   (1U << 30)
#define EPOLLET	       (1U << 31)
/* The readiness bits an entry may ask for; POLLERR and POLLHUP always count. */
#define EPOLL_EVENTS \
	(POLLIN | POLLPRI | POLLOUT | POLLRDNORM | POLLRDBAND | POLLWRNORM | POLLWRBAND | POLLRDHUP)
#define EPOLL_MAX_EVENTS (0x7fffffff / (int)sizeof(struct epoll_event))

struct epoll_event {
	u32 events;
	u64 data;
} __attribute__((packed));
_Static_assert(sizeof(struct epoll_event) == 12, "struct epoll_event is packed on x86-64");

struct epitem {
	int fd;
	struct file *file; /* counted */
	u32 events;
	u64 data;
	bool disabled; /* EPOLLONESHOT, after its event was reported */
};

struct eventpoll {
	struct sleeplock lock; /* the list */
	struct epitem *items;
	unsigned int n, cap;
};

static const struct file_ops epoll_ops;

static struct eventpoll *ep_of(struct file *f)
{
	return f->private_data;
}

static void epoll_fstat(struct file *f, struct kstat *st)
{
	st->st_dev = KDEV_ANON;
	st->st_mode = 0600; /* an anonymous inode: no file type bits, as Linux */
	st->st_nlink = 1;
	st->st_blksize = 4096;
}

static void epoll_release(struct file *f)
{
	struct eventpoll *ep = ep_of(f);

	for (unsigned int i = 0; i < ep->n; i++)
		fput(ep->items[i].file);
	kfree(ep->items);
	kfree(ep);
}

static const struct file_ops epoll_ops = {
	.fstat = epoll_fstat,
	.release = epoll_release,
};

long sys_epoll_create1(int flags)
{
	struct eventpoll *ep;
	struct file *f;
	int fd;

	if (flags & ~O_CLOEXEC)
		return -EINVAL;
	ep = kzalloc(sizeof(*ep));
	if (!ep)
		return -ENOMEM;
	sleeplock_init(&ep->lock);
	f = file_alloc(&epoll_ops, O_RDWR, ep);
	if (!f) {
		kfree(ep);
		return -ENOMEM;
	}
	fd = fd_alloc(current_files(), f, 0, flags & O_CLOEXEC);
	if (fd < 0)
		fput(f);
	return fd;
}
SYSCALL_DEFINE1(epoll_create1, int);

/* The size is only a hint, but must be positive (Linux's check). */
long sys_epoll_create(int size)
{
	return size <= 0 ? -EINVAL : sys_epoll_create1(0);
}
SYSCALL_DEFINE1(epoll_create, int);

/* The epoll file of epfd, counted; NULL and *err (-EBADF, -EINVAL). */
static struct file *epoll_get(int epfd, long *err)
{
	struct file *f = fget(epfd);

	*err = -EBADF;
	if (f && f->ops != &epoll_ops) {
		fput(f);
		*err = -EINVAL;
		return NULL;
	}
	return f;
}

static int find_item(struct eventpoll *ep, int fd, struct file *file)
{
	for (unsigned int i = 0; i < ep->n; i++)
		if (ep->items[i].fd == fd && ep->items[i].file == file)
			return (int)i;
	return -1;
}

static void remove_item(struct eventpoll *ep, unsigned int i)
{
	fput(ep->items[i].file);
	ep->items[i] = ep->items[--ep->n];
}

static int add_item(struct eventpoll *ep, int fd, struct file *file, const struct epoll_event *ev)
{
	if (ep->n == ep->cap) {
		unsigned int cap = ep->cap ? ep->cap * 2 : 8;
		struct epitem *items = kmalloc(cap * sizeof(*items));

		if (!items)
			return -ENOMEM;
		if (ep->n)
			memcpy(items, ep->items, ep->n * sizeof(*items));
		kfree(ep->items);
		ep->items = items;
		ep->cap = cap;
	}
	file_get(file);
	ep->items[ep->n++] = (struct epitem){ fd, file, ev->events, ev->data, false };
	return 0;
}

/* Linux's order: the event is copied, then both descriptors, then the checks. */
long sys_epoll_ctl(int epfd, int op, int fd, struct epoll_event *uev)
{
	struct epoll_event ev = { 0, 0 };
	struct file *ef, *tf;
	struct eventpoll *ep;
	long err;
	int i;

	if (op != EPOLL_CTL_DEL && copy_from_user(&ev, uev, sizeof(ev)))
		return -EFAULT;
	ef = fget(epfd);
	if (!ef)
		return -EBADF;
	tf = fget(fd);
	err = -EBADF;
	if (!tf)
		goto out_ef;
	err = -EINVAL;
	if (ef == tf)
		goto out; /* Linux's check comes after the next, but an epoll there can poll */
	err = -EPERM;
	if (!tf->ops->poll)
		goto out; /* regular files are always ready: Linux refuses them too; epolls nest not */
	err = -EINVAL;
	if (ef->ops != &epoll_ops)
		goto out;
	if (op != EPOLL_CTL_ADD && op != EPOLL_CTL_MOD && op != EPOLL_CTL_DEL)
		goto out;
	if ((ev.events & EPOLLEXCLUSIVE) && op == EPOLL_CTL_MOD)
		goto out;
	ep = ep_of(ef);
	sleeplock_acquire(&ep->lock);
	i = find_item(ep, fd, tf);
	if (op == EPOLL_CTL_ADD)
		err = i >= 0 ? -EEXIST : add_item(ep, fd, tf, &ev);
	else if (i < 0)
		err = -ENOENT;
	else if (op == EPOLL_CTL_DEL) {
		remove_item(ep, (unsigned int)i);
		err = 0;
	} else {
		ep->items[i].events = ev.events;
		ep->items[i].data = ev.data;
		ep->items[i].disabled = false;
		err = 0;
	}
	sleeplock_release(&ep->lock);
out:
	fput(tf);
out_ef:
	fput(ef);
	return err;
}
SYSCALL_DEFINE4(epoll_ctl, int, int, int, struct epoll_event *);

/* Drops the entries whose descriptor was closed or now names another file. Lock held. */
static void drop_closed(struct eventpoll *ep)
{
	for (unsigned int i = 0; i < ep->n;) {
		struct file *now = fget(ep->items[i].fd);

		if (now != ep->items[i].file)
			remove_item(ep, i);
		else
			i++;
		fput(now);
	}
}

static long epoll_do_wait(int epfd, struct epoll_event *uevents, int maxevents, long timeout_ms)
{
	struct poll_request *reqs = NULL;
	unsigned int *which = NULL, n = 0;
	struct eventpoll *ep;
	struct file *ef;
	long err, ret;
	int done = 0;

	if (maxevents <= 0 || maxevents > EPOLL_MAX_EVENTS)
		return -EINVAL;
	if (!access_ok(uevents, (size_t)maxevents * sizeof(struct epoll_event)))
		return -EFAULT;
	ef = epoll_get(epfd, &err);
	if (!ef)
		return err;
	ep = ep_of(ef);
	sleeplock_acquire(&ep->lock);
	drop_closed(ep);
	if (ep->n) {
		reqs = kzalloc(ep->n * sizeof(*reqs));
		which = kmalloc(ep->n * sizeof(*which));
	}
	if (ep->n && (!reqs || !which)) {
		sleeplock_release(&ep->lock);
		ret = -ENOMEM;
		goto out;
	}
	for (unsigned int i = 0; i < ep->n; i++) {
		if (ep->items[i].disabled)
			continue;
		file_get(ep->items[i].file);
		reqs[n].file = ep->items[i].file;
		reqs[n].events = (short)(ep->items[i].events & EPOLL_EVENTS);
		which[n++] = i;
	}
	sleeplock_release(&ep->lock);
	/* The list may change while we sleep: entries are matched again by file below. */
	ret = poll_files(reqs, n, timeout_ms);
	if (ret > 0) {
		sleeplock_acquire(&ep->lock);
		for (unsigned int k = 0; k < n && done < maxevents; k++) {
			unsigned int i = which[k];
			struct epoll_event ev;

			if (!reqs[k].revents || i >= ep->n || ep->items[i].file != reqs[k].file ||
			    ep->items[i].disabled)
				continue;
			ev.events = (u32)(u16)reqs[k].revents;
			ev.data = ep->items[i].data;
			if (copy_to_user(&uevents[done], &ev, sizeof(ev))) {
				if (!done)
					done = -EFAULT;
				break;
			}
			if (ep->items[i].events & EPOLLONESHOT)
				ep->items[i].disabled = true;
			done++;
		}
		sleeplock_release(&ep->lock);
		ret = done;
	}
	for (unsigned int k = 0; k < n; k++)
		fput(reqs[k].file);
out:
	kfree(reqs);
	kfree(which);
	fput(ef);
	return ret;
}

long sys_epoll_wait(int epfd, struct epoll_event *uevents, int maxevents, int timeout_ms)
{
	return epoll_do_wait(epfd, uevents, maxevents, timeout_ms);
}
SYSCALL_DEFINE4(epoll_wait, int, struct epoll_event *, int, int);

/* The mask is in force for the wait; an interrupted wait restores it after the handler. */
long sys_epoll_pwait(int epfd, struct epoll_event *uevents, int maxevents, int timeout_ms,
		     const u64 *usigmask, size_t sigsetsize)
{
	u64 mask;
	long ret;

	if (!usigmask)
		return epoll_do_wait(epfd, uevents, maxevents, timeout_ms);
	if (sigsetsize != sizeof(mask))
		return -EINVAL;
	if (copy_from_user(&mask, usigmask, sizeof(mask)))
		return -EFAULT;
	current_sigmask_begin(mask);
	ret = epoll_do_wait(epfd, uevents, maxevents, timeout_ms);
	current_sigmask_end(ret == -EINTR);
	return ret;
}
SYSCALL_DEFINE6(epoll_pwait, int, struct epoll_event *, int, int, const u64 *, size_t);

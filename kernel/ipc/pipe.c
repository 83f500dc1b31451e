/*
 * Pipes. The ring of page buffers and the reader/writer counts are
 * guarded by a sleeping lock held across the user copies (Linux's pipe
 * mutex); poll reads them without it. Readers and writers sleep on one
 * wait queue. The read and write loops follow Linux 3.8's pipe_read and
 * pipe_write step for step, wake-ups included: whoever moved data wakes
 * the other side with the sync hint, before sleeping and on the way out.
 */
#include "ipc/pipe.h"

#include <arch/uaccess.h>

#include "fs/fdtable.h"
#include "fs/file.h"
#include "fs/iov_iter.h"
#include "fs/stat.h"
#include "ipc/poll.h"
#include "ipc/sleeplock.h"
#include "lib/compiler.h"
#include "lib/errno.h"
#include "mm/heap.h"
#include "mm/page_alloc.h"
#include "proc/current.h"
#include "sched/task.h"
#include "sched/wait.h"
#include "proc/syscall.h"

#define FIONREAD 0x541b

struct pipe_buffer {
	void *page;
	u32 offset, len;
};

struct pipe {
	struct sleeplock mutex;
	struct wait_queue wait;	       /* readers waiting for data, writers for room */
	unsigned int readers, writers; /* open files of each kind */
	unsigned int waiting_writers;  /* writers asleep for room: a reader may wait for them */
	unsigned int curbuf, nrbufs;   /* the ring: nrbufs full buffers from curbuf on */
	struct pipe_buffer bufs[PIPE_BUFFERS];
	void *tmp_page; /* one spare page kept for the next write */
	u64 ino;
};

static const struct file_ops pipe_ops;
static u64 next_ino = 1;

static struct pipe *pipe_of(struct file *f)
{
	return f->private_data;
}

/* Drops the mutex and sleeps until the other side wakes the queue; retakes the mutex. */
static void pipe_wait(struct pipe *p)
{
	struct waiter w = { .task = NULL };

	wait_prepare_state(&p->wait, &w, TASK_INTERRUPTIBLE);
	sleeplock_release(&p->mutex);
	/*
	 * Asleep before the test: a signal sent after the caller's own test
	 * found us running and woke no one, so it is seen here instead.
	 */
	if (!current_signal_pending())
		schedule();
	wait_finish(&p->wait, &w);
	sleeplock_acquire(&p->mutex);
}

static void release_page(struct pipe *p, struct pipe_buffer *b)
{
	if (!p->tmp_page)
		p->tmp_page = b->page;
	else
		free_pages(b->page, 0);
	b->page = NULL;
}

static long pipe_read(struct file *f, struct iov_iter *to)
{
	struct pipe *p = pipe_of(f);
	size_t total = iov_iter_count(to);
	bool do_wakeup = false;
	long ret = 0;

	if (!total)
		return 0;
	sleeplock_acquire(&p->mutex);
	for (;;) {
		unsigned int bufs = p->nrbufs;

		if (bufs) {
			struct pipe_buffer *b = &p->bufs[p->curbuf];
			size_t chars = MIN((size_t)b->len, total);

			if (copy_to_iter((char *)b->page + b->offset, chars, to) != chars) {
				if (!ret)
					ret = -EFAULT;
				break;
			}
			ret += (long)chars;
			b->offset += (u32)chars;
			b->len -= (u32)chars;
			if (!b->len) {
				release_page(p, b);
				p->curbuf = (p->curbuf + 1) % PIPE_BUFFERS;
				p->nrbufs = --bufs;
				do_wakeup = true;
			}
			total -= chars;
			if (!total)
				break;
		}
		if (bufs)
			continue;
		if (!p->writers)
			break; /* EOF, or what was read */
		/* A writer asleep for room: wait for its data, even with some read (as Linux). */
		if (!p->waiting_writers) {
			if (ret)
				break;
			if (file_nonblock(f)) {
				ret = -EAGAIN;
				break;
			}
		}
		if (current_signal_pending()) {
			if (!ret)
				ret = -ERESTARTSYS;
			break;
		}
		if (do_wakeup) {
			wake_up_all_sync(&p->wait, true);
			do_wakeup = false;
		}
		pipe_wait(p);
	}
	sleeplock_release(&p->mutex);
	if (do_wakeup)
		wake_up_all_sync(&p->wait, true);
	return ret;
}

static long pipe_write(struct file *f, struct iov_iter *from)
{
	struct pipe *p = pipe_of(f);
	size_t total = iov_iter_count(from), chars;
	bool do_wakeup = false;
	long ret = 0;

	if (!total)
		return 0;
	sleeplock_acquire(&p->mutex);
	if (!p->readers) {
		current_send_signal(SIGPIPE);
		ret = -EPIPE;
		goto out;
	}
	/* Merge a short tail into the last page if it fits whole: writes <= PIPE_BUF stay atomic.
	 */
	chars = total & (PIPE_PAGE_SIZE - 1);
	if (p->nrbufs && chars) {
		struct pipe_buffer *b = &p->bufs[(p->curbuf + p->nrbufs - 1) % PIPE_BUFFERS];
		size_t offset = b->offset + b->len;

		if (offset + chars <= PIPE_PAGE_SIZE) {
			if (copy_from_iter((char *)b->page + offset, chars, from) != chars) {
				ret = -EFAULT;
				goto out;
			}
			do_wakeup = true;
			b->len += (u32)chars;
			ret = (long)chars;
			total -= chars;
			if (!total)
				goto out;
		}
	}
	for (;;) {
		unsigned int bufs;

		if (!p->readers) {
			current_send_signal(SIGPIPE);
			if (!ret)
				ret = -EPIPE;
			break;
		}
		bufs = p->nrbufs;
		if (bufs < PIPE_BUFFERS) {
			struct pipe_buffer *b = &p->bufs[(p->curbuf + bufs) % PIPE_BUFFERS];
			void *page = p->tmp_page;

			if (!page) {
				page = alloc_pages(0);
				if (!page) {
					if (!ret)
						ret = -ENOMEM;
					break;
				}
				p->tmp_page = page;
			}
			chars = MIN(total, (size_t)PIPE_PAGE_SIZE);
			if (copy_from_iter(page, chars, from) != chars) {
				if (!ret)
					ret = -EFAULT;
				break;
			}
			ret += (long)chars;
			b->page = page;
			b->offset = 0;
			b->len = (u32)chars;
			p->nrbufs = ++bufs;
			p->tmp_page = NULL;
			do_wakeup = true;
			total -= chars;
			if (!total)
				break;
		}
		if (bufs < PIPE_BUFFERS)
			continue;
		if (file_nonblock(f)) {
			if (!ret)
				ret = -EAGAIN;
			break;
		}
		if (current_signal_pending()) {
			if (!ret)
				ret = -ERESTARTSYS;
			break;
		}
		if (do_wakeup) {
			wake_up_all_sync(&p->wait, true);
			do_wakeup = false;
		}
		p->waiting_writers++;
		pipe_wait(p);
		p->waiting_writers--;
	}
out:
	sleeplock_release(&p->mutex);
	if (do_wakeup)
		wake_up_all_sync(&p->wait, true);
	return ret;
}

static unsigned int pipe_poll(struct file *f, struct poll_table *pt)
{
	struct pipe *p = pipe_of(f);
	unsigned int mask = 0, nrbufs;

	poll_wait(&p->wait, pt);
	nrbufs = READ_ONCE(p->nrbufs);
	if (f->f_mode & FMODE_READ) {
		if (nrbufs)
			mask |= POLLIN | POLLRDNORM;
		if (!READ_ONCE(p->writers))
			mask |= POLLHUP;
	}
	if (f->f_mode & FMODE_WRITE) {
		if (nrbufs < PIPE_BUFFERS)
			mask |= POLLOUT | POLLWRNORM;
		if (!READ_ONCE(p->readers))
			mask |= POLLERR;
	}
	return mask;
}

long pipe_bytes_queued(struct file *f)
{
	struct pipe *p;
	long n = 0;

	if (f->ops != &pipe_ops)
		return -EINVAL;
	p = pipe_of(f);
	sleeplock_acquire(&p->mutex);
	for (unsigned int i = 0; i < p->nrbufs; i++)
		n += p->bufs[(p->curbuf + i) % PIPE_BUFFERS].len;
	sleeplock_release(&p->mutex);
	return n;
}

static long pipe_ioctl(struct file *f, unsigned int cmd, unsigned long arg)
{
	int n;

	if (cmd != FIONREAD)
		return -ENOTTY;
	n = (int)pipe_bytes_queued(f);
	return copy_to_user((void *)arg, &n, sizeof(n));
}

static void pipe_fstat(struct file *f, struct kstat *st)
{
	st->st_dev = KDEV_PIPEFS;
	st->st_ino = pipe_of(f)->ino;
	st->st_mode = S_IFIFO | 0600;
	st->st_nlink = 1;
	st->st_blksize = PIPE_PAGE_SIZE;
}

static void pipe_free(struct pipe *p)
{
	for (unsigned int i = 0; i < p->nrbufs; i++)
		free_pages(p->bufs[(p->curbuf + i) % PIPE_BUFFERS].page, 0);
	if (p->tmp_page)
		free_pages(p->tmp_page, 0);
	kfree(p);
	fs_count_add(FS_COUNT_PIPES, -1);
}

static void pipe_release(struct file *f)
{
	struct pipe *p = pipe_of(f);
	bool last;

	sleeplock_acquire(&p->mutex);
	if (f->f_mode & FMODE_READ)
		p->readers--;
	if (f->f_mode & FMODE_WRITE)
		p->writers--;
	last = !p->readers && !p->writers;
	/* Inside the lock: once it is dropped the other end's release may free the pipe. */
	if (!last)
		wake_up_all_sync(&p->wait, true);
	sleeplock_release(&p->mutex);
	if (last)
		pipe_free(p);
}

static const struct file_ops pipe_ops = {
	.read = pipe_read,
	.write = pipe_write,
	.poll = pipe_poll,
	.fstat = pipe_fstat,
	.ioctl = pipe_ioctl,
	.release = pipe_release,
};

int pipe_create(struct file **rd, struct file **wr, unsigned int flags)
{
	struct pipe *p = kzalloc(sizeof(*p));

	if (!p)
		return -ENOMEM;
	sleeplock_init(&p->mutex);
	wait_queue_init(&p->wait);
	p->ino = __atomic_fetch_add(&next_ino, 1, __ATOMIC_RELAXED);
	fs_count_add(FS_COUNT_PIPES, 1);
	*rd = file_alloc(&pipe_ops, O_RDONLY | (flags & O_NONBLOCK), p);
	if (!*rd) {
		pipe_free(p);
		return -ENOMEM;
	}
	p->readers = 1;
	*wr = file_alloc(&pipe_ops, O_WRONLY | (flags & O_NONBLOCK), p);
	if (!*wr) {
		fput(*rd); /* the last end: frees the pipe */
		return -ENOMEM;
	}
	p->writers = 1;
	return 0;
}

long sys_pipe2(int *fds, int flags)
{
	struct files *files = current_files();
	struct file *rd, *wr;
	int kfds[2], err;

	if (flags & ~(O_NONBLOCK | O_CLOEXEC))
		return -EINVAL;
	err = pipe_create(&rd, &wr, (unsigned int)flags);
	if (err)
		return err;
	kfds[0] = fd_reserve(files, 0, flags & O_CLOEXEC);
	if (kfds[0] < 0) {
		err = kfds[0];
		goto put_files;
	}
	kfds[1] = fd_reserve(files, 0, flags & O_CLOEXEC);
	if (kfds[1] < 0) {
		err = kfds[1];
		goto put_fd0;
	}
	if (copy_to_user(fds, kfds, sizeof(kfds))) {
		err = -EFAULT;
		fd_unreserve(files, kfds[1]);
		goto put_fd0;
	}
	fd_install(files, kfds[0], rd);
	fd_install(files, kfds[1], wr);
	return 0;
put_fd0:
	fd_unreserve(files, kfds[0]);
put_files:
	fput(rd);
	fput(wr);
	return err;
}
SYSCALL_DEFINE2(pipe2, int *, int);

long sys_pipe(int *fds)
{
	return sys_pipe2(fds, 0);
}
SYSCALL_DEFINE1(pipe, int *);

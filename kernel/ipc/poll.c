/*
 * poll(2). The first pass over the files registers the caller on each
 * file's wait queues and marks it sleeping before reading each mask; later
 * passes only re-read. A wake-up between a mask read and schedule() makes
 * schedule() return at once, so none is lost.
 */
#include "ipc/poll.h"

#include <arch/time.h>
#include <arch/uaccess.h>

#include "fs/fdtable.h"
#include "fs/file.h"
#include "lib/compiler.h"
#include "lib/errno.h"
#include "mm/heap.h"
#include "proc/current.h"
#include "sched/task.h"
#include "proc/syscall.h"

#define POLL_PAGE_BYTES 4096

struct poll_page {
	struct poll_page *next;
	unsigned int nr;
	struct poll_entry entries[];
};

#define POLL_PAGE_ENTRIES ((POLL_PAGE_BYTES - sizeof(struct poll_page)) / sizeof(struct poll_entry))

static struct poll_entry *new_entry(struct poll_table *pt)
{
	struct poll_page *pg = pt->pages;

	if (pt->nr_inline < POLL_INLINE_ENTRIES)
		return &pt->inline_entries[pt->nr_inline++];
	if (!pg || pg->nr == POLL_PAGE_ENTRIES) {
		pg = kmalloc(POLL_PAGE_BYTES);
		if (!pg)
			return NULL;
		pg->nr = 0;
		pg->next = pt->pages;
		pt->pages = pg;
	}
	return &pg->entries[pg->nr++];
}

void poll_wait(struct wait_queue *wq, struct poll_table *pt)
{
	struct poll_entry *e;

	if (!pt || !wq)
		return;
	e = new_entry(pt);
	if (!e) {
		pt->error = -ENOMEM;
		return;
	}
	e->wq = wq;
	e->w.task = NULL;
	wait_prepare_state(wq, &e->w, TASK_INTERRUPTIBLE);
}

void poll_table_init(struct poll_table *pt)
{
	pt->nr_inline = 0;
	pt->pages = NULL;
	pt->error = 0;
}

void poll_table_free(struct poll_table *pt)
{
	for (unsigned int i = 0; i < pt->nr_inline; i++)
		wait_finish(pt->inline_entries[i].wq, &pt->inline_entries[i].w);
	while (pt->pages) {
		struct poll_page *pg = pt->pages;

		for (unsigned int i = 0; i < pg->nr; i++)
			wait_finish(pg->entries[i].wq, &pg->entries[i].w);
		pt->pages = pg->next;
		kfree(pg);
	}
	pt->nr_inline = 0;
}

static short poll_one(struct poll_request *r, struct poll_table *pt)
{
	unsigned int mask;

	if (r->ignore)
		return 0;
	if (!r->file)
		return POLLNVAL;
	mask = r->file->ops->poll ? r->file->ops->poll(r->file, pt) : DEFAULT_POLLMASK;
	if (r->exact)
		return (short)(mask & (unsigned short)r->events);
	return (short)(mask & ((unsigned short)r->events | POLLERR | POLLHUP));
}

long poll_files(struct poll_request *reqs, unsigned int n, long timeout_ms)
{
	return poll_files_ns(reqs, n, timeout_ms < 0 ? -1 : (s64)timeout_ms * 1000000);
}

long poll_files_ns(struct poll_request *reqs, unsigned int n, s64 timeout_ns)
{
	bool may_sleep = timeout_ns != 0, timed = timeout_ns > 0, first = true;
	struct poll_table pt;
	struct wait_queue self_wq;
	struct waiter self = { .task = NULL };
	struct wait_timer timer;
	long count;

	poll_table_init(&pt);
	if (may_sleep)
		wait_queue_init(&self_wq);
	if (timed) {
		u64 deadline;

		if (__builtin_add_overflow(arch_clock_ns(), (u64)timeout_ns, &deadline))
			deadline = (u64)-1; /* past any clock reading: as good as forever */
		wait_timer_arm(&timer, deadline);
	}
	for (;;) {
		/* Sleeping from here on: a wake-up after any test below cuts schedule() short. */
		if (may_sleep)
			wait_prepare_state(&self_wq, &self, TASK_INTERRUPTIBLE);
		count = 0;
		for (unsigned int i = 0; i < n; i++) {
			reqs[i].revents = poll_one(&reqs[i], first && may_sleep ? &pt : NULL);
			if (reqs[i].revents)
				count++;
		}
		first = false;
		if (count || !may_sleep)
			break;
		if (pt.error) {
			count = pt.error;
			break;
		}
		if (current_signal_pending()) {
			count = -EINTR;
			break;
		}
		if (timed && wait_timer_fired(&timer))
			break;
		schedule();
	}
	if (may_sleep) {
		poll_table_free(&pt);
		wait_finish(&self_wq, &self);
	}
	if (timed)
		wait_timer_disarm(&timer);
	return count;
}

long poll_user(struct pollfd *ufds, unsigned int nfds, s64 timeout_ns)
{
	struct pollfd *kfds = NULL;
	struct poll_request *reqs = NULL;
	long ret;

	if (nfds > files_nofile(current_files()))
		return -EINVAL;
	if (nfds) {
		kfds = kmalloc(nfds * sizeof(*kfds));
		reqs = kmalloc(nfds * sizeof(*reqs));
		if (!kfds || !reqs) {
			ret = -ENOMEM;
			goto out;
		}
		if (copy_from_user(kfds, ufds, nfds * sizeof(*kfds))) {
			ret = -EFAULT;
			goto out;
		}
	}
	for (unsigned int i = 0; i < nfds; i++) {
		reqs[i].ignore = kfds[i].fd < 0;
		reqs[i].exact = false;
		reqs[i].file = reqs[i].ignore ? NULL : fget(kfds[i].fd);
		reqs[i].events = kfds[i].events;
	}
	ret = poll_files_ns(reqs, nfds, timeout_ns);
	/* revents go back whatever the outcome, as on Linux. */
	for (unsigned int i = 0; i < nfds; i++) {
		kfds[i].revents = reqs[i].revents;
		fput(reqs[i].file);
	}
	if (nfds && copy_to_user(ufds, kfds, nfds * sizeof(*kfds)))
		ret = -EFAULT;
out:
	kfree(kfds);
	kfree(reqs);
	return ret;
}

long sys_poll(struct pollfd *ufds, unsigned int nfds, int timeout_ms)
{
	return poll_user(ufds, nfds, timeout_ms < 0 ? -1 : (s64)timeout_ms * 1000000);
}
SYSCALL_DEFINE3(poll, struct pollfd *, unsigned int, int);

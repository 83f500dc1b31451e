/*
 * poll(2): a file's poll operation reports its ready mask and, through a
 * poll table, puts the caller on the wait queues whose wake-ups can change
 * that mask; poll_files() sleeps on all of them at once until a file is
 * ready, a signal is pending or the timeout passes.
 */
#ifndef FULCRUM_IPC_POLL_H
#define FULCRUM_IPC_POLL_H

#include "lib/types.h"
#include "sched/wait.h"

struct file;

/* Event bits, Linux's values. */
#define POLLIN	   0x0001
#define POLLPRI	   0x0002
#define POLLOUT	   0x0004
#define POLLERR	   0x0008
#define POLLHUP	   0x0010
#define POLLNVAL   0x0020
#define POLLRDNORM 0x0040
#define POLLRDBAND 0x0080
#define POLLWRNORM 0x0100
#define POLLWRBAND 0x0200
#define POLLRDHUP  0x2000

/* What a file without a poll operation reports: always readable and writable. */
#define DEFAULT_POLLMASK (POLLIN | POLLOUT | POLLRDNORM | POLLWRNORM)

/* The user's struct pollfd. */
struct pollfd {
	int fd;
	short events;
	short revents;
};

#define POLL_INLINE_ENTRIES 8

struct poll_entry {
	struct waiter w;
	struct wait_queue *wq;
};

struct poll_page;

/* The queues one poll call sleeps on (the first few without allocating). */
struct poll_table {
	struct poll_entry inline_entries[POLL_INLINE_ENTRIES];
	unsigned int nr_inline;
	struct poll_page *pages;
	int error; /* -ENOMEM if a queue could not be registered */
};

/*
 * Called by a file's poll operation for each wait queue that a change of
 * its mask is announced on; pt NULL (a repeated pass, or a zero timeout)
 * registers nothing. The caller is marked sleeping from here on, so the
 * operation must not sleep after it.
 */
void poll_wait(struct wait_queue *wq, struct poll_table *pt);

/* An empty table; after registering through it, poll_table_free() leaves every queue again. */
void poll_table_init(struct poll_table *pt);
/* Leaves every registered queue (marking the caller running) and frees the table's pages. */
void poll_table_free(struct poll_table *pt);

/*
 * One file to poll: file NULL means a bad descriptor (POLLNVAL); ignore: a
 * negative fd; exact: revents holds only the bits of events, POLLERR and
 * POLLHUP included only if asked for (select's sets).
 */
struct poll_request {
	struct file *file;
	short events;
	short revents;
	bool ignore;
	bool exact;
};

/*
 * Fills each request's revents (its events plus POLLERR and POLLHUP, or
 * POLLNVAL) and sleeps until at least one is non-zero. timeout_ms < 0 waits
 * forever, 0 never sleeps. Returns the number of non-zero revents, 0 on
 * timeout, -EINTR when a signal is pending, -ENOMEM.
 */
long poll_files(struct poll_request *reqs, unsigned int n, long timeout_ms);
/* The same with the timeout in nanoseconds (< 0: forever). */
long poll_files_ns(struct poll_request *reqs, unsigned int n, s64 timeout_ns);

/* poll(2): nfds above the RLIMIT_NOFILE soft limit gives -EINVAL, as on Linux. */
long sys_poll(struct pollfd *ufds, unsigned int nfds, int timeout_ms);
/* Its body, with the timeout in nanoseconds (< 0: forever); ppoll's too (ipc/select.h). */
long poll_user(struct pollfd *ufds, unsigned int nfds, s64 timeout_ns);

#endif

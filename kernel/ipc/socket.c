/*
 * AF_UNIX stream socket pairs. Both endpoints live in one struct
 * unix_pair, freed when both files are gone; one spinlock guards the
 * queues, charges and shutdown state of both. A message is copied from the
 * sender before it is queued (no lock held), and a reader copies out of
 * the message at the head of its queue holding only its endpoint's read
 * lock: only readers remove messages. See socket.h for the model.
 */
#include "ipc/socket.h"

#include <arch/uaccess.h>

#include "fs/file.h"
#include "fs/iov_iter.h"
#include "fs/stat.h"
#include "ipc/poll.h"
#include "ipc/sleeplock.h"
#include "lib/compiler.h"
#include "lib/errno.h"
#include "lib/list.h"
#include "mm/heap.h"
#include "proc/current.h"
#include "sched/task.h"
#include "sched/wait.h"

#define RCV_SHUTDOWN  1
#define SEND_SHUTDOWN 2
#define SHUTDOWN_MASK 3

#define FIONREAD 0x541b /* SIOCINQ */

#define SKB_CACHE_LINE	64
#define SKB_SHINFO_SIZE 320 /* SKB_DATA_ALIGN(sizeof(struct skb_shared_info)) in 3.8 */
#define SKB_HEAD_SIZE	256 /* SKB_DATA_ALIGN(sizeof(struct sk_buff)) */

struct unix_pair;

struct unix_sock {
	struct unix_pair *pair;
	struct unix_sock *peer;
	struct list_head rcvq; /* messages for this end to read, oldest first */
	long rcv_bytes;	       /* unread bytes in rcvq */
	long wmem;	       /* truesize of this end's messages still queued at the peer */
	long sndbuf;
	u8 shutdown;		   /* RCV_SHUTDOWN | SEND_SHUTDOWN */
	int err;		   /* pending error (ECONNRESET), reported once */
	bool dead;		   /* its file is gone */
	struct wait_queue wq;	   /* its readers, and its writers waiting for send room */
	struct sleeplock readlock; /* one reader at a time */
	u64 ino;
};

struct unix_pair {
	struct spinlock lock;
	int refs; /* endpoints whose file is still open */
	struct unix_sock end[2];
};

struct unix_skb {
	struct list_head node;
	struct unix_sock *owner; /* the sender, charged truesize */
	u32 len, off;		 /* bytes in data, bytes already read */
	u32 truesize;
	char data[];
};

static const struct file_ops unix_stream_ops;
static u64 next_ino = 1;

u32 unix_skb_truesize(size_t len)
{
	size_t data = ALIGN_UP(len, SKB_CACHE_LINE) + SKB_SHINFO_SIZE, k = 512;

	while (k < data)
		k *= 2;
	return (u32)(k + SKB_HEAD_SIZE);
}

bool file_is_socket(const struct file *f)
{
	return f->ops == &unix_stream_ops;
}

static struct unix_sock *sock_of(struct file *f)
{
	return f->private_data;
}

static unsigned long pair_lock(struct unix_sock *u)
{
	return spin_lock_irqsave(&u->pair->lock);
}

static void pair_unlock(struct unix_sock *u, unsigned long flags)
{
	spin_unlock_irqrestore(&u->pair->lock, flags);
}

/* Linux's unix_writable(): the charge is down to a quarter of the send buffer. Lock held. */
static bool writable(const struct unix_sock *u)
{
	return (u->wmem << 2) <= u->sndbuf;
}

/* Frees a consumed or purged message and gives its charge back (sock_wfree, unix_write_space). */
static void skb_free(struct unix_skb *skb)
{
	struct unix_sock *owner = skb->owner;
	unsigned long flags = pair_lock(owner);
	bool wake;

	owner->wmem -= skb->truesize;
	wake = writable(owner);
	pair_unlock(owner, flags);
	kfree(skb);
	if (wake)
		wake_up_all_sync(&owner->wq, true);
}

/* Takes and clears the pending error (sock_error). Lock held. */
static int take_error(struct unix_sock *u)
{
	int err = u->err;

	u->err = 0;
	return -err;
}

/*
 * sock_alloc_send_skb: charges a message of size bytes to u once its
 * charge is below the send buffer, sleeping for room unless nonblock.
 * Returns it, or NULL with *err set.
 */
static struct unix_skb *alloc_send_skb(struct unix_sock *u, size_t size, bool nonblock, int *err)
{
	u32 truesize = unix_skb_truesize(size);
	struct unix_skb *skb;

	for (;;) {
		struct waiter w = { .task = NULL };
		unsigned long flags;
		bool room;

		flags = pair_lock(u);
		*err = take_error(u);
		if (!*err && (u->shutdown & SEND_SHUTDOWN))
			*err = -EPIPE;
		room = !*err && u->wmem < u->sndbuf;
		if (room)
			u->wmem += truesize;
		pair_unlock(u, flags);
		if (*err)
			return NULL;
		if (room)
			break;
		if (nonblock) {
			*err = -EAGAIN;
			return NULL;
		}
		if (current_signal_pending()) {
			*err = -ERESTARTSYS;
			return NULL;
		}
		/* sock_wait_for_wmem: asleep before the test, so a freeing reader's wake counts. */
		wait_prepare_state(&u->wq, &w, TASK_INTERRUPTIBLE);
		flags = pair_lock(u);
		room = u->wmem < u->sndbuf || u->err || (u->shutdown & SEND_SHUTDOWN);
		pair_unlock(u, flags);
		if (!room && !current_signal_pending())
			schedule();
		wait_finish(&u->wq, &w);
	}
	skb = kmalloc(sizeof(*skb) + size);
	if (!skb) {
		unsigned long flags = pair_lock(u);

		u->wmem -= truesize;
		pair_unlock(u, flags);
		*err = -ENOMEM;
		return NULL;
	}
	skb->owner = u;
	skb->len = (u32)size;
	skb->off = 0;
	skb->truesize = truesize;
	return skb;
}

long unix_stream_send(struct file *f, struct iov_iter *from, int flags)
{
	struct unix_sock *u = sock_of(f), *other = u->peer;
	bool nonblock = (flags & MSG_DONTWAIT) || file_nonblock(f);
	size_t len = iov_iter_count(from), sent = 0;
	unsigned long lf;
	int err;

	if (flags & MSG_OOB)
		return -EOPNOTSUPP;
	lf = pair_lock(u);
	err = u->shutdown & SEND_SHUTDOWN;
	pair_unlock(u, lf);
	if (err)
		goto pipe_err;
	while (sent < len) {
		/* "Keep two messages in the pipe so it schedules better" (Linux). */
		size_t size = MIN(len - sent, (size_t)(u->sndbuf / 2 - 64));
		struct unix_skb *skb;
		bool gone;

		size = MIN(size, (size_t)UNIX_SKB_MAX_ALLOC);
		skb = alloc_send_skb(u, size, nonblock, &err);
		if (!skb)
			goto out_err;
		if (copy_from_iter(skb->data, size, from) != size) {
			skb_free(skb);
			err = -EFAULT;
			goto out_err;
		}
		lf = pair_lock(u);
		gone = other->dead || (other->shutdown & RCV_SHUTDOWN);
		if (!gone) {
			list_add_tail(&skb->node, &other->rcvq);
			other->rcv_bytes += (long)size;
		}
		pair_unlock(u, lf);
		if (gone) {
			skb_free(skb);
			goto pipe_err;
		}
		wake_up_all_sync(&other->wq, true); /* sk_data_ready */
		sent += size;
	}
	return (long)sent;
pipe_err:
	if (sent == 0 && !(flags & MSG_NOSIGNAL))
		current_send_signal(SIGPIPE);
	err = -EPIPE;
out_err:
	return sent ? (long)sent : err;
}

/* unix_stream_data_wait: sleeps until data, an error or a read shutdown arrives, or a signal. */
static void data_wait(struct unix_sock *u)
{
	struct waiter w = { .task = NULL };
	unsigned long flags;
	bool ready;

	wait_prepare_state(&u->wq, &w, TASK_INTERRUPTIBLE);
	flags = pair_lock(u);
	ready = !list_empty(&u->rcvq) || u->err || (u->shutdown & RCV_SHUTDOWN);
	pair_unlock(u, flags);
	if (!ready && !current_signal_pending())
		schedule();
	wait_finish(&u->wq, &w);
}

long unix_stream_recv(struct file *f, struct iov_iter *to, int flags)
{
	struct unix_sock *u = sock_of(f);
	bool nonblock = (flags & MSG_DONTWAIT) || file_nonblock(f);
	size_t size = iov_iter_count(to);
	size_t target = flags & MSG_WAITALL ? size : 1; /* sock_rcvlowat */
	long copied = 0;
	int err = 0;

	if (flags & MSG_OOB)
		return -EOPNOTSUPP;
	if (!target)
		target = 1;
	sleeplock_acquire(&u->readlock);
	do {
		unsigned long lf = pair_lock(u);
		struct unix_skb *skb;
		size_t chunk;
		bool done;

		if (list_empty(&u->rcvq)) {
			bool stop = (size_t)copied >= target;

			if (!stop) {
				err = take_error(u);
				stop = err || (u->shutdown & RCV_SHUTDOWN);
			}
			pair_unlock(u, lf);
			if (stop)
				break;
			if (nonblock) {
				err = -EAGAIN;
				break;
			}
			if (current_signal_pending()) {
				err = -ERESTARTSYS;
				break;
			}
			sleeplock_release(&u->readlock);
			data_wait(u);
			if (current_signal_pending()) {
				err = -ERESTARTSYS;
				goto out;
			}
			sleeplock_acquire(&u->readlock);
			continue;
		}
		skb = list_first_entry(&u->rcvq, struct unix_skb, node);
		pair_unlock(u, lf);
		chunk = MIN((size_t)(skb->len - skb->off), size);
		if (copy_to_iter(skb->data + skb->off, chunk, to) != chunk) {
			if (copied == 0)
				copied = -EFAULT;
			break;
		}
		copied += (long)chunk;
		size -= chunk;
		if (flags & MSG_PEEK)
			break;
		lf = pair_lock(u);
		skb->off += (u32)chunk;
		u->rcv_bytes -= (long)chunk;
		done = skb->off == skb->len;
		if (done)
			list_del(&skb->node);
		pair_unlock(u, lf);
		if (!done)
			break;
		skb_free(skb);
	} while (size);
	sleeplock_release(&u->readlock);
out:
	return copied ? copied : err;
}

long unix_stream_shutdown(struct file *f, int how)
{
	struct unix_sock *u = sock_of(f), *other = u->peer;
	unsigned int mode, peer_mode = 0;
	unsigned long flags;

	if (how < SHUT_RD || how > SHUT_RDWR)
		return -EINVAL;
	mode = (unsigned int)how + 1; /* SHUT_RD -> RCV_SHUTDOWN, SHUT_WR -> SEND_SHUTDOWN */
	if (mode & RCV_SHUTDOWN)
		peer_mode |= SEND_SHUTDOWN;
	if (mode & SEND_SHUTDOWN)
		peer_mode |= RCV_SHUTDOWN;
	flags = pair_lock(u);
	u->shutdown |= (u8)mode;
	other->shutdown |= (u8)peer_mode;
	pair_unlock(u, flags);
	/* sk_state_change on both ends: a plain wake-up of everyone. */
	wake_up_all(&u->wq);
	wake_up_all(&other->wq);
	return 0;
}

static long sock_read(struct file *f, struct iov_iter *to)
{
	if (!iov_iter_count(to))
		return 0; /* "Match SYS5 behaviour" (Linux's sock_read_iter) */
	return unix_stream_recv(f, to, 0);
}

static long sock_write(struct file *f, struct iov_iter *from)
{
	return unix_stream_send(f, from, 0);
}

static unsigned int sock_poll(struct file *f, struct poll_table *pt)
{
	struct unix_sock *u = sock_of(f);
	unsigned int mask = 0;
	unsigned long flags;

	poll_wait(&u->wq, pt);
	flags = pair_lock(u);
	if (u->err)
		mask |= POLLERR;
	if (u->shutdown == SHUTDOWN_MASK)
		mask |= POLLHUP;
	if (u->shutdown & RCV_SHUTDOWN)
		mask |= POLLRDHUP | POLLIN | POLLRDNORM;
	if (!list_empty(&u->rcvq))
		mask |= POLLIN | POLLRDNORM;
	if (writable(u))
		mask |= POLLOUT | POLLWRNORM | POLLWRBAND;
	pair_unlock(u, flags);
	return mask;
}

long unix_stream_bytes_queued(struct file *f)
{
	struct unix_sock *u = sock_of(f);
	unsigned long flags = pair_lock(u);
	long n = u->rcv_bytes;

	pair_unlock(u, flags);
	return n;
}

long unix_stream_wmem(struct file *f)
{
	struct unix_sock *u = sock_of(f);
	unsigned long flags = pair_lock(u);
	long n = u->wmem;

	pair_unlock(u, flags);
	return n;
}

static long sock_ioctl(struct file *f, unsigned int cmd, unsigned long arg)
{
	int n;

	if (cmd != FIONREAD)
		return -ENOTTY;
	n = (int)unix_stream_bytes_queued(f);
	return copy_to_user((void *)arg, &n, sizeof(n));
}

static void sock_fstat(struct file *f, struct kstat *st)
{
	st->st_dev = KDEV_SOCKFS;
	st->st_ino = sock_of(f)->ino;
	st->st_mode = S_IFSOCK | 0777;
	st->st_nlink = 1;
	st->st_blksize = 4096;
}

/*
 * unix_release_sock for a stream endpoint. The pair stays until the last
 * end has finished here: purging this end's queue still touches the peer.
 */
static void sock_release(struct file *f)
{
	struct unix_sock *u = sock_of(f), *other = u->peer;
	struct unix_pair *pair = u->pair;
	unsigned long flags = pair_lock(u);
	bool last;

	u->shutdown = SHUTDOWN_MASK;
	u->dead = true; /* from here on no message is queued to u */
	other->shutdown = SHUTDOWN_MASK;
	/* Unread data here means the peer's messages were lost: it is told so. */
	if (!list_empty(&u->rcvq))
		other->err = ECONNRESET;
	pair_unlock(u, flags);
	wake_up_all(&other->wq);
	/* Nobody reads this end any more: free its messages, uncharging (and waking) the peer. */
	while (!list_empty(&u->rcvq)) {
		struct unix_skb *skb = list_first_entry(&u->rcvq, struct unix_skb, node);

		list_del(&skb->node);
		skb_free(skb);
	}
	flags = pair_lock(u);
	last = --pair->refs == 0;
	pair_unlock(u, flags);
	if (last) {
		kfree(pair);
		fs_count_add(FS_COUNT_SOCKETS, -2);
	}
}

static const struct file_ops unix_stream_ops = {
	.read = sock_read,
	.write = sock_write,
	.poll = sock_poll,
	.fstat = sock_fstat,
	.ioctl = sock_ioctl,
	.release = sock_release,
};

static void sock_init(struct unix_pair *pair, int i)
{
	struct unix_sock *u = &pair->end[i];

	u->pair = pair;
	u->peer = &pair->end[1 - i];
	list_init(&u->rcvq);
	u->sndbuf = UNIX_SNDBUF;
	wait_queue_init(&u->wq);
	sleeplock_init(&u->readlock);
	u->ino = __atomic_fetch_add(&next_ino, 1, __ATOMIC_RELAXED);
}

int unix_stream_pair(struct file **sv0, struct file **sv1, unsigned int flags)
{
	struct unix_pair *pair = kzalloc(sizeof(*pair));

	if (!pair)
		return -ENOMEM;
	pair->lock = (struct spinlock)SPINLOCK_INIT;
	sock_init(pair, 0);
	sock_init(pair, 1);
	fs_count_add(FS_COUNT_SOCKETS, 2);
	*sv0 = file_alloc(&unix_stream_ops, O_RDWR | (flags & O_NONBLOCK), &pair->end[0]);
	if (!*sv0) {
		kfree(pair);
		fs_count_add(FS_COUNT_SOCKETS, -2);
		return -ENOMEM;
	}
	pair->refs = 1;
	*sv1 = file_alloc(&unix_stream_ops, O_RDWR | (flags & O_NONBLOCK), &pair->end[1]);
	if (!*sv1) {
		fput(*sv0); /* the only end: frees the pair */
		return -ENOMEM;
	}
	pair->refs = 2;
	return 0;
}

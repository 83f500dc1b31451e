/*
 * The futex system call: FUTEX_WAIT/WAKE, their _BITSET forms, REQUEUE
 * and CMP_REQUEUE, private and shared (keys and what is left out: see
 * futex.h). Waiters sit in a hash table of buckets, each a spinlock and a
 * FIFO list of struct futex_q living on the waiters' stacks.
 *
 * The ordering that makes it work (Linux's): a waiter reads the user word
 * with its bucket locked and queues itself before unlocking; a waker
 * changes the word first and then takes the bucket lock to wake. So
 * either the waiter sees the new value (-EAGAIN) or the waker finds it
 * queued, and no wake-up is lost.
 *
 * A waker takes the waiter off the queue, marks it woken and calls
 * wake_up_task, all under the bucket lock; the waiter always locks its
 * bucket once more before it returns, so it never leaves (and frees the
 * futex_q on its stack, or exits) while a waker still holds it.
 */
#include "proc/futex.h"

#include <arch/time.h>
#include <arch/uaccess.h>

#include "lib/list.h"
#include "lib/spinlock.h"
#include "mm/vm.h"
#include "proc/current.h"
#include "proc/process.h"
#include "proc/sys_time.h"
#include "proc/syscall.h"
#include "sched/task.h"
#include "sched/wait.h"
#include "time/realtime.h"

struct futex_bucket {
	struct spinlock lock;
	struct list_head waiters; /* struct futex_q by node, oldest first; all zero until first use */
};

struct futex_q {
	struct list_head node;
	struct futex_key key; /* changes on requeue */
	struct task *task;
	u32 bitset;		     /* wakes whose bitset shares a bit with it reach it */
	struct futex_bucket *bucket; /* where it is queued; changes only with both buckets locked */
	bool woken;		     /* taken off the queue by a waker */
};

static struct futex_bucket buckets[FUTEX_BUCKETS];

static struct futex_bucket *bucket_of(const struct futex_key *k)
{
	return &buckets[futex_hash(k)];
}

/* The table is plain zeroed data: a bucket's list head is set up at its first use, locked. */
static void bucket_ready(struct futex_bucket *b)
{
	if (!b->waiters.next)
		list_init(&b->waiters);
}

static unsigned long bucket_lock(struct futex_bucket *b)
{
	unsigned long flags = spin_lock_irqsave(&b->lock);

	bucket_ready(b);
	return flags;
}

static void bucket_unlock(struct futex_bucket *b, unsigned long flags)
{
	spin_unlock_irqrestore(&b->lock, flags);
}

/* Two buckets in address order (once if they are the same), interrupts off. */
static unsigned long double_bucket_lock(struct futex_bucket *a, struct futex_bucket *b)
{
	unsigned long flags = arch_irq_save();

	if (a > b) {
		struct futex_bucket *t = a;

		a = b;
		b = t;
	}
	spin_lock(&a->lock);
	bucket_ready(a);
	if (b != a) {
		spin_lock(&b->lock);
		bucket_ready(b);
	}
	return flags;
}

static void double_bucket_unlock(struct futex_bucket *a, struct futex_bucket *b, unsigned long flags)
{
	if (b != a)
		spin_unlock(&b->lock);
	spin_unlock(&a->lock);
	arch_irq_restore(flags);
}

/*
 * The key of the caller's word at uaddr: -EINVAL if misaligned, -EFAULT
 * outside user space. A shared key also needs the word to be there, as
 * Linux pins its page (a private one is only an address, so waking an
 * unmapped private word finds nobody and returns 0, as on Linux).
 */
static int futex_key_make(u32 *uaddr, bool shared, struct futex_key *key)
{
	u32 probe;

	if (!futex_addr_aligned((uintptr_t)uaddr))
		return -EINVAL;
	if (!access_ok(uaddr, sizeof(u32)))
		return -EFAULT;
	if (shared && copy_from_user(&probe, uaddr, sizeof(probe)))
		return -EFAULT;
	key->vm = current_process()->vm;
	key->addr = (uintptr_t)uaddr;
	key->shared = shared;
	if (shared) {
		const struct shmem *obj;
		u64 offset;

		if (vm_shared_offset(current_process()->vm, key->addr, &obj, &offset)) {
			key->vm = obj;
			key->addr = (uintptr_t)offset;
		}
	}
	return 0;
}

/*
 * Reads the user word with bucket(s) locked, as the ordering needs.
 * Interrupts are off there, so a page that is not present yet cannot be
 * made (copy_from_user gives -EFAULT at once); then the locks are
 * dropped, the word is read once with interrupts on (vm_fault makes the
 * page, or it is truly bad: -EFAULT) and the caller locks and tries
 * again. Returns 0 with the locks held, or -EFAULT without them.
 */
static int read_word_locked(u32 *uaddr, u32 *val, struct futex_bucket *a, struct futex_bucket *b,
			    unsigned long *flags)
{
	for (;;) {
		*flags = double_bucket_lock(a, b);
		if (copy_from_user(val, uaddr, sizeof(*val)) == 0)
			return 0;
		double_bucket_unlock(a, b, *flags);
		if (copy_from_user(val, uaddr, sizeof(*val)))
			return -EFAULT;
	}
}

/* Bucket locked: q leaves the queue, woken. Its task cannot go before we unlock (see the top). */
static void futex_q_wake(struct futex_q *q)
{
	list_del(&q->node);
	WRITE_ONCE(q->woken, true);
	wake_up_task(q->task, false);
}

/*
 * Bucket locked: wakes waiters on key whose bitset meets bitset, oldest
 * first. At least one is woken even for n <= 0, as Linux does.
 */
static int wake_locked(struct futex_bucket *b, const struct futex_key *key, int n, u32 bitset)
{
	struct list_head *pos, *tmp;
	int woken = 0;

	list_for_each_safe (pos, tmp, &b->waiters) {
		struct futex_q *q = list_entry(pos, struct futex_q, node);

		if (!futex_key_equal(&q->key, key) || !(q->bitset & bitset))
			continue;
		futex_q_wake(q);
		if (++woken >= n)
			break;
	}
	return woken;
}

/*
 * Takes q off its queue unless a waker already did. True if it was still
 * queued (nobody woke it). Locking the bucket also waits out a waker that
 * is still in the middle of waking q.
 */
static bool futex_unqueue(struct futex_q *q)
{
	for (;;) {
		struct futex_bucket *b = READ_ONCE(q->bucket);
		unsigned long flags = bucket_lock(b);
		bool queued;

		if (b != READ_ONCE(q->bucket)) { /* requeued meanwhile: follow it */
			bucket_unlock(b, flags);
			continue;
		}
		queued = !q->woken;
		if (queued)
			list_del(&q->node);
		bucket_unlock(b, flags);
		return queued;
	}
}

/*
 * FUTEX_WAIT(_BITSET): sleeps if *uaddr == val until a wake-up whose
 * bitset meets bitset, the deadline (kernel clock; timed only) or a
 * signal. A signal gives -ERESTARTSYS without a timeout (restarted under
 * SA_RESTART), -EINTR with one, as Linux (whose restart block for timed
 * waits ends in -EINTR whenever a handler runs).
 */
static long futex_wait(bool shared, u32 *uaddr, u32 val, bool timed, u64 deadline, u32 bitset)
{
	struct futex_q q = { .task = current_task(), .bitset = bitset };
	struct wait_timer timer;
	struct futex_bucket *b;
	unsigned long flags;
	u32 cur;
	long ret;

	if (!bitset)
		return -EINVAL;
	ret = futex_key_make(uaddr, shared, &q.key);
	if (ret)
		return ret;
	b = bucket_of(&q.key);
	if (read_word_locked(uaddr, &cur, b, b, &flags))
		return -EFAULT;
	if (cur != val) {
		bucket_unlock(b, flags);
		return -EAGAIN;
	}
	q.bucket = b;
	list_add_tail(&q.node, &b->waiters);
	bucket_unlock(b, flags);

	if (timed)
		wait_timer_arm(&timer, deadline);
	for (;;) {
		/* State, then tests: whoever acts after a test finds us asleep and wakes us. */
		WRITE_ONCE(q.task->state, TASK_INTERRUPTIBLE);
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		if (READ_ONCE(q.woken)) {
			ret = 0;
			break;
		}
		if (timed && (arch_clock_ns() >= deadline || wait_timer_fired(&timer))) {
			ret = -ETIMEDOUT;
			break;
		}
		if (current_signal_pending()) {
			ret = timed ? -EINTR : -ERESTARTSYS;
			break;
		}
		schedule();
	}
	WRITE_ONCE(q.task->state, TASK_RUNNING);
	if (timed)
		wait_timer_disarm(&timer);
	/* A wake-up that raced with the timeout or the signal wins: the waker counted us. */
	if (!futex_unqueue(&q))
		ret = 0;
	return ret;
}

static long futex_wake(bool shared, u32 *uaddr, int n, u32 bitset)
{
	struct futex_key key;
	struct futex_bucket *b;
	unsigned long flags;
	int err, woken;

	if (!bitset)
		return -EINVAL;
	err = futex_key_make(uaddr, shared, &key);
	if (err)
		return err;
	b = bucket_of(&key);
	flags = bucket_lock(b);
	woken = wake_locked(b, &key, n, bitset);
	bucket_unlock(b, flags);
	return woken;
}

int futex_wake_address(struct vm *vm, u32 *uaddr, int n)
{
	struct futex_key key = { .vm = vm, .addr = (uintptr_t)uaddr, .shared = true };
	struct futex_bucket *b;
	const struct shmem *obj;
	unsigned long flags;
	u64 offset;
	int woken;

	if (!futex_addr_aligned(key.addr))
		return 0;
	if (vm_shared_offset(vm, key.addr, &obj, &offset)) {
		key.vm = obj;
		key.addr = (uintptr_t)offset;
	}
	b = bucket_of(&key);
	flags = bucket_lock(b);
	woken = wake_locked(b, &key, n, FUTEX_BITSET_MATCH_ANY);
	bucket_unlock(b, flags);
	return woken;
}

/*
 * FUTEX_REQUEUE and FUTEX_CMP_REQUEUE (cmpval set: *uaddr must still
 * equal it, else -EAGAIN): wakes up to nr_wake waiters of uaddr and moves
 * up to nr_requeue of the rest to uaddr2, where they wait on as if they
 * had called FUTEX_WAIT there. Returns how many were woken or moved.
 */
static long futex_requeue(bool shared, u32 *uaddr, u32 *uaddr2, int nr_wake, int nr_requeue,
			  const u32 *cmpval)
{
	struct futex_key k1, k2;
	struct futex_bucket *b1, *b2;
	struct list_head *pos, *tmp;
	unsigned long flags;
	int err, woken = 0, moved = 0;
	u32 cur;

	if (nr_wake < 0 || nr_requeue < 0)
		return -EINVAL;
	err = futex_key_make(uaddr, shared, &k1);
	if (!err)
		err = futex_key_make(uaddr2, shared, &k2);
	if (err)
		return err;
	b1 = bucket_of(&k1);
	b2 = bucket_of(&k2);
	if (cmpval) {
		if (read_word_locked(uaddr, &cur, b1, b2, &flags))
			return -EFAULT;
		if (cur != *cmpval) {
			double_bucket_unlock(b1, b2, flags);
			return -EAGAIN;
		}
	} else {
		flags = double_bucket_lock(b1, b2);
	}
	list_for_each_safe (pos, tmp, &b1->waiters) {
		struct futex_q *q = list_entry(pos, struct futex_q, node);

		if (!futex_key_equal(&q->key, &k1))
			continue;
		if (woken < nr_wake) {
			futex_q_wake(q);
			woken++;
			continue;
		}
		if (moved >= nr_requeue)
			break;
		q->key = k2;
		if (b2 != b1) {
			list_del(&q->node);
			list_add_tail(&q->node, &b2->waiters);
			WRITE_ONCE(q->bucket, b2);
		}
		moved++;
	}
	double_bucket_unlock(b1, b2, flags);
	return woken + moved;
}

/*
 * futex(uaddr, op, val, timeout or val2, uaddr2, val3). As on Linux, the
 * timeout is read and checked before the operation is (-EFAULT,
 * -EINVAL); FUTEX_WAIT's is relative, FUTEX_WAIT_BITSET's an absolute
 * CLOCK_MONOTONIC time (CLOCK_REALTIME with FUTEX_CLOCK_REALTIME). For
 * the requeue operations the timeout argument is the number val2.
 */
static long sys_futex(u32 *uaddr, int op, u32 val, const struct k_timespec *utime, u32 *uaddr2,
		      u32 val3)
{
	struct futex_op fop;
	int err = futex_decode_op(op, &fop);
	u32 val2 = (u32)(uintptr_t)utime;
	bool timed = false;
	u64 deadline = 0;

	if (utime && futex_cmd_has_timeout(fop.cmd)) {
		struct k_timespec ts;
		u64 t;

		if (copy_from_user(&ts, utime, sizeof(ts)))
			return -EFAULT;
		if (!timespec_valid(&ts))
			return -EINVAL;
		t = timespec_to_ns(&ts);
		if (fop.cmd == FUTEX_WAIT)
			deadline = deadline_after(arch_clock_ns(), t);
		else if (fop.clock_realtime)
			deadline = realtime_to_clock(t, clock_realtime_offset_ns());
		else
			deadline = t;
		timed = true;
	}
	if (err)
		return err;
	switch (fop.cmd) {
	case FUTEX_WAIT:
		return futex_wait(fop.shared, uaddr, val, timed, deadline, FUTEX_BITSET_MATCH_ANY);
	case FUTEX_WAIT_BITSET:
		return futex_wait(fop.shared, uaddr, val, timed, deadline, val3);
	case FUTEX_WAKE:
		return futex_wake(fop.shared, uaddr, (int)val, FUTEX_BITSET_MATCH_ANY);
	case FUTEX_WAKE_BITSET:
		return futex_wake(fop.shared, uaddr, (int)val, val3);
	case FUTEX_REQUEUE:
		return futex_requeue(fop.shared, uaddr, uaddr2, (int)val, (int)val2, NULL);
	case FUTEX_CMP_REQUEUE:
		return futex_requeue(fop.shared, uaddr, uaddr2, (int)val, (int)val2, &val3);
	default:
		return -ENOSYS; /* futex_decode_op let nothing else through */
	}
}
SYSCALL_DEFINE6(futex, u32 *, int, u32, const struct k_timespec *, u32 *, u32);

/*
 * Futexes (futex.c): user threads sleep on a 32-bit word of their
 * address space until another thread wakes that word, the Linux way that
 * musl's mutexes, condition variables, joins and barriers are built on.
 *
 * A futex is keyed by (address space, address, shared?): Linux keys a
 * private futex by (mm, address) and a shared one on private memory by
 * (mm, address) with a "shared" mark, so the two kinds never match each
 * other; this kernel does the same. Linux keys a shared futex on a
 * MAP_SHARED mapping by the page it maps, so processes can share it;
 * Fulcrum has no MAP_SHARED memory, so there is nothing to share and no
 * such key.
 *
 * The operation decoding and the key hash are pure, here, for the host
 * unit tests.
 */
#ifndef FULCRUM_PROC_FUTEX_H
#define FULCRUM_PROC_FUTEX_H

#include "lib/errno.h"
#include "lib/types.h"

struct vm;

/*
 * Wakes up to n threads waiting on the shared futex at uaddr in vm; the
 * exit path calls it for CLONE_CHILD_CLEARTID after writing 0 there, as
 * Linux's mm_release does (a shared wake: pthread_join's waiters and
 * musl's thread-list lock wait that way). Touches no user memory; takes
 * only the futex bucket's spinlock, so any context will do. Returns how
 * many were woken.
 */
int futex_wake_address(struct vm *vm, u32 *uaddr, int n);

/* ---------------------------------------------------------------- the ABI */

#define FUTEX_WAIT	      0
#define FUTEX_WAKE	      1
#define FUTEX_FD	      2
#define FUTEX_REQUEUE	      3
#define FUTEX_CMP_REQUEUE     4
#define FUTEX_WAKE_OP	      5
#define FUTEX_LOCK_PI	      6
#define FUTEX_UNLOCK_PI	      7
#define FUTEX_TRYLOCK_PI      8
#define FUTEX_WAIT_BITSET     9
#define FUTEX_WAKE_BITSET     10
#define FUTEX_WAIT_REQUEUE_PI 11
#define FUTEX_CMP_REQUEUE_PI  12
#define FUTEX_LOCK_PI2	      13

#define FUTEX_PRIVATE_FLAG   128
#define FUTEX_CLOCK_REALTIME 256
#define FUTEX_CMD_MASK	     (~(FUTEX_PRIVATE_FLAG | FUTEX_CLOCK_REALTIME))

#define FUTEX_BITSET_MATCH_ANY 0xffffffffU

/* An operation word taken apart. */
struct futex_op {
	int cmd;	     /* FUTEX_WAIT ... */
	bool shared;	     /* no FUTEX_PRIVATE_FLAG */
	bool clock_realtime; /* FUTEX_CLOCK_REALTIME: an absolute timeout is on CLOCK_REALTIME */
};

/* Whether cmd takes its fourth argument as a timeout (else it is a number, val2). */
static inline bool futex_cmd_has_timeout(int cmd)
{
	return cmd == FUTEX_WAIT || cmd == FUTEX_WAIT_BITSET || cmd == FUTEX_LOCK_PI ||
	       cmd == FUTEX_LOCK_PI2 || cmd == FUTEX_WAIT_REQUEUE_PI;
}

/*
 * Decodes op: 0, or -ENOSYS as Linux gives it for an unknown command or
 * FUTEX_CLOCK_REALTIME on a command without an absolute timeout (Linux
 * 4.5 to 5.x also took it on FUTEX_WAIT; current kernels refuse it, as
 * here). The operations
 * this kernel does not implement are -ENOSYS too: the priority-
 * inheritance family (Linux has it; musl uses it only for PI mutexes),
 * FUTEX_WAKE_OP (needs an atomic operation on user memory, which the
 * uaccess layer does not offer; glibc uses it, musl does not) and
 * FUTEX_FD (gone from Linux since 2.6.26).
 */
static inline int futex_decode_op(int op, struct futex_op *out)
{
	out->cmd = op & FUTEX_CMD_MASK;
	out->shared = !(op & FUTEX_PRIVATE_FLAG);
	out->clock_realtime = op & FUTEX_CLOCK_REALTIME;
	if (out->clock_realtime && out->cmd != FUTEX_WAIT_BITSET &&
	    out->cmd != FUTEX_WAIT_REQUEUE_PI && out->cmd != FUTEX_LOCK_PI2)
		return -ENOSYS;
	switch (out->cmd) {
	case FUTEX_WAIT:
	case FUTEX_WAKE:
	case FUTEX_REQUEUE:
	case FUTEX_CMP_REQUEUE:
	case FUTEX_WAIT_BITSET:
	case FUTEX_WAKE_BITSET:
		return 0;
	default:
		return -ENOSYS;
	}
}

/* ---------------------------------------------------------------- keys */

#define FUTEX_HASH_BITS 8
#define FUTEX_BUCKETS	(1U << FUTEX_HASH_BITS)

struct futex_key {
	/*
	 * An identity, never dereferenced: the address space, with addr the
	 * word's user address (4-byte aligned); or, for a shared word in
	 * shared memory, the struct shmem, with addr the offset in it, so
	 * processes mapping it anywhere meet on the same key.
	 */
	const void *vm;
	uintptr_t addr;
	bool shared;
};

static inline bool futex_key_equal(const struct futex_key *a, const struct futex_key *b)
{
	return a->vm == b->vm && a->addr == b->addr && a->shared == b->shared;
}

/* A futex word must be naturally aligned (Linux: -EINVAL otherwise). */
static inline bool futex_addr_aligned(uintptr_t addr)
{
	return (addr & 3) == 0;
}

/*
 * The bucket of a key: a multiplicative hash (Fibonacci hashing, the
 * golden ratio's 64-bit fraction) of the address mixed with the address
 * space, top bits kept. Neighbouring words (a mutex and its condition
 * variable) land in different buckets; the same word always in the same.
 */
static inline u32 futex_hash(const struct futex_key *k)
{
	u64 x = (u64)k->addr ^ (((u64)(uintptr_t)k->vm >> 4) * 0x9e3779b97f4a7c15ULL) ^
		(u64)k->shared;

	x *= 0x9e3779b97f4a7c15ULL;
	return (u32)(x >> (64 - FUTEX_HASH_BITS));
}

#endif

/*
 * Host tests of the pure parts of futexes (kernel/proc/futex.h): the
 * operation word's decoding with Linux's -ENOSYS cases, which commands
 * take a timeout, alignment, and the key hash (in range, stable, spread).
 */
#include <string.h>

#include "proc/futex.h"
#include "unit.h"

START_TEST(test_decode_supported)
{
	static const int cmds[] = { FUTEX_WAIT,	       FUTEX_WAKE,	  FUTEX_REQUEUE,
				    FUTEX_CMP_REQUEUE, FUTEX_WAIT_BITSET, FUTEX_WAKE_BITSET };
	struct futex_op op;

	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		ck_assert_int_eq(futex_decode_op(cmds[i], &op), 0);
		ck_assert_int_eq(op.cmd, cmds[i]);
		ck_assert(op.shared);
		ck_assert(!op.clock_realtime);
		ck_assert_int_eq(futex_decode_op(cmds[i] | FUTEX_PRIVATE_FLAG, &op), 0);
		ck_assert_int_eq(op.cmd, cmds[i]);
		ck_assert(!op.shared);
	}
}
END_TEST

START_TEST(test_decode_enosys)
{
	static const int cmds[] = { FUTEX_FD,
				    FUTEX_WAKE_OP,
				    FUTEX_LOCK_PI,
				    FUTEX_UNLOCK_PI,
				    FUTEX_TRYLOCK_PI,
				    FUTEX_WAIT_REQUEUE_PI,
				    FUTEX_CMP_REQUEUE_PI,
				    FUTEX_LOCK_PI2,
				    14,
				    99,
				    127 };
	struct futex_op op;

	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		ck_assert_int_eq(futex_decode_op(cmds[i], &op), -ENOSYS);
		ck_assert_int_eq(futex_decode_op(cmds[i] | FUTEX_PRIVATE_FLAG, &op), -ENOSYS);
	}
	/* t_thread's case: op 99 */
	ck_assert_int_eq(futex_decode_op(99, &op), -ENOSYS);
	/* unknown high bits are part of the command, as on Linux */
	ck_assert_int_eq(futex_decode_op(FUTEX_WAIT | 0x1000, &op), -ENOSYS);
}
END_TEST

START_TEST(test_decode_clock_realtime)
{
	struct futex_op op;

	/* allowed where the timeout is absolute */
	ck_assert_int_eq(futex_decode_op(FUTEX_WAIT_BITSET | FUTEX_CLOCK_REALTIME, &op), 0);
	ck_assert(op.clock_realtime);
	ck_assert_int_eq(op.cmd, FUTEX_WAIT_BITSET);
	ck_assert_int_eq(futex_decode_op(FUTEX_WAIT_BITSET | FUTEX_CLOCK_REALTIME | FUTEX_PRIVATE_FLAG,
					 &op),
			 0);
	ck_assert(op.clock_realtime && !op.shared);
	/* and -ENOSYS anywhere else, FUTEX_WAIT included (Linux 6.x; 4.5 to 5.x took it) */
	ck_assert_int_eq(futex_decode_op(FUTEX_WAIT | FUTEX_CLOCK_REALTIME, &op), -ENOSYS);
	ck_assert_int_eq(futex_decode_op(FUTEX_WAIT | FUTEX_CLOCK_REALTIME | FUTEX_PRIVATE_FLAG, &op),
			 -ENOSYS);
	ck_assert_int_eq(futex_decode_op(FUTEX_WAKE | FUTEX_CLOCK_REALTIME, &op), -ENOSYS);
	ck_assert_int_eq(futex_decode_op(FUTEX_WAKE_BITSET | FUTEX_CLOCK_REALTIME, &op), -ENOSYS);
	ck_assert_int_eq(futex_decode_op(FUTEX_REQUEUE | FUTEX_CLOCK_REALTIME, &op), -ENOSYS);
	ck_assert_int_eq(futex_decode_op(FUTEX_CMP_REQUEUE | FUTEX_CLOCK_REALTIME, &op), -ENOSYS);
}
END_TEST

START_TEST(test_timeout_commands)
{
	ck_assert(futex_cmd_has_timeout(FUTEX_WAIT));
	ck_assert(futex_cmd_has_timeout(FUTEX_WAIT_BITSET));
	ck_assert(futex_cmd_has_timeout(FUTEX_LOCK_PI));
	ck_assert(futex_cmd_has_timeout(FUTEX_WAIT_REQUEUE_PI));
	/* the requeues and FUTEX_WAKE_OP take a number (val2) there */
	ck_assert(!futex_cmd_has_timeout(FUTEX_WAKE));
	ck_assert(!futex_cmd_has_timeout(FUTEX_REQUEUE));
	ck_assert(!futex_cmd_has_timeout(FUTEX_CMP_REQUEUE));
	ck_assert(!futex_cmd_has_timeout(FUTEX_WAKE_OP));
	ck_assert(!futex_cmd_has_timeout(FUTEX_WAKE_BITSET));
}
END_TEST

START_TEST(test_alignment)
{
	ck_assert(futex_addr_aligned(0x1000));
	ck_assert(futex_addr_aligned(0x1004));
	ck_assert(!futex_addr_aligned(0x1001));
	ck_assert(!futex_addr_aligned(0x1002));
	ck_assert(!futex_addr_aligned(0x1003));
}
END_TEST

static struct futex_key key(uintptr_t vm, uintptr_t addr, bool shared)
{
	struct futex_key k = { (const struct vm *)vm, addr, shared };

	return k;
}

START_TEST(test_key_equal)
{
	struct futex_key a = key(0xffff800001000000, 0x401000, false);
	struct futex_key b = a;

	ck_assert(futex_key_equal(&a, &b));
	b.shared = true; /* Linux: a private and a shared key never match */
	ck_assert(!futex_key_equal(&a, &b));
	b = a;
	b.addr += 4;
	ck_assert(!futex_key_equal(&a, &b));
	b = a;
	b.vm = (const struct vm *)0xffff800001000100;
	ck_assert(!futex_key_equal(&a, &b));
}
END_TEST

START_TEST(test_hash_range_and_stability)
{
	for (uintptr_t addr = 0x10000; addr < 0x10000 + 4 * 10000; addr += 4) {
		struct futex_key k = key(0xffff800012345000, addr, addr & 8);
		u32 h = futex_hash(&k);

		ck_assert_uint_lt(h, FUTEX_BUCKETS);
		ck_assert_uint_eq(futex_hash(&k), h);
	}
}
END_TEST

/* Max bucket load of n keys made by make(i): spread means close to n / FUTEX_BUCKETS. */
static u32 max_load(u32 n, struct futex_key (*make)(u32 i))
{
	u32 load[FUTEX_BUCKETS];
	u32 max = 0;

	memset(load, 0, sizeof(load));
	for (u32 i = 0; i < n; i++) {
		struct futex_key k = make(i);
		u32 h = futex_hash(&k);

		if (++load[h] > max)
			max = load[h];
	}
	return max;
}

static struct futex_key consecutive_words(u32 i)
{
	return key(0xffff800002000000, 0x7ffff0000000 + 4 * (uintptr_t)i, false);
}

static struct futex_key page_strided(u32 i)
{
	return key(0xffff800002000000, 0x400000 + 4096 * (uintptr_t)i, true);
}

/* The same address in many address spaces (every process's musl at the same place). */
static struct futex_key same_addr_many_vms(u32 i)
{
	return key(0xffff800002000000 + 0x240 * (uintptr_t)i, 0x404040, false);
}

/*
 * 16 keys a bucket on average; uniform hashing keeps the fullest well
 * under 3x that. A hash that ignored the low address bits or the address
 * space would put hundreds in one.
 */
#define KEYS	     (16 * FUTEX_BUCKETS)
#define SPREAD_LIMIT (3 * KEYS / FUTEX_BUCKETS)

START_TEST(test_hash_spread)
{
	ck_assert_uint_le(max_load(KEYS, consecutive_words), SPREAD_LIMIT);
	ck_assert_uint_le(max_load(KEYS, page_strided), SPREAD_LIMIT);
	ck_assert_uint_le(max_load(KEYS, same_addr_many_vms), SPREAD_LIMIT);
}
END_TEST

/* A mutex and its neighbour words (condition variable, waiter count) rarely share a bucket. */
START_TEST(test_hash_neighbours)
{
	u32 same = 0, pairs = 0;

	for (uintptr_t base = 0x500000; base < 0x500000 + 4096 * 64; base += 64) {
		struct futex_key a = key(0xffff800003000000, base, false);

		for (uintptr_t off = 4; off < 64; off += 4) {
			struct futex_key b = key(0xffff800003000000, base + off, false);

			same += futex_hash(&a) == futex_hash(&b);
			pairs++;
		}
	}
	/* chance is 1 in FUTEX_BUCKETS; allow four times that */
	ck_assert_uint_le(same, 4 * pairs / FUTEX_BUCKETS);
}
END_TEST

Suite *futex_suite(void)
{
	Suite *s = suite_create("futex");
	TCase *tc = tcase_create("futex");

	tcase_add_test(tc, test_decode_supported);
	tcase_add_test(tc, test_decode_enosys);
	tcase_add_test(tc, test_decode_clock_realtime);
	tcase_add_test(tc, test_timeout_commands);
	tcase_add_test(tc, test_alignment);
	tcase_add_test(tc, test_key_equal);
	tcase_add_test(tc, test_hash_range_and_stability);
	tcase_add_test(tc, test_hash_spread);
	tcase_add_test(tc, test_hash_neighbours);
	suite_add_tcase(s, tc);
	return s;
}

/*
 * Host tests of select, pselect6 and ppoll without sleeping: select's
 * descriptor sets, the timeout rules (validity, select's timeval as Linux
 * reads it), readiness per set over pipes and
 * sockets, EBADF/EINVAL/EFAULT in Linux's order, nfds cut to the table's
 * size, and the signal mask put in force and taken back.
 */
#include <string.h>

#include "fake_current.h"
#include "fs/fdtable.h"
#include "fs/file.h"
#include "fs/open.h"
#include "fs/sys_fs.h"
#include "fs_fixture.h"
#include "ipc/pipe.h"
#include "ipc/select.h"
#include "ipc/socket.h"
#include "lib/errno.h"
#include "unit.h"

START_TEST(test_fdset_bits)
{
	u64 set[4] = { 0 };

	ck_assert_uint_eq(fdset_bytes(0), 0);
	ck_assert_uint_eq(fdset_bytes(1), 8);
	ck_assert_uint_eq(fdset_bytes(64), 8);
	ck_assert_uint_eq(fdset_bytes(65), 16);
	ck_assert_uint_eq(fdset_bytes(1024), 128);
	fdset_set(set, 0);
	fdset_set(set, 63);
	fdset_set(set, 64);
	fdset_set(set, 200);
	ck_assert_uint_eq(set[0], 0x8000000000000001ULL);
	ck_assert_uint_eq(set[1], 1);
	ck_assert_uint_eq(set[3], 1ULL << 8);
	ck_assert(fdset_isset(set, 200));
	ck_assert(!fdset_isset(set, 201));
	ck_assert(!fdset_isset(NULL, 0));
}
END_TEST

START_TEST(test_timeouts)
{
	s64 ns;

	ck_assert_int_eq(select_timeout_ns(0, 0, &ns), 0);
	ck_assert_int_eq(ns, 0);
	ck_assert_int_eq(select_timeout_ns(2, 5, &ns), 0);
	ck_assert_int_eq(ns, 2000000005LL);
	ck_assert_int_eq(select_timeout_ns(-1, 0, &ns), -EINVAL);
	ck_assert_int_eq(select_timeout_ns(0, -1, &ns), -EINVAL);
	ck_assert_int_eq(select_timeout_ns(0, 1000000000, &ns), -EINVAL);
	ck_assert_int_eq(select_timeout_ns(0x7fffffffffffffffLL, 999999999, &ns), 0);
	ck_assert_int_eq(ns, 0x7fffffffffffffffLL); /* saturated: as good as forever */
	/* select: whole seconds of tv_usec move to tv_sec first, as Linux does. */
	ck_assert_int_eq(select_timeval_ns(0, 1500000, &ns), 0);
	ck_assert_int_eq(ns, 1500000000LL);
	ck_assert_int_eq(select_timeval_ns(5, -1000000, &ns), 0);
	ck_assert_int_eq(ns, 4000000000LL);
	ck_assert_int_eq(select_timeval_ns(-1, 2000000, &ns), 0);
	ck_assert_int_eq(ns, 1000000000LL);
	ck_assert_int_eq(select_timeval_ns(0, -1, &ns), -EINVAL);
	ck_assert_int_eq(select_timeval_ns(-1, 0, &ns), -EINVAL);
}
END_TEST

START_TEST(test_select_files)
{
	u64 in[1] = { 0 }, out[1] = { 0 }, ex[1] = { 0 }, rin[1], rout[1], rex[1];
	int p[2], s[2];

	ck_assert_int_eq(sys_pipe(p), 0);				 /* 0, 1 */
	ck_assert_int_eq(sys_socketpair(AF_UNIX, SOCK_STREAM, 0, s), 0); /* 2, 3 */
	fdset_set(in, p[0]);
	fdset_set(out, p[1]);
	fdset_set(ex, p[0]);
	fdset_set(in, s[0]);
	fdset_set(out, s[0]);
	ck_assert_int_eq(select_files(4, in, out, ex, rin, rout, rex, 0), 2);
	ck_assert_uint_eq(rin[0], 0);
	ck_assert_uint_eq(rout[0], (1u << p[1]) | (1u << s[0]));
	ck_assert_uint_eq(rex[0], 0);
	ck_assert_int_eq(sys_write(p[1], "x", 1), 1);
	ck_assert_int_eq(sys_write(s[1], "y", 1), 1);
	ck_assert_int_eq(select_files(4, in, out, ex, rin, rout, rex, 0), 4);
	ck_assert_uint_eq(rin[0], (1u << p[0]) | (1u << s[0]));
	/* Sets left out are not looked at; descriptors past n neither. */
	ck_assert_int_eq(select_files(4, in, NULL, NULL, rin, NULL, NULL, 0), 2);
	ck_assert_int_eq(select_files(1, in, out, ex, rin, rout, rex, 0), 1);
	ck_assert_uint_eq(rout[0], 0);
	/* A hang-up alone does not make a descriptor writable; an error does. */
	ck_assert_int_eq(sys_close(p[0]), 0);
	in[0] = out[0] = ex[0] = 0;
	fdset_set(out, p[1]);
	ck_assert_int_eq(select_files(4, in, out, ex, rin, rout, rex, 0), 1); /* EPIPE's POLLERR */
	ck_assert_int_eq(sys_shutdown(s[1], SHUT_RDWR), 0);
	in[0] = out[0] = 0;
	fdset_set(in, s[1]);
	ck_assert_int_eq(select_files(4, in, NULL, NULL, rin, NULL, NULL, 0), 1);
	/* A descriptor that is not open: EBADF, whatever else is ready. */
	fdset_set(in, p[0]);
	ck_assert_int_eq(select_files(4, in, out, NULL, rin, rout, NULL, 0), -EBADF);
	sys_close(p[1]);
	sys_close(s[0]);
	sys_close(s[1]);
}
END_TEST

START_TEST(test_sys_select)
{
	u64 in[2] = { 0 }, big[128];
	struct k_timeval tv = { 0, 0 };
	int p[2];

	ck_assert_int_eq(sys_pipe(p), 0);
	ck_assert_int_eq(sys_write(p[1], "x", 1), 1);
	fdset_set(in, p[0]);
	fdset_set(in, p[1]);
	ck_assert_int_eq(sys_select(2, in, NULL, NULL, &tv), 1);
	ck_assert_uint_eq(in[0], 1u << p[0]);
	/* A zero timeout is not written back (t_files checks the time left under a real clock). */
	ck_assert_int_eq(tv.tv_sec, 0);
	ck_assert_int_eq(tv.tv_usec, 0);
	/* nfds past the table's size is cut to it: only 8 bytes are read and written. */
	memset(big, 0, sizeof(big));
	fdset_set(big, p[0]);
	fdset_set(big, 700);
	ck_assert_int_eq(sys_select(1000, big, NULL, NULL, &(struct k_timeval){ 0, 0 }), 1);
	ck_assert_uint_eq(big[0], 1u << p[0]);
	ck_assert_uint_eq(big[700 / 64], 1ULL << (700 % 64)); /* untouched */
	/* Errors: n, the timeval, a descriptor, a pointer; a failed call leaves the sets. */
	ck_assert_int_eq(sys_select(-1, NULL, NULL, NULL, NULL), -EINVAL);
	ck_assert_int_eq(sys_select(0, NULL, NULL, NULL, &(struct k_timeval){ 0, -1 }), -EINVAL);
	ck_assert_int_eq(sys_select(0, NULL, NULL, NULL, BAD_UPTR), -EFAULT);
	in[0] = 1u << 9;
	ck_assert_int_eq(sys_select(10, in, NULL, NULL, &(struct k_timeval){ 0, 0 }), -EBADF);
	ck_assert_uint_eq(in[0], 1u << 9);
	ck_assert_int_eq(sys_select(10, BAD_UPTR, NULL, NULL, NULL), -EFAULT);
	/* n = 0 with a zero timeout: nothing to wait for, 0 at once. */
	ck_assert_int_eq(sys_select(0, NULL, NULL, NULL, &(struct k_timeval){ 0, 0 }), 0);
	sys_close(p[0]);
	sys_close(p[1]);
}
END_TEST

START_TEST(test_ppoll_pselect6_masks)
{
	struct pollfd fds[2];
	struct k_timespec ts = { 0, 0 };
	u64 mask = 1ULL << 9, in[1] = { 0 };
	struct sigset_argpack pack = { &mask, 8 }, bad = { &mask, 16 };
	int p[2];

	ck_assert_int_eq(sys_pipe(p), 0);
	fds[0] = (struct pollfd){ .fd = p[0], .events = POLLIN };
	fds[1] = (struct pollfd){ .fd = p[1], .events = POLLOUT };
	ck_assert_int_eq(sys_ppoll(fds, 2, &ts, &mask, 8), 1);
	ck_assert_int_eq(fds[1].revents, POLLOUT);
	ck_assert_uint_eq(fake_sigmask, mask); /* in force during the call */
	ck_assert(!fake_sigmask_set);	       /* and taken back */
	ck_assert_int_eq(fake_sigmask_ends, 1);
	/* Checked before the mask is touched: the timeout, the mask's size, the pointers. */
	fake_sigmask = 0;
	ck_assert_int_eq(sys_ppoll(fds, 2, &ts, &mask, 4), -EINVAL);
	ck_assert_int_eq(sys_ppoll(fds, 2, &(struct k_timespec){ 0, -5 }, &mask, 8), -EINVAL);
	ck_assert_int_eq(sys_ppoll(fds, 2, BAD_UPTR, &mask, 8), -EFAULT);
	ck_assert_int_eq(sys_ppoll(fds, 2, &ts, BAD_UPTR, 8), -EFAULT);
	ck_assert_uint_eq(fake_sigmask, 0);
	ck_assert_int_eq(sys_ppoll(fds, 2, &ts, NULL, 99), 1); /* no mask: no size check */
	ck_assert_int_eq(sys_ppoll(fds, FD_MAX + 1, &ts, NULL, 8), -EINVAL);
	ck_assert(!fake_sigmask_set);
	/* pselect6 reads its mask through the argument pack. */
	fdset_set(in, p[1]);
	ck_assert_int_eq(sys_pselect6(2, NULL, in, NULL, &ts, &pack), 1);
	ck_assert_uint_eq(fake_sigmask, mask);
	ck_assert(!fake_sigmask_set);
	ck_assert_int_eq(sys_pselect6(2, NULL, in, NULL, &ts, &bad), -EINVAL);
	ck_assert_int_eq(sys_pselect6(2, NULL, in, NULL, &ts, BAD_UPTR), -EFAULT);
	ck_assert_int_eq(sys_pselect6(2, NULL, in, NULL, &(struct k_timespec){ -1, 0 }, NULL),
			 -EINVAL);
	ck_assert_int_eq(sys_pselect6(2, NULL, in, NULL, &ts, NULL), 1);
	sys_close(p[0]);
	sys_close(p[1]);
}
END_TEST

Suite *fs_select_suite(void)
{
	Suite *s = suite_create("fs_select");
	TCase *pure = tcase_create("rules");
	TCase *calls = tcase_create("calls");

	tcase_add_test(pure, test_fdset_bits);
	tcase_add_test(pure, test_timeouts);
	suite_add_tcase(s, pure);
	tcase_add_checked_fixture(calls, fs_setup, fs_teardown);
	tcase_add_test(calls, test_select_files);
	tcase_add_test(calls, test_sys_select);
	tcase_add_test(calls, test_ppoll_pselect6_masks);
	suite_add_tcase(s, calls);
	return s;
}

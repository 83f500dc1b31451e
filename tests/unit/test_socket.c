/*
 * Host tests of AF_UNIX stream socket pairs: socketpair's checks in
 * Linux's order, send/recv in both directions, message boundaries that
 * reads cross, the send buffer's true-size accounting and its quarter
 * threshold, MSG_DONTWAIT/PEEK/WAITALL/NOSIGNAL, shutdown in each
 * direction, a closing peer (EOF, EPIPE + SIGPIPE, ECONNRESET), poll
 * masks, and the sync-hint wake-ups on the scheduler simulation.
 */
#include <string.h>

#include "fake_current.h"
#include "fs/fdtable.h"
#include "fs/file.h"
#include "fs/open.h"
#include "fs/iov_iter.h"
#include "fs/sys_fs.h"
#include "fs_fixture.h"
#include "ipc/pipe.h"
#include "ipc/poll.h"
#include "ipc/socket.h"
#include "lib/errno.h"
#include "sched_sim.h"
#include "unit.h"

static int a, b;
static char big[300000];
static char out[sizeof(big)];

static void setup(void)
{
	int sv[2];

	fs_setup();
	ck_assert_int_eq(sys_socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv), 0);
	a = sv[0];
	b = sv[1];
	for (size_t i = 0; i < sizeof(big); i++)
		big[i] = (char)(i * 13 + i / 509);
}

static long wmem(int fd)
{
	struct file *f = fget(fd);
	long n = unix_stream_wmem(f);

	fput(f);
	return n;
}

static unsigned int poll_fd(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN | POLLOUT | POLLRDHUP };

	ck_assert_int_ge(sys_poll(&p, 1, 0), 0);
	return (unsigned short)p.revents;
}

static long snd(int fd, const void *buf, size_t n, int flags)
{
	return sys_sendto(fd, buf, n, flags, NULL, 0);
}

static long rcv(int fd, void *buf, size_t n, int flags)
{
	return sys_recvfrom(fd, buf, n, flags, NULL, NULL);
}

START_TEST(test_socketpair_checks)
{
	int sv[2] = { -1, -1 };

	ck_assert_int_eq(sys_socketpair(AF_UNIX, SOCK_STREAM | 0x10000, 0, sv), -EINVAL);
	ck_assert_int_eq(sys_socketpair(AF_UNIX, SOCK_STREAM, 0, BAD_UPTR), -EFAULT);
	ck_assert_int_eq(sys_socketpair(99, SOCK_STREAM, 0, sv), -EAFNOSUPPORT);
	ck_assert_int_eq(sys_socketpair(-1, SOCK_STREAM, 0, sv), -EAFNOSUPPORT);
	ck_assert_int_eq(sys_socketpair(AF_UNIX, 12, 0, sv), -EINVAL);
	ck_assert_int_eq(sys_socketpair(AF_UNIX, SOCK_STREAM, 6, sv), -EPROTONOSUPPORT);
	ck_assert_int_eq(sys_socketpair(AF_UNIX, SOCK_DGRAM, 0, sv), -ESOCKTNOSUPPORT);
	ck_assert_int_eq(sys_socketpair(AF_INET, SOCK_STREAM, 0, sv), -EOPNOTSUPP);
	ck_assert_int_eq(sys_socketpair(AF_INET, SOCK_STREAM, 17, sv), -EPROTONOSUPPORT);
	ck_assert_int_eq(sys_socketpair(AF_INET6, SOCK_DGRAM, 0, sv), -EOPNOTSUPP);
	ck_assert_int_eq(sys_socketpair(AF_INET, SOCK_SEQPACKET, 0, sv), -ESOCKTNOSUPPORT);
	ck_assert_int_eq(sys_socketpair(16, SOCK_DGRAM, 0, sv), -EAFNOSUPPORT);
	/* As on Linux, the reserved numbers were written out before creation failed. */
	ck_assert_int_eq(sv[0], 2);
	ck_assert_int_eq(sv[1], 3);
	/* None of the failures kept a descriptor. */
	ck_assert_int_eq(sys_socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, AF_UNIX, sv), 0);
	ck_assert_int_eq(sv[0], 2);
	ck_assert_int_eq(sv[1], 3);
	ck_assert_int_eq(sys_fcntl(2, F_GETFD, 0), FD_CLOEXEC);
	ck_assert_int_eq(sys_fcntl(3, F_GETFL, 0), O_RDWR);
	ck_assert_int_eq(sys_fcntl(a, F_GETFL, 0), O_RDWR | O_NONBLOCK);
}
END_TEST

START_TEST(test_send_recv)
{
	char buf[16];
	int len = 99;

	ck_assert_int_eq(rcv(a, buf, sizeof(buf), 0), -EAGAIN);
	ck_assert_int_eq(snd(a, "abc", 3, 0), 3);
	ck_assert_int_eq(snd(a, "def", 3, 0), 3);
	ck_assert_int_eq(sys_write(b, "xyz", 3), 3);
	/* A read gathers several messages. */
	ck_assert_int_eq(rcv(b, buf, 2, 0), 2);
	ck_assert_int_eq(rcv(b, buf + 2, sizeof(buf), 0), 4);
	ck_assert_int_eq(memcmp(buf, "abcdef", 6), 0);
	ck_assert_int_eq(sys_read(a, buf, sizeof(buf)), 3);
	ck_assert_int_eq(memcmp(buf, "xyz", 3), 0);
	ck_assert_int_eq(sys_read(a, buf, 0), 0);
	/* recvfrom with an address: the unnamed peer's length is 0. */
	ck_assert_int_eq(snd(b, "q", 1, 0), 1);
	ck_assert_int_eq(sys_recvfrom(a, buf, 1, 0, buf + 8, &len), 1);
	ck_assert_int_eq(len, 0);
	/* sendto with an address on a connected stream socket. */
	ck_assert_int_eq(sys_sendto(a, "x", 1, 0, buf, 16), -EISCONN);
	ck_assert_int_eq(sys_sendto(a, "x", 1, 0, buf, 129), -EINVAL);
	ck_assert_int_eq(sys_sendto(a, "x", 1, 0, buf, -1), -EINVAL);
	ck_assert_int_eq(sys_sendto(a, "x", 1, 0, BAD_UPTR, 16), -EFAULT);
	ck_assert_int_eq(sys_sendto(a, "x", 1, MSG_OOB, buf, 16), -EOPNOTSUPP);
	ck_assert_int_eq(sys_sendto(a, "x", 1, 0, buf, 0), 1); /* a zero length is no address */
	ck_assert_int_eq(snd(a, "x", 1, MSG_OOB), -EOPNOTSUPP);
	ck_assert_int_eq(rcv(b, buf, 1, MSG_OOB), -EOPNOTSUPP);
	/* Bad descriptors, not sockets, bad buffers. */
	ck_assert_int_eq(snd(9, "x", 1, 0), -EBADF);
	ck_assert_int_eq(sys_open("/dev/null", O_RDWR, 0), 2);
	ck_assert_int_eq(snd(2, "x", 1, 0), -ENOTSOCK);
	ck_assert_int_eq(rcv(2, buf, 1, 0), -ENOTSOCK);
	ck_assert_int_eq(sys_shutdown(2, SHUT_RD), -ENOTSOCK);
	ck_assert_int_eq(snd(a, BAD_UPTR, 4, 0), -EFAULT);
	ck_assert_int_eq(snd(a, (void *)0xffff800000000000UL, 4, 0), -EFAULT);
	ck_assert_int_eq(rcv(b, BAD_UPTR, 4, 0), -EFAULT);
	ck_assert_int_eq(rcv(b, buf, 4, 0), 1); /* the message is still there */
	ck_assert_int_eq(sys_recvfrom(a, buf, 1, 0, buf, BAD_UPTR), -EAGAIN);
}
END_TEST

START_TEST(test_flags)
{
	char buf[16];
	int fl = 0;

	ck_assert_int_eq(sys_ioctl(b, FIONBIO, (unsigned long)&fl), 0);
	ck_assert_int_eq(snd(a, "hello", 5, 0), 5);
	ck_assert_int_eq(rcv(b, buf, 3, MSG_PEEK), 3);
	ck_assert_int_eq(memcmp(buf, "hel", 3), 0);
	ck_assert_int_eq(sys_ioctl(b, FIONREAD, (unsigned long)&fl), 0);
	ck_assert_int_eq(fl, 5);
	/* WAITALL with less queued: a nonblocking call returns what there was. */
	ck_assert_int_eq(rcv(b, buf, 10, MSG_WAITALL | MSG_DONTWAIT), 5);
	ck_assert_int_eq(rcv(b, buf, 10, MSG_DONTWAIT), -EAGAIN);
	/* A blocking recv with a signal pending: -ERESTARTSYS (EINTR or a restart) instead of sleeping. */
	fake_signal_pending = true;
	ck_assert_int_eq(rcv(b, buf, 10, 0), -ERESTARTSYS);
}
END_TEST

START_TEST(test_truesize_model)
{
	/* Linux 3.8 x86-64: kmalloc'd head of SKB_DATA_ALIGN(len) + 320, plus 256 for the sk_buff.
	 */
	ck_assert_uint_eq(unix_skb_truesize(1), 768);
	ck_assert_uint_eq(unix_skb_truesize(100), 768);
	ck_assert_uint_eq(unix_skb_truesize(192), 768);
	ck_assert_uint_eq(unix_skb_truesize(193), 1280);
	ck_assert_uint_eq(unix_skb_truesize(1000), 2304);
	ck_assert_uint_eq(unix_skb_truesize(UNIX_SKB_MAX_ALLOC), 16640);
}
END_TEST

START_TEST(test_send_buffer)
{
	long sent = 0, n;
	int msgs = 0;

	/* 1000-byte messages cost 2304 each; a send goes ahead while the charge is below 212992. */
	while ((n = snd(a, big + sent, 1000, 0)) > 0) {
		sent += n;
		msgs++;
	}
	ck_assert_int_eq(n, -EAGAIN);
	ck_assert_int_eq(msgs, (UNIX_SNDBUF + 2303) / 2304);
	ck_assert_int_eq(wmem(a), msgs * 2304);
	ck_assert_uint_eq(poll_fd(a) & POLLOUT, 0);
	ck_assert_uint_eq(poll_fd(b) & POLLIN, POLLIN);
	/* Writable again only once the charge is down to a quarter. */
	while (wmem(a) * 4 > UNIX_SNDBUF) {
		ck_assert_uint_eq(poll_fd(a) & POLLOUT, 0);
		ck_assert_int_eq(rcv(b, out, 1000, 0), 1000);
	}
	ck_assert_uint_eq(poll_fd(a) & POLLOUT, POLLOUT);
	n = rcv(b, out, sizeof(out), 0);
	ck_assert_int_gt(n, 0);
	ck_assert_int_eq(wmem(a), 0);
}
END_TEST

START_TEST(test_big_send_splits)
{
	long n, got = 0;

	/* Split into messages of UNIX_SKB_MAX_ALLOC; the 13th is admitted below 212992. */
	n = snd(a, big, sizeof(big), 0);
	ck_assert_int_eq(n, 13 * UNIX_SKB_MAX_ALLOC);
	ck_assert_int_eq(wmem(a), 13 * 16640);
	ck_assert_int_eq(snd(a, big, 1, 0), -EAGAIN);
	while (got < n) {
		long r = rcv(b, out + got, sizeof(out) - (size_t)got, 0);

		ck_assert_int_gt(r, 0);
		got += r;
	}
	ck_assert_int_eq(memcmp(out, big, (size_t)n), 0);
	ck_assert_int_eq(wmem(a), 0);
}
END_TEST

START_TEST(test_shutdown_wr)
{
	char buf[8];

	ck_assert_int_eq(snd(a, "last", 4, 0), 4);
	ck_assert_int_eq(sys_shutdown(a, SHUT_WR), 0);
	ck_assert_int_eq(snd(a, "x", 1, 0), -EPIPE);
	ck_assert_int_eq(fake_signals_sent[SIGPIPE], 1);
	ck_assert_int_eq(snd(a, "x", 1, MSG_NOSIGNAL), -EPIPE);
	ck_assert_int_eq(fake_signals_sent[SIGPIPE], 1);
	ck_assert_int_eq(snd(a, "x", 0, MSG_NOSIGNAL), -EPIPE);
	/* The peer reads what was sent, then EOF; it can still send back. */
	ck_assert_uint_eq(poll_fd(b), POLLIN | POLLRDHUP | POLLOUT);
	ck_assert_int_eq(rcv(b, buf, sizeof(buf), 0), 4);
	ck_assert_int_eq(rcv(b, buf, sizeof(buf), 0), 0);
	ck_assert_int_eq(snd(b, "back", 4, 0), 4);
	ck_assert_int_eq(rcv(a, buf, sizeof(buf), 0), 4);
	ck_assert_int_eq(sys_shutdown(a, 3), -EINVAL);
	ck_assert_int_eq(sys_shutdown(a, -1), -EINVAL);
	ck_assert_int_eq(sys_shutdown(17, SHUT_RD), -EBADF);
}
END_TEST

START_TEST(test_shutdown_rd)
{
	char buf[8];

	ck_assert_int_eq(snd(b, "queued", 6, 0), 6);
	ck_assert_int_eq(sys_shutdown(a, SHUT_RD), 0);
	/* What was queued is still read, then EOF at once. */
	ck_assert_int_eq(rcv(a, buf, sizeof(buf), 0), 6);
	ck_assert_int_eq(rcv(a, buf, sizeof(buf), 0), 0);
	/* The peer may no longer send. */
	ck_assert_int_eq(snd(b, "x", 1, 0), -EPIPE);
	ck_assert_int_eq(fake_signals_sent[SIGPIPE], 1);
	ck_assert_int_eq(sys_shutdown(b, SHUT_RDWR), 0);
	ck_assert_uint_eq(poll_fd(b) & (POLLHUP | POLLIN), POLLHUP | POLLIN);
}
END_TEST

START_TEST(test_peer_close)
{
	char buf[8];

	ck_assert_uint_eq(poll_fd(a), POLLOUT);
	ck_assert_int_eq(snd(b, "bye", 3, 0), 3);
	ck_assert_int_eq(snd(a, "unread", 6, 0), 6);
	ck_assert_int_gt(wmem(a), 0);
	/* b goes with a's message unread: a is told ECONNRESET once, after b's data. */
	ck_assert_int_eq(sys_close(b), 0);
	ck_assert_int_eq(wmem(a), 0); /* b's queue was freed, uncharging a */
	ck_assert_uint_eq(poll_fd(a), POLLIN | POLLOUT | POLLHUP | POLLERR | POLLRDHUP);
	ck_assert_int_eq(rcv(a, buf, sizeof(buf), 0), 3);
	ck_assert_int_eq(rcv(a, buf, sizeof(buf), 0), -ECONNRESET);
	ck_assert_int_eq(rcv(a, buf, sizeof(buf), 0), 0);
	ck_assert_int_eq(snd(a, "x", 1, 0), -EPIPE);
	ck_assert_int_eq(fake_signals_sent[SIGPIPE], 1);
}
END_TEST

START_TEST(test_peer_close_clean)
{
	char buf[8];

	ck_assert_int_eq(snd(a, "read", 4, 0), 4);
	ck_assert_int_eq(rcv(b, buf, sizeof(buf), 0), 4);
	ck_assert_int_eq(sys_close(b), 0);
	ck_assert_int_eq(rcv(a, buf, sizeof(buf), 0), 0);
	ck_assert_uint_eq(poll_fd(a) & POLLERR, 0);
}
END_TEST

START_TEST(test_close_with_queued_data)
{
	/* Messages in flight both ways when the descriptors go: all of it is freed. */
	ck_assert_int_eq(snd(a, big, 50000, 0), 50000);
	ck_assert_int_eq(snd(b, big, 70000, 0), 70000);
	ck_assert_int_eq(sys_close(a), 0);
	ck_assert_int_eq(snd(b, "x", 1, MSG_NOSIGNAL), -EPIPE);
	ck_assert_int_eq(sys_close(b), 0);
}
END_TEST

/* ------------------------------------------------------------ wake-ups */

static struct task *waiter_task;

static void sim_setup(void)
{
	sim_start(2);
	fake_current_reset();
	waiter_task = sim_task("waiter", 0, 0);
	sim_schedule(0);
	ck_assert_ptr_eq(sim_curr(0), waiter_task);
}

static void sim_teardown(void)
{
	struct fs_counts c;

	fs_object_counts(&c);
	ck_assert_int_eq(c.files, 0);
	ck_assert_int_eq(c.sockets, 0);
	sim_stop();
}

static long ksend(struct file *f, const void *buf, size_t n)
{
	struct iov_iter it;

	iov_iter_kernel(&it, (void *)buf, n);
	return unix_stream_send(f, &it, MSG_DONTWAIT);
}

static long krecv(struct file *f, void *buf, size_t n)
{
	struct iov_iter it;

	iov_iter_kernel(&it, buf, n);
	return unix_stream_recv(f, &it, MSG_DONTWAIT);
}

START_TEST(test_data_wakes_reader_sync)
{
	struct file *s0, *s1;
	struct poll_table pt;

	ck_assert_int_eq(unix_stream_pair(&s0, &s1, 0), 0);
	poll_table_init(&pt);
	ck_assert_uint_eq(s1->ops->poll(s1, &pt) & POLLIN, 0);
	sim_schedule(0);
	ck_assert_int_eq(ksend(s0, "ping", 4), 4);
	ck_assert_int_eq(waiter_task->state, TASK_RUNNING);
	ck_assert_uint_eq(waiter_task->stats.nr_wakeups_sync, 1);
	poll_table_free(&pt);
	fput(s0);
	fput(s1);
}
END_TEST

START_TEST(test_room_wakes_writer_at_quarter)
{
	struct file *s0, *s1;
	struct poll_table pt;
	char buf[1000];

	ck_assert_int_eq(unix_stream_pair(&s0, &s1, 0), 0);
	while (ksend(s0, big, sizeof(buf)) > 0)
		;
	poll_table_init(&pt);
	ck_assert_uint_eq(s0->ops->poll(s0, &pt) & POLLOUT, 0);
	sim_schedule(0);
	/* Freeing messages wakes the sender only once the charge is down to a quarter. */
	while (unix_stream_wmem(s0) - 2304 > UNIX_SNDBUF / 4) {
		ck_assert_int_eq(krecv(s1, buf, sizeof(buf)), (long)sizeof(buf));
		ck_assert_int_eq(waiter_task->state, TASK_INTERRUPTIBLE);
	}
	ck_assert_int_eq(krecv(s1, buf, sizeof(buf)), (long)sizeof(buf));
	ck_assert_int_eq(waiter_task->state, TASK_RUNNING);
	ck_assert_uint_eq(waiter_task->stats.nr_wakeups_sync, 1);
	poll_table_free(&pt);
	fput(s1);
	fput(s0);
}
END_TEST

START_TEST(test_close_wakes_peer)
{
	struct file *s0, *s1;
	struct poll_table pt;

	ck_assert_int_eq(unix_stream_pair(&s0, &s1, 0), 0);
	poll_table_init(&pt);
	ck_assert_uint_eq(s1->ops->poll(s1, &pt), POLLOUT | POLLWRNORM | POLLWRBAND);
	sim_schedule(0);
	fput(s0);
	ck_assert_int_eq(waiter_task->state, TASK_RUNNING);
	ck_assert_uint_eq(waiter_task->stats.nr_wakeups_sync, 0); /* sk_state_change: no hint */
	ck_assert_uint_eq(s1->ops->poll(s1, NULL) & (POLLHUP | POLLIN), POLLHUP | POLLIN);
	poll_table_free(&pt);
	fput(s1);
}
END_TEST

Suite *socket_suite(void)
{
	Suite *s = suite_create("socket");
	TCase *tc = tcase_create("socketpair");
	TCase *wake = tcase_create("wakeups");

	tcase_add_checked_fixture(tc, setup, fs_teardown);
	tcase_add_test(tc, test_socketpair_checks);
	tcase_add_test(tc, test_send_recv);
	tcase_add_test(tc, test_flags);
	tcase_add_test(tc, test_truesize_model);
	tcase_add_test(tc, test_send_buffer);
	tcase_add_test(tc, test_big_send_splits);
	tcase_add_test(tc, test_shutdown_wr);
	tcase_add_test(tc, test_shutdown_rd);
	tcase_add_test(tc, test_peer_close);
	tcase_add_test(tc, test_peer_close_clean);
	tcase_add_test(tc, test_close_with_queued_data);
	suite_add_tcase(s, tc);
	tcase_add_checked_fixture(wake, sim_setup, sim_teardown);
	tcase_add_test(wake, test_data_wakes_reader_sync);
	tcase_add_test(wake, test_room_wakes_writer_at_quarter);
	tcase_add_test(wake, test_close_wakes_peer);
	suite_add_tcase(s, wake);
	return s;
}

/*
 * Host tests of pipes: data through the ring of page buffers (merging,
 * wrap-around), PIPE_BUF atomicity, the 64 KiB capacity, nonblocking
 * EAGAIN, EOF, EPIPE with SIGPIPE, EINTR, faults, pipe2's flags, and the
 * wake-ups with the sync hint (on the scheduler simulation, with a task
 * registered on the pipe's queue as poll does).
 */
#include <string.h>

#include "fake_current.h"
#include "fake_uaccess.h"
#include "fs/fdtable.h"
#include "fs/file.h"
#include "fs/iov_iter.h"
#include "fs/sys_fs.h"
#include "fs_fixture.h"
#include "ipc/pipe.h"
#include "ipc/poll.h"
#include "lib/errno.h"
#include "sched_sim.h"
#include "unit.h"

static int rd, wr;
static char big[3 * PIPE_BUFFERS * PIPE_PAGE_SIZE];
static char out[sizeof(big)];

static void setup(void)
{
	int fds[2];

	fs_setup();
	ck_assert_int_eq(sys_pipe2(fds, O_NONBLOCK), 0);
	rd = fds[0];
	wr = fds[1];
	for (size_t i = 0; i < sizeof(big); i++)
		big[i] = (char)(i * 7 + i / 251);
}

static long queued(void)
{
	struct file *f = fget(rd);
	long n = pipe_bytes_queued(f);

	fput(f);
	return n;
}

static unsigned int poll_fd(int fd, short events)
{
	struct pollfd p = { .fd = fd, .events = events };

	ck_assert_int_ge(sys_poll(&p, 1, 0), 0);
	return (unsigned short)p.revents;
}

START_TEST(test_basic)
{
	char buf[16];

	ck_assert_int_eq(rd, 0);
	ck_assert_int_eq(wr, 1);
	ck_assert_int_eq(sys_read(rd, buf, sizeof(buf)), -EAGAIN);
	ck_assert_int_eq(sys_write(wr, "hello", 5), 5);
	ck_assert_int_eq(sys_write(wr, " pipe", 5), 5);
	ck_assert_int_eq(queued(), 10);
	ck_assert_int_eq(sys_read(rd, buf, 3), 3);
	ck_assert_int_eq(sys_read(rd, buf + 3, sizeof(buf)), 7);
	ck_assert_int_eq(memcmp(buf, "hello pipe", 10), 0);
	ck_assert_int_eq(sys_write(wr, buf, 0), 0);
	ck_assert_int_eq(sys_read(rd, buf, 0), 0);
	ck_assert_int_eq(sys_read(wr, buf, 1), -EBADF);
	ck_assert_int_eq(sys_write(rd, buf, 1), -EBADF);
}
END_TEST

START_TEST(test_capacity_and_atomicity)
{
	/* A short write first: it takes a page of its own. */
	ck_assert_int_eq(sys_write(wr, big, 100), 100);
	/* Fifteen more pages fill the ring: 16 buffers. */
	for (int i = 0; i < PIPE_BUFFERS - 1; i++)
		ck_assert_int_eq(sys_write(wr, big + 100 + i * PIPE_PAGE_SIZE, PIPE_BUF), PIPE_BUF);
	ck_assert_int_eq(queued(), 100 + (PIPE_BUFFERS - 1) * PIPE_BUF);
	/* No buffer left: a write of at most PIPE_BUF is refused whole, never split. */
	ck_assert_int_eq(sys_write(wr, big, 1), -EAGAIN);
	ck_assert_int_eq(sys_write(wr, big, PIPE_BUF), -EAGAIN);
	ck_assert_uint_eq(poll_fd(wr, POLLOUT), 0);
	/* Reading 4096 frees the first page (100 bytes) and part of the second. */
	ck_assert_int_eq(sys_read(rd, out, PIPE_BUF), PIPE_BUF);
	ck_assert_int_eq(memcmp(out, big, PIPE_BUF), 0);
	ck_assert_uint_eq(poll_fd(wr, POLLOUT), POLLOUT);
	/* A write larger than PIPE_BUF may be partial: one page fits. */
	ck_assert_int_eq(sys_write(wr, big + 100 + 15 * PIPE_PAGE_SIZE, 10000), PIPE_PAGE_SIZE);
	ck_assert_int_eq(sys_write(wr, big, 10000), -EAGAIN);
	/* Everything comes out in order. */
	{
		long n, total = PIPE_BUF;

		while ((n = sys_read(rd, out + total, sizeof(out) - (size_t)total)) > 0)
			total += n;
		ck_assert_int_eq(n, -EAGAIN);
		ck_assert_int_eq(total, 100 + 16 * PIPE_PAGE_SIZE);
		ck_assert_int_eq(memcmp(out, big, (size_t)total), 0);
	}
}
END_TEST

START_TEST(test_merge_small_writes)
{
	const long page_writes = 15, chunk = PIPE_PAGE_SIZE - 50;
	long total;

	/* 40 writes of 100 bytes share the first page. */
	for (int i = 0; i < 40; i++)
		ck_assert_int_eq(sys_write(wr, big + i * 100, 100), 100);
	/* Each of these leaves 50 bytes of its page free; the next cannot merge there. */
	for (long i = 0; i < page_writes; i++)
		ck_assert_int_eq(sys_write(wr, big + 4000 + i * chunk, (size_t)chunk), chunk);
	total = 4000 + page_writes * chunk;
	/* All 16 buffers in use, yet 50 bytes still merge into the last page. */
	ck_assert_int_eq(sys_write(wr, big + total, 50), 50);
	total += 50;
	ck_assert_int_eq(queued(), total);
	ck_assert_int_eq(sys_write(wr, big, 1), -EAGAIN);
	ck_assert_int_eq(sys_read(rd, out, sizeof(out)), total);
	ck_assert_int_eq(memcmp(out, big, (size_t)total), 0);
}
END_TEST

START_TEST(test_wrap_around)
{
	size_t w = 0, r = 0;

	/* Odd sizes so buffers start and end everywhere; the ring index wraps many times. */
	for (int round = 0; round < 200; round++) {
		size_t n = 1000 + (size_t)round * 37 % 3000;
		long got;

		if (w + n > sizeof(big))
			break;
		ck_assert_int_eq(sys_write(wr, big + w, n), (long)n);
		w += n;
		got = sys_read(rd, out + r, (size_t)(round % 5 ? n : n / 2));
		ck_assert_int_gt(got, 0);
		r += (size_t)got;
	}
	while (r < w) {
		long got = sys_read(rd, out + r, w - r);

		ck_assert_int_gt(got, 0);
		r += (size_t)got;
	}
	ck_assert_int_eq(memcmp(out, big, w), 0);
	ck_assert_int_eq(sys_read(rd, out, 1), -EAGAIN);
}
END_TEST

START_TEST(test_eof)
{
	char buf[8];

	ck_assert_int_eq(sys_write(wr, "bye", 3), 3);
	ck_assert_int_eq(sys_close(wr), 0);
	ck_assert_uint_eq(poll_fd(rd, POLLIN), POLLIN | POLLHUP);
	ck_assert_int_eq(sys_read(rd, buf, sizeof(buf)), 3);
	ck_assert_int_eq(sys_read(rd, buf, sizeof(buf)), 0);
	ck_assert_int_eq(sys_read(rd, buf, sizeof(buf)), 0);
	ck_assert_uint_eq(poll_fd(rd, POLLIN), POLLHUP);
}
END_TEST

START_TEST(test_epipe_sigpipe)
{
	ck_assert_int_eq(sys_close(rd), 0);
	ck_assert_uint_eq(poll_fd(wr, POLLOUT), POLLOUT | POLLERR);
	ck_assert_int_eq(sys_write(wr, "x", 1), -EPIPE);
	ck_assert_int_eq(fake_signals_sent[SIGPIPE], 1);
	ck_assert_int_eq(sys_write(wr, big, 9000), -EPIPE);
	ck_assert_int_eq(fake_signals_sent[SIGPIPE], 2);
	ck_assert_int_eq(sys_write(wr, big, 0), 0); /* an empty write is no write */
	ck_assert_int_eq(fake_signals_sent[SIGPIPE], 2);
}
END_TEST

START_TEST(test_eintr)
{
	int on = 0;
	char c;

	/* Blocking ends with a signal pending: -ERESTARTSYS (EINTR or a restart) instead of sleeping, or the partial count. */
	ck_assert_int_eq(sys_ioctl(rd, FIONBIO, (unsigned long)&on), 0);
	ck_assert_int_eq(sys_ioctl(wr, FIONBIO, (unsigned long)&on), 0);
	fake_signal_pending = true;
	ck_assert_int_eq(sys_read(rd, &c, 1), -ERESTARTSYS);
	for (int i = 0; i < PIPE_BUFFERS; i++)
		ck_assert_int_eq(sys_write(wr, big, PIPE_PAGE_SIZE), PIPE_PAGE_SIZE);
	ck_assert_int_eq(sys_write(wr, big, 1), -ERESTARTSYS);
	ck_assert_int_eq(sys_read(rd, out, PIPE_PAGE_SIZE), PIPE_PAGE_SIZE);
	ck_assert_int_eq(sys_write(wr, big, 3 * PIPE_PAGE_SIZE), PIPE_PAGE_SIZE);
}
END_TEST

START_TEST(test_faults)
{
	char buf[8];

	ck_assert_int_eq(sys_write(wr, BAD_UPTR, 4), -EFAULT);
	ck_assert_int_eq(queued(), 0);
	ck_assert_int_eq(sys_write(wr, "data", 4), 4);
	ck_assert_int_eq(sys_read(rd, BAD_UPTR, 4), -EFAULT);
	ck_assert_int_eq(queued(), 4); /* nothing was lost */
	ck_assert_int_eq(sys_read(rd, buf, sizeof(buf)), 4);
	/* A fault after the first page: the first page's bytes count. */
	fake_uaccess_fail_after = 1;
	ck_assert_int_eq(sys_write(wr, big, 2 * PIPE_PAGE_SIZE), PIPE_PAGE_SIZE);
	fake_uaccess_fail_after = -1;
	ck_assert_int_eq(queued(), PIPE_PAGE_SIZE);
}
END_TEST

START_TEST(test_pipe2_flags)
{
	int fds[2];

	ck_assert_int_eq(sys_pipe2(fds, O_DIRECT), -EINVAL);
	ck_assert_int_eq(sys_pipe2(fds, 1), -EINVAL);
	ck_assert_int_eq(sys_pipe2(BAD_UPTR, 0), -EFAULT);
	ck_assert_int_eq(sys_pipe2(fds, O_CLOEXEC), 0);
	ck_assert_int_eq(fds[0], 2); /* the failed calls left no descriptor behind */
	ck_assert_int_eq(fds[1], 3);
	ck_assert_int_eq(sys_fcntl(2, F_GETFD, 0), FD_CLOEXEC);
	ck_assert_int_eq(sys_fcntl(3, F_GETFL, 0), O_WRONLY);
	ck_assert_int_eq(sys_fcntl(1, F_GETFL, 0), O_WRONLY | O_NONBLOCK);
	ck_assert_int_eq(sys_pipe(fds), 0);
	ck_assert_int_eq(sys_fcntl(fds[0], F_GETFD, 0), 0);
}
END_TEST

START_TEST(test_writev_atomic)
{
	struct iovec iov[3] = { { big, 1000 }, { big + 1000, 2000 }, { big + 3000, 1096 } };

	for (int i = 0; i < PIPE_BUFFERS - 1; i++)
		ck_assert_int_eq(sys_write(wr, big, PIPE_PAGE_SIZE), PIPE_PAGE_SIZE);
	ck_assert_int_eq(sys_write(wr, big, 10), 10);
	/* 4096 bytes in three segments: one write, so all-or-nothing. */
	ck_assert_int_eq(sys_writev(wr, iov, 3), -EAGAIN);
	ck_assert_int_eq(sys_read(rd, out, PIPE_PAGE_SIZE), PIPE_PAGE_SIZE);
	ck_assert_int_eq(sys_writev(wr, iov, 3), 4096);
	ck_assert_int_eq(queued(), 15 * PIPE_PAGE_SIZE + 10);
}
END_TEST

/* ------------------------------------------------------------ wake-ups */

static struct task *reader;

static void sim_setup(void)
{
	sim_start(2);
	fake_current_reset();
	fake_uaccess_fail_after = -1;
	reader = sim_task("reader", 0, 0);
	sim_schedule(0);
	ck_assert_ptr_eq(sim_curr(0), reader);
}

static void sim_teardown(void)
{
	struct fs_counts c;

	fs_object_counts(&c);
	ck_assert_int_eq(c.files, 0);
	ck_assert_int_eq(c.pipes, 0);
	sim_stop();
}

static long kwrite(struct file *f, const void *buf, size_t n)
{
	struct iov_iter it;

	iov_iter_kernel(&it, (void *)buf, n);
	return f->ops->write(f, &it);
}

static long kread(struct file *f, void *buf, size_t n)
{
	struct iov_iter it;

	iov_iter_kernel(&it, buf, n);
	return f->ops->read(f, &it);
}

START_TEST(test_sync_wakeups)
{
	struct file *r, *w;
	struct poll_table pt;

	ck_assert_int_eq(pipe_create(&r, &w, O_NONBLOCK), 0);
	/* The reader registers as poll does, finds nothing, and sleeps. */
	poll_table_init(&pt);
	ck_assert_uint_eq(r->ops->poll(r, &pt) & POLLIN, 0);
	ck_assert_int_eq(reader->state, TASK_INTERRUPTIBLE);
	sim_schedule(0);
	ck_assert_ptr_ne(sim_curr(0), reader);
	/* A write wakes it with the sync hint, as Linux's pipe_write does. */
	ck_assert_int_eq(kwrite(w, "ping", 4), 4);
	ck_assert_int_eq(reader->state, TASK_RUNNING);
	ck_assert_uint_eq(reader->stats.nr_wakeups, 1);
	ck_assert_uint_eq(reader->stats.nr_wakeups_sync, 1);
	poll_table_free(&pt);
	fput(r);
	fput(w);
}
END_TEST

START_TEST(test_reader_wakes_writer_per_page)
{
	struct file *r, *w;
	struct poll_table pt;

	ck_assert_int_eq(pipe_create(&r, &w, O_NONBLOCK), 0);
	for (int i = 0; i < PIPE_BUFFERS; i++)
		ck_assert_int_eq(kwrite(w, big, PIPE_PAGE_SIZE), PIPE_PAGE_SIZE);
	/* "reader" plays the writer here: it waits for room. */
	poll_table_init(&pt);
	ck_assert_uint_eq(w->ops->poll(w, &pt) & POLLOUT, 0);
	sim_schedule(0);
	/* Part of a page read frees no buffer: no wake-up (Linux wakes writers per freed page). */
	ck_assert_int_eq(kread(r, out, 100), 100);
	ck_assert_int_eq(reader->state, TASK_INTERRUPTIBLE);
	ck_assert_int_eq(kread(r, out, PIPE_PAGE_SIZE - 100), PIPE_PAGE_SIZE - 100);
	ck_assert_int_eq(reader->state, TASK_RUNNING);
	ck_assert_uint_eq(reader->stats.nr_wakeups_sync, 1);
	poll_table_free(&pt);
	fput(w);
	fput(r);
}
END_TEST

START_TEST(test_close_wakes)
{
	struct file *r, *w;
	struct poll_table pt;

	ck_assert_int_eq(pipe_create(&r, &w, 0), 0);
	poll_table_init(&pt);
	ck_assert_uint_eq(r->ops->poll(r, &pt), 0);
	sim_schedule(0);
	fput(w); /* the last writer: the reader must see POLLHUP */
	ck_assert_int_eq(reader->state, TASK_RUNNING);
	ck_assert_uint_eq(r->ops->poll(r, NULL), POLLHUP);
	poll_table_free(&pt);
	fput(r);
}
END_TEST

Suite *pipe_suite(void)
{
	Suite *s = suite_create("pipe");
	TCase *tc = tcase_create("pipe");
	TCase *wake = tcase_create("wakeups");

	tcase_add_checked_fixture(tc, setup, fs_teardown);
	tcase_add_test(tc, test_basic);
	tcase_add_test(tc, test_capacity_and_atomicity);
	tcase_add_test(tc, test_merge_small_writes);
	tcase_add_test(tc, test_wrap_around);
	tcase_add_test(tc, test_eof);
	tcase_add_test(tc, test_epipe_sigpipe);
	tcase_add_test(tc, test_eintr);
	tcase_add_test(tc, test_faults);
	tcase_add_test(tc, test_pipe2_flags);
	tcase_add_test(tc, test_writev_atomic);
	suite_add_tcase(s, tc);
	tcase_add_checked_fixture(wake, sim_setup, sim_teardown);
	tcase_add_test(wake, test_sync_wakeups);
	tcase_add_test(wake, test_reader_wakes_writer_per_page);
	tcase_add_test(wake, test_close_wakes);
	suite_add_tcase(s, wake);
	return s;
}

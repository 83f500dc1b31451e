/*
 * Host tests of poll(2) without sleeping (timeout 0): ready masks of
 * pipes, sockets, /dev/null and the console, POLLNVAL for bad
 * descriptors, negative descriptors ignored, POLLERR/POLLHUP reported
 * unasked, the argument checks, and the poll table registering the
 * caller on each file's queue (on the scheduler simulation).
 */
#include <string.h>

#include "fake_console_input.h"
#include "fake_current.h"
#include "fs/console.h"
#include "fs/fdtable.h"
#include "fs/file.h"
#include "fs/iov_iter.h"
#include "fs/open.h"
#include "fs/sys_fs.h"
#include "fs_fixture.h"
#include "ipc/pipe.h"
#include "ipc/poll.h"
#include "ipc/socket.h"
#include "lib/errno.h"
#include "sched_sim.h"
#include "unit.h"

START_TEST(test_masks)
{
	int p[2], s[2];
	struct pollfd fds[8];

	ck_assert_int_eq(sys_pipe(p), 0);
	ck_assert_int_eq(sys_socketpair(AF_UNIX, SOCK_STREAM, 0, s), 0);
	ck_assert_int_eq(sys_open("/dev/null", O_RDWR, 0), 4);
	ck_assert_int_eq(sys_open("/dev/console", O_RDWR, 0), 5);
	fds[0] = (struct pollfd){ .fd = p[0], .events = POLLIN };
	fds[1] = (struct pollfd){ .fd = p[1], .events = POLLOUT };
	fds[2] = (struct pollfd){ .fd = s[0], .events = POLLIN | POLLOUT };
	fds[3] = (struct pollfd){ .fd = s[1], .events = POLLIN };
	fds[4] = (struct pollfd){ .fd = 4, .events = POLLIN | POLLOUT };
	fds[5] = (struct pollfd){ .fd = 5, .events = POLLIN | POLLOUT };
	fds[6] = (struct pollfd){ .fd = 42, .events = POLLIN };
	fds[7] = (struct pollfd){ .fd = -1, .events = POLLIN, .revents = 0x7777 };
	ck_assert_int_eq(sys_poll(fds, 8, 0), 5);
	ck_assert_int_eq(fds[0].revents, 0);
	ck_assert_int_eq(fds[1].revents, POLLOUT);
	ck_assert_int_eq(fds[2].revents, POLLOUT);
	ck_assert_int_eq(fds[3].revents, 0);
	ck_assert_int_eq(fds[4].revents, POLLIN | POLLOUT);
	ck_assert_int_eq(fds[5].revents, POLLOUT);
	ck_assert_int_eq(fds[6].revents, POLLNVAL);
	ck_assert_int_eq(fds[7].revents, 0);
	/* Data, a typed line, a closed end. */
	ck_assert_int_eq(sys_write(p[1], "x", 1), 1);
	ck_assert_int_eq(sys_write(s[0], "y", 1), 1);
	fake_console_type("ls\r", 3);
	console_poll_input();
	ck_assert_int_eq(sys_close(p[1]), 0);
	ck_assert_int_eq(sys_poll(fds, 8, 0), 7);
	ck_assert_int_eq(fds[0].revents, POLLIN | POLLHUP);
	ck_assert_int_eq(fds[1].revents, POLLNVAL);
	ck_assert_int_eq(fds[3].revents, POLLIN);
	ck_assert_int_eq(fds[5].revents, POLLIN | POLLOUT);
	/* POLLHUP and POLLERR come unasked; other unasked bits do not. */
	ck_assert_int_eq(sys_pipe(p), 0);
	ck_assert_int_eq(sys_close(p[0]), 0);
	fds[0] = (struct pollfd){ .fd = p[1], .events = POLLIN };
	ck_assert_int_eq(sys_poll(fds, 1, 0), 1);
	ck_assert_int_eq(fds[0].revents, POLLERR);
	fds[0] = (struct pollfd){ .fd = s[1], .events = 0 };
	ck_assert_int_eq(sys_poll(fds, 1, 0), 0);
	ck_assert_int_eq(fds[0].revents, 0);
}
END_TEST

START_TEST(test_args)
{
	static struct pollfd many[FD_MAX + 1];

	ck_assert_int_eq(sys_poll(NULL, 0, 0), 0);
	ck_assert_int_eq(sys_poll(many, FD_MAX + 1, 0), -EINVAL);
	for (int i = 0; i < FD_MAX; i++)
		many[i].fd = -1;
	ck_assert_int_eq(sys_poll(many, FD_MAX, 0), 0);
	ck_assert_int_eq(sys_poll(BAD_UPTR, 1, 0), -EFAULT);
	many[0] = (struct pollfd){ .fd = 3, .events = POLLIN };
	ck_assert_int_eq(sys_poll(many, 1, 0), 1);
	ck_assert_int_eq(many[0].revents, POLLNVAL);
}
END_TEST

/* ------------------------------------------------------------ registration */

static struct task *poller;

static void sim_setup(void)
{
	sim_start(1);
	fake_current_reset();
	poller = sim_task("poller", 0, 0);
	sim_schedule(0);
	ck_assert_ptr_eq(sim_curr(0), poller);
}

static void sim_teardown(void)
{
	struct fs_counts c;

	fs_object_counts(&c);
	ck_assert_int_eq(c.files, 0);
	sim_stop();
}

START_TEST(test_table_registers_every_queue)
{
	struct file *r[12], *w[12];
	struct poll_request req[12];
	struct poll_table pt;

	/* More files than the table's inline entries: the rest go to an allocated page. */
	for (int i = 0; i < 12; i++) {
		ck_assert_int_eq(pipe_create(&r[i], &w[i], O_NONBLOCK), 0);
		req[i] = (struct poll_request){ .file = r[i], .events = POLLIN };
	}
	poll_table_init(&pt);
	for (int i = 0; i < 12; i++)
		ck_assert_uint_eq(r[i]->ops->poll(r[i], &pt), 0);
	ck_assert_int_eq(pt.error, 0);
	ck_assert_int_eq(poller->state, TASK_INTERRUPTIBLE);
	sim_schedule(0);
	/* A write into the last pipe wakes the poller. */
	{
		struct iov_iter it;

		iov_iter_kernel(&it, "z", 1);
		ck_assert_int_eq(w[11]->ops->write(w[11], &it), 1);
	}
	ck_assert_int_eq(poller->state, TASK_RUNNING);
	poll_table_free(&pt);
	/* poll_files with no timeout reports it without sleeping. */
	ck_assert_int_eq(poll_files(req, 12, 0), 1);
	ck_assert_int_eq(req[11].revents, POLLIN);
	for (int i = 0; i < 12; i++) {
		fput(r[i]);
		fput(w[i]);
	}
}
END_TEST

Suite *poll_suite(void)
{
	Suite *s = suite_create("poll");
	TCase *tc = tcase_create("poll");
	TCase *reg = tcase_create("registration");

	tcase_add_checked_fixture(tc, fs_setup, fs_teardown);
	tcase_add_test(tc, test_masks);
	tcase_add_test(tc, test_args);
	suite_add_tcase(s, tc);
	tcase_add_checked_fixture(reg, sim_setup, sim_teardown);
	tcase_add_test(reg, test_table_registers_every_queue);
	suite_add_tcase(s, reg);
	return s;
}

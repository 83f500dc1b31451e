/*
 * Host tests of the console device and its line discipline: lines become
 * readable only when finished, Enter's CR ends a line, backspace and
 * Ctrl-U edit with the right echo, Ctrl-D pushes a line or reads as end
 * of file, Ctrl-C drops the input and calls the hook, nonblocking reads,
 * and writes reaching the console.
 */
#include <string.h>

#include "fake_arch.h"
#include "fake_console_input.h"
#include "fake_current.h"
#include "fs/console.h"
#include "fs/file.h"
#include "fs/iov_iter.h"
#include "fs/ldisc.h"
#include "fs/open.h"
#include "fs/sys_fs.h"
#include "fs_fixture.h"
#include "lib/errno.h"
#include "unit.h"

static int con;
static int interrupts;

static void setup(void)
{
	int off = 0;

	fs_setup();
	con = (int)sys_open("/dev/console", O_RDWR, 0);
	ck_assert_int_eq(con, 0);
	ck_assert_int_eq(sys_ioctl(con, 0x5421, (unsigned long)&off), 0); /* blocking */
	ck_assert_int_eq(sys_open("/dev/console", O_RDWR | O_NONBLOCK, 0), 1);
	fake_console_reset();
	interrupts = 0;
}

static void type(const char *s)
{
	fake_console_type(s, strlen(s));
	console_poll_input();
}

static void on_interrupt(void)
{
	interrupts++;
}

static void no_echo(const char *s, size_t n)
{
}

START_TEST(test_lines)
{
	char buf[32];

	type("echo hi");
	ck_assert_int_eq(sys_read(1, buf, sizeof(buf)), -EAGAIN);
	ck_assert_str_eq(fake_console_text(), "echo hi");
	type("\r");
	ck_assert_str_eq(fake_console_text(), "echo hi\n");
	ck_assert_int_eq(sys_read(con, buf, sizeof(buf)), 8);
	ck_assert_int_eq(memcmp(buf, "echo hi\n", 8), 0);
	/* Two lines at once: a read returns one line at most. */
	type("one\ntwo\n");
	ck_assert_int_eq(sys_read(con, buf, sizeof(buf)), 4);
	ck_assert_int_eq(sys_read(con, buf, 2), 2);
	ck_assert_int_eq(memcmp(buf, "tw", 2), 0);
	ck_assert_int_eq(sys_read(con, buf, sizeof(buf)), 2);
	ck_assert_int_eq(sys_read(1, buf, sizeof(buf)), -EAGAIN);
	/* A signal interrupts a blocking read that has nothing. */
	fake_signal_pending = true;
	ck_assert_int_eq(sys_read(con, buf, sizeof(buf)), -ERESTARTSYS);
}
END_TEST

START_TEST(test_editing)
{
	char buf[32];

	type("lx\x7fs -l\b\bl");
	ck_assert_str_eq(fake_console_text(), "lx\b \bs -l\b \b\b \bl");
	type("\r");
	ck_assert_int_eq(sys_read(con, buf, sizeof(buf)), 5);
	ck_assert_int_eq(memcmp(buf, "ls l\n", 5), 0);
	/* Backspace at the start of a line does nothing; Ctrl-U erases the line. */
	fake_console_reset();
	type("\x7f"
	     "abc\x15"
	     "d\n");
	ck_assert_str_eq(fake_console_text(), "abc\b \b\b \b\b \bd\n");
	ck_assert_int_eq(sys_read(con, buf, sizeof(buf)), 2);
	ck_assert_int_eq(memcmp(buf, "d\n", 2), 0);
	/* Control bytes are kept and echoed as ^X; erasing one takes two columns. */
	fake_console_reset();
	type("a\x01\x7f\x02\n");
	ck_assert_str_eq(fake_console_text(), "a^A\b \b\b \b^B\n");
	ck_assert_int_eq(sys_read(con, buf, sizeof(buf)), 3);
	ck_assert_int_eq(memcmp(buf, "a\x02\n", 3), 0);
}
END_TEST

START_TEST(test_eof)
{
	char buf[32];

	/* Ctrl-D on an empty line: a read of 0 (end of file), once. */
	type("\x04");
	ck_assert_int_eq(sys_read(con, buf, sizeof(buf)), 0);
	ck_assert_int_eq(sys_read(1, buf, sizeof(buf)), -EAGAIN);
	/* Ctrl-D after text: the text is pushed without a newline. */
	type("abc\x04");
	ck_assert_int_eq(sys_read(con, buf, sizeof(buf)), 3);
	ck_assert_int_eq(memcmp(buf, "abc", 3), 0);
	ck_assert_int_eq(sys_read(1, buf, sizeof(buf)), -EAGAIN);
}
END_TEST

START_TEST(test_interrupt)
{
	char buf[32];

	console_set_interrupt_handler(on_interrupt);
	type("done\nhalf a li");
	type("\x03");
	ck_assert_int_eq(interrupts, 1);
	ck_assert_str_eq(fake_console_text(), "done\nhalf a li^C\n");
	/* Everything typed and unread is gone. */
	ck_assert_int_eq(sys_read(1, buf, sizeof(buf)), -EAGAIN);
	type("next\n");
	ck_assert_int_eq(sys_read(con, buf, sizeof(buf)), 5);
	console_set_interrupt_handler(NULL);
	type("\x03");
	ck_assert_int_eq(interrupts, 1);
}
END_TEST

START_TEST(test_ring_limits)
{
	static struct ldisc ld;
	char buf[LDISC_RING];
	int ready = 0;

	ldisc_init(&ld);
	/* A line that fills the ring keeps its last slot for the line end. */
	for (int i = 0; i < LDISC_RING + 10; i++)
		ready |= ldisc_input(&ld, 'x', no_echo);
	ck_assert_int_eq(ready, 0);
	ck_assert(!ldisc_readable(&ld));
	ck_assert_int_eq(ldisc_input(&ld, '\n', no_echo), LDISC_READY);
	ck_assert_int_eq(ldisc_read(&ld, buf, sizeof(buf)), LDISC_RING);
	ck_assert_int_eq(buf[LDISC_RING - 1], '\n');
	ck_assert_int_eq(ldisc_read(&ld, buf, sizeof(buf)), -EAGAIN);
}
END_TEST

START_TEST(test_write)
{
	static char long_text[1000];
	struct iovec iov[2] = { { "ab", 2 }, { "cd\n", 3 } };

	ck_assert_int_eq(sys_write(con, "hello\n", 6), 6);
	ck_assert_int_eq(sys_writev(con, iov, 2), 5);
	ck_assert_str_eq(fake_console_text(), "hello\nabcd\n");
	memset(long_text, 'z', sizeof(long_text));
	ck_assert_int_eq(sys_write(con, long_text, sizeof(long_text)), 1000);
	ck_assert_uint_eq(strlen(fake_console_text()), 11 + 1000);
	ck_assert_int_eq(sys_write(con, BAD_UPTR, 3), -EFAULT);
}
END_TEST

Suite *console_suite(void)
{
	Suite *s = suite_create("console");
	TCase *tc = tcase_create("console");

	tcase_add_checked_fixture(tc, setup, fs_teardown);
	tcase_add_test(tc, test_lines);
	tcase_add_test(tc, test_editing);
	tcase_add_test(tc, test_eof);
	tcase_add_test(tc, test_interrupt);
	tcase_add_test(tc, test_ring_limits);
	tcase_add_test(tc, test_write);
	suite_add_tcase(s, tc);
	return s;
}

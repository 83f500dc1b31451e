/*
 * Unit tests of printk (kernel/printk.c): timestamps from the fake clock,
 * line splitting and continuation, console level filtering, and the log
 * buffer that dmesg reads. Each test runs in its own process (Check's
 * fork mode), so each starts with an empty log.
 */
#include <stdlib.h>
#include <string.h>

#include "fake_arch.h"
#include "printk.h"
#include "unit.h"

#define NS_PER_SEC 1000000000ULL

static void setup(void)
{
	console_loglevel = 7;
	fake_clock_ns = 0;
	fake_console_reset();
}

START_TEST(test_timestamp_format)
{
	fake_clock_ns = 12345678; /* 12.345678 ms: microseconds, truncated */
	pr_info("hello\n");
	ck_assert_str_eq(fake_console_text(), "[    0.012345] hello\n");

	fake_console_reset();
	fake_clock_ns = 1234567890123ULL;
	pr_info("later\n");
	ck_assert_str_eq(fake_console_text(), "[ 1234.567890] later\n");

	/* Past 99999 s the seconds widen rather than lose digits. */
	fake_console_reset();
	fake_clock_ns = 123456 * NS_PER_SEC + 999;
	pr_info("days\n");
	ck_assert_str_eq(fake_console_text(), "[123456.000000] days\n");
}
END_TEST

START_TEST(test_multiline_stamps_each_line)
{
	fake_clock_ns = NS_PER_SEC;
	pr_info("one\ntwo\n\nfour\n");
	ck_assert_str_eq(fake_console_text(), "[    1.000000] one\n"
					      "[    1.000000] two\n"
					      "[    1.000000] \n"
					      "[    1.000000] four\n");
}
END_TEST

/* An unfinished line is ended before the next message, which gets its own stamp. */
START_TEST(test_open_line_closed_by_next)
{
	pr_info("abc");
	fake_clock_ns = 2 * NS_PER_SEC;
	pr_info("def\n");
	ck_assert_str_eq(fake_console_text(), "[    0.000000] abc\n[    2.000000] def\n");
}
END_TEST

START_TEST(test_cont_continues_line)
{
	pr_info("abc");
	fake_clock_ns = 5 * NS_PER_SEC;
	pr_cont("def");
	pr_cont(" %d\n", 42);
	ck_assert_str_eq(fake_console_text(), "[    0.000000] abcdef 42\n");

	/* A continuation holding a newline: the rest is a new, stamped line. */
	fake_console_reset();
	pr_info("x");
	pr_cont("y\nz\n");
	ck_assert_str_eq(fake_console_text(), "[    5.000000] xy\n[    5.000000] z\n");
}
END_TEST

/* KERN_CONT after a finished line has nothing to continue: it starts a line. */
START_TEST(test_cont_after_closed_line)
{
	pr_info("done\n");
	pr_cont("orphan\n");
	ck_assert_str_eq(fake_console_text(), "[    0.000000] done\n[    0.000000] orphan\n");
}
END_TEST

/*
 * console_loglevel N shows levels 0..N-1, as in Linux (the default 7
 * hides only KERN_DEBUG); everything is logged whatever the level.
 */
START_TEST(test_level_filtering)
{
	char log[4096];

	console_loglevel = 4;
	pr_emerg("emerg\n");
	pr_err("err\n");
	pr_warn("warn\n");
	pr_info("info\n");
	printk("plain\n"); /* no prefix: KERN_INFO */
	pr_debug("debug\n");
	ck_assert_str_eq(fake_console_text(), "[    0.000000] emerg\n[    0.000000] err\n");

	printk_log_read(log, sizeof(log));
	ck_assert_str_eq(log, "[    0.000000] emerg\n[    0.000000] err\n[    0.000000] warn\n"
			      "[    0.000000] info\n[    0.000000] plain\n[    0.000000] debug\n");
}
END_TEST

START_TEST(test_level_bounds)
{
	console_loglevel = 7;
	pr_info("shown\n");
	pr_debug("hidden\n");
	ck_assert_str_eq(fake_console_text(), "[    0.000000] shown\n");

	fake_console_reset();
	console_loglevel = 8; /* loglevel=8: everything */
	pr_debug("debug\n");
	ck_assert_str_eq(fake_console_text(), "[    0.000000] debug\n");

	fake_console_reset();
	console_loglevel = 0; /* loglevel=0: nothing, not even emergencies */
	pr_emerg("quiet\n");
	ck_assert_str_eq(fake_console_text(), "");
}
END_TEST

/* A continuation keeps its line's level, so a hidden line stays hidden. */
START_TEST(test_cont_keeps_level)
{
	console_loglevel = 4;
	pr_info("hidden");
	pr_cont(" still hidden\n");
	pr_err("loud");
	pr_cont(" and clear\n");
	ck_assert_str_eq(fake_console_text(), "[    0.000000] loud and clear\n");
}
END_TEST

/* Ending a hidden open line must not leak its newline onto the console. */
START_TEST(test_hidden_open_line_then_loud)
{
	char log[256];

	console_loglevel = 4;
	pr_info("quiet");
	pr_err("loud\n");
	ck_assert_str_eq(fake_console_text(), "[    0.000000] loud\n");
	printk_log_read(log, sizeof(log));
	ck_assert_str_eq(log, "[    0.000000] quiet\n[    0.000000] loud\n");
}
END_TEST

START_TEST(test_return_value)
{
	ck_assert_int_eq(printk(KERN_ERR "abc%d\n", 5), 5);
	ck_assert_int_eq(printk("%s", ""), 0);
	ck_assert_str_eq(fake_console_text(), "[    0.000000] abc5\n");
}
END_TEST

/* A message longer than printk's line buffer is cut, not overrun; the line is then ended. */
START_TEST(test_long_message_cut)
{
	enum { LONG = 3000, PRINTK_LINE_MAX = 1024 };
	static char big[LONG + 1];
	const char *text;

	memset(big, 'x', LONG);
	ck_assert_int_eq(printk("%s\n", big), LONG + 1);
	pr_info("next\n");
	text = fake_console_text();
	ck_assert_uint_eq(strlen(text), 15 + PRINTK_LINE_MAX - 1 + 1 + 20);
	ck_assert_str_eq(text + 15 + PRINTK_LINE_MAX - 1, "\n[    0.000000] next\n");
}
END_TEST

START_TEST(test_log_read_truncation)
{
	char buf[64];

	memset(buf, '#', sizeof(buf));
	ck_assert_uint_eq(printk_log_read(buf, 0), 0);
	ck_assert_int_eq(buf[0], '#');
	ck_assert_uint_eq(printk_log_read(buf, sizeof(buf)), 0); /* empty log */
	ck_assert_str_eq(buf, "");

	pr_info("hello world\n");
	/* The newest size - 1 bytes, NUL-terminated. */
	ck_assert_uint_eq(printk_log_read(buf, 10), 9);
	ck_assert_str_eq(buf, "lo world\n");
	ck_assert_uint_eq(printk_log_read(buf, 1), 0);
	ck_assert_str_eq(buf, "");
	ck_assert_uint_eq(printk_log_read(buf, sizeof(buf)), 15 + 12);
	ck_assert_str_eq(buf, "[    0.000000] hello world\n");
}
END_TEST

/* Past the ring's size the oldest text goes; a read returns the newest. */
START_TEST(test_log_wraps)
{
	enum { LOG_BUF_SIZE = 64 * 1024 };
	size_t size = 2 * LOG_BUF_SIZE;
	char *buf = malloc(size);
	size_t n;

	ck_assert_ptr_nonnull(buf);
	for (int i = 0; i < 5000; i++)
		pr_debug("message %05d\n", i); /* 15 + 14 = 29 bytes each */
	n = printk_log_read(buf, size);
	ck_assert_uint_eq(n, LOG_BUF_SIZE);
	ck_assert_uint_eq(strlen(buf), LOG_BUF_SIZE);
	ck_assert_str_eq(buf + n - 29, "[    0.000000] message 04999\n");
	ck_assert_ptr_null(strstr(buf, "message 00000"));
	free(buf);
}
END_TEST

START_TEST(test_panic_mode_still_prints)
{
	printk_enter_panic();
	pr_emerg("Kernel panic - not syncing\n");
	ck_assert_str_eq(fake_console_text(), "[    0.000000] Kernel panic - not syncing\n");
}
END_TEST

Suite *printk_suite(void)
{
	Suite *s = suite_create("printk");
	TCase *tc = tcase_create("printk");

	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, test_timestamp_format);
	tcase_add_test(tc, test_multiline_stamps_each_line);
	tcase_add_test(tc, test_open_line_closed_by_next);
	tcase_add_test(tc, test_cont_continues_line);
	tcase_add_test(tc, test_cont_after_closed_line);
	tcase_add_test(tc, test_level_filtering);
	tcase_add_test(tc, test_level_bounds);
	tcase_add_test(tc, test_cont_keeps_level);
	tcase_add_test(tc, test_hidden_open_line_then_loud);
	tcase_add_test(tc, test_return_value);
	tcase_add_test(tc, test_long_message_cut);
	tcase_add_test(tc, test_log_read_truncation);
	tcase_add_test(tc, test_log_wraps);
	tcase_add_test(tc, test_panic_mode_still_prints);
	suite_add_tcase(s, tc);
	return s;
}

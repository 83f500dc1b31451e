/*
 * Host tests of procfs and its text buffers: registration rules, show
 * run at open (a snapshot), store taking writes, read-only files refusing
 * them, directories implied by paths, seeking, and the built-in
 * /proc/uptime and /proc/meminfo.
 */
#include <stdio.h>
#include <string.h>

#include "fake_arch.h"
#include "fs/file.h"
#include "fs/open.h"
#include "fs/procfs.h"
#include "fs/seqbuf.h"
#include "fs/sys_fs.h"
#include "fs_fixture.h"
#include "lib/errno.h"
#include "mm/page_alloc.h"
#include "unit.h"

static int counter;
static char stored[64];
static size_t stored_len;

static int show_counter(struct seqbuf *sb, void *arg)
{
	return seq_printf(sb, "%s=%d\n", (const char *)arg, counter);
}

static int store_counter(const char *buf, size_t n, void *arg)
{
	if (n == 0 || buf[0] < '0' || buf[0] > '9')
		return -EINVAL;
	counter = buf[0] - '0';
	memcpy(stored, buf, n);
	stored_len = n;
	return 0;
}

static int show_fails(struct seqbuf *sb, void *arg)
{
	return -EIO;
}

static int show_big(struct seqbuf *sb, void *arg)
{
	for (int i = 0; i < 10000; i++)
		if (seq_printf(sb, "line %05d\n", i))
			return -ENOMEM;
	return 0;
}

static long read_all(int fd, char *buf, size_t size)
{
	long total = 0, n;

	while ((n = sys_read(fd, buf + total, size - 1 - (size_t)total)) > 0)
		total += n;
	buf[total] = '\0';
	return n < 0 ? n : total;
}

START_TEST(test_seqbuf)
{
	struct seqbuf sb;

	seqbuf_init(&sb);
	ck_assert_int_eq(seq_printf(&sb, "%d-%s", 42, "x"), 0);
	ck_assert_int_eq(seq_write(&sb, "yz", 2), 0);
	ck_assert_str_eq(sb.buf, "42-xyz");
	for (int i = 0; i < 1000; i++)
		ck_assert_int_eq(seq_printf(&sb, "%08d", i), 0);
	ck_assert_uint_eq(sb.len, 6 + 8000);
	ck_assert_int_eq(memcmp(sb.buf + 6 + 8 * 999, "00000999", 8), 0);
	/* Past SEQBUF_MAX: refused, the text so far intact. */
	ck_assert_int_eq(seq_printf(&sb, "%*s", SEQBUF_MAX, ""), -ENOMEM);
	ck_assert_uint_eq(sb.len, 6 + 8000);
	seqbuf_free(&sb);
	ck_assert_ptr_null(sb.buf);
}
END_TEST

START_TEST(test_register_rules)
{
	ck_assert_int_eq(procfs_register("knob", show_counter, store_counter, "knob"), 0);
	ck_assert_int_eq(procfs_register("knob", show_counter, NULL, NULL), -EEXIST);
	ck_assert_int_eq(procfs_register("knob/sub", show_counter, NULL, NULL), -EEXIST);
	ck_assert_int_eq(procfs_register("sys/kernel/a", show_counter, NULL, "a"), 0);
	ck_assert_int_eq(procfs_register("sys/kernel/b", show_counter, NULL, "b"), 0);
	ck_assert_int_eq(procfs_register("sys/kernel", show_counter, NULL, NULL), -EEXIST);
	ck_assert_int_eq(procfs_register("", show_counter, NULL, NULL), -EINVAL);
	ck_assert_int_eq(procfs_register("/abs", show_counter, NULL, NULL), -EINVAL);
	ck_assert_int_eq(procfs_register("a//b", show_counter, NULL, NULL), -EINVAL);
	ck_assert_int_eq(procfs_register("a/../b", show_counter, NULL, NULL), -EINVAL);
	ck_assert_int_eq(procfs_register("trailing/", show_counter, NULL, NULL), -EINVAL);
	ck_assert_int_eq(procfs_register("noshow", NULL, NULL, NULL), -EINVAL);
	ck_assert_int_eq(procfs_register("a-very-long-name-that-does-not-fit-in-a-table-entry-of-ninety-six-bytes-not-even-with-this-tail-on-it",
					 show_counter, NULL, NULL),
			 -ENAMETOOLONG);
	ck_assert_int_eq(procfs_lookup(""), PROCFS_DIR);
	ck_assert_int_eq(procfs_lookup("sys"), PROCFS_DIR);
	ck_assert_int_eq(procfs_lookup("sys/kernel"), PROCFS_DIR);
	ck_assert_int_eq(procfs_lookup("sys/kernel/a"), PROCFS_FILE);
	ck_assert_int_eq(procfs_lookup("sys/ker"), PROCFS_NONE);
	ck_assert_int_eq(procfs_lookup("knob"), PROCFS_FILE);
	for (int i = 3; i < PROCFS_MAX_ENTRIES; i++) {
		char name[16];

		snprintf(name, sizeof(name), "f%d", i);
		ck_assert_int_eq(procfs_register(name, show_counter, NULL, NULL), 0);
	}
	ck_assert_int_eq(procfs_register("one-too-many", show_counter, NULL, NULL), -ENOSPC);
}
END_TEST

START_TEST(test_show_snapshot_and_store)
{
	char buf[64];

	counter = 1;
	ck_assert_int_eq(procfs_register("knob", show_counter, store_counter, "knob"), 0);
	ck_assert_int_eq(sys_open("/proc/knob", O_RDONLY, 0), 0);
	counter = 2;
	/* The text was made at open: the reader sees 1. */
	ck_assert_int_eq(read_all(0, buf, sizeof(buf)), 7);
	ck_assert_str_eq(buf, "knob=1\n");
	ck_assert_int_eq(sys_lseek(0, 5, SEEK_SET), 5);
	ck_assert_int_eq(sys_read(0, buf, 1), 1);
	ck_assert_int_eq(buf[0], '1');
	ck_assert_int_eq(sys_lseek(0, -1, SEEK_CUR), 5);
	ck_assert_int_eq(sys_lseek(0, 0, SEEK_END), -EINVAL);
	ck_assert_int_eq(sys_lseek(0, -9, SEEK_SET), -EINVAL);
	ck_assert_int_eq(sys_write(0, "7", 1), -EBADF);
	/* Writing goes to store. */
	ck_assert_int_eq(sys_open("/proc/knob", O_WRONLY, 0), 1);
	ck_assert_int_eq(sys_write(1, "7\n", 2), 2);
	ck_assert_int_eq(counter, 7);
	ck_assert_uint_eq(stored_len, 2);
	ck_assert_int_eq(sys_write(1, "x", 1), -EINVAL);
	ck_assert_int_eq(sys_write(1, BAD_UPTR, 1), -EFAULT);
	{
		static char huge[PROCFS_STORE_MAX + 1];

		ck_assert_int_eq(sys_write(1, huge, sizeof(huge)), -EINVAL);
	}
	ck_assert_int_eq(sys_open("/proc/knob", O_RDWR, 0), 2);
	ck_assert_int_eq(read_all(2, buf, sizeof(buf)), 7);
	ck_assert_str_eq(buf, "knob=7\n");
}
END_TEST

START_TEST(test_read_only_and_errors)
{
	char buf[16];
	static char text[200000];

	ck_assert_int_eq(procfs_register("ro", show_counter, NULL, "ro"), 0);
	ck_assert_int_eq(procfs_register("broken", show_fails, NULL, NULL), 0);
	ck_assert_int_eq(procfs_register("big", show_big, NULL, NULL), 0);
	ck_assert_int_eq(procfs_register("d/x", show_counter, NULL, "x"), 0);
	ck_assert_int_eq(sys_open("/proc/ro", O_WRONLY, 0), -EACCES);
	ck_assert_int_eq(sys_open("/proc/ro", O_RDWR, 0), -EACCES);
	ck_assert_int_eq(sys_open("/proc/broken", O_RDONLY, 0), -EIO);
	ck_assert_int_eq(sys_open("/proc/missing", O_RDONLY, 0), -ENOENT);
	ck_assert_int_eq(sys_open("/proc/ro/x", O_RDONLY, 0), -ENOTDIR);
	ck_assert_int_eq(sys_open("/proc/d", O_RDONLY, 0), 0);
	ck_assert_int_eq(sys_read(0, buf, 1), -EISDIR);
	ck_assert_int_eq(sys_open("/proc/d/../d/x", O_RDONLY, 0), 1);
	ck_assert_int_eq(read_all(1, buf, sizeof(buf)), 4);
	ck_assert_int_eq(sys_open("/proc/big", O_RDONLY, 0), 2);
	ck_assert_int_eq(read_all(2, text, sizeof(text)), 110000);
	ck_assert_int_eq(memcmp(text + 109989, "line 09999\n", 11), 0);
}
END_TEST

START_TEST(test_builtin)
{
	char buf[256];
	unsigned long total, free, avail;
	unsigned long long sec, cs;

	procfs_init();
	fake_clock_ns = 12345678901ULL;
	ck_assert_int_eq(sys_open("/proc/uptime", O_RDONLY, 0), 0);
	ck_assert_int_gt(read_all(0, buf, sizeof(buf)), 0);
	ck_assert_int_eq(sscanf(buf, "%llu.%llu", &sec, &cs), 2);
	ck_assert_str_eq(buf, "12.34 0.00\n");
	ck_assert_int_eq(sys_open("/proc/meminfo", O_RDONLY, 0), 1);
	ck_assert_int_gt(read_all(1, buf, sizeof(buf)), 0);
	ck_assert_int_eq(sscanf(buf, "MemTotal: %lu kB\nMemFree: %lu kB\nMemAvailable: %lu kB",
				&total, &free, &avail),
			 3);
	ck_assert_uint_eq(total, page_alloc_total_pages() * 4);
	ck_assert_uint_le(free, total);
	ck_assert_uint_gt(free, 0);
	ck_assert_uint_eq(free, avail);
	ck_assert_int_eq(procfs_lookup("uptime"), PROCFS_FILE);
}
END_TEST

Suite *procfs_suite(void)
{
	Suite *s = suite_create("procfs");
	TCase *tc = tcase_create("procfs");

	tcase_add_checked_fixture(tc, fs_setup, fs_teardown);
	tcase_add_test(tc, test_seqbuf);
	tcase_add_test(tc, test_register_rules);
	tcase_add_test(tc, test_show_snapshot_and_store);
	tcase_add_test(tc, test_read_only_and_errors);
	tcase_add_test(tc, test_builtin);
	suite_add_tcase(s, tc);
	return s;
}

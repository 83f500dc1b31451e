/*
 * Host tests of the pure rules behind getdents64 and access: the
 * linux_dirent64 record layout and packing (lengths, padding, d_off, room),
 * d_type from a mode, and access_check's root rules (read-only file
 * systems, execute bits, directory search).
 */
#include <string.h>

#include "fs/dirent.h"
#include "fs/stat.h"
#include "lib/errno.h"
#include "unit.h"

/* Linux's d_type values (include/linux/fs_types.h). */
_Static_assert(DT_REG == 8 && DT_DIR == 4 && DT_LNK == 10 && DT_CHR == 2 && DT_FIFO == 1, "d_type");

START_TEST(test_reclen)
{
	/* 19 bytes of header, the name, its NUL, padded to 8. */
	ck_assert_uint_eq(dirent64_reclen(0), 24);
	ck_assert_uint_eq(dirent64_reclen(1), 24);
	ck_assert_uint_eq(dirent64_reclen(4), 24);
	ck_assert_uint_eq(dirent64_reclen(5), 32);
	ck_assert_uint_eq(dirent64_reclen(12), 32);
	ck_assert_uint_eq(dirent64_reclen(13), 40);
	ck_assert_uint_eq(dirent64_reclen(255), 280);
}
END_TEST

START_TEST(test_pack)
{
	unsigned char buf[64];
	struct linux_dirent64 *d = (struct linux_dirent64 *)buf;

	memset(buf, 0xee, sizeof(buf));
	ck_assert_uint_eq(dirent64_pack(buf, sizeof(buf), 77, 3, DT_REG, "hello.txtXX", 9), 32);
	ck_assert_uint_eq(d->d_ino, 77);
	ck_assert_int_eq(d->d_off, 3);
	ck_assert_uint_eq(d->d_reclen, 32);
	ck_assert_uint_eq(d->d_type, DT_REG);
	ck_assert_str_eq(d->d_name, "hello.txt"); /* only name_len bytes, then a NUL */
	for (int i = 19 + 9; i < 32; i++)
		ck_assert_uint_eq(buf[i], 0); /* padding zeroed */
	ck_assert_uint_eq(buf[32], 0xee);     /* nothing past the record */
	/* Exactly enough room, and one byte short. */
	ck_assert_uint_eq(dirent64_pack(buf, 24, 1, 1, DT_DIR, ".", 1), 24);
	memset(buf, 0xee, sizeof(buf));
	ck_assert_uint_eq(dirent64_pack(buf, 31, 1, 1, DT_DIR, "abcde", 5), 0);
	ck_assert_uint_eq(buf[0], 0xee); /* untouched */
	ck_assert_uint_eq(dirent64_pack(buf, 0, 1, 1, DT_DIR, "", 0), 0);
	/* A negative-looking offset goes through as it is (Linux's d_off is signed). */
	ck_assert_uint_eq(dirent64_pack(buf, sizeof(buf), 5, -2, DT_LNK, "l", 1), 24);
	ck_assert_int_eq(d->d_off, -2);
}
END_TEST

START_TEST(test_type)
{
	ck_assert_uint_eq(dirent_type(S_IFREG | 0644), DT_REG);
	ck_assert_uint_eq(dirent_type(S_IFDIR | 0755), DT_DIR);
	ck_assert_uint_eq(dirent_type(S_IFLNK | 0777), DT_LNK);
	ck_assert_uint_eq(dirent_type(S_IFCHR | 0666), DT_CHR);
	ck_assert_uint_eq(dirent_type(S_IFBLK | 0600), DT_BLK);
	ck_assert_uint_eq(dirent_type(S_IFIFO | 0600), DT_FIFO);
	ck_assert_uint_eq(dirent_type(S_IFSOCK | 0777), DT_SOCK);
	ck_assert_uint_eq(dirent_type(0), DT_UNKNOWN);
}
END_TEST

START_TEST(test_access_rules)
{
	/* Existence and reading: always, whatever the bits. */
	ck_assert_int_eq(access_check(S_IFREG | 0000, true, F_OK), 0);
	ck_assert_int_eq(access_check(S_IFREG | 0000, true, R_OK), 0);
	/* Writing a read-only file system's file, directory or symlink: EROFS first. */
	ck_assert_int_eq(access_check(S_IFREG | 0644, true, W_OK), -EROFS);
	ck_assert_int_eq(access_check(S_IFDIR | 0755, true, W_OK | X_OK), -EROFS);
	ck_assert_int_eq(access_check(S_IFLNK | 0777, true, W_OK), -EROFS);
	ck_assert_int_eq(access_check(S_IFREG | 0000, true, W_OK | X_OK), -EROFS);
	/* ... but devices, FIFOs and sockets stay writable; and a writable file system. */
	ck_assert_int_eq(access_check(S_IFCHR | 0666, true, W_OK), 0);
	ck_assert_int_eq(access_check(S_IFIFO | 0600, true, W_OK), 0);
	ck_assert_int_eq(access_check(S_IFSOCK | 0777, true, W_OK), 0);
	ck_assert_int_eq(access_check(S_IFREG | 0444, false, W_OK), 0); /* root overrides */
	/* Executing: some execute bit, anyone's. */
	ck_assert_int_eq(access_check(S_IFREG | 0644, false, X_OK), -EACCES);
	ck_assert_int_eq(access_check(S_IFREG | 0644, true, R_OK | X_OK), -EACCES);
	ck_assert_int_eq(access_check(S_IFREG | 0755, true, X_OK), 0);
	ck_assert_int_eq(access_check(S_IFREG | 0001, true, R_OK | X_OK), 0);
	ck_assert_int_eq(access_check(S_IFREG | 0010, false, X_OK | W_OK), 0);
	ck_assert_int_eq(access_check(S_IFCHR | 0666, false, X_OK), -EACCES);
	/* Searching a directory: always, unless writing is asked too and no bit allows it. */
	ck_assert_int_eq(access_check(S_IFDIR | 0000, true, X_OK), 0);
	ck_assert_int_eq(access_check(S_IFDIR | 0600, false, R_OK | X_OK), 0);
	ck_assert_int_eq(access_check(S_IFDIR | 0600, false, W_OK | X_OK), -EACCES);
	ck_assert_int_eq(access_check(S_IFDIR | 0700, false, W_OK | X_OK), 0);
}
END_TEST

Suite *dirent_suite(void)
{
	Suite *s = suite_create("dirent");
	TCase *tc = tcase_create("rules");

	tcase_add_test(tc, test_reclen);
	tcase_add_test(tc, test_pack);
	tcase_add_test(tc, test_type);
	tcase_add_test(tc, test_access_rules);
	suite_add_tcase(s, tc);
	return s;
}

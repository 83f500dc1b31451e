/*
 * Unit tests of the cpio "newc" reader (kernel/fs/cpio.c): hand-built
 * archives, well-formed and broken, one broken field at a time. Archives
 * are parsed from heap copies of exactly their length, so ASan catches any
 * read past the end. The index over it: test_initrd.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpio_builder.h"
#include "fs/cpio.h"
#include "lib/errno.h"
#include "unit.h"

/* Reads the whole archive; returns cpio_next's final result, entries counted in *n. */
static int read_all(const void *p, size_t len, size_t *n, struct cpio_reader *out)
{
	u8 *c = exact_copy(p, len);
	struct cpio_reader r;
	struct cpio_entry e;
	int ret;

	*n = 0;
	cpio_reader_init(&r, c, len);
	while ((ret = cpio_next(&r, &e)) > 0)
		(*n)++;
	if (out)
		*out = r;
	free(c);
	return ret;
}

/* The reader refuses the archive, naming why. */
static void expect_malformed(const struct arc *a, const char *why, size_t at)
{
	struct cpio_reader r;
	size_t n;

	ck_assert_int_eq(read_all(a->buf, a->len, &n, &r), -EINVAL);
	ck_assert_ptr_nonnull(r.error);
	ck_assert_msg(strstr(r.error, why), "error '%s', expected '%s'", r.error, why);
	ck_assert_uint_eq(r.error_offset, at);
}

/* ---------------------------------------------------------------- the reader */

START_TEST(reads_entries_in_order)
{
	struct arc a;
	struct cpio_reader r;
	struct cpio_entry e;
	u8 *c;

	arc_begin(&a);
	arc_dir(&a, ".");
	arc_file(&a, "./init", "ELF!");
	arc_entry(&a, "bin/sh-link", LNK, "../init", 7);
	arc_trailer(&a);
	memset(a.buf + a.len, 0, 512 - a.len % 512); /* writers pad to a block */
	a.len += 512 - a.len % 512;
	c = exact_copy(a.buf, a.len);

	cpio_reader_init(&r, c, a.len);
	ck_assert_int_eq(cpio_next(&r, &e), 1);
	ck_assert_str_eq(e.name, ".");
	ck_assert_uint_eq(e.mode, DIR(0755));
	ck_assert_uint_eq(e.size, 0);
	ck_assert_uint_eq(e.offset, 0);
	ck_assert_int_eq(cpio_next(&r, &e), 1);
	ck_assert_str_eq(e.name, "./init");
	ck_assert_uint_eq(e.name_len, 6);
	ck_assert_uint_eq(e.size, 4);
	ck_assert_mem_eq(e.data, "ELF!", 4);
	ck_assert_uint_eq(e.nlink, 1);
	ck_assert_int_eq(cpio_next(&r, &e), 1);
	ck_assert_str_eq(e.name, "bin/sh-link");
	ck_assert_uint_eq(e.mode & CPIO_S_IFMT, CPIO_S_IFLNK);
	ck_assert_mem_eq(e.data, "../init", 7);
	ck_assert_int_eq(cpio_next(&r, &e), 0);
	ck_assert(r.done);
	ck_assert_int_eq(cpio_next(&r, &e), 0); /* stays at the end */
	ck_assert_ptr_null(r.error);
	free(c);
}
END_TEST

/* Name lengths and data sizes of every residue mod 4: padding is counted from the archive's start. */
START_TEST(padding_of_every_length)
{
	static const char *names[] = { "a", "ab", "abc", "abcd", "abcde" };
	struct arc a;
	struct cpio_reader r;
	struct cpio_entry e;
	char data[8] = "0123456";
	u8 *c;

	arc_begin(&a);
	for (int n = 0; n < 5; n++)
		for (int d = 0; d < 5; d++) {
			char name[16];

			snprintf(name, sizeof(name), "%s%d", names[n], d);
			arc_entry(&a, name, REG(0600), data, (size_t)d);
		}
	arc_trailer(&a);
	c = exact_copy(a.buf, a.len);
	cpio_reader_init(&r, c, a.len);
	for (int n = 0; n < 5; n++)
		for (int d = 0; d < 5; d++) {
			char name[16];

			snprintf(name, sizeof(name), "%s%d", names[n], d);
			ck_assert_int_eq(cpio_next(&r, &e), 1);
			ck_assert_str_eq(e.name, name);
			ck_assert_uint_eq(e.size, (size_t)d);
			ck_assert_mem_eq(e.data, data, (size_t)d);
			ck_assert_uint_eq(((const u8 *)e.data - c) % 4, 0);
		}
	ck_assert_int_eq(cpio_next(&r, &e), 0);
	free(c);
}
END_TEST

START_TEST(crc_format_checksum_verified)
{
	struct arc a;
	struct hdr h = HDR_DEFAULT;
	size_t n;
	size_t at;

	h.magic = CPIO_MAGIC_CRC;
	arc_begin(&a);
	arc_entry_h(&a, "good", REG(0644), "\xff\x01hello", 7, h);
	arc_trailer(&a);
	ck_assert_int_eq(read_all(a.buf, a.len, &n, NULL), 0);
	ck_assert_uint_eq(n, 1);

	arc_begin(&a);
	h.check = 0x1234;
	at = arc_entry_h(&a, "bad", REG(0644), "hello", 5, h);
	arc_trailer(&a);
	expect_malformed(&a, "checksum", at);
}
END_TEST

START_TEST(uppercase_hex_accepted)
{
	struct arc a;
	size_t n;

	arc_begin(&a);
	arc_file(&a, "f", "0123456789abc"); /* size 0xd */
	memcpy(a.buf + 54, "0000000D", 8);
	arc_trailer(&a);
	ck_assert_int_eq(read_all(a.buf, a.len, &n, NULL), 0);
	ck_assert_uint_eq(n, 1);
}
END_TEST

START_TEST(bad_magic)
{
	static const char *magics[] = { "070707", "070700", "070703", "\0\0\0\0\0\0" };

	for (size_t i = 0; i < 4; i++) {
		struct arc a;

		arc_begin(&a);
		arc_file(&a, "ok", "x");
		memcpy(a.buf, magics[i], 6);
		arc_trailer(&a);
		expect_malformed(&a, "bad magic", 0);
	}
}
END_TEST

/* Each of the 13 fields, one at a time, with a non-hex character in each position. */
START_TEST(non_hex_fields)
{
	static const char bad[] = { 'g', 'G', ' ', '-', '+', 'x', '\0', '/' };

	for (int field = 0; field < 13; field++)
		for (size_t b = 0; b < sizeof(bad); b++) {
			struct arc a;

			arc_begin(&a);
			arc_file(&a, "f", "data");
			a.buf[6 + field * 8 + (b % 8)] = (u8)bad[b];
			arc_trailer(&a);
			expect_malformed(&a, "8 hex digits", 0);
		}
}
END_TEST

START_TEST(bad_file_type)
{
	struct arc a;

	arc_begin(&a);
	arc_entry(&a, "odd", 0170644, "x", 1);
	arc_trailer(&a);
	expect_malformed(&a, "file type", 0);

	arc_begin(&a);
	arc_entry(&a, "none", 0644, "x", 1); /* type bits 0 */
	arc_trailer(&a);
	expect_malformed(&a, "file type", 0);
}
END_TEST

START_TEST(bad_namesize)
{
	struct arc a;
	struct hdr h = HDR_DEFAULT;

	/* 0 and 1: no name at all. */
	for (int ns = 0; ns < 2; ns++) {
		arc_begin(&a);
		h.namesize = ns;
		arc_entry_h(&a, "x", REG(0644), NULL, 0, h);
		arc_trailer(&a);
		expect_malformed(&a, "empty name", 0);
	}
	/* Over the limit. */
	arc_begin(&a);
	h.namesize = CPIO_NAME_MAX + 1;
	arc_entry_h(&a, "x", REG(0644), NULL, 0, h);
	arc_trailer(&a);
	expect_malformed(&a, "longer than", 0);
	/* Says one byte less than the name: the NUL is not where it claims. */
	arc_begin(&a);
	h.namesize = 3;
	arc_entry_h(&a, "abc", REG(0644), NULL, 0, h);
	arc_trailer(&a);
	expect_malformed(&a, "NUL-terminated", 0);
	/* Says more than the name: a NUL inside it. */
	arc_begin(&a);
	h.namesize = 5;
	arc_entry_h(&a, "ab", REG(0644), "zzzzzzzz", 8, h);
	arc_trailer(&a);
	expect_malformed(&a, "NUL-terminated", 0);
}
END_TEST

START_TEST(name_past_end)
{
	struct arc a;
	struct hdr h = HDR_DEFAULT;

	arc_begin(&a);
	h.namesize = 400;
	arc_entry_h(&a, "short", REG(0644), NULL, 0, h); /* no trailer: 400 runs out */
	expect_malformed(&a, "name runs past", 0);
}
END_TEST

START_TEST(name_padding_past_end)
{
	struct arc a;

	/* 110 + 5 ("abcd\0") = 115: the name padding needs one more byte. */
	arc_begin(&a);
	arc_file(&a, "abcd", "");
	a.len = CPIO_HEADER_SIZE + 5;
	expect_malformed(&a, "padding", 0);
}
END_TEST

START_TEST(data_past_end)
{
	struct arc a;
	struct hdr h = HDR_DEFAULT;
	size_t at;

	arc_begin(&a);
	arc_file(&a, "ok", "fine");
	h.filesize = 0x100;
	at = arc_entry_h(&a, "big", REG(0644), "tiny", 4, h);
	arc_trailer(&a);
	expect_malformed(&a, "data runs past", at);

	arc_begin(&a);
	h.filesize = 0xffffffff;
	arc_entry_h(&a, "huge", REG(0644), "tiny", 4, h);
	arc_trailer(&a);
	expect_malformed(&a, "data runs past", 0);
}
END_TEST

START_TEST(trailer_required)
{
	struct arc a;

	arc_begin(&a);
	arc_file(&a, "a", "1");
	arc_file(&a, "b", "22");
	expect_malformed(&a, "without a TRAILER", a.len);

	/* Empty archive, and no data at all. */
	arc_begin(&a);
	expect_malformed(&a, "without a TRAILER", 0);
	{
		struct cpio_reader r;
		struct cpio_entry e;

		cpio_reader_init(&r, NULL, 100);
		ck_assert_int_eq(cpio_next(&r, &e), -EINVAL);
	}
	/* A name that only starts like the trailer is an ordinary entry. */
	arc_begin(&a);
	arc_file(&a, "TRAILER!!!x", "");
	arc_file(&a, "TRAILER!!", "");
	expect_malformed(&a, "without a TRAILER", a.len);
}
END_TEST

START_TEST(bytes_after_trailer_ignored)
{
	struct arc a;
	size_t n;

	arc_begin(&a);
	arc_file(&a, "a", "1");
	arc_trailer(&a);
	memcpy(a.buf + a.len, "garbage that is not a header", 28);
	a.len += 28;
	ck_assert_int_eq(read_all(a.buf, a.len, &n, NULL), 0);
	ck_assert_uint_eq(n, 1);
}
END_TEST

START_TEST(truncated_header)
{
	struct arc a;

	arc_begin(&a);
	arc_file(&a, "a", "1");
	arc_trailer(&a);
	a.len = 60;
	expect_malformed(&a, "truncated header", 0);
}
END_TEST

/* Every prefix of a good archive is refused cleanly (no trailer, or cut inside an entry). */
START_TEST(every_truncation_refused)
{
	struct arc a;

	arc_begin(&a);
	arc_dir(&a, ".");
	arc_file(&a, "init", "#!/bin/true\n");
	arc_dir(&a, "etc");
	arc_file(&a, "etc/motd", "hello\n");
	arc_entry(&a, "sh", LNK, "/bin/sh", 7);
	arc_trailer(&a);
	for (size_t len = 0; len < a.len; len++) {
		size_t n;

		ck_assert_int_eq(read_all(a.buf, len, &n, NULL), -EINVAL);
	}
}
END_TEST

START_TEST(error_is_sticky)
{
	struct arc a;
	struct cpio_reader r;
	struct cpio_entry e;

	arc_begin(&a);
	arc_file(&a, "a", "1");
	memcpy(a.buf, "XXXXXX", 6);
	cpio_reader_init(&r, a.buf, a.len);
	ck_assert_int_eq(cpio_next(&r, &e), -EINVAL);
	ck_assert_int_eq(cpio_next(&r, &e), -EINVAL);
}
END_TEST

Suite *cpio_suite(void)
{
	Suite *s = suite_create("cpio");
	TCase *r = tcase_create("reader");

	tcase_add_test(r, reads_entries_in_order);
	tcase_add_test(r, padding_of_every_length);
	tcase_add_test(r, crc_format_checksum_verified);
	tcase_add_test(r, uppercase_hex_accepted);
	tcase_add_test(r, bad_magic);
	tcase_add_test(r, non_hex_fields);
	tcase_add_test(r, bad_file_type);
	tcase_add_test(r, bad_namesize);
	tcase_add_test(r, name_past_end);
	tcase_add_test(r, name_padding_past_end);
	tcase_add_test(r, data_past_end);
	tcase_add_test(r, trailer_required);
	tcase_add_test(r, bytes_after_trailer_ignored);
	tcase_add_test(r, truncated_header);
	tcase_add_test(r, every_truncation_refused);
	tcase_add_test(r, error_is_sticky);
	suite_add_tcase(s, r);
	return s;
}

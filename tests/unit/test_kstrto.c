/*
 * Host tests of kernel/lib/kstrto.c, the strict number parser behind the
 * command line. Every row is parsed from an exactly sized, unterminated
 * copy, so the sanitizer catches any read past len.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/compiler.h"
#include "lib/kstrto.h"
#include "unit.h"

/* What *out holds before the call; an error must leave it so. */
#define UNTOUCHED_S64 ((s64)0x5a5a5a5a5a5a5a5a)
#define UNTOUCHED_U64 ((u64)0xa5a5a5a5a5a5a5a5)

struct s64_case {
	const char *text;
	bool suffix; /* allow K/M/G */
	int ret;
	s64 want;
};

struct u64_case {
	const char *text;
	bool suffix;
	int ret;
	u64 want;
};

/* One row per line; clang-format would spread each initializer over four. */
/* clang-format off */
#define OK(t, v) { t, false, 0, v }
#define BAD(t) { t, false, -1, 0 }
#define OK_SFX(t, v) { t, true, 0, v }
#define BAD_SFX(t) { t, true, -1, 0 }
/* clang-format on */

static const struct s64_case s64_cases[] = {
	OK("0", 0),
	OK("1", 1),
	OK("-1", -1),
	OK("+1", 1),
	OK("-0", 0),
	OK("+0", 0),
	OK("123", 123),
	OK("-123", -123),
	OK("007", 7), /* leading zeros are decimal, not octal */
	OK("00000000000000000000000000000000000042", 42),
	OK("0x10", 16),
	OK("0X10", 16),
	OK("0xff", 255),
	OK("0xFF", 255),
	OK("0xDeadBeef", 0xdeadbeef),
	OK("0x0", 0),
	OK("-0x10", -16),
	OK("+0x10", 16),
	OK("9223372036854775807", INT64_MAX),
	OK("-9223372036854775807", -INT64_MAX),
	OK("-9223372036854775808", INT64_MIN),
	OK("0x7fffffffffffffff", INT64_MAX),
	OK("-0x8000000000000000", INT64_MIN),

	BAD(""),
	BAD("-"),
	BAD("+"),
	BAD("0x"),
	BAD("0X"),
	BAD("-0x"),
	BAD("x10"),
	BAD("0x0x1"),
	BAD("0xg"),
	BAD("12a"),
	BAD("1 "),
	BAD(" 1"),
	BAD("1 2"),
	BAD("1_000"),
	BAD("--1"),
	BAD("+-1"),
	BAD("-+1"),
	BAD("1-"),
	BAD("1.5"),
	BAD("1e3"),
	BAD("0b101"),
	BAD("0x-5"),
	BAD("9223372036854775808"),  /* INT64_MAX + 1 */
	BAD("-9223372036854775809"), /* INT64_MIN - 1 */
	BAD("0x8000000000000000"),
	BAD("-0x8000000000000001"),
	BAD("18446744073709551615"),
	BAD("18446744073709551616"),
	BAD("99999999999999999999999999"),
	BAD("0x10000000000000000"),
	BAD("1K"), /* suffixes only when asked for */
	BAD("1g"),

	OK_SFX("1K", 1024),
	OK_SFX("1k", 1024),
	OK_SFX("2M", 2 * 1024 * 1024),
	OK_SFX("2m", 2 * 1024 * 1024),
	OK_SFX("3G", 3ll << 30),
	OK_SFX("3g", 3ll << 30),
	OK_SFX("0K", 0),
	OK_SFX("-1K", -1024),
	OK_SFX("+4k", 4096),
	OK_SFX("0x10K", 16 * 1024),
	OK_SFX("0x1G", 1ll << 30),
	OK_SFX("-0x2m", -(2ll << 20)),
	OK_SFX("42", 42),
	OK_SFX("8589934591G", INT64_MAX - ((1ll << 30) - 1)),	 /* 2^63 - 2^30 */
	OK_SFX("8796093022207M", INT64_MAX - ((1ll << 20) - 1)), /* 2^63 - 2^20 */
	OK_SFX("9007199254740991K", INT64_MAX - 1023),		 /* 2^63 - 2^10 */
	OK_SFX("-8589934592G", INT64_MIN),
	OK_SFX("-9007199254740992K", INT64_MIN),

	BAD_SFX("8589934592G"), /* 2^63: fits the magnitude, not the signed range */
	BAD_SFX("8796093022208M"),
	BAD_SFX("9007199254740992K"),
	BAD_SFX("-8589934593G"),
	BAD_SFX("17179869184G"), /* 2^64: the multiplication itself overflows */
	BAD_SFX("18446744073709551615K"),
	BAD_SFX("9223372036854775808K"),
	BAD_SFX("K"),
	BAD_SFX("-K"),
	BAD_SFX("+G"),
	BAD_SFX("0xK"),
	BAD_SFX("1KB"),
	BAD_SFX("1KK"),
	BAD_SFX("1Ki"),
	BAD_SFX("1T"),
	BAD_SFX("1 K"),
	BAD_SFX("K1"),
	BAD_SFX("1K "),
	BAD_SFX(""),
};

static const struct u64_case u64_cases[] = {
	OK("0", 0),
	OK("+5", 5),
	OK("+0", 0),
	OK("4096", 4096),
	OK("0x1000", 4096),
	OK("0XABC", 0xabc),
	OK("9223372036854775808", 1ull << 63),
	OK("18446744073709551615", UINT64_MAX),
	OK("018446744073709551615", UINT64_MAX),
	OK("0xffffffffffffffff", UINT64_MAX),
	OK("0xFFFFFFFFFFFFFFFF", UINT64_MAX),
	OK("0x0000000000000000ffffffffffffffff", UINT64_MAX),
	OK("0xffffffff80000000", 0xffffffff80000000ull),

	BAD(""),
	BAD("+"),
	BAD("-"),
	BAD("-1"), /* no minus sign on unsigned values, not even for zero */
	BAD("-0"),
	BAD("++1"),
	BAD("0x"),
	BAD("+0x"),
	BAD(" 1"),
	BAD("1 "),
	BAD("abc"),
	BAD("0x1g"),
	BAD("18446744073709551616"), /* UINT64_MAX + 1 */
	BAD("18446744073709551620"),
	BAD("36893488147419103231"),
	BAD("0x10000000000000000"),
	BAD("1M"),

	OK_SFX("16G", 16ull << 30),
	OK_SFX("1m", 1ull << 20),
	OK_SFX("+1K", 1024),
	OK_SFX("0x3fffffffffffffK", UINT64_MAX - 1023),		    /* 2^64 - 2^10 */
	OK_SFX("17592186044415M", UINT64_MAX - ((1ull << 20) - 1)), /* 2^64 - 2^20 */
	OK_SFX("17179869183G", UINT64_MAX - ((1ull << 30) - 1)),    /* 2^64 - 2^30 */
	OK_SFX("18446744073709551615", UINT64_MAX),

	BAD_SFX("0x40000000000000K"), /* 2^64 */
	BAD_SFX("17592186044416M"),
	BAD_SFX("17179869184G"),
	BAD_SFX("18446744073709551615K"),
	BAD_SFX("-1K"),
	BAD_SFX("M"),
	BAD_SFX("1GB"),
};

/* An exactly sized heap copy with no NUL, so reading s[len] is an ASan error. */
static char *unterminated_copy(const char *text, size_t len)
{
	char *s = malloc(len ? len : 1);

	ck_assert_ptr_nonnull(s);
	memcpy(s, text, len);
	return s;
}

static void check_s64(const char *text, bool suffix, int want_ret, s64 want)
{
	size_t len = strlen(text);
	char *s = unterminated_copy(text, len);
	s64 v = UNTOUCHED_S64;
	int ret = kstrtos64(s, len, suffix, &v);

	free(s);
	ck_assert_msg(ret == want_ret, "kstrtos64(\"%s\", suffix %d) returned %d, want %d", text,
		      suffix, ret, want_ret);
	if (want_ret == 0)
		ck_assert_msg(v == want, "kstrtos64(\"%s\") = %lld, want %lld", text, (long long)v,
			      (long long)want);
	else
		ck_assert_msg(v == UNTOUCHED_S64, "kstrtos64(\"%s\") failed but wrote %lld", text,
			      (long long)v);
}

static void check_u64(const char *text, bool suffix, int want_ret, u64 want)
{
	size_t len = strlen(text);
	char *s = unterminated_copy(text, len);
	u64 v = UNTOUCHED_U64;
	int ret = kstrtou64(s, len, suffix, &v);

	free(s);
	ck_assert_msg(ret == want_ret, "kstrtou64(\"%s\", suffix %d) returned %d, want %d", text,
		      suffix, ret, want_ret);
	if (want_ret == 0)
		ck_assert_msg(v == want, "kstrtou64(\"%s\") = %llu, want %llu", text,
			      (unsigned long long)v, (unsigned long long)want);
	else
		ck_assert_msg(v == UNTOUCHED_U64, "kstrtou64(\"%s\") failed but wrote %llu", text,
			      (unsigned long long)v);
}

/* Each table is one test; the first failing row stops it, and the message names the text. */
START_TEST(test_s64_table)
{
	for (size_t i = 0; i < ARRAY_SIZE(s64_cases); i++) {
		const struct s64_case *c = &s64_cases[i];

		check_s64(c->text, c->suffix, c->ret, c->want);
		/* A plain number means the same when suffixes are allowed. */
		if (!c->suffix && c->ret == 0)
			check_s64(c->text, true, 0, c->want);
	}
}
END_TEST

START_TEST(test_u64_table)
{
	for (size_t i = 0; i < ARRAY_SIZE(u64_cases); i++) {
		const struct u64_case *c = &u64_cases[i];

		check_u64(c->text, c->suffix, c->ret, c->want);
		if (!c->suffix && c->ret == 0)
			check_u64(c->text, true, 0, c->want);
	}
}
END_TEST

/* Only s[0..len) counts, whatever follows it in memory. */
START_TEST(test_len_bounds_the_text)
{
	s64 s = UNTOUCHED_S64;
	u64 u = UNTOUCHED_U64;

	ck_assert_int_eq(kstrtos64("123456", 3, false, &s), 0);
	ck_assert_int_eq(s, 123);
	ck_assert_int_eq(kstrtos64("-42junk", 3, false, &s), 0);
	ck_assert_int_eq(s, -42);
	ck_assert_int_eq(kstrtos64("1K", 1, true, &s), 0);
	ck_assert_int_eq(s, 1);
	ck_assert_int_eq(kstrtou64("0x1f", 3, false, &u), 0);
	ck_assert_uint_eq(u, 1);
	ck_assert_int_eq(kstrtou64("4096,rest", 4, false, &u), 0);
	ck_assert_uint_eq(u, 4096);
	ck_assert_int_eq(kstrtou64("64M=size", 3, true, &u), 0);
	ck_assert_uint_eq(u, 64ull << 20);
	ck_assert_int_eq(kstrtou64("18446744073709551615", 20, false, &u), 0);
	ck_assert_uint_eq(u, UINT64_MAX);

	/* A cut that leaves "0x" or a bare sign is an error. */
	u = UNTOUCHED_U64;
	ck_assert_int_eq(kstrtou64("0x10", 2, false, &u), -1);
	ck_assert_uint_eq(u, UNTOUCHED_U64);
	s = UNTOUCHED_S64;
	ck_assert_int_eq(kstrtos64("-5", 1, false, &s), -1);
	ck_assert_int_eq(kstrtos64("5", 0, false, &s), -1);
	ck_assert_int_eq(s, UNTOUCHED_S64);
}
END_TEST

/* The NUL inside len is a stray character, not the end of the text. */
START_TEST(test_embedded_nul_is_stray)
{
	static const char text[5] = { '1', '2', '\0', '3', '4' };
	s64 s = UNTOUCHED_S64;
	u64 u = UNTOUCHED_U64;

	ck_assert_int_eq(kstrtos64(text, sizeof(text), false, &s), -1);
	ck_assert_int_eq(kstrtou64("12\0", 3, false, &u), -1);
	ck_assert_int_eq(s, UNTOUCHED_S64);
	ck_assert_uint_eq(u, UNTOUCHED_U64);
}
END_TEST

/* Every decimal prefix of UINT64_MAX parses; one more digit never does. */
START_TEST(test_every_length_up_to_the_limit)
{
	const char *max = "18446744073709551615";
	u64 want = 0;

	for (size_t len = 1; len <= strlen(max); len++) {
		u64 u;

		want = want * 10 + (u64)(max[len - 1] - '0');
		ck_assert_int_eq(kstrtou64(max, len, false, &u), 0);
		ck_assert_uint_eq(u, want);
	}
	for (char d = '0'; d <= '9'; d++) {
		char text[22];
		u64 u = UNTOUCHED_U64;

		memcpy(text, max, 20);
		text[20] = d;
		ck_assert_int_eq(kstrtou64(text, 21, false, &u), -1);
		ck_assert_uint_eq(u, UNTOUCHED_U64);
	}
}
END_TEST

Suite *kstrto_suite(void)
{
	Suite *s = suite_create("kstrto");
	TCase *tc = tcase_create("kstrto");

	tcase_add_test(tc, test_s64_table);
	tcase_add_test(tc, test_u64_table);
	tcase_add_test(tc, test_len_bounds_the_text);
	tcase_add_test(tc, test_embedded_nul_is_stray);
	tcase_add_test(tc, test_every_length_up_to_the_limit);
	suite_add_tcase(s, tc);
	return s;
}

/*
 * Host tests of kernel/lib/printf.c: a table of formats with their expected
 * text, each also checked at every buffer size and, where C defines the
 * same result, against the host C library's snprintf.
 */
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "lib/compiler.h"
#include "lib/printf.h"
#include "unit.h"

/* Bytes past the size given to kvsnprintf must still hold this. */
#define CANARY	0x5a
/* Room for every expected string in the tables, plus slack to watch for overruns. */
#define BUF_MAX 256
#define SLACK	16

/* The one argument a table row passes, and at which type. */
enum arg_kind {
	ARG_NONE,
	ARG_INT,
	ARG_UINT,
	ARG_LONG,
	ARG_ULONG,
	ARG_LLONG,
	ARG_ULLONG,
	ARG_SIZE,
	ARG_PTRDIFF,
	ARG_INTMAX,
	ARG_UINTMAX,
	ARG_STR,
	ARG_PTR,
};

struct fmt_case {
	const char *fmt;
	enum arg_kind kind;
	long long s;	      /* for the signed kinds */
	unsigned long long u; /* for the unsigned kinds */
	const char *str;
	const void *ptr;
	const char *want;
};

/* One row per line; clang-format would spread each initializer over four. */
/* clang-format off */
#define NONE(f, w) { .fmt = f, .kind = ARG_NONE, .want = w }
#define INT(f, v, w) { .fmt = f, .kind = ARG_INT, .s = (v), .want = w }
#define UINT(f, v, w) { .fmt = f, .kind = ARG_UINT, .u = (v), .want = w }
#define LONG(f, v, w) { .fmt = f, .kind = ARG_LONG, .s = (v), .want = w }
#define ULONG(f, v, w) { .fmt = f, .kind = ARG_ULONG, .u = (v), .want = w }
#define LLONG(f, v, w) { .fmt = f, .kind = ARG_LLONG, .s = (v), .want = w }
#define ULLONG(f, v, w) { .fmt = f, .kind = ARG_ULLONG, .u = (v), .want = w }
#define SIZE(f, v, w) { .fmt = f, .kind = ARG_SIZE, .u = (v), .want = w }
#define PTRDIFF(f, v, w) { .fmt = f, .kind = ARG_PTRDIFF, .s = (v), .want = w }
#define INTMAX(f, v, w) { .fmt = f, .kind = ARG_INTMAX, .s = (v), .want = w }
#define UINTMAX(f, v, w) { .fmt = f, .kind = ARG_UINTMAX, .u = (v), .want = w }
#define STR(f, v, w) { .fmt = f, .kind = ARG_STR, .str = (v), .want = w }
#define PTR(f, v, w) { .fmt = f, .kind = ARG_PTR, .ptr = (const void *)(v), .want = w }
/* clang-format on */

/* Cases where C defines the result, so the host's snprintf must agree with us. */
static const struct fmt_case common_cases[] = {
	NONE("", ""),
	NONE("hello", "hello"),
	NONE("100%%", "100%"),
	NONE("%%d", "%d"),

	/* %d and %i: width, flags, precision */
	INT("%d", 0, "0"),
	INT("%d", 42, "42"),
	INT("%d", -42, "-42"),
	INT("%i", 123, "123"),
	INT("%i", -7, "-7"),
	INT("%d", INT_MAX, "2147483647"),
	INT("%d", INT_MIN, "-2147483648"),
	INT("%5d", 42, "   42"),
	INT("%5d", -42, "  -42"),
	INT("%-5d|", 42, "42   |"),
	INT("%-5d|", -42, "-42  |"),
	INT("%05d", 42, "00042"),
	INT("%05d", -42, "-0042"),
	INT("%2d", 12345, "12345"),
	INT("%+d", 42, "+42"),
	INT("%+d", -42, "-42"),
	INT("%+d", 0, "+0"),
	INT("% d", 42, " 42"),
	INT("% d", -42, "-42"),
	INT("%+ d", 42, "+42"),
	INT("% +d", 42, "+42"),
	INT("% 05d", 42, " 0042"),
	INT("%+05d", 42, "+0042"),
	INT("%-05d|", -42, "-42  |"),
	INT("%0-5d|", 42, "42   |"),
	INT("%.5d", 42, "00042"),
	INT("%.5d", -42, "-00042"),
	INT("%+.5d", 42, "+00042"),
	INT("%8.5d", -42, "  -00042"),
	INT("%-8.5d|", 42, "00042   |"),
	INT("%08.5d", 42, "   00042"),
	INT("%.3d", 12345, "12345"),
	INT("%.0d", 0, ""),
	INT("%.d", 0, ""),
	INT("%.d", 7, "7"),
	INT("%5.0d|", 0, "     |"),
	INT("%+.0d", 0, "+"),
	INT("% .0d", 0, " "),
	INT("%.0d", 3, "3"),
	INT("%d%%", 50, "50%"),
	INT("[%d]", -1, "[-1]"),

	/* %u */
	UINT("%u", 0, "0"),
	UINT("%u", 42, "42"),
	UINT("%u", UINT_MAX, "4294967295"),
	UINT("%+u", 5, "5"),
	UINT("% u", 5, "5"),
	UINT("%08u", 1234, "00001234"),
	UINT("%-8u|", 1234, "1234    |"),
	UINT("%.6u", 1234, "001234"),

	/* %x, %X, %o */
	UINT("%x", 0, "0"),
	UINT("%x", 255, "ff"),
	UINT("%X", 255, "FF"),
	UINT("%x", 0xdeadbeef, "deadbeef"),
	UINT("%X", 0xdeadbeef, "DEADBEEF"),
	UINT("%#x", 255, "0xff"),
	UINT("%#X", 255, "0XFF"),
	UINT("%#x", 0, "0"),
	UINT("%#08x", 255, "0x0000ff"),
	UINT("%#8x", 255, "    0xff"),
	UINT("%-#8x|", 255, "0xff    |"),
	UINT("%#.4x", 255, "0x00ff"),
	UINT("%#10.4x", 255, "    0x00ff"),
	UINT("%08X", 0xbeef, "0000BEEF"),
	UINT("%.0x", 0, ""),
	UINT("%#.0x", 0, ""),
	UINT("%x", UINT_MAX, "ffffffff"),
	UINT("%o", 0, "0"),
	UINT("%o", 8, "10"),
	UINT("%o", 0755, "755"),
	UINT("%#o", 8, "010"),
	UINT("%#o", 0, "0"),
	UINT("%.0o", 0, ""),
	UINT("%#.0o", 0, "0"),
	UINT("%#.3o", 8, "010"),
	UINT("%#.3o", 0755, "0755"),
	UINT("%#5o", 8, "  010"),
	UINT("%#05o", 8, "00010"),
	UINT("%o", UINT_MAX, "37777777777"),

	/* %c */
	INT("%c", 'A', "A"),
	INT("%3c", 'A', "  A"),
	INT("%-3c|", 'A', "A  |"),
	INT("<%c>", '%', "<%>"),
	INT("%c", 'A' + 256, "A"),

	/* %s */
	STR("%s", "hello", "hello"),
	STR("%s", "", ""),
	STR("[%s]", "a b", "[a b]"),
	STR("%10s", "hi", "        hi"),
	STR("%-10s|", "hi", "hi        |"),
	STR("%2s", "hello", "hello"),
	STR("%.3s", "hello", "hel"),
	STR("%.0s", "hello", ""),
	STR("%.10s", "hello", "hello"),
	STR("%8.3s", "hello", "     hel"),
	STR("%-8.3s|", "hello", "hel     |"),
	STR("%5s", "", "     "),

	/* hh and h: the argument arrives as an int and is narrowed */
	INT("%hhd", 300, "44"),
	INT("%hhd", 200, "-56"),
	INT("%hhd", -128, "-128"),
	INT("%hhd", -129, "127"),
	INT("%hhu", -1, "255"),
	INT("%hhx", 0x1ff, "ff"),
	INT("%hho", 0x1ff, "377"),
	INT("%hd", 70000, "4464"),
	INT("%hd", 40000, "-25536"),
	INT("%hd", -32768, "-32768"),
	INT("%hu", -1, "65535"),
	INT("%hx", 0x12345, "2345"),
	INT("%hX", 0xabcdef, "CDEF"),

	/* l and ll: the full 64 bits */
	LONG("%ld", 0, "0"),
	LONG("%ld", LONG_MAX, "9223372036854775807"),
	LONG("%ld", LONG_MIN, "-9223372036854775808"),
	LONG("%li", -1, "-1"),
	LONG("%ld", (long)0xffffffff80000000ul, "-2147483648"),
	LONG("%-21ld|", LONG_MIN, "-9223372036854775808 |"),
	LONG("%22ld", LONG_MIN, "  -9223372036854775808"),
	LONG("%022ld", LONG_MIN, "-009223372036854775808"),
	LONG("%+ld", LONG_MAX, "+9223372036854775807"),
	ULONG("%lu", ULONG_MAX, "18446744073709551615"),
	ULONG("%lx", 0xffffffff80000000ul, "ffffffff80000000"),
	ULONG("%lX", 0xffffffff80000000ul, "FFFFFFFF80000000"),
	ULONG("%#lx", 0xffffffff80000000ul, "0xffffffff80000000"),
	ULONG("%016lx", 0x1000, "0000000000001000"),
	ULONG("%lo", ULONG_MAX, "1777777777777777777777"),
	LLONG("%lld", LLONG_MIN, "-9223372036854775808"),
	LLONG("%lld", LLONG_MAX, "9223372036854775807"),
	LLONG("%lli", LLONG_MIN, "-9223372036854775808"),
	LLONG("%.20lld", LLONG_MIN, "-09223372036854775808"),
	LLONG("% lld", LLONG_MAX, " 9223372036854775807"),
	ULLONG("%llu", ULLONG_MAX, "18446744073709551615"),
	ULLONG("%llx", ULLONG_MAX, "ffffffffffffffff"),
	ULLONG("%llX", 0x0123456789abcdefull, "123456789ABCDEF"),
	ULLONG("%llo", ULLONG_MAX, "1777777777777777777777"),
	ULLONG("%#llo", ULLONG_MAX, "01777777777777777777777"),
	ULLONG("%#llx", 1ull << 63, "0x8000000000000000"),
	ULLONG("%llu", 1ull << 63, "9223372036854775808"),

	/* z, t, j */
	SIZE("%zu", SIZE_MAX, "18446744073709551615"),
	SIZE("%zu", 0, "0"),
	SIZE("%zx", 4096, "1000"),
	SIZE("%zd", (size_t)-5, "-5"),
	PTRDIFF("%td", -12345, "-12345"),
	PTRDIFF("%td", PTRDIFF_MIN, "-9223372036854775808"),
	PTRDIFF("%tx", 0x7fff, "7fff"),
	INTMAX("%jd", INTMAX_MIN, "-9223372036854775808"),
	INTMAX("%jd", INTMAX_MAX, "9223372036854775807"),
	UINTMAX("%ju", UINTMAX_MAX, "18446744073709551615"),
	UINTMAX("%jx", UINTMAX_MAX, "ffffffffffffffff"),
};

/* Cases where Fulcrum defines what C leaves open, or differs from glibc on purpose. */
static const struct fmt_case kernel_cases[] = {
	/* %p: 16 digits, no prefix, as an oops shows addresses */
	PTR("%p", NULL, "0000000000000000"),
	PTR("%p", 0x1234, "0000000000001234"),
	PTR("%p", 0xffffffff80001234ul, "ffffffff80001234"),
	PTR("%p", UINTPTR_MAX, "ffffffffffffffff"),
	PTR("%20p|", 0x1234, "    0000000000001234|"),
	PTR("%-20p|", 0x1234, "0000000000001234    |"),
	PTR("%8p", 0xabc, "0000000000000abc"),
	PTR("%#p", 0x1234, "0000000000001234"),
	PTR("%+p", 0x1234, "0000000000001234"),
	PTR("%020p", 0x1234, "    0000000000001234"),
	PTR("%.4p", 0x1234, "0000000000001234"),
	PTR("<%p>", 0xdeadbeef, "<00000000deadbeef>"),

	/* NULL strings print "(null)", cut by the precision like any string */
	STR("%s", NULL, "(null)"),
	STR("%.3s", NULL, "(nu"),
	STR("%.0s", NULL, ""),
	STR("%.6s", NULL, "(null)"),
	STR("%8s", NULL, "  (null)"),
	STR("%-8s|", NULL, "(null)  |"),

	/* Unknown conversions come out literally and consume no argument */
	NONE("%y", "%y"),
	NONE("a%yb", "a%yb"),
	NONE("%5y", "%5y"),
	NONE("%-08.3hy", "%-08.3hy"),
	NONE("%lly", "%lly"),
	NONE("%hhh", "%hhh"),
	NONE("%f", "%f"),
	NONE("%n", "%n"),
	NONE("%L", "%L"),
	INT("%y%d", 5, "%y5"),
	INT("%n%d", 5, "%n5"),

	/* A format that ends inside a conversion */
	NONE("%", "%"),
	NONE("abc%", "abc%"),
	NONE("%5", "%5"),
	NONE("%-", "%-"),
	NONE("%.5", "%.5"),
	NONE("%l", "%l"),
	NONE("%ll", "%ll"),
	NONE("%hh", "%hh"),

	/* %% ignores flags and width */
	NONE("%5%", "%"),
	NONE("%-05%|", "%|"),

	/* '0' pads only numbers; text still pads with spaces */
	STR("%05s", "ab", "   ab"),
	INT("%05c", 'x', "    x"),

	/* '#' means nothing to decimal conversions */
	INT("%#d", 42, "42"),
	UINT("%#u", 42, "42"),
};

typedef int (*fmt_fn)(char *buf, size_t size, const char *fmt, ...);

/*
 * ksnprintf without its format attribute, for the tests that mean to pass
 * what GCC's format checks reject (an empty format, widths near INT_MAX).
 */
static int unchecked(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = kvsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n;
}

/* Calls fn with the row's argument at the row's type. */
static int call_case(fmt_fn fn, char *buf, size_t size, const struct fmt_case *c)
{
	switch (c->kind) {
	case ARG_NONE:
		return fn(buf, size, c->fmt);
	case ARG_INT:
		return fn(buf, size, c->fmt, (int)c->s);
	case ARG_UINT:
		return fn(buf, size, c->fmt, (unsigned int)c->u);
	case ARG_LONG:
		return fn(buf, size, c->fmt, (long)c->s);
	case ARG_ULONG:
		return fn(buf, size, c->fmt, (unsigned long)c->u);
	case ARG_LLONG:
		return fn(buf, size, c->fmt, (long long)c->s);
	case ARG_ULLONG:
		return fn(buf, size, c->fmt, (unsigned long long)c->u);
	case ARG_SIZE:
		return fn(buf, size, c->fmt, (size_t)c->u);
	case ARG_PTRDIFF:
		return fn(buf, size, c->fmt, (ptrdiff_t)c->s);
	case ARG_INTMAX:
		return fn(buf, size, c->fmt, (intmax_t)c->s);
	case ARG_UINTMAX:
		return fn(buf, size, c->fmt, (uintmax_t)c->u);
	case ARG_STR:
		return fn(buf, size, c->fmt, c->str);
	case ARG_PTR:
		return fn(buf, size, c->fmt, c->ptr);
	}
	ck_abort_msg("bad arg kind %d", c->kind);
	return -1;
}

/*
 * Checks one formatting at one buffer size: the return value is the full
 * length, the buffer holds the longest prefix that fits and a NUL, and
 * nothing at or past size was touched.
 */
static void check_output(const char *fmt, size_t size, int ret, const char *buf, const char *want)
{
	size_t n = strlen(want), kept = size ? (n < size - 1 ? n : size - 1) : 0;

	ck_assert_msg(ret == (int)n, "\"%s\" size %zu: returned %d, want %zu", fmt, size, ret, n);
	if (size) {
		ck_assert_msg(memcmp(buf, want, kept) == 0 && buf[kept] == '\0',
			      "\"%s\" size %zu: got \"%.*s\", want \"%.*s\"", fmt, size, (int)kept,
			      buf, (int)kept, want);
	}
	for (size_t i = size; i < size + SLACK; i++)
		ck_assert_msg((unsigned char)buf[i] == CANARY, "\"%s\" size %zu: wrote byte %zu",
			      fmt, size, i);
}

/* Runs a table row at every buffer size from 0 to a little past its length. */
static void check_case_all_sizes(const struct fmt_case *c)
{
	char buf[BUF_MAX + SLACK];
	size_t n = strlen(c->want);

	ck_assert_uint_lt(n + 2, BUF_MAX);
	for (size_t size = 0; size <= n + 2; size++) {
		memset(buf, CANARY, sizeof(buf));
		check_output(c->fmt, size, call_case(ksnprintf, buf, size, c), buf, c->want);
	}
}

/*
 * The tables run as one test each, not one forked test per row: the first
 * failing row stops the test, and its message names the format.
 */
START_TEST(test_common_table)
{
	char host[BUF_MAX];

	for (size_t i = 0; i < ARRAY_SIZE(common_cases); i++) {
		const struct fmt_case *c = &common_cases[i];

		check_case_all_sizes(c);
		/* The expectation itself must be what C says, as glibc prints it. */
		call_case(snprintf, host, sizeof(host), c);
		ck_assert_msg(strcmp(host, c->want) == 0,
			      "\"%s\": host prints \"%s\", table says \"%s\"", c->fmt, host, c->want);
	}
}
END_TEST

START_TEST(test_kernel_table)
{
	for (size_t i = 0; i < ARRAY_SIZE(kernel_cases); i++)
		check_case_all_sizes(&kernel_cases[i]);
}
END_TEST

/* Checks a format with any arguments at every buffer size up to its length + 2. */
static void expect(const char *want, const char *fmt, ...)
{
	char buf[BUF_MAX + SLACK];
	size_t n = strlen(want);
	va_list ap;

	ck_assert_uint_lt(n + 2, BUF_MAX);
	for (size_t size = 0; size <= n + 2; size++) {
		va_list copy;
		int ret;

		memset(buf, CANARY, sizeof(buf));
		va_start(ap, fmt);
		va_copy(copy, ap);
		ret = kvsnprintf(buf, size, fmt, copy);
		va_end(copy);
		va_end(ap);
		check_output(fmt, size, ret, buf, want);
	}
}

START_TEST(test_star_width_and_precision)
{
	expect("   42", "%*d", 5, 42);
	expect("42   |", "%*d|", -5, 42);
	expect("42   |", "%-*d|", 5, 42);
	expect("42   |", "%-*d|", -5, 42);
	expect("0042", "%0*d", 4, 42);
	expect("42  |", "%0*d|", -4, 42);
	expect("42", "%*d", 0, 42);
	expect("00042", "%.*d", 5, 42);
	expect("42", "%.*d", -1, 42);
	expect("", "%.*d", 0, 0);
	expect("  hel", "%*.*s", 5, 3, "hello");
	expect("hel  |", "%-*.*s|", 5, 3, "hello");
	expect("hel  |", "%*.*s|", -5, 3, "hello");
	expect("hello", "%.*s", -3, "hello");
	expect("  0x00ff", "%#*.*x", 8, 4, 255u);
	expect("[   7][8   ]", "[%*d][%*d]", 4, 7, -4, 8);
}
END_TEST

START_TEST(test_many_arguments)
{
	/* More arguments than x86-64 passes in registers, of mixed sizes. */
	expect("1 2 3 4 5 6 7 8 9", "%d %d %d %d %d %d %d %d %d", 1, 2, 3, 4, 5, 6, 7, 8, 9);
	expect("-1 -9223372036854775808 x str 18446744073709551615 0000000000000010 44 ff",
	       "%hhd %lld %c %s %zu %p %d %x", -1, LLONG_MIN, 'x', "str", SIZE_MAX, (void *)0x10,
	       44, 255u);
	expect("a=1 b=ff c=x s=str p=00000000deadbeef", "a=%d b=%x c=%c s=%s p=%p", 1, 0xffu, 'x',
	       "str", (void *)0xdeadbeef);
	expect("cpu3: 12.500 MHz", "cpu%u: %d.%03d MHz", 3u, 12, 500);
}
END_TEST

START_TEST(test_char_nul_is_output)
{
	char buf[8];

	memset(buf, CANARY, sizeof(buf));
	ck_assert_int_eq(ksnprintf(buf, sizeof(buf), "a%cb", 0), 3);
	ck_assert_int_eq(memcmp(buf, "a\0b\0", 4), 0);
}
END_TEST

START_TEST(test_size_zero_writes_nothing)
{
	char buf[4] = { 'x', 'y', 'z', 'w' };

	ck_assert_int_eq(ksnprintf(NULL, 0, "%d", 12345), 5);
	ck_assert_int_eq(ksnprintf(NULL, 0, "%s and %s", "this", "that"), 13);
	ck_assert_int_eq(ksnprintf(buf, 0, "%d", 12345), 5);
	ck_assert_int_eq(memcmp(buf, "xyzw", 4), 0);
}
END_TEST

START_TEST(test_size_one_is_just_nul)
{
	char buf[4] = { 'x', 'y', 'z', 'w' };

	ck_assert_int_eq(ksnprintf(buf, 1, "%s", "hello"), 5);
	ck_assert_int_eq(memcmp(buf, "\0yzw", 4), 0);
	ck_assert_int_eq(unchecked(buf, 1, ""), 0);
	ck_assert_int_eq(buf[0], '\0');
}
END_TEST

START_TEST(test_truncation_mid_conversion)
{
	char buf[8];

	ck_assert_int_eq(ksnprintf(buf, sizeof(buf), "%d:%s", -123456, "tail"), 12);
	ck_assert_str_eq(buf, "-123456");
	ck_assert_int_eq(ksnprintf(buf, sizeof(buf), "%#018lx", 0xffffffff80000000ul), 18);
	ck_assert_str_eq(buf, "0xfffff");
	ck_assert_int_eq(ksnprintf(buf, sizeof(buf), "%-12s|", "ab"), 13);
	ck_assert_str_eq(buf, "ab     ");
}
END_TEST

/* Regression: a huge width must be counted, not looped over, and must not overflow int. */
START_TEST(test_huge_width_costs_buffer_not_width)
{
	char buf[8];

	ck_assert_int_eq(ksnprintf(buf, sizeof(buf), "%*d", 1000000000, 7), 1000000000);
	ck_assert_str_eq(buf, "       ");
	ck_assert_int_eq(ksnprintf(buf, sizeof(buf), "%-*d|", 1000000000, 7), 1000000001);
	ck_assert_str_eq(buf, "7      ");
	ck_assert_int_eq(ksnprintf(buf, sizeof(buf), "%.*d", 1000000000, 7), 1000000000);
	ck_assert_str_eq(buf, "0000000");
}
END_TEST

/* Regression: lengths past INT_MAX saturate instead of wrapping negative. */
START_TEST(test_length_past_int_max_saturates)
{
	char buf[8];

	ck_assert_int_eq(unchecked(buf, sizeof(buf), "%*d%*d", INT_MAX, 1, INT_MAX, 2), INT_MAX);
	ck_assert_int_eq(unchecked(buf, sizeof(buf), "%*d|", INT_MIN, 1), INT_MAX);
	ck_assert_str_eq(buf, "1      ");
	ck_assert_int_eq(unchecked(buf, sizeof(buf), "%99999999999999999999d", 1), INT_MAX);
}
END_TEST

START_TEST(test_long_output)
{
	char buf[512];
	char want[301];

	memset(want, ' ', 299);
	want[299] = '1';
	want[300] = '\0';
	ck_assert_int_eq(ksnprintf(buf, sizeof(buf), "%300d", 1), 300);
	ck_assert_str_eq(buf, want);
}
END_TEST

/* Formats one row both ways and checks that Fulcrum and the host agree. */
static void compare_with_host(const struct fmt_case *c)
{
	char mine[BUF_MAX], host[BUF_MAX];
	int a = call_case(ksnprintf, mine, sizeof(mine), c);
	int b = call_case(snprintf, host, sizeof(host), c);

	ck_assert_msg(a == b && strcmp(mine, host) == 0,
		      "\"%s\": got \"%s\" (%d), host \"%s\" (%d)", c->fmt, mine, a, host, b);
}

/* Narrow lengths take an int-sized argument; the wide ones all 64 bits. */
static void compare_integer(const char *fmt, unsigned long long value, bool wide)
{
	struct fmt_case c = { .fmt = fmt, .kind = wide ? ARG_ULLONG : ARG_UINT, .u = value };

	compare_with_host(&c);
}

static void compare_string(const char *fmt, const char *str)
{
	struct fmt_case c = { .fmt = fmt, .kind = ARG_STR, .str = str };

	compare_with_host(&c);
}

/* Every length and integer conversion after prefix, over awkward values. */
static void compare_conversions(const char *prefix)
{
	static const char *const lengths[] = { "hh", "h", "", "l", "ll", "z", "t", "j" };
	static const char convs[] = "diuxXo";
	static const unsigned long long values[] = {
		0,
		1,
		7,
		8,
		42,
		0x7f,
		0x80,
		0xff,
		0x7fff,
		0x8000,
		0xffff,
		0x7fffffff,
		0x80000000,
		0xffffffff,
		0x123456789abcdefull,
		0x7fffffffffffffffull,
		0x8000000000000000ull,
		0xffffffff80000000ull,
		0xfffffffffffffffeull,
		0xffffffffffffffffull,
	};
	char fmt[32];

	for (size_t l = 0; l < ARRAY_SIZE(lengths); l++) {
		bool wide = lengths[l][0] && lengths[l][0] != 'h';

		for (size_t c = 0; convs[c]; c++) {
			snprintf(fmt, sizeof(fmt), "%s%s%c", prefix, lengths[l], convs[c]);
			for (size_t v = 0; v < ARRAY_SIZE(values); v++)
				compare_integer(fmt, values[v], wide);
		}
	}
}

/*
 * Every combination of flags, width, precision, length and integer
 * conversion, against the host's snprintf. C leaves '#' with %d and '+' or
 * ' ' with unsigned conversions to the implementation; glibc ignores them,
 * as we do, so they are compared too.
 */
START_TEST(test_integer_combinations_match_host)
{
	static const char *const flag_sets[] = {
		"", "-", "0", "+", " ", "#", "-0", "+0", " 0", "#0", "-#", "+-", "- #0+",
	};
	static const char *const widths[] = { "", "1", "5", "24" };
	static const char *const precisions[] = { "", ".", ".0", ".1", ".5", ".23" };
	char prefix[16];

	for (size_t f = 0; f < ARRAY_SIZE(flag_sets); f++) {
		for (size_t w = 0; w < ARRAY_SIZE(widths); w++) {
			for (size_t p = 0; p < ARRAY_SIZE(precisions); p++) {
				snprintf(prefix, sizeof(prefix), "%%%s%s%s", flag_sets[f],
					 widths[w], precisions[p]);
				compare_conversions(prefix);
			}
		}
	}
}
END_TEST

/* Strings and characters with every flag, width and precision C defines, against the host. */
START_TEST(test_text_combinations_match_host)
{
	static const char *const flag_sets[] = { "", "-" };
	static const char *const widths[] = { "", "1", "3", "7" };
	static const char *const precisions[] = { "", ".", ".0", ".2", ".5", ".9" };
	static const char *const strings[] = { "", "a", "abc", "hello", "longer string" };
	char fmt[32];

	for (size_t f = 0; f < ARRAY_SIZE(flag_sets); f++) {
		for (size_t w = 0; w < ARRAY_SIZE(widths); w++) {
			snprintf(fmt, sizeof(fmt), "|%%%s%sc|", flag_sets[f], widths[w]);
			compare_integer(fmt, 'q', false);
			for (size_t p = 0; p < ARRAY_SIZE(precisions); p++) {
				snprintf(fmt, sizeof(fmt), "|%%%s%s%ss|", flag_sets[f], widths[w],
					 precisions[p]);
				for (size_t s = 0; s < ARRAY_SIZE(strings); s++)
					compare_string(fmt, strings[s]);
			}
		}
	}
}
END_TEST

/* The precision bounds the read: %.3s of an unterminated array stays inside it. */
START_TEST(test_string_precision_stops_reading)
{
	const char unterminated[3] = { 'a', 'b', 'c' };
	char buf[8];

	ck_assert_int_eq(ksnprintf(buf, sizeof(buf), "%.3s", unterminated), 3);
	ck_assert_str_eq(buf, "abc");
	ck_assert_int_eq(ksnprintf(buf, sizeof(buf), "%.2s", unterminated), 2);
	ck_assert_str_eq(buf, "ab");
}
END_TEST

Suite *printf_suite(void)
{
	Suite *s = suite_create("printf");
	TCase *tables = tcase_create("tables");
	TCase *cases = tcase_create("cases");
	TCase *host = tcase_create("host");

	tcase_add_test(tables, test_common_table);
	tcase_add_test(tables, test_kernel_table);
	suite_add_tcase(s, tables);

	tcase_add_test(cases, test_star_width_and_precision);
	tcase_add_test(cases, test_many_arguments);
	tcase_add_test(cases, test_char_nul_is_output);
	tcase_add_test(cases, test_size_zero_writes_nothing);
	tcase_add_test(cases, test_size_one_is_just_nul);
	tcase_add_test(cases, test_truncation_mid_conversion);
	tcase_add_test(cases, test_huge_width_costs_buffer_not_width);
	tcase_add_test(cases, test_length_past_int_max_saturates);
	tcase_add_test(cases, test_long_output);
	tcase_add_test(cases, test_string_precision_stops_reading);
	suite_add_tcase(s, cases);

	/* The exhaustive comparisons run a few hundred thousand formats under the sanitizers. */
	tcase_set_timeout(host, 60);
	tcase_add_test(host, test_integer_combinations_match_host);
	tcase_add_test(host, test_text_combinations_match_host);
	suite_add_tcase(s, host);
	return s;
}

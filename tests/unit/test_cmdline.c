/*
 * Unit tests of the boot option parser (kernel/cmdline.c): a local table
 * with one option of each type, then the real registry, which gathers
 * printk.c's "loglevel" and the two probe options defined here.
 */
#include <stdio.h>
#include <string.h>

#include "cmdline.h"
#include "fake_arch.h"
#include "printk.h"
#include "unit.h"

/* ---------------------------------------------------------------- fixtures */

static bool opt_flag;
static s64 opt_num;
static s64 opt_size;
static const char *opt_text;
static const char *opt_mode;
static char items[256]; /* what the list option was given: "[a][b]" */

static const char *const modes[] = { "none", "oops", "gpf", NULL };

static int take_item(const char *item, size_t len)
{
	ck_assert_uint_eq(strlen(item), len); /* NUL-terminated as promised */
	if (strcmp(item, "bad") == 0)
		return -1;
	snprintf(items + strlen(items), sizeof(items) - strlen(items), "[%s]", item);
	return 0;
}

static const struct boot_option opts[] = {
	{ .name = "flag", .type = OPT_BOOL, .var = &opt_flag, .help = "a switch" },
	{ .name = "num", .type = OPT_INT, .var = &opt_num, .min = -10, .max = 100 },
	{ .name = "mem_size", .type = OPT_INT, .var = &opt_size, .min = 0, .max = 1LL << 30, .suffix = true },
	{ .name = "text", .type = OPT_STRING, .var = &opt_text },
	{ .name = "mode", .type = OPT_STRING, .var = &opt_mode, .choices = modes },
	{ .name = "feat", .type = OPT_LIST, .set_item = take_item },
};

static int parse(const char *line)
{
	return cmdline_parse_options(line, opts, ARRAY_SIZE(opts));
}

/* Options in the real registry, beside printk.c's loglevel; sorted around it. */
static s64 probe_num = 3;
static bool probe_flag;
BOOT_OPTION_INT(aa_probe, "aa_unit_probe", &probe_num, 0, 9, "unit test probe, sorts first");
BOOT_OPTION_BOOL(zz_probe, "zz_unit_probe", &probe_flag, "unit test probe, sorts last");

static void setup(void)
{
	opt_flag = false;
	opt_num = 7;
	opt_size = 4096;
	opt_text = NULL;
	opt_mode = "none";
	items[0] = '\0';
	console_loglevel = 7;
	fake_clock_ns = 0;
	fake_console_reset();
}

/* The console text with printk's "[    0.000000] " stamps taken out. */
static const char *console(void)
{
	static char out[1 << 16];
	const char *s = fake_console_text();
	bool line_start = true;
	size_t n = 0;

	while (*s && n + 1 < sizeof(out)) {
		const char *e = line_start && *s == '[' ? strstr(s, "] ") : NULL;

		if (e) {
			s = e + 2;
			line_start = false;
			continue;
		}
		line_start = *s == '\n';
		out[n++] = *s++;
	}
	out[n] = '\0';
	return out;
}

static size_t count_lines(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/* ---------------------------------------------------------------- local table */

START_TEST(test_good_values)
{
	ck_assert_int_eq(parse("flag num=42 mem_size=4K text=hello mode=gpf feat=a,b,c"), 0);
	ck_assert_str_eq(console(), "");
	ck_assert(opt_flag);
	ck_assert_int_eq(opt_num, 42);
	ck_assert_int_eq(opt_size, 4096 * 1);
	ck_assert_str_eq(opt_text, "hello");
	ck_assert_str_eq(opt_mode, "gpf");
	ck_assert_ptr_eq(opt_mode, modes[2]); /* the choice itself: valid for good */
	ck_assert_str_eq(items, "[a][b][c]");
	ck_assert_str_eq(cmdline_get(), "flag num=42 mem_size=4K text=hello mode=gpf feat=a,b,c");
}
END_TEST

START_TEST(test_bool_forms)
{
	static const struct {
		const char *line;
		bool want;
	} cases[] = {
		{ "flag", true },     { "flag=1", true },      { "flag=0", false },
		{ "flag=on", true },  { "flag=off", false },   { "flag=yes", true },
		{ "flag=no", false }, { "flag=true", true },   { "flag=false", false },
		{ "flag=ON", true },  { "flag=False", false }, { "flag=YES", true },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		opt_flag = !cases[i].want;
		ck_assert_msg(parse(cases[i].line) == 0, "%s", cases[i].line);
		ck_assert_msg(opt_flag == cases[i].want, "%s", cases[i].line);
	}
	ck_assert_str_eq(console(), "");
}
END_TEST

START_TEST(test_bad_bool)
{
	ck_assert_int_eq(parse("flag=maybe"), 1);
	ck_assert(!opt_flag);
	ck_assert_str_eq(console(), "cmdline: bad value 'maybe' for 'flag' "
				    "(on/off, yes/no, true/false, 1/0), keeping false\n");
	fake_console_reset();
	ck_assert_int_eq(parse("flag=2"), 1);
	ck_assert_int_eq(parse("flag=onn"), 1);
	ck_assert(!opt_flag);
}
END_TEST

START_TEST(test_int_values)
{
	ck_assert_int_eq(parse("num=-10"), 0);
	ck_assert_int_eq(opt_num, -10);
	ck_assert_int_eq(parse("num=100"), 0);
	ck_assert_int_eq(opt_num, 100);
	ck_assert_int_eq(parse("num=0x10"), 0);
	ck_assert_int_eq(opt_num, 16);
	ck_assert_str_eq(console(), "");
}
END_TEST

START_TEST(test_bad_int)
{
	ck_assert_int_eq(parse("num=101"), 1);
	ck_assert_str_eq(console(),
			 "cmdline: bad value '101' for 'num' (integer -10..100), keeping 7\n");
	fake_console_reset();
	ck_assert_int_eq(parse("num=abc"), 1);
	ck_assert_str_eq(console(),
			 "cmdline: bad value 'abc' for 'num' (integer -10..100), keeping 7\n");
	/* below min, trailing junk, a suffix where none is allowed, overflow */
	ck_assert_int_eq(parse("num=-11 num=5x num=1K num=99999999999999999999 num=--1"), 5);
	ck_assert_int_eq(opt_num, 7);
}
END_TEST

START_TEST(test_size_suffix)
{
	ck_assert_int_eq(parse("mem_size=1G"), 0);
	ck_assert_int_eq(opt_size, 1LL << 30);
	ck_assert_int_eq(parse("mem_size=2M"), 0);
	ck_assert_int_eq(opt_size, 2LL << 20);
	ck_assert_str_eq(console(), "");
	ck_assert_int_eq(parse("mem_size=2G"), 1);
	ck_assert_int_eq(opt_size, 2LL << 20);
	ck_assert_str_eq(console(), "cmdline: bad value '2G' for 'mem_size' "
				    "(size 0..1073741824, K/M/G suffix allowed), keeping 2097152\n");
}
END_TEST

START_TEST(test_strings)
{
	ck_assert_int_eq(parse("text="), 1);
	ck_assert_ptr_null(opt_text);
	ck_assert_str_eq(console(), "cmdline: bad value '' for 'text' (non-empty text), "
				    "keeping (unset)\n");
	fake_console_reset();
	ck_assert_int_eq(parse("text=abc text="), 1);
	ck_assert_str_eq(opt_text, "abc");
	ck_assert_str_eq(console(), "cmdline: bad value '' for 'text' (non-empty text), "
				    "keeping 'abc'\n");
}
END_TEST

START_TEST(test_bad_choice)
{
	ck_assert_int_eq(parse("mode=panic"), 1);
	ck_assert_str_eq(opt_mode, "none");
	ck_assert_str_eq(console(), "cmdline: bad value 'panic' for 'mode' "
				    "(one of: none, oops, gpf), keeping 'none'\n");
	fake_console_reset();
	ck_assert_int_eq(parse("mode=GPF mode=oops"), 1); /* choices are case-sensitive */
	ck_assert_str_eq(opt_mode, "oops");
}
END_TEST

START_TEST(test_list_items)
{
	ck_assert_int_eq(parse("feat=one"), 0);
	ck_assert_str_eq(items, "[one]");
	items[0] = '\0';

	/* An empty item refuses the whole value before any item is applied. */
	ck_assert_int_eq(parse("feat=a,,b feat=a, feat=,a feat="), 4);
	ck_assert_str_eq(items, "");
	ck_assert_msg(count_lines(console()) == 4, "%s", console());
	ck_assert_ptr_nonnull(strstr(console(), "cmdline: bad value 'a,,b' for 'feat' "
						"(empty list item), ignored\n"));
	fake_console_reset();

	/* A refused item stops the list; those before it have been applied. */
	ck_assert_int_eq(parse("feat=a,bad,c"), 1);
	ck_assert_str_eq(items, "[a]");
	ck_assert_str_eq(console(), "cmdline: bad item 'bad' in 'feat=a,bad,c', items before it "
				    "kept, rest ignored\n");
	fake_console_reset();

	/* The warning and the kept copy still show the whole value, commas and all. */
	ck_assert_int_eq(parse("feat=x,bad"), 1);
	ck_assert_str_eq(items, "[a][x]");
	ck_assert_str_eq(cmdline_get(), "feat=x,bad");
	ck_assert_ptr_nonnull(strstr(console(), "'bad' in 'feat=x,bad'"));
	ck_assert_int_eq(parse("feat"), 1);
	ck_assert_ptr_nonnull(strstr(console(), "option 'feat' needs a value"));
}
END_TEST

START_TEST(test_unknown_and_nameless)
{
	ck_assert_int_eq(parse("foo=bar"), 1);
	ck_assert_str_eq(console(), "cmdline: unknown option 'foo=bar', ignored\n");
	fake_console_reset();
	ck_assert_int_eq(parse("=x"), 1);
	ck_assert_str_eq(console(), "cmdline: no option name in '=x', ignored\n");
	fake_console_reset();
	ck_assert_int_eq(parse("= flags nu num= fla=1"), 5);
	ck_assert_int_eq(opt_num, 7);
	ck_assert(!opt_flag);
}
END_TEST

START_TEST(test_needs_value)
{
	ck_assert_int_eq(parse("num"), 1);
	ck_assert_str_eq(console(), "cmdline: option 'num' needs a value (integer -10..100), "
				    "keeping 7\n");
	fake_console_reset();
	ck_assert_int_eq(parse("mode"), 1);
	ck_assert_str_eq(console(), "cmdline: option 'mode' needs a value "
				    "(one of: none, oops, gpf), keeping 'none'\n");
}
END_TEST

START_TEST(test_one_warning_per_bad_word)
{
	int n = parse("foo num=abc flag=maybe mode=x feat=bad text= =1 num=5 flag nope=\"a b\"");

	ck_assert_int_eq(n, 8);
	ck_assert_uint_eq(count_lines(console()), 8);
	ck_assert_int_eq(opt_num, 5);
	ck_assert(opt_flag);
}
END_TEST

START_TEST(test_repeats_last_wins)
{
	ck_assert_int_eq(parse("num=1 num=2 num=3 mode=oops mode=gpf flag flag=off"), 0);
	ck_assert_int_eq(opt_num, 3);
	ck_assert_str_eq(opt_mode, "gpf");
	ck_assert(!opt_flag);
	/* A bad repeat keeps the earlier good value, and says so. */
	ck_assert_int_eq(parse("num=1 num=bad"), 1);
	ck_assert_int_eq(opt_num, 1);
	ck_assert_str_eq(console(), "cmdline: bad value 'bad' for 'num' (integer -10..100), "
				    "keeping 1\n");
}
END_TEST

START_TEST(test_quotes)
{
	ck_assert_int_eq(parse("text=\"hello  world\" num=5"), 0);
	ck_assert_str_eq(opt_text, "hello  world");
	ck_assert_int_eq(opt_num, 5);
	ck_assert_int_eq(parse("\"text=a b\"\tflag"), 0);
	ck_assert_str_eq(opt_text, "a b");
	ck_assert(opt_flag);
	ck_assert_int_eq(parse("text=a\"b c\"d"), 0);
	ck_assert_str_eq(opt_text, "ab cd");
	ck_assert_int_eq(parse("num=\"12\""), 0);
	ck_assert_int_eq(opt_num, 12);
	ck_assert_str_eq(console(), "");

	ck_assert_int_eq(parse("text=\"ab cd\" text=\"\""), 1);
	ck_assert_str_eq(console(), "cmdline: bad value '' for 'text' (non-empty text), "
				    "keeping 'ab cd'\n");
	fake_console_reset();

	/* An open quote swallows the rest of the line; that word is dropped. */
	opt_text = NULL;
	ck_assert_int_eq(parse("num=3 text=\"abc def num=4"), 1);
	ck_assert_int_eq(opt_num, 3);
	ck_assert_ptr_null(opt_text);
	ck_assert_str_eq(console(), "cmdline: unterminated quote in 'text=abc def num=4', ignored\n");
}
END_TEST

START_TEST(test_blank_lines)
{
	ck_assert_int_eq(parse(""), 0);
	ck_assert_str_eq(cmdline_get(), "");
	ck_assert_int_eq(parse("   \t  \n "), 0);
	ck_assert_int_eq(parse(NULL), 0);
	ck_assert_str_eq(cmdline_get(), "");
	ck_assert_int_eq(parse("  flag  \t num=2  "), 0);
	ck_assert(opt_flag);
	ck_assert_int_eq(opt_num, 2);
	ck_assert_str_eq(console(), "");
}
END_TEST

/* A line of exactly CMDLINE_MAX - 1 bytes fits; one more byte is cut. */
START_TEST(test_long_line_limit)
{
	static char line[CMDLINE_MAX + 1];

	memset(line, ' ', CMDLINE_MAX - 1);
	memcpy(line + CMDLINE_MAX - 1 - 5, "num=9", 5);
	line[CMDLINE_MAX - 1] = '\0';
	ck_assert_int_eq(parse(line), 0);
	ck_assert_int_eq(opt_num, 9);
	ck_assert_uint_eq(strlen(cmdline_get()), CMDLINE_MAX - 1);

	/* The same, shifted one byte right: num=9 crosses the limit and goes. */
	opt_num = 7;
	memset(line, ' ', CMDLINE_MAX);
	memcpy(line + CMDLINE_MAX - 5, "num=9", 5);
	line[CMDLINE_MAX] = '\0';
	ck_assert_int_eq(parse(line), 1);
	ck_assert_int_eq(opt_num, 7);
	ck_assert_uint_eq(strlen(cmdline_get()), CMDLINE_MAX - 5);
	ck_assert_str_eq(console(), "cmdline: command line longer than 1023 bytes, "
				    "cut to its first 1019\n");
}
END_TEST

/*
 * A word straddling the cut must not be applied half: "num=99" cut to
 * "nu" or "num=9" would be a different option or value.
 */
START_TEST(test_long_line_cut_word)
{
	static char line[4096];
	size_t len = 0, start;

	len += sprintf(line, "num=1 ");
	while (len < CMDLINE_MAX - 1 - 3)
		len += sprintf(line + len, "flag ");
	start = len;
	len += sprintf(line + len, "num=99 num=55 text=never");
	ck_assert_uint_lt(start, CMDLINE_MAX - 1);
	ck_assert_uint_gt(start + strlen("num=99"), CMDLINE_MAX - 1);

	ck_assert_int_eq(parse(line), 1);
	ck_assert_int_eq(opt_num, 1);
	ck_assert_ptr_null(opt_text);
	ck_assert(opt_flag);
	ck_assert_uint_eq(strlen(cmdline_get()), start);
	ck_assert_uint_eq(count_lines(console()), 1);

	/* One enormous word: nothing survives, one warning. */
	memset(line, 'a', 3000);
	line[3000] = '\0';
	ck_assert_int_eq(parse(line), 1);
	ck_assert_str_eq(cmdline_get(), "");
}
END_TEST

START_TEST(test_double_dash)
{
	ck_assert_int_eq(parse("flag -- num=5  init=/bin/sh -x"), 0);
	ck_assert(opt_flag);
	ck_assert_int_eq(opt_num, 7);
	ck_assert_str_eq(cmdline_init_args(), "num=5  init=/bin/sh -x");
	ck_assert_str_eq(cmdline_get(), "flag -- num=5  init=/bin/sh -x");

	ck_assert_int_eq(parse("num=4 --"), 0);
	ck_assert_int_eq(opt_num, 4);
	ck_assert_str_eq(cmdline_init_args(), "");
	ck_assert_int_eq(parse("num=3"), 0);
	ck_assert_str_eq(cmdline_init_args(), "");
	ck_assert_str_eq(console(), "");

	/* Only a bare "--" ends the options. */
	ck_assert_int_eq(parse("--num=5 \"--\" num=6"), 2);
	ck_assert_int_eq(opt_num, 6);
	ck_assert_str_eq(cmdline_init_args(), "");
}
END_TEST

START_TEST(test_dash_is_underscore)
{
	ck_assert_int_eq(parse("mem-size=2K"), 0);
	ck_assert_int_eq(opt_size, 2048);
}
END_TEST

START_TEST(test_keeps_own_copy)
{
	char line[] = "text=abc num=5";

	ck_assert_int_eq(parse(line), 0);
	memset(line, 'z', sizeof(line) - 1);
	ck_assert_str_eq(opt_text, "abc");
	ck_assert_str_eq(cmdline_get(), "text=abc num=5");
}
END_TEST

/* ---------------------------------------------------------------- registry */

START_TEST(test_registry_loglevel)
{
	ck_assert_int_eq(cmdline_parse("loglevel=3 aa_unit_probe=5 zz-unit-probe"), 0);
	ck_assert_int_eq(console_loglevel, 3);
	ck_assert_int_eq(probe_num, 5);
	ck_assert(probe_flag);

	console_loglevel = 7;
	fake_console_reset();
	ck_assert_int_eq(cmdline_parse("loglevel=9"), 1);
	ck_assert_int_eq(console_loglevel, 7);
	ck_assert_str_eq(console(), "cmdline: bad value '9' for 'loglevel' (integer 0..8), "
				    "keeping 7\n");
	fake_console_reset();
	ck_assert_int_eq(cmdline_parse("num=3"), 1); /* the local table is not the registry */
	ck_assert_str_eq(console(), "cmdline: unknown option 'num=3', ignored\n");
}
END_TEST

/* A warning is a KERN_WARNING: with loglevel=4 it is logged but not shown. */
START_TEST(test_registry_quiet_warning)
{
	char log[8192];

	ck_assert_int_eq(cmdline_parse("loglevel=4 bogus"), 1);
	ck_assert_str_eq(console(), "");
	printk_log_read(log, sizeof(log));
	ck_assert_ptr_nonnull(strstr(log, "cmdline: unknown option 'bogus', ignored\n"));
}
END_TEST

START_TEST(test_print_options_sorted)
{
	const char *out, *aa, *ll, *zz;
	char prev[64] = "";

	ck_assert_int_eq(cmdline_parse("loglevel=5"), 0);
	console_loglevel = 7;
	cmdline_print_options();
	out = console();
	aa = strstr(out, "  aa_unit_probe=3 ");
	ll = strstr(out, "  loglevel=7 ");
	zz = strstr(out, "  zz_unit_probe=false ");
	ck_assert_ptr_nonnull(aa);
	ck_assert_ptr_nonnull(ll);
	ck_assert_ptr_nonnull(zz);
	ck_assert(aa < ll);
	ck_assert(ll < zz);
	ck_assert_ptr_nonnull(strstr(ll, "print messages below this level"));

	/* Every line, not just these three, in order. */
	for (const char *line = out; *line; line = strchr(line, '\n') + 1) {
		char name[64];

		ck_assert_int_eq(sscanf(line, " %63[^=]=", name), 1);
		ck_assert_msg(strcmp(prev, name) <= 0, "'%s' printed after '%s'", name, prev);
		strcpy(prev, name);
	}
}
END_TEST

Suite *cmdline_suite(void)
{
	Suite *s = suite_create("cmdline");
	TCase *tc = tcase_create("options");
	TCase *reg = tcase_create("registry");

	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, test_good_values);
	tcase_add_test(tc, test_bool_forms);
	tcase_add_test(tc, test_bad_bool);
	tcase_add_test(tc, test_int_values);
	tcase_add_test(tc, test_bad_int);
	tcase_add_test(tc, test_size_suffix);
	tcase_add_test(tc, test_strings);
	tcase_add_test(tc, test_bad_choice);
	tcase_add_test(tc, test_list_items);
	tcase_add_test(tc, test_unknown_and_nameless);
	tcase_add_test(tc, test_needs_value);
	tcase_add_test(tc, test_one_warning_per_bad_word);
	tcase_add_test(tc, test_repeats_last_wins);
	tcase_add_test(tc, test_quotes);
	tcase_add_test(tc, test_blank_lines);
	tcase_add_test(tc, test_long_line_limit);
	tcase_add_test(tc, test_long_line_cut_word);
	tcase_add_test(tc, test_double_dash);
	tcase_add_test(tc, test_dash_is_underscore);
	tcase_add_test(tc, test_keeps_own_copy);
	suite_add_tcase(s, tc);

	tcase_add_checked_fixture(reg, setup, NULL);
	tcase_add_test(reg, test_registry_loglevel);
	tcase_add_test(reg, test_registry_quiet_warning);
	tcase_add_test(reg, test_print_options_sorted);
	suite_add_tcase(s, reg);
	return s;
}

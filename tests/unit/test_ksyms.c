/* Symbol lookup over a table shaped like the one tools/gen-ksyms links into the kernel. */
#include <check.h>

#include "debug/ksyms.h"
#include "unit.h"

/* Three functions with a gap between the second and third, as the linker lays them out. */
static const u64 addrs[] = { 0xffffffff80101000ULL, 0xffffffff80101040ULL, 0xffffffff80101100ULL };
static const u32 sizes[] = { 0x40, 0x2f0 - 0x200, 0x10 };
static const u32 offs[] = { 0, 12, 25 };
static const char names[] = "kernel_main\0selftest_oop\0last_function\0";

/* The host build's stand-in for the generated table. */
const struct ksym_table ksym_kernel_table = { 3, addrs, sizes, offs, names };

START_TEST(finds_symbol_start_and_inside)
{
	u64 off = 99, size = 99;

	ck_assert_str_eq(ksym_lookup(0xffffffff80101000ULL, &off, &size), "kernel_main");
	ck_assert_uint_eq(off, 0);
	ck_assert_uint_eq(size, 0x40);
	ck_assert_str_eq(ksym_lookup(0xffffffff8010103fULL, &off, &size), "kernel_main");
	ck_assert_uint_eq(off, 0x3f);
	ck_assert_str_eq(ksym_lookup(0xffffffff80101066ULL, &off, &size), "selftest_oop");
	ck_assert_uint_eq(off, 0x26);
	ck_assert_uint_eq(size, 0xf0);
	ck_assert_str_eq(ksym_lookup(0xffffffff8010110fULL, &off, &size), "last_function");
}
END_TEST

START_TEST(misses_outside_every_symbol)
{
	u64 off, size;

	ck_assert_ptr_null(ksym_lookup(0, &off, &size));
	ck_assert_ptr_null(ksym_lookup(0xffffffff80100fffULL, &off, &size)); /* before the first */
	ck_assert_ptr_null(ksym_lookup(0xffffffff80101130ULL, &off, &size)); /* in the gap */
	ck_assert_ptr_null(ksym_lookup(0xffffffff80101110ULL, &off, &size)); /* one past the last */
	ck_assert_ptr_null(ksym_lookup(~0ULL, &off, &size));
}
END_TEST

START_TEST(empty_table_finds_nothing)
{
	static const struct ksym_table empty = { 0, addrs, sizes, offs, names };
	u64 off, size;

	ck_assert_ptr_null(ksym_lookup_in(&empty, 0xffffffff80101000ULL, &off, &size));
}
END_TEST

START_TEST(address_by_name)
{
	ck_assert_uint_eq(ksym_address("selftest_oop"), 0xffffffff80101040ULL);
	ck_assert_uint_eq(ksym_address("no_such_symbol"), 0);
}
END_TEST

Suite *ksyms_suite(void)
{
	Suite *s = suite_create("ksyms");
	TCase *tc = tcase_create("lookup");

	tcase_add_test(tc, finds_symbol_start_and_inside);
	tcase_add_test(tc, misses_outside_every_symbol);
	tcase_add_test(tc, empty_table_finds_nothing);
	tcase_add_test(tc, address_by_name);
	suite_add_tcase(s, tc);
	return s;
}

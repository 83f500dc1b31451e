/*
 * Host tests of access_ok (arch/uaccess.h): the one check that stands
 * between a system-call argument and kernel memory. Ranges at and across
 * both ends of user space, zero lengths, and lengths that wrap.
 */
#include <arch/uaccess.h>

#include "unit.h"

struct range_case {
	uintptr_t addr;
	size_t len;
	bool ok;
};

/* clang-format off */
static const struct range_case cases[] = {
	{ 0, 0, false },				/* NULL */
	{ 0, 1, false },
	{ USER_ADDR_MIN - 1, 1, false },		/* the byte below user space */
	{ USER_ADDR_MIN - 1, 2, false },		/* straddles the bottom */
	{ USER_ADDR_MIN, 0, true },
	{ USER_ADDR_MIN, 1, true },
	{ 0x400000, 4096, true },
	{ USER_ADDR_END - 1, 1, true },			/* the last user byte */
	{ USER_ADDR_END - 8, 8, true },
	{ USER_ADDR_END - 8, 9, false },		/* one past the top */
	{ USER_ADDR_END, 0, true },			/* empty, at the end */
	{ USER_ADDR_END, 1, false },
	{ USER_ADDR_MIN, USER_ADDR_END - USER_ADDR_MIN, true },	/* all of it */
	{ USER_ADDR_MIN, USER_ADDR_END - USER_ADDR_MIN + 1, false },
	{ 0x400000, SIZE_MAX, false },			/* wraps */
	{ 0x400000, SIZE_MAX - 0x3fffff, false },	/* ends exactly at 2^64 */
	{ USER_ADDR_END - 1, SIZE_MAX, false },
	{ 0x800000000000UL, 1, false },			/* non-canonical */
	{ 0xffff800000000000UL, 8, false },		/* the kernel's direct map */
	{ 0xffffffff80000000UL, 0, false },		/* kernel image, even empty */
	{ UINTPTR_MAX, 1, false },
};
/* clang-format on */

START_TEST(test_access_ok_table)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct range_case *c = &cases[i];

		ck_assert_msg(access_ok((const void *)c->addr, c->len) == c->ok,
			      "access_ok(%#lx, %#zx) should be %s", (unsigned long)c->addr, c->len,
			      c->ok ? "true" : "false");
	}
}
END_TEST

/* The layout the rest of the kernel relies on (docs/user-space.md). */
START_TEST(test_layout)
{
	ck_assert_uint_eq(USER_ADDR_MIN, 0x10000);
	ck_assert_uint_eq(USER_ADDR_END, 0x7ffffffff000UL);
	ck_assert_uint_eq(USER_STACK_TOP, 0x7ffffffde000UL);
	ck_assert(USER_STACK_TOP < USER_ADDR_END);
	ck_assert(USER_STACK_TOP - USER_STACK_SIZE > 0x400000);
	ck_assert(access_ok((const void *)(USER_STACK_TOP - USER_STACK_SIZE), USER_STACK_SIZE));
}
END_TEST

Suite *uaccess_suite(void)
{
	Suite *s = suite_create("uaccess");
	TCase *tc = tcase_create("access_ok");

	tcase_add_test(tc, test_access_ok_table);
	tcase_add_test(tc, test_layout);
	suite_add_tcase(s, tc);
	return s;
}

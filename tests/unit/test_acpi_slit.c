/*
 * Unit tests of the SLIT parser (kernel/acpi/slit.c) on hand-built tables:
 * a 4-socket 8-node matrix, invalid and odd distances, sizes that do not
 * fit, every truncation.
 */
#include <stdlib.h>
#include <string.h>

#include "acpi/slit.h"
#include "acpi_builder.h"
#include "fake_arch.h"
#include "lib/errno.h"
#include "unit.h"

static struct acpi_builder b;
static struct acpi_slit_info slit;

static void setup(void)
{
	fake_console_reset();
}

static bool console_has(const char *s)
{
	return strstr(fake_console_text(), s) != NULL;
}

static int parse_slit(void)
{
	void *copy = ab_copy(&b, b.len);
	int ret = acpi_slit_parse(copy, b.len, &slit);

	free(copy);
	return ret;
}

START_TEST(test_slit_2x2)
{
	static const u8 m[] = { 10, 21, 21, 10 };

	ab_slit(&b, 2, m, sizeof(m));
	ck_assert_int_eq(parse_slit(), 0);
	ck_assert(slit.valid);
	ck_assert_uint_eq(slit.localities, 2);
	ck_assert_uint_eq(slit.distance[0][1], 21);
	ck_assert_uint_eq(slit.distance[1][1], 10);
	ck_assert_str_eq(fake_console_text(), "");
}
END_TEST

/* 4 sockets, 2 nodes each: 11 inside a socket, 21 to a neighbour, 31 across. */
START_TEST(test_slit_4_sockets_8_nodes)
{
	u8 m[64];

	for (int i = 0; i < 8; i++) {
		for (int j = 0; j < 8; j++) {
			int si = i / 2, sj = j / 2;

			m[i * 8 + j] = i == j ? 10 : si == sj ? 11 : (si ^ sj) == 1 ? 21 : 31;
		}
	}
	ab_slit(&b, 8, m, sizeof(m));
	ck_assert_int_eq(parse_slit(), 0);
	ck_assert(slit.valid);
	ck_assert_uint_eq(slit.localities, 8);
	for (int i = 0; i < 8; i++)
		for (int j = 0; j < 8; j++)
			ck_assert_uint_eq(slit.distance[i][j], m[i * 8 + j]);
	ck_assert_uint_eq(slit.asymmetric, 0);
}
END_TEST

START_TEST(test_slit_oddities)
{
	static const u8 bad_diag[] = { 10, 20, 20, 11 };
	static const u8 below[] = { 10, 5, 20, 10 };
	static const u8 odd_ok[] = { 10, 255, 10, 10 };

	ab_slit(&b, 2, bad_diag, sizeof(bad_diag));
	ck_assert_int_eq(parse_slit(), 0);
	ck_assert(!slit.valid);
	ck_assert_uint_eq(slit.bad_diagonal, 1);
	ck_assert(console_has("SLIT invalid"));

	ab_slit(&b, 2, below, sizeof(below));
	ck_assert_int_eq(parse_slit(), 0);
	ck_assert(!slit.valid);
	ck_assert_uint_eq(slit.below_local, 1);

	/* Unreachable, asymmetric, and a remote node at distance 10: odd but usable. */
	fake_console_reset();
	ab_slit(&b, 2, odd_ok, sizeof(odd_ok));
	ck_assert_int_eq(parse_slit(), 0);
	ck_assert(slit.valid);
	ck_assert_uint_eq(slit.unreachable, 1);
	ck_assert_uint_eq(slit.asymmetric, 1);
	ck_assert_uint_eq(slit.remote_as_local, 1);
	ck_assert(console_has("unreachable"));
	ck_assert(console_has("asymmetric"));
}
END_TEST

START_TEST(test_slit_bad_sizes)
{
	static const u8 m[9] = { 10, 20, 20, 20, 10, 20, 20, 20, 10 };

	/* Three localities need nine bytes; eight are there. */
	ab_slit(&b, 3, m, 8);
	ck_assert_int_eq(parse_slit(), -EINVAL);
	ck_assert(console_has("cannot hold 3x3 distances"));

	ab_slit(&b, 0, m, 0);
	ck_assert_int_eq(parse_slit(), -EINVAL);

	/* A count whose square overflows 64 bits must not wrap into "fits". */
	ab_slit(&b, 1ull << 32, m, 9);
	ck_assert_int_eq(parse_slit(), -EINVAL);
	ab_slit(&b, ACPI_SLIT_MAX_LOCALITIES + 1, m, 9);
	ck_assert_int_eq(parse_slit(), -EINVAL);
}
END_TEST

START_TEST(test_slit_truncated_everywhere)
{
	static const u8 m[9] = { 10, 20, 20, 20, 10, 20, 20, 20, 10 };
	size_t full;

	ab_slit(&b, 3, m, sizeof(m));
	full = b.len;
	for (size_t len = 0; len <= full; len++) {
		void *copy = ab_copy(&b, len);

		ck_assert_int_eq(acpi_slit_parse(copy, len, &slit), len == full ? 0 : -EINVAL);
		free(copy);
		b.buf[4] = (u8)len;
		copy = ab_copy(&b, len);
		ck_assert_int_eq(acpi_slit_parse(copy, len, &slit), len == full ? 0 : -EINVAL);
		free(copy);
		b.buf[4] = (u8)full;
	}
}
END_TEST

Suite *acpi_slit_suite(void)
{
	Suite *s = suite_create("acpi_slit");
	TCase *tc = tcase_create("slit");

	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, test_slit_2x2);
	tcase_add_test(tc, test_slit_4_sockets_8_nodes);
	tcase_add_test(tc, test_slit_oddities);
	tcase_add_test(tc, test_slit_bad_sizes);
	tcase_add_test(tc, test_slit_truncated_everywhere);
	suite_add_tcase(s, tc);
	return s;
}

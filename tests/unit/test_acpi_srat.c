/*
 * Unit tests of the SRAT parser (kernel/acpi/srat.c) on hand-built tables:
 * split proximity domains, disabled entries, memory flags, broken entries,
 * every truncation.
 */
#include <stdlib.h>
#include <string.h>

#include "acpi/srat.h"
#include "acpi_builder.h"
#include "fake_arch.h"
#include "lib/errno.h"
#include "unit.h"

static struct acpi_builder b;
static struct acpi_srat_info srat;

static void setup(void)
{
	fake_console_reset();
}

static bool console_has(const char *s)
{
	return strstr(fake_console_text(), s) != NULL;
}

static int parse_srat(void)
{
	void *copy = ab_copy(&b, b.len);
	int ret = acpi_srat_parse(copy, b.len, &srat);

	free(copy);
	return ret;
}

/* ---------------------------------------------------------------- SRAT */

START_TEST(test_srat_basic)
{
	ab_srat_begin(&b, 3);
	ab_srat_cpu(&b, 0, 0, 1);
	ab_srat_cpu(&b, 1, 1, 1);
	ab_srat_mem(&b, 0, 0, 0xA0000, 1);
	ab_srat_mem(&b, 0, 0x100000, 0x3FF00000, 1);
	ab_srat_mem(&b, 1, 0x40000000, 0x40000000, 1);
	ab_end(&b);
	ck_assert_int_eq(parse_srat(), 0);
	ck_assert_uint_eq(srat.revision, 3);
	ck_assert_uint_eq(srat.nr_cpus, 2);
	ck_assert_uint_eq(srat.cpu[1].apic_id, 1);
	ck_assert_uint_eq(srat.cpu[1].domain, 1);
	ck_assert_uint_eq(srat.nr_mem, 3);
	ck_assert_uint_eq(srat.mem[2].base, 0x40000000);
	ck_assert_uint_eq(srat.mem[2].length, 0x40000000);
	ck_assert_uint_eq(srat.mem[2].domain, 1);
	ck_assert_int_eq(acpi_srat_cpu_domain(&srat, 1), 1);
	ck_assert_int_eq(acpi_srat_cpu_domain(&srat, 7), -1);
	ck_assert_str_eq(fake_console_text(), "");
}
END_TEST

/* The processor entry's domain: low byte at offset 2, the rest at 9-11, from revision 2. */
START_TEST(test_srat_split_domain)
{
	ab_srat_begin(&b, 2);
	ab_srat_cpu(&b, 5, 0x12345678, 1);
	ab_srat_mem(&b, 0x12345678, 0x1000, 0x1000, 1);
	ab_end(&b);
	ck_assert_int_eq(parse_srat(), 0);
	ck_assert_uint_eq(srat.cpu[0].domain, 0x12345678);
	ck_assert_uint_eq(srat.mem[0].domain, 0x12345678);

	/* Revision 1: only the low byte was defined; the rest is ignored, as in Linux. */
	b.buf[8] = 1;
	ck_assert_int_eq(parse_srat(), 0);
	ck_assert_uint_eq(srat.cpu[0].domain, 0x78);
	ck_assert_uint_eq(srat.mem[0].domain, 0x78);
}
END_TEST

START_TEST(test_srat_x2apic)
{
	ab_srat_begin(&b, 3);
	ab_srat_x2apic(&b, 0x1234, 7, 1);
	ab_srat_x2apic(&b, 0x1235, 7, 0);
	ab_end(&b);
	ck_assert_int_eq(parse_srat(), 0);
	ck_assert_uint_eq(srat.nr_cpus, 1);
	ck_assert(srat.cpu[0].x2apic);
	ck_assert_uint_eq(srat.cpu[0].apic_id, 0x1234);
	ck_assert_uint_eq(srat.cpu[0].domain, 7);
	ck_assert_uint_eq(srat.count.x2apic, 2);
	ck_assert_uint_eq(srat.count.cpu_disabled, 1);
}
END_TEST

START_TEST(test_srat_disabled_skipped_but_counted)
{
	ab_srat_begin(&b, 3);
	ab_srat_cpu(&b, 0, 0, 1);
	for (u8 i = 1; i < 6; i++)
		ab_srat_cpu(&b, i, 0, 0);
	ab_srat_mem(&b, 0, 0, 0x100000, 1);
	ab_srat_mem(&b, 1, 0x100000, 0x100000, 0);     /* disabled */
	ab_srat_mem(&b, 0, 0, 0, 0);		       /* QEMU's empty disabled entry */
	ab_srat_mem(&b, 0, 0x200000, 0, 1);	       /* enabled but empty */
	ab_srat_mem(&b, 0, 0x300000, 0x100000, 1 | 2); /* hot-pluggable */
	ab_srat_mem(&b, 0, 0x400000, 0x100000, 1 | 4); /* non-volatile */
	ab_end(&b);
	ck_assert_int_eq(parse_srat(), 0);
	ck_assert_uint_eq(srat.nr_cpus, 1);
	ck_assert_uint_eq(srat.count.cpu_enabled, 1);
	ck_assert_uint_eq(srat.count.cpu_disabled, 5);
	ck_assert_uint_eq(srat.nr_mem, 3);
	ck_assert_uint_eq(srat.count.mem_enabled, 3);
	ck_assert_uint_eq(srat.count.mem_disabled, 2);
	ck_assert_uint_eq(srat.count.mem_empty, 1);
	ck_assert_uint_eq(srat.count.mem_hot_pluggable, 1);
	ck_assert_uint_eq(srat.count.mem_non_volatile, 1);
	ck_assert(srat.mem[1].hot_pluggable);
	ck_assert(srat.mem[2].non_volatile);
	ck_assert_int_eq(acpi_srat_cpu_domain(&srat, 3), -1); /* disabled: not placed */
}
END_TEST

START_TEST(test_srat_wrapping_range_clamped)
{
	ab_srat_begin(&b, 3);
	ab_srat_mem(&b, 0, 0xFFFFFFFFFFFF0000ull, 0x100000, 1);
	ab_end(&b);
	ck_assert_int_eq(parse_srat(), 0);
	ck_assert_uint_eq(srat.nr_mem, 1);
	ck_assert_uint_eq(srat.mem[0].base + srat.mem[0].length, ~0ull);
	ck_assert(console_has("wraps around"));
}
END_TEST

START_TEST(test_srat_broken_entries)
{
	u8 junk[8] = { 0 };

	/* Unknown types (GICC = 3) are skipped by length; short known ones are reported. */
	ab_srat_begin(&b, 3);
	ab_entry(&b, 3, 10, junk, 8);
	ab_entry(&b, 1, 10, junk, 8);
	ab_srat_cpu(&b, 9, 2, 1);
	ab_end(&b);
	ck_assert_int_eq(parse_srat(), 0);
	ck_assert_uint_eq(srat.count.unknown, 1);
	ck_assert_uint_eq(srat.count.malformed, 1);
	ck_assert_uint_eq(srat.nr_cpus, 1);
	ck_assert(!srat.truncated);

	/* Zero length stops the walk. */
	ab_srat_begin(&b, 3);
	ab_srat_cpu(&b, 0, 0, 1);
	ab_entry(&b, 0, 0, NULL, 0);
	ab_srat_cpu(&b, 1, 0, 1);
	ab_end(&b);
	ck_assert_int_eq(parse_srat(), 0);
	ck_assert(srat.truncated);
	ck_assert_uint_eq(srat.nr_cpus, 1);
	ck_assert(console_has("SRAT: entry of type 0 at offset 64 has length 0"));

	/* Overlong stops it too. */
	ab_srat_begin(&b, 3);
	ab_entry(&b, 1, 255, junk, 8);
	ab_end(&b);
	ck_assert_int_eq(parse_srat(), 0);
	ck_assert(srat.truncated);
	ck_assert_uint_eq(srat.nr_mem, 0);
}
END_TEST

START_TEST(test_srat_truncated_everywhere)
{
	size_t full;

	ab_srat_begin(&b, 3);
	ab_srat_cpu(&b, 0, 0, 1);
	ab_srat_x2apic(&b, 0x100, 1, 1);
	ab_srat_mem(&b, 1, 0x100000, 0x100000, 1);
	ab_end(&b);
	full = b.len;
	for (size_t len = 0; len <= full; len++) {
		void *copy;
		int ret;

		/* Buffer cut under a length field that still claims it all. */
		copy = ab_copy(&b, len);
		ret = acpi_srat_parse(copy, len, &srat);
		ck_assert_int_eq(ret, len == full ? 0 : -EINVAL);
		free(copy);

		/* The length field cut to match. */
		b.buf[4] = (u8)len;
		copy = ab_copy(&b, len);
		ret = acpi_srat_parse(copy, len, &srat);
		ck_assert_int_eq(ret, len < 48 ? -EINVAL : 0);
		free(copy);
		b.buf[4] = (u8)full;
	}
}
END_TEST

START_TEST(test_srat_bad_header)
{
	ab_srat_begin(&b, 3);
	ab_end(&b);
	b.buf[3] = 'X';
	ck_assert_int_eq(parse_srat(), -EINVAL);
	ck_assert(console_has("SRAT header unusable"));
}
END_TEST

Suite *acpi_srat_suite(void)
{
	Suite *s = suite_create("acpi_srat");
	TCase *tc = tcase_create("srat");

	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, test_srat_basic);
	tcase_add_test(tc, test_srat_split_domain);
	tcase_add_test(tc, test_srat_x2apic);
	tcase_add_test(tc, test_srat_disabled_skipped_but_counted);
	tcase_add_test(tc, test_srat_wrapping_range_clamped);
	tcase_add_test(tc, test_srat_broken_entries);
	tcase_add_test(tc, test_srat_truncated_everywhere);
	tcase_add_test(tc, test_srat_bad_header);
	suite_add_tcase(s, tc);
	return s;
}

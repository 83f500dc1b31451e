/*
 * Unit tests of the SPCR parser (kernel/acpi/spcr.c) on hand-built tables:
 * COM2 on I/O ports as QEMU's -acpitable test gives it, an MMIO UART with
 * 32-bit registers, the baud codes, and the tables that must be refused.
 */
#include <stdlib.h>
#include <string.h>

#include "acpi/spcr.h"
#include "acpi_builder.h"
#include "fake_arch.h"
#include "lib/errno.h"
#include "unit.h"

static struct acpi_builder b;
static struct acpi_spcr_info spcr;

static void setup(void)
{
	fake_console_reset();
}

static bool console_has(const char *s)
{
	return strstr(fake_console_text(), s) != NULL;
}

/* An SPCR of revision 2: interface type, GAS (space, width, access size, address), baud code. */
static void build(u8 iface, u8 space, u8 width, u8 access, u64 address, u8 baud)
{
	u8 gas[12] = { space, width, 0, access };

	ab_begin(&b, "SPCR", 2, sizeof(struct acpi_spcr));
	b.buf[36] = iface;
	memcpy(gas + 4, &address, 8);
	ab_set(&b, 40, gas, sizeof(gas));
	b.buf[58] = baud;
	ab_end(&b);
}

static int parse(size_t len)
{
	void *copy = ab_copy(&b, len);
	int ret = acpi_spcr_parse(copy, len, &spcr);

	free(copy);
	return ret;
}

START_TEST(test_spcr_com2_io)
{
	build(ACPI_SPCR_IFACE_16550, ACPI_GAS_IO, 8, 1, 0x2f8, 7);
	ck_assert_int_eq(parse(b.len), 0);
	ck_assert(!spcr.mmio);
	ck_assert_uint_eq(spcr.address, 0x2f8);
	ck_assert_uint_eq(spcr.reg_width, 1);
	ck_assert_uint_eq(spcr.baud, 115200);
	ck_assert_str_eq(fake_console_text(), "");
}
END_TEST

START_TEST(test_spcr_mmio32)
{
	build(ACPI_SPCR_IFACE_16550_GAS, ACPI_GAS_MEMORY, 32, 3, 0xfe040000, 0);
	ck_assert_int_eq(parse(b.len), 0);
	ck_assert(spcr.mmio);
	ck_assert_uint_eq(spcr.address, 0xfe040000);
	ck_assert_uint_eq(spcr.reg_width, 4);
	ck_assert_uint_eq(spcr.baud, 0); /* keep what the firmware set */
}
END_TEST

/* A width of 0 takes the access size: dword access means 32-bit registers. */
START_TEST(test_spcr_width_from_access_size)
{
	build(ACPI_SPCR_IFACE_16550, ACPI_GAS_MEMORY, 0, 3, 0xfed00000, 6);
	ck_assert_int_eq(parse(b.len), 0);
	ck_assert_uint_eq(spcr.reg_width, 4);
	ck_assert_uint_eq(spcr.baud, 57600);
	build(ACPI_SPCR_IFACE_16450, ACPI_GAS_IO, 0, 0, 0x3f8, 3);
	ck_assert_int_eq(parse(b.len), 0);
	ck_assert_uint_eq(spcr.reg_width, 1);
	ck_assert_uint_eq(spcr.baud, 9600);
}
END_TEST

START_TEST(test_spcr_refused)
{
	build(0x03, ACPI_GAS_MEMORY, 32, 3, 0x9000000, 7); /* an ARM PL011 */
	ck_assert_int_eq(parse(b.len), -EINVAL);
	ck_assert(console_has("interface type 0x3"));
	fake_console_reset();
	build(ACPI_SPCR_IFACE_16550, 2, 8, 1, 0x3f8, 7); /* PCI configuration space */
	ck_assert_int_eq(parse(b.len), -EINVAL);
	ck_assert(console_has("address space 2"));
	fake_console_reset();
	build(ACPI_SPCR_IFACE_16550, ACPI_GAS_IO, 8, 1, 0, 7);
	ck_assert_int_eq(parse(b.len), -EINVAL);
	ck_assert(console_has("address 0"));
	fake_console_reset();
	build(ACPI_SPCR_IFACE_16550, ACPI_GAS_MEMORY, 16, 2, 0xfe000000, 7);
	ck_assert_int_eq(parse(b.len), -EINVAL);
	ck_assert(console_has("16-bit registers"));
	fake_console_reset();
	build(ACPI_SPCR_IFACE_16550, ACPI_GAS_IO, 32, 3, 0x3f8, 7);
	ck_assert_int_eq(parse(b.len), -EINVAL);
	ck_assert(console_has("I/O UART at 0x3f8"));
}
END_TEST

/* Cut anywhere before the baud byte, the table is refused, never overread (ASan). */
START_TEST(test_spcr_truncated)
{
	build(ACPI_SPCR_IFACE_16550, ACPI_GAS_IO, 8, 1, 0x2f8, 7);
	for (size_t len = 0; len < 59; len++) {
		u32 cut = (u32)len;

		if (len >= 8)
			memcpy(b.buf + 4, &cut, 4);
		ck_assert_int_eq(parse(len), -EINVAL);
	}
}
END_TEST

Suite *acpi_spcr_suite(void)
{
	Suite *s = suite_create("acpi_spcr");
	TCase *tc = tcase_create("spcr");

	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, test_spcr_com2_io);
	tcase_add_test(tc, test_spcr_mmio32);
	tcase_add_test(tc, test_spcr_width_from_access_size);
	tcase_add_test(tc, test_spcr_refused);
	tcase_add_test(tc, test_spcr_truncated);
	suite_add_tcase(s, tc);
	return s;
}

/*
 * Unit tests of the MADT parser (kernel/acpi/madt.c) on hand-built tables,
 * each an exact-size heap copy so ASan flags any read past the end.
 */
#include <stdlib.h>
#include <string.h>

#include "acpi/madt.h"
#include "acpi_builder.h"
#include "fake_arch.h"
#include "lib/errno.h"
#include "unit.h"

static struct acpi_builder b;
static struct acpi_madt_info madt;

static void setup(void)
{
	fake_console_reset();
}

static bool console_has(const char *s)
{
	return strstr(fake_console_text(), s) != NULL;
}

/* Parses what b holds, from an exact-size copy. */
static int parse(void)
{
	void *copy = ab_copy(&b, b.len);
	int ret = acpi_madt_parse(copy, b.len, &madt);

	free(copy);
	return ret;
}

START_TEST(test_qemu_like)
{
	ab_madt_begin(&b, 1, 0xFEE00000);
	for (u8 i = 0; i < 4; i++)
		ab_madt_lapic(&b, i, i, 1);
	ab_madt_ioapic(&b, 0, 0xFEC00000, 0);
	ab_madt_override(&b, 0, 0, 2, 0);
	ab_madt_override(&b, 0, 9, 9, 0xD);
	ab_madt_lapic_nmi(&b, 0xFF, 0, 1);
	ab_end(&b);
	ck_assert_int_eq(parse(), 0);
	ck_assert_uint_eq(madt.revision, 1);
	ck_assert_uint_eq(madt.lapic_address, 0xFEE00000);
	ck_assert(!madt.lapic_overridden);
	ck_assert_uint_eq(madt.flags, 1);
	ck_assert(!madt.truncated);
	ck_assert_uint_eq(madt.nr_cpus, 4);
	for (u32 i = 0; i < 4; i++) {
		ck_assert_uint_eq(madt.cpu[i].apic_id, i);
		ck_assert_uint_eq(madt.cpu[i].acpi_uid, i);
		ck_assert(madt.cpu[i].enabled);
		ck_assert(!madt.cpu[i].x2apic);
	}
	ck_assert_uint_eq(madt.count.enabled, 4);
	ck_assert_uint_eq(madt.count.disabled, 0);
	ck_assert_uint_eq(madt.nr_ioapics, 1);
	ck_assert_uint_eq(madt.ioapic[0].address, 0xFEC00000);
	ck_assert_uint_eq(madt.nr_overrides, 2);
	ck_assert_uint_eq(madt.override[1].source, 9);
	ck_assert_uint_eq(madt.override[1].gsi, 9);
	ck_assert_uint_eq(madt.override[1].flags, 0xD);
	ck_assert_uint_eq(madt.nr_nmis, 1);
	ck_assert_uint_eq(madt.nmi[0].acpi_uid, ACPI_MADT_NMI_ALL_CPUS);
	ck_assert_uint_eq(madt.nmi[0].lint, 1);
	ck_assert_str_eq(fake_console_text(), "");
}
END_TEST

START_TEST(test_x2apic_above_255)
{
	static const u32 ids[] = { 0x100, 0x1FF, 0x10000, 0xFFFFFFFE };

	ab_madt_begin(&b, 5, 0xFEE00000);
	ab_madt_lapic(&b, 0, 0, 1);
	for (u32 i = 0; i < 4; i++)
		ab_madt_x2apic(&b, ids[i], 100 + i, 1);
	ab_madt_x2apic_nmi(&b, 0xFFFFFFFF, 5, 1);
	ab_end(&b);
	ck_assert_int_eq(parse(), 0);
	ck_assert_uint_eq(madt.nr_cpus, 5);
	ck_assert_uint_eq(madt.count.enabled, 5);
	ck_assert_uint_eq(madt.count.x2apic, 4);
	for (u32 i = 0; i < 4; i++) {
		ck_assert_uint_eq(madt.cpu[1 + i].apic_id, ids[i]);
		ck_assert_uint_eq(madt.cpu[1 + i].acpi_uid, 100 + i);
		ck_assert(madt.cpu[1 + i].x2apic);
	}
	ck_assert_uint_eq(madt.nr_nmis, 1);
	ck_assert_uint_eq(madt.nmi[0].acpi_uid, ACPI_MADT_NMI_ALL_CPUS);
	ck_assert_uint_eq(madt.nmi[0].flags, 5);
}
END_TEST

START_TEST(test_disabled_and_online_capable)
{
	ab_madt_begin(&b, 5, 0xFEE00000);
	ab_madt_lapic(&b, 0, 0, 1);	 /* enabled */
	ab_madt_lapic(&b, 1, 1, 0);	 /* disabled */
	ab_madt_lapic(&b, 2, 2, 2);	 /* online-capable */
	ab_madt_x2apic(&b, 0x300, 3, 2); /* online-capable */
	ab_madt_lapic(&b, 4, 4, 3);	 /* enabled (the online-capable bit is moot then) */
	ab_end(&b);
	ck_assert_int_eq(parse(), 0);
	ck_assert_uint_eq(madt.nr_cpus, 5);
	ck_assert_uint_eq(madt.count.enabled, 2);
	ck_assert_uint_eq(madt.count.disabled, 3);
	ck_assert_uint_eq(madt.count.online_capable, 2);
	ck_assert(!madt.cpu[1].enabled && !madt.cpu[1].online_capable);
	ck_assert(!madt.cpu[2].enabled && madt.cpu[2].online_capable);
	ck_assert(madt.cpu[3].online_capable && madt.cpu[3].x2apic);
	ck_assert(madt.cpu[4].enabled && !madt.cpu[4].online_capable);
}
END_TEST

/* Before revision 5 bit 1 was reserved: it must not make a CPU online-capable. */
START_TEST(test_online_capable_needs_revision_5)
{
	ab_madt_begin(&b, 4, 0xFEE00000);
	ab_madt_lapic(&b, 0, 0, 1);
	ab_madt_lapic(&b, 1, 1, 2);
	ab_end(&b);
	ck_assert_int_eq(parse(), 0);
	ck_assert_uint_eq(madt.count.disabled, 1);
	ck_assert_uint_eq(madt.count.online_capable, 0);
	ck_assert(!madt.cpu[1].online_capable);
}
END_TEST

START_TEST(test_duplicate_apic_ids)
{
	ab_madt_begin(&b, 3, 0xFEE00000);
	ab_madt_lapic(&b, 0, 0, 1);
	ab_madt_lapic(&b, 1, 1, 1);
	ab_madt_lapic(&b, 2, 1, 1);    /* duplicate of UID 1 */
	ab_madt_x2apic(&b, 1, 3, 1);   /* the same ID through an x2APIC entry */
	ab_madt_lapic(&b, 4, 0, 0);    /* disabled placeholders sharing the boot CPU's ID */
	ab_madt_lapic(&b, 5, 0, 0);    /* ... are not duplicates (AMD firmware does this) */
	ab_madt_lapic(&b, 6, 0xFF, 0); /* nor are 0xFF placeholders */
	ab_madt_lapic(&b, 7, 0xFF, 0);
	ab_end(&b);
	ck_assert_int_eq(parse(), 0);
	ck_assert_uint_eq(madt.count.enabled, 2);
	ck_assert_uint_eq(madt.count.duplicates, 2);
	ck_assert_uint_eq(madt.nr_dup_ids, 1);
	ck_assert_uint_eq(madt.dup_id[0], 1);
	ck_assert_uint_eq(madt.count.disabled, 4);
	ck_assert_uint_eq(madt.nr_cpus, 6);	    /* 2 CPUs + 4 placeholders */
	ck_assert_uint_eq(madt.cpu[1].acpi_uid, 1); /* the first entry wins */
	ck_assert(console_has("APIC ID 0x1 more than once"));
	/* Reported once per ID, however often it repeats. */
	ck_assert_ptr_null(strstr(strstr(fake_console_text(), "0x1 more") + 1, "0x1 more"));
}
END_TEST

START_TEST(test_broadcast_ids_ignored)
{
	ab_madt_begin(&b, 5, 0xFEE00000);
	ab_madt_lapic(&b, 0, 0, 1);
	ab_madt_lapic(&b, 1, 0xFF, 1);
	ab_madt_x2apic(&b, 0xFFFFFFFF, 2, 1);
	ab_end(&b);
	ck_assert_int_eq(parse(), 0);
	ck_assert_uint_eq(madt.nr_cpus, 1);
	ck_assert_uint_eq(madt.count.enabled, 1);
	ck_assert_uint_eq(madt.count.malformed, 2);
	ck_assert(console_has("broadcast APIC ID 0xff"));
}
END_TEST

START_TEST(test_lapic_address_override)
{
	ab_madt_begin(&b, 3, 0xFEE00000);
	ab_madt_lapic(&b, 0, 0, 1);
	ab_madt_lapic_address(&b, 0x1FEE00000ull);
	ab_end(&b);
	ck_assert_int_eq(parse(), 0);
	ck_assert(madt.lapic_overridden);
	ck_assert_uint_eq(madt.lapic_address, 0x1FEE00000ull);
	ck_assert_str_eq(fake_console_text(), "");

	/* Two that disagree: the later wins, with a warning. */
	ab_madt_lapic_address(&b, 0x2FEE00000ull);
	ab_end(&b);
	ck_assert_int_eq(parse(), 0);
	ck_assert_uint_eq(madt.lapic_address, 0x2FEE00000ull);
	ck_assert(console_has("conflicting local APIC address overrides"));
}
END_TEST

START_TEST(test_unknown_types_skipped)
{
	u8 junk[14] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14 };

	ab_madt_begin(&b, 6, 0xFEE00000);
	ab_madt_lapic(&b, 0, 0, 1);
	ab_entry(&b, 0x7F, 16, junk, sizeof(junk)); /* a type from the future */
	ab_entry(&b, 0xB, 2, NULL, 0);		    /* GICC, absurdly short: not ours */
	ab_madt_lapic(&b, 1, 1, 1);
	ab_end(&b);
	ck_assert_int_eq(parse(), 0);
	ck_assert_uint_eq(madt.count.unknown, 2);
	ck_assert_uint_eq(madt.nr_cpus, 2);
	ck_assert(!madt.truncated);
}
END_TEST

START_TEST(test_longer_entries_accepted)
{
	u8 payload[10] = { 7, 9, 1, 0, 0, 0, 0xAA, 0xBB, 0xCC, 0xDD };

	/* A local APIC entry of 12 bytes (a later revision may add fields): the known ones count.
	 */
	ab_madt_begin(&b, 3, 0xFEE00000);
	ab_entry(&b, 0, 12, payload, sizeof(payload));
	ab_end(&b);
	ck_assert_int_eq(parse(), 0);
	ck_assert_uint_eq(madt.nr_cpus, 1);
	ck_assert_uint_eq(madt.cpu[0].acpi_uid, 7);
	ck_assert_uint_eq(madt.cpu[0].apic_id, 9);
}
END_TEST

START_TEST(test_zero_length_entry_stops)
{
	ab_madt_begin(&b, 3, 0xFEE00000);
	ab_madt_lapic(&b, 0, 0, 1);
	ab_entry(&b, 0, 0, NULL, 0);
	ab_madt_lapic(&b, 1, 1, 1);
	ab_end(&b);
	ck_assert_int_eq(parse(), 0);
	ck_assert(madt.truncated);
	ck_assert_uint_eq(madt.nr_cpus, 1);
	ck_assert(console_has("MADT: entry of type 0 at offset 52 has length 0; walk stopped"));

	/* Length 1 cannot hold even the header: the same. */
	b.buf[53] = 1;
	ab_fix_checksum(&b);
	fake_console_reset();
	ck_assert_int_eq(parse(), 0);
	ck_assert(madt.truncated);
	ck_assert(console_has("has length 1; walk stopped"));
}
END_TEST

START_TEST(test_overlong_entry_stops)
{
	u8 payload[6] = { 1, 1, 1, 0, 0, 0 };

	ab_madt_begin(&b, 3, 0xFEE00000);
	ab_madt_lapic(&b, 0, 0, 1);
	ab_entry(&b, 0, 200, payload, sizeof(payload)); /* claims 200 bytes; 8 remain */
	ab_end(&b);
	ck_assert_int_eq(parse(), 0);
	ck_assert(madt.truncated);
	ck_assert_uint_eq(madt.nr_cpus, 1);
	ck_assert(console_has("runs past the table's end (60); walk stopped"));
}
END_TEST

START_TEST(test_short_known_entry_skipped)
{
	u8 payload[4] = { 1, 1, 1, 0 };

	ab_madt_begin(&b, 3, 0xFEE00000);
	ab_entry(&b, 0, 6, payload, sizeof(payload)); /* a local APIC entry needs 8 */
	ab_madt_lapic(&b, 2, 2, 1);
	ab_entry(&b, 5, 4, payload, 2); /* an address override needs 12 */
	ab_end(&b);
	ck_assert_int_eq(parse(), 0);
	ck_assert(!madt.truncated);
	ck_assert_uint_eq(madt.count.malformed, 2);
	ck_assert_uint_eq(madt.nr_cpus, 1);
	ck_assert_uint_eq(madt.cpu[0].apic_id, 2);
	ck_assert(!madt.lapic_overridden);
	ck_assert(console_has("entry of type 0 at offset 44 is 6 bytes, needs 8; skipped"));
}
END_TEST

START_TEST(test_stray_byte_at_end)
{
	ab_madt_begin(&b, 3, 0xFEE00000);
	ab_madt_lapic(&b, 0, 0, 1);
	ab_put(&b, "\0", 1);
	ab_end(&b);
	ck_assert_int_eq(parse(), 0);
	ck_assert(madt.truncated);
	ck_assert_uint_eq(madt.nr_cpus, 1);
	ck_assert(console_has("a stray byte at offset 52"));
}
END_TEST

START_TEST(test_bad_header)
{
	ab_madt_begin(&b, 3, 0xFEE00000);
	ab_madt_lapic(&b, 0, 0, 1);
	ab_end(&b);
	b.buf[0] = 'X';
	ck_assert_int_eq(parse(), -EINVAL);
	ck_assert_uint_eq(madt.nr_cpus, 0);

	/* A length field shorter than the MADT's fixed part. */
	ab_madt_begin(&b, 3, 0xFEE00000);
	ab_end(&b);
	b.buf[4] = 40;
	ck_assert_int_eq(acpi_madt_parse(b.buf, 44, &madt), -EINVAL);
	ck_assert_int_eq(acpi_madt_parse(NULL, 0, &madt), -EINVAL);
}
END_TEST

/* A MADT with every entry type, for the truncation tests. */
static void build_full(void)
{
	ab_madt_begin(&b, 5, 0xFEE00000);
	ab_madt_lapic(&b, 0, 0, 1);
	ab_madt_lapic(&b, 1, 1, 0);
	ab_madt_ioapic(&b, 2, 0xFEC00000, 0);
	ab_madt_override(&b, 0, 0, 2, 0);
	ab_madt_lapic_nmi(&b, 0xFF, 5, 1);
	ab_madt_lapic_address(&b, 0xFEE00000);
	ab_madt_x2apic(&b, 0x100, 2, 1);
	ab_madt_x2apic_nmi(&b, 2, 0, 1);
	ab_end(&b);
}

/*
 * Every truncation: (a) the buffer is cut while the length field still
 * claims the whole table, which must be refused; (b) the length field
 * itself is cut to every value with exactly that many bytes present,
 * which must parse what fits and stop cleanly where an entry is cut.
 */
START_TEST(test_truncated_everywhere)
{
	size_t full;

	build_full();
	full = b.len;
	for (size_t len = 0; len < full; len++) {
		void *copy = ab_copy(&b, len);

		ck_assert_int_eq(acpi_madt_parse(copy, len, &madt), -EINVAL);
		free(copy);
	}
	for (size_t len = 0; len <= full; len++) {
		void *copy;
		int ret;

		b.buf[4] = (u8)len;
		copy = ab_copy(&b, len);
		ret = acpi_madt_parse(copy, len, &madt);
		free(copy);
		ck_assert_int_eq(ret, len < 44 ? -EINVAL : 0);
		if (len == full)
			ck_assert(!madt.truncated);
		if (ret == 0)
			ck_assert_uint_le(madt.nr_cpus, 3);
	}
	b.buf[4] = (u8)full;
	ck_assert_int_eq(parse(), 0);
	ck_assert_uint_eq(madt.nr_cpus, 3);
	ck_assert_uint_eq(madt.nr_nmis, 2);
}
END_TEST

START_TEST(test_many_cpus)
{
	/* More processor entries than the list holds: the rest are counted, not stored. */
	ab_madt_begin(&b, 5, 0xFEE00000);
	for (u32 i = 0; i < ACPI_MADT_MAX_CPUS + 10; i++)
		ab_madt_x2apic(&b, i, i, 1);
	ab_end(&b);
	ck_assert_int_eq(parse(), 0);
	ck_assert_uint_eq(madt.nr_cpus, ACPI_MADT_MAX_CPUS);
	ck_assert_uint_eq(madt.count.dropped, 10);
	ck_assert_uint_eq(madt.count.enabled, ACPI_MADT_MAX_CPUS);
	ck_assert(console_has("more than 1024 processor entries"));
}
END_TEST

Suite *acpi_madt_suite(void)
{
	Suite *s = suite_create("acpi_madt");
	TCase *tc = tcase_create("parse");

	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, test_qemu_like);
	tcase_add_test(tc, test_x2apic_above_255);
	tcase_add_test(tc, test_disabled_and_online_capable);
	tcase_add_test(tc, test_online_capable_needs_revision_5);
	tcase_add_test(tc, test_duplicate_apic_ids);
	tcase_add_test(tc, test_broadcast_ids_ignored);
	tcase_add_test(tc, test_lapic_address_override);
	tcase_add_test(tc, test_unknown_types_skipped);
	tcase_add_test(tc, test_longer_entries_accepted);
	tcase_add_test(tc, test_zero_length_entry_stops);
	tcase_add_test(tc, test_overlong_entry_stops);
	tcase_add_test(tc, test_short_known_entry_skipped);
	tcase_add_test(tc, test_stray_byte_at_end);
	tcase_add_test(tc, test_bad_header);
	tcase_add_test(tc, test_truncated_everywhere);
	tcase_add_test(tc, test_many_cpus);
	suite_add_tcase(s, tc);
	return s;
}

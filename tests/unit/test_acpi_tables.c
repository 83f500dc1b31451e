/*
 * Unit tests of ACPI table discovery (kernel/acpi/tables.c): RSDP checks and
 * scans, the RSDT/XSDT walk over a fake physical address space, checksum
 * policy, duplicates and a map callback that cannot provide everything.
 */
#include <stdlib.h>
#include <string.h>

#include "acpi/tables.h"
#include "acpi_builder.h"
#include "cmdline.h"
#include "fake_arch.h"
#include "lib/errno.h"
#include "unit.h"

static struct acpi_tables tables;
static struct ab_mem mem;

static void setup(void)
{
	fake_console_reset();
	ab_mem_init(&mem);
	memset(&tables, 0, sizeof(tables));
}

static void teardown(void)
{
	ab_mem_free(&mem);
}

static bool console_has(const char *s)
{
	return strstr(fake_console_text(), s) != NULL;
}

/* ---------------------------------------------------------------- RSDP */

START_TEST(test_rsdp_v1)
{
	u8 r[36];
	struct acpi_rsdp_info info;

	ab_rsdp(r, 0, 0x7ffe26b0, 0);
	ck_assert_int_eq(acpi_rsdp_check(r, 20, &info), 0);
	ck_assert_uint_eq(info.revision, 0);
	ck_assert_uint_eq(info.rsdt_address, 0x7ffe26b0);
	ck_assert(!info.v2_ok);
	ck_assert_uint_eq(info.xsdt_address, 0);
	ck_assert_str_eq(info.oem_id, "FULCRM");
}
END_TEST

START_TEST(test_rsdp_v2)
{
	u8 r[36];
	struct acpi_rsdp_info info;

	ab_rsdp(r, 2, 0x1000, 0x123456789000ull);
	ck_assert_int_eq(acpi_rsdp_check(r, 36, &info), 0);
	ck_assert(info.v2_ok);
	ck_assert_uint_eq(info.xsdt_address, 0x123456789000ull);

	/* Only the 1.0 part at hand (an old multiboot tag): usable through the RSDT. */
	ck_assert_int_eq(acpi_rsdp_check(r, 20, &info), 0);
	ck_assert(!info.v2_ok);
	ck_assert_uint_eq(info.rsdt_address, 0x1000);
}
END_TEST

START_TEST(test_rsdp_bad)
{
	u8 r[36];
	struct acpi_rsdp_info info;

	ab_rsdp(r, 0, 0x1000, 0);
	r[8] ^= 1; /* 1.0 checksum */
	ck_assert_int_eq(acpi_rsdp_check(r, 20, &info), -EINVAL);

	ab_rsdp(r, 0, 0x1000, 0);
	r[0] = 'X';
	ck_assert_int_eq(acpi_rsdp_check(r, 20, &info), -EINVAL);

	/* A bad extended checksum leaves the RSDT usable, but not the XSDT. */
	ab_rsdp(r, 2, 0x1000, 0x2000);
	r[32] ^= 1;
	ck_assert_int_eq(acpi_rsdp_check(r, 36, &info), 0);
	ck_assert(!info.v2_ok);
	ck_assert_uint_eq(info.xsdt_address, 0);

	/* A length field below 36 or beyond the bytes held is not believed. */
	ab_rsdp(r, 2, 0x1000, 0x2000);
	r[20] = 20;
	r[32] = (u8)(r[32] + 16); /* keep the extended sum at zero */
	ck_assert_int_eq(acpi_rsdp_check(r, 36, &info), 0);
	ck_assert(!info.v2_ok);
	ab_rsdp(r, 2, 0x1000, 0x2000);
	r[20] = 40;
	r[32] = (u8)(r[32] - 4);
	ck_assert_int_eq(acpi_rsdp_check(r, 36, &info), 0);
	ck_assert(!info.v2_ok);
}
END_TEST

/* Every length of an RSDP buffer, each an exact heap copy: no read past it. */
START_TEST(test_rsdp_truncated)
{
	u8 r[36];
	struct acpi_rsdp_info info;

	ab_rsdp(r, 2, 0x1000, 0x2000);
	for (size_t len = 0; len <= 36; len++) {
		u8 *copy = malloc(len ? len : 1);
		int ret;

		memcpy(copy, r, len);
		ret = acpi_rsdp_check(copy, len, &info);
		ck_assert_int_eq(ret, len < 20 ? -EINVAL : 0);
		if (ret == 0)
			ck_assert(info.v2_ok == (len == 36));
		free(copy);
	}
}
END_TEST

START_TEST(test_rsdp_scan)
{
	static u8 area[4096];
	u8 r[36];

	memset(area, 0, sizeof(area));
	ab_rsdp(r, 2, 0x1000, 0x2000);
	/* A copy with a bad checksum first, then one off the 16-byte grid, then the real one. */
	memcpy(area + 64, r, 36);
	area[64 + 8] ^= 0xff;
	memcpy(area + 200, r, 36);
	memcpy(area + 1024, r, 36);
	ck_assert_int_eq(acpi_rsdp_scan(area, sizeof(area), 0xE0000), 1024);

	/* The grid follows physical addresses, not the buffer: 8 bytes in is 0x...10. */
	ck_assert_int_eq(acpi_rsdp_scan(area + 1016, 100, 0xE0008), 8);
	/* Nothing there. */
	ck_assert_int_eq(acpi_rsdp_scan(area, 1000, 0xE0000), -ENOENT);
	/* Only 20 bytes left at the end: a 1.0 RSDP still fits. */
	ck_assert_int_eq(acpi_rsdp_scan(area + 1024, 20, 0xE0400), 0);
	ck_assert_int_eq(acpi_rsdp_scan(area + 1024, 19, 0xE0400), -ENOENT);
	ck_assert_int_eq(acpi_rsdp_scan(area, 0, 0), -ENOENT);
}
END_TEST

START_TEST(test_rsdp_find_bios_ebda)
{
	static u8 ebda[1024], rom[0x20000];
	u8 bda[2] = { 0xC0, 0x9F }; /* segment 0x9FC0: EBDA at 0x9FC00 */
	u8 r[36];
	u64 phys = 0;

	memset(ebda, 0, sizeof(ebda));
	memset(rom, 0, sizeof(rom));
	ab_rsdp(r, 0, 0x1000, 0);
	memcpy(ebda + 0x30, r, 20);
	memcpy(rom + 0x5A40, r, 20);
	ab_mem_add(&mem, 0x40E, bda, 2);
	ab_mem_add(&mem, 0x9FC00, ebda, sizeof(ebda));
	ab_mem_add(&mem, 0xE0000, rom, sizeof(rom));
	ck_assert_int_eq(acpi_rsdp_find_bios(ab_map, &mem, &phys), 0);
	ck_assert_uint_eq(phys, 0x9FC30);

	/* A bogus EBDA segment (in the VGA hole) is not scanned; the ROM still is. */
	ab_mem_free(&mem);
	bda[1] = 0xB0;
	ab_mem_add(&mem, 0x40E, bda, 2);
	ab_mem_add(&mem, 0xE0000, rom, sizeof(rom));
	ck_assert_int_eq(acpi_rsdp_find_bios(ab_map, &mem, &phys), 0);
	ck_assert_uint_eq(phys, 0xE5A40);
}
END_TEST

START_TEST(test_rsdp_find_bios_nothing_mapped)
{
	u64 phys = 0;

	ck_assert_int_eq(acpi_rsdp_find_bios(ab_map, &mem, &phys), -ENOENT);
	ck_assert_uint_ge(mem.calls, 2);
}
END_TEST

/* ---------------------------------------------------------------- walk */

static struct acpi_builder tb;

/* A table of the given signature, a little payload, placed at phys. */
static void place(u64 phys, const char *sig)
{
	ab_begin(&tb, sig, 1, 36);
	ab_put(&tb, "payload!", 8);
	ab_end(&tb);
	ab_mem_add_table(&mem, phys, &tb);
}

static void place_root(u64 phys, bool xsdt, const u64 *entries, int n)
{
	ab_root(&tb, xsdt, entries, n);
	ab_mem_add_table(&mem, phys, &tb);
}

static struct acpi_rsdp_info rsdp_info(u8 revision, u32 rsdt, u64 xsdt)
{
	u8 r[36];
	struct acpi_rsdp_info info;

	ab_rsdp(r, revision, rsdt, xsdt);
	ck_assert_int_eq(acpi_rsdp_check(r, 36, &info), 0);
	return info;
}

START_TEST(test_walk_rsdt)
{
	u64 e[] = { 0x10000, 0x10100 };
	struct acpi_rsdp_info r = rsdp_info(0, 0x20000, 0);
	const struct acpi_table_info *t;
	u32 count;

	place(0x10000, "APIC");
	place(0x10100, "SRAT");
	place_root(0x20000, false, e, 2);
	ck_assert_int_eq(acpi_tables_read(&r, ab_map, &mem, ACPI_CHECKSUM_USE, &tables), 0);
	ck_assert(!tables.root_is_xsdt);
	ck_assert_uint_eq(tables.nr, 3);
	ck_assert_str_eq(tables.table[tables.root].signature, "RSDT");
	ck_assert_uint_eq(tables.table[tables.root].phys, 0x20000);
	t = acpi_find_table(&tables, "SRAT", &count);
	ck_assert_ptr_nonnull(t);
	ck_assert_uint_eq(count, 1);
	ck_assert_uint_eq(t->phys, 0x10100);
	ck_assert_uint_eq(t->length, 44);
	ck_assert(t->checksum_ok);
	ck_assert_int_eq(memcmp((const u8 *)t->data + 36, "payload!", 8), 0);
	ck_assert_ptr_null(acpi_find_table(&tables, "SLIT", &count));
	ck_assert_uint_eq(count, 0);
}
END_TEST

START_TEST(test_walk_prefers_xsdt)
{
	u64 re[] = { 0x10000 }, xe[] = { 0x100000000ull };
	struct acpi_rsdp_info r = rsdp_info(2, 0x20000, 0x30000);

	place(0x10000, "APIC");
	place(0x100000000ull, "APIC");
	place_root(0x20000, false, re, 1);
	place_root(0x30000, true, xe, 1);
	ck_assert_int_eq(acpi_tables_read(&r, ab_map, &mem, ACPI_CHECKSUM_USE, &tables), 0);
	ck_assert(tables.root_is_xsdt);
	ck_assert_uint_eq(acpi_find_table(&tables, "APIC", NULL)->phys, 0x100000000ull);

	/* Revision 2 with a zero XSDT address: the RSDT. */
	r = rsdp_info(2, 0x20000, 0);
	ck_assert_int_eq(acpi_tables_read(&r, ab_map, &mem, ACPI_CHECKSUM_USE, &tables), 0);
	ck_assert(!tables.root_is_xsdt);
	ck_assert_uint_eq(acpi_find_table(&tables, "APIC", NULL)->phys, 0x10000);

	/* Revision 0 never looks at an XSDT, whatever bytes follow. */
	r = rsdp_info(0, 0x20000, 0);
	r.xsdt_address = 0x30000;
	ck_assert_int_eq(acpi_tables_read(&r, ab_map, &mem, ACPI_CHECKSUM_USE, &tables), 0);
	ck_assert(!tables.root_is_xsdt);
}
END_TEST

START_TEST(test_walk_broken_xsdt_falls_back)
{
	u64 re[] = { 0x10000 };
	struct acpi_rsdp_info r = rsdp_info(2, 0x20000, 0x30000);

	place(0x10000, "APIC");
	place_root(0x20000, false, re, 1);
	place(0x30000, "FAKE"); /* not an XSDT */
	ck_assert_int_eq(acpi_tables_read(&r, ab_map, &mem, ACPI_CHECKSUM_USE, &tables), 0);
	ck_assert(!tables.root_is_xsdt);
	ck_assert(console_has("falling back from the XSDT to the RSDT"));
	ck_assert_ptr_nonnull(acpi_find_table(&tables, "APIC", NULL));

	/* An XSDT the map cannot provide: the same. */
	ab_mem_free(&mem);
	place(0x10000, "APIC");
	place_root(0x20000, false, re, 1);
	ck_assert_int_eq(acpi_tables_read(&r, ab_map, &mem, ACPI_CHECKSUM_USE, &tables), 0);
	ck_assert(!tables.root_is_xsdt);
	ck_assert(console_has("XSDT at 0x30000 cannot be read"));
}
END_TEST

START_TEST(test_walk_map_returns_null)
{
	u64 e[] = { 0x10000, 0x50000, 0x10100 };
	struct acpi_rsdp_info r = rsdp_info(0, 0x20000, 0);

	place(0x10000, "APIC");
	place(0x10100, "SLIT");
	place(0x50000, "SRAT");
	ab_mem_hole(&mem, 0x50000);
	place_root(0x20000, false, e, 3);
	ck_assert_int_eq(acpi_tables_read(&r, ab_map, &mem, ACPI_CHECKSUM_USE, &tables), 0);
	ck_assert_uint_eq(tables.unreadable, 1);
	ck_assert_uint_eq(tables.nr, 3);
	ck_assert_ptr_null(acpi_find_table(&tables, "SRAT", NULL));
	ck_assert_ptr_nonnull(acpi_find_table(&tables, "SLIT", NULL));
	ck_assert(console_has("RSDT entry 1 at 0x50000 cannot be read"));

	/* Nothing mapped at all: no root, no crash. */
	ab_mem_free(&mem);
	ck_assert_int_eq(acpi_tables_read(&r, ab_map, &mem, ACPI_CHECKSUM_USE, &tables), -ENOENT);
	ck_assert_uint_eq(tables.nr, 0);
	ck_assert(console_has("no usable RSDT or XSDT"));
}
END_TEST

/* A table whose header maps but whose body runs past what the map can give. */
START_TEST(test_walk_table_body_unmapped)
{
	u64 e[] = { 0x10000 };
	struct acpi_rsdp_info r = rsdp_info(0, 0x20000, 0);

	place(0x10000, "APIC");
	mem.region[0].len = 40; /* header present, body cut short */
	place_root(0x20000, false, e, 1);
	ck_assert_int_eq(acpi_tables_read(&r, ab_map, &mem, ACPI_CHECKSUM_USE, &tables), 0);
	ck_assert_uint_eq(tables.unreadable, 1);
	ck_assert(console_has("44 bytes cannot be read"));
}
END_TEST

START_TEST(test_walk_bad_lengths)
{
	u64 e[] = { 0x10000, 0x10100, 0x10200 };
	struct acpi_rsdp_info r = rsdp_info(0, 0x20000, 0);
	u8 len[4];

	place(0x10000, "APIC");
	place(0x10100, "SRAT");
	place(0x10200, "SLIT");
	/* SRAT: length 20, shorter than a header. SLIT: length 32 MiB, beyond the cap. */
	memcpy(len, (u8[]){ 20, 0, 0, 0 }, 4);
	memcpy(mem.region[1].data + 4, len, 4);
	memcpy(len, (u8[]){ 0, 0, 0, 2 }, 4);
	memcpy(mem.region[2].data + 4, len, 4);
	place_root(0x20000, false, e, 3);
	ck_assert_int_eq(acpi_tables_read(&r, ab_map, &mem, ACPI_CHECKSUM_USE, &tables), 0);
	ck_assert_uint_eq(tables.nr, 2);
	ck_assert_uint_eq(tables.unreadable, 2);
	ck_assert(console_has("(SRAT) has length 20"));
	ck_assert(console_has("(SLIT) has length 33554432"));
}
END_TEST

START_TEST(test_walk_bad_checksum_policy)
{
	u64 e[] = { 0x10000, 0x10100 };
	struct acpi_rsdp_info r = rsdp_info(0, 0x20000, 0);
	const struct acpi_table_info *t;

	place(0x10000, "APIC");
	place(0x10100, "SRAT");
	mem.region[0].data[40] ^= 1;
	place_root(0x20000, false, e, 2);

	ck_assert_int_eq(acpi_tables_read(&r, ab_map, &mem, ACPI_CHECKSUM_USE, &tables), 0);
	t = acpi_find_table(&tables, "APIC", NULL);
	ck_assert_ptr_nonnull(t);
	ck_assert(!t->checksum_ok);
	ck_assert_ptr_nonnull(t->data);
	ck_assert_uint_eq(tables.bad_checksums, 1);
	ck_assert(console_has("APIC at 0x10000 has a bad checksum, used anyway"));

	fake_console_reset();
	ck_assert_int_eq(acpi_tables_read(&r, ab_map, &mem, ACPI_CHECKSUM_REFUSE, &tables), 0);
	ck_assert_ptr_null(acpi_find_table(&tables, "APIC", NULL));
	ck_assert(console_has(
		"APIC at 0x10000 has a bad checksum, not used (acpi_bad_checksum=refuse)"));
	/* Still listed, so its memory is kept out of the allocator. */
	ck_assert_uint_eq(tables.nr, 3);
	ck_assert(tables.table[1].refused);
	ck_assert_ptr_null(tables.table[1].data);
}
END_TEST

START_TEST(test_walk_root_bad_checksum)
{
	u64 e[] = { 0x10000 };
	struct acpi_rsdp_info r = rsdp_info(2, 0x20000, 0x30000);

	place(0x10000, "APIC");
	place_root(0x20000, false, e, 1);
	place_root(0x30000, true, e, 1);
	mem.region[2].data[9] ^= 1; /* the XSDT's checksum */

	/* Refused: the RSDT takes over; the XSDT stays listed. */
	ck_assert_int_eq(acpi_tables_read(&r, ab_map, &mem, ACPI_CHECKSUM_REFUSE, &tables), 0);
	ck_assert(!tables.root_is_xsdt);
	ck_assert_str_eq(tables.table[tables.root].signature, "RSDT");
	ck_assert(tables.table[0].refused);
	ck_assert_ptr_nonnull(acpi_find_table(&tables, "APIC", NULL));

	/* Used: the XSDT, with a warning. */
	ck_assert_int_eq(acpi_tables_read(&r, ab_map, &mem, ACPI_CHECKSUM_USE, &tables), 0);
	ck_assert(tables.root_is_xsdt);

	/* The RSDT alone, refused: nothing usable. */
	r = rsdp_info(0, 0x20000, 0);
	mem.region[1].data[9] ^= 1;
	ck_assert_int_eq(acpi_tables_read(&r, ab_map, &mem, ACPI_CHECKSUM_REFUSE, &tables), -ENOENT);
}
END_TEST

START_TEST(test_walk_duplicates)
{
	u64 e[] = { 0x10000, 0x10100, 0x10000, 0 };
	struct acpi_rsdp_info r = rsdp_info(0, 0x20000, 0);
	u32 count;

	place(0x10000, "APIC");
	place(0x10100, "APIC");
	place_root(0x20000, false, e, 4);
	ck_assert_int_eq(acpi_tables_read(&r, ab_map, &mem, ACPI_CHECKSUM_USE, &tables), 0);
	/* The same address twice is listed once; two tables of one signature both are. */
	ck_assert_uint_eq(tables.nr, 3);
	ck_assert_uint_eq(acpi_find_table(&tables, "APIC", &count)->phys, 0x10000);
	ck_assert_uint_eq(count, 2);
	/* A zero entry is reported, not followed. */
	ck_assert(console_has("RSDT entry 3 at 0x0: impossible address"));
}
END_TEST

START_TEST(test_walk_odd_root_length)
{
	u64 e[] = { 0x10000 };
	struct acpi_rsdp_info r = rsdp_info(0, 0x20000, 0);

	place(0x10000, "APIC");
	ab_root(&tb, false, e, 1);
	ab_put(&tb, "\0\0", 2); /* 42 bytes: one entry and a half */
	ab_end(&tb);
	ab_mem_add_table(&mem, 0x20000, &tb);
	ck_assert_int_eq(acpi_tables_read(&r, ab_map, &mem, ACPI_CHECKSUM_USE, &tables), 0);
	ck_assert_uint_eq(tables.nr, 2);
	ck_assert(console_has("not a whole number of entries"));
}
END_TEST

/* Every length field an RSDT may claim, with exactly that many bytes behind it. */
START_TEST(test_walk_root_truncated_everywhere)
{
	u64 e[] = { 0x10000, 0x10100, 0x10200 };
	struct acpi_rsdp_info r = rsdp_info(0, 0x20000, 0);
	struct acpi_builder root;

	place(0x10000, "APIC");
	place(0x10100, "SRAT");
	place(0x10200, "SLIT");
	ab_root(&root, false, e, 3);
	for (u32 len = 0; len <= root.len; len++) {
		root.buf[4] = (u8)len;
		ab_fix_checksum(&root);
		ab_mem_add(&mem, 0x20000, root.buf, len);
		acpi_tables_read(&r, ab_map, &mem, ACPI_CHECKSUM_USE, &tables);
		ck_assert_uint_eq(tables.nr, len < 36 ? 0 : 1 + (len - 36) / 4);
		free(mem.region[--mem.nr].data);
	}
}
END_TEST

START_TEST(test_walk_fadt_children)
{
	u64 e[] = { 0x10000 };
	struct acpi_rsdp_info r = rsdp_info(0, 0x20000, 0);
	struct acpi_builder fadt;
	u8 facs[64] = { 'F', 'A', 'C', 'S', 64 };
	u8 v[8];

	ab_begin(&fadt, "FACP", 6, 148);
	memcpy(v, (u32[]){ 0x40000 }, 4);
	ab_set(&fadt, 36, v, 4); /* FIRMWARE_CTRL */
	memcpy(v, (u32[]){ 0x60000 }, 4);
	ab_set(&fadt, 40, v, 4); /* DSDT: overridden by X_DSDT */
	memcpy(v, (u64[]){ 0x50000 }, 8);
	ab_set(&fadt, 140, v, 8); /* X_DSDT */
	ab_end(&fadt);
	ab_mem_add_table(&mem, 0x10000, &fadt);
	ab_mem_add(&mem, 0x40000, facs, sizeof(facs));
	place(0x50000, "DSDT");
	place_root(0x20000, false, e, 1);
	ck_assert_int_eq(acpi_tables_read(&r, ab_map, &mem, ACPI_CHECKSUM_USE, &tables), 0);
	ck_assert_uint_eq(tables.nr, 4);
	ck_assert_uint_eq(acpi_find_table(&tables, "DSDT", NULL)->phys, 0x50000);
	ck_assert_uint_eq(acpi_find_table(&tables, "FACS", NULL)->length, 64);

	/* An ACPI 1.0 FADT (44 bytes) names its DSDT in the 32-bit field. */
	ab_mem_free(&mem);
	ab_begin(&fadt, "FACP", 1, 44);
	memcpy(v, (u32[]){ 0x50000 }, 4);
	ab_set(&fadt, 40, v, 4);
	ab_end(&fadt);
	ab_mem_add_table(&mem, 0x10000, &fadt);
	place(0x50000, "DSDT");
	place_root(0x20000, false, e, 1);
	ck_assert_int_eq(acpi_tables_read(&r, ab_map, &mem, ACPI_CHECKSUM_USE, &tables), 0);
	ck_assert_uint_eq(tables.nr, 3);
	ck_assert_ptr_nonnull(acpi_find_table(&tables, "DSDT", NULL));
}
END_TEST

static void count_table(const struct acpi_table_info *t, void *arg)
{
	(*(int *)arg)++;
}

START_TEST(test_for_each)
{
	u64 e[] = { 0x10000, 0x10100 };
	struct acpi_rsdp_info r = rsdp_info(0, 0x20000, 0);
	int n = 0;

	place(0x10000, "APIC");
	place(0x10100, "SRAT");
	mem.region[1].data[40] ^= 1;
	place_root(0x20000, false, e, 2);
	acpi_tables_read(&r, ab_map, &mem, ACPI_CHECKSUM_REFUSE, &tables);
	acpi_tables_for_each(&tables, count_table, &n);
	ck_assert_int_eq(n, 3); /* refused tables too */
}
END_TEST

START_TEST(test_sdt_length)
{
	struct acpi_builder b;

	ab_begin(&b, "APIC", 1, 44);
	ab_end(&b);
	ck_assert_uint_eq(acpi_sdt_length(b.buf, 44, "APIC"), 44);
	ck_assert_uint_eq(acpi_sdt_length(b.buf, 44, NULL), 44);
	ck_assert_uint_eq(acpi_sdt_length(b.buf, 44, "SRAT"), 0);
	ck_assert_uint_eq(acpi_sdt_length(b.buf, 43, "APIC"), 0);
	ck_assert_uint_eq(acpi_sdt_length(b.buf, 35, "APIC"), 0);
	ck_assert_uint_eq(acpi_sdt_length(NULL, 100, "APIC"), 0);
	ck_assert_uint_eq(acpi_checksum(b.buf, 44), 0);
}
END_TEST

START_TEST(test_boot_options)
{
	ck_assert(!acpi_disabled());
	ck_assert_int_eq(acpi_checksum_policy(), ACPI_CHECKSUM_USE);
	ck_assert_int_eq(cmdline_parse("acpi=off acpi_bad_checksum=refuse"), 0);
	ck_assert(acpi_disabled());
	ck_assert_int_eq(acpi_checksum_policy(), ACPI_CHECKSUM_REFUSE);
	ck_assert_int_eq(cmdline_parse("acpi=maybe"), 1);
	ck_assert(acpi_disabled());
	ck_assert_int_eq(cmdline_parse("acpi=on acpi_bad_checksum=use"), 0);
	ck_assert(!acpi_disabled());
	ck_assert_int_eq(acpi_checksum_policy(), ACPI_CHECKSUM_USE);
}
END_TEST

Suite *acpi_tables_suite(void)
{
	Suite *s = suite_create("acpi_tables");
	TCase *rsdp = tcase_create("rsdp");
	TCase *walk = tcase_create("walk");

	tcase_add_checked_fixture(rsdp, setup, teardown);
	tcase_add_test(rsdp, test_rsdp_v1);
	tcase_add_test(rsdp, test_rsdp_v2);
	tcase_add_test(rsdp, test_rsdp_bad);
	tcase_add_test(rsdp, test_rsdp_truncated);
	tcase_add_test(rsdp, test_rsdp_scan);
	tcase_add_test(rsdp, test_rsdp_find_bios_ebda);
	tcase_add_test(rsdp, test_rsdp_find_bios_nothing_mapped);
	suite_add_tcase(s, rsdp);

	tcase_add_checked_fixture(walk, setup, teardown);
	tcase_add_test(walk, test_walk_rsdt);
	tcase_add_test(walk, test_walk_prefers_xsdt);
	tcase_add_test(walk, test_walk_broken_xsdt_falls_back);
	tcase_add_test(walk, test_walk_map_returns_null);
	tcase_add_test(walk, test_walk_table_body_unmapped);
	tcase_add_test(walk, test_walk_bad_lengths);
	tcase_add_test(walk, test_walk_bad_checksum_policy);
	tcase_add_test(walk, test_walk_root_bad_checksum);
	tcase_add_test(walk, test_walk_duplicates);
	tcase_add_test(walk, test_walk_odd_root_length);
	tcase_add_test(walk, test_walk_root_truncated_everywhere);
	tcase_add_test(walk, test_walk_fadt_children);
	tcase_add_test(walk, test_for_each);
	tcase_add_test(walk, test_sdt_length);
	tcase_add_test(walk, test_boot_options);
	suite_add_tcase(s, walk);
	return s;
}

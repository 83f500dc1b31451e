/*
 * Unit tests of the PVH start info parser (kernel/boot/pvh.c): a fake
 * physical memory holding the start info and what it points to, laid out
 * as QEMU's -kernel leaves them, and broken variants.
 */
#include <string.h>

#include "boot/pvh.h"
#include "lib/errno.h"
#include "unit.h"

/* A 64 KiB window of fake physical memory starting at MEM_BASE. */
#define MEM_BASE 0x10000
#define MEM_SIZE 0x10000

static unsigned char mem[MEM_SIZE];

static const void *map(phys_addr_t phys, size_t len, void *ctx)
{
	(void)ctx;
	if (phys < MEM_BASE || phys + len > MEM_BASE + MEM_SIZE || phys + len < phys)
		return NULL;
	return mem + (phys - MEM_BASE);
}

static void put(phys_addr_t phys, const void *p, size_t len)
{
	memcpy(mem + (phys - MEM_BASE), p, len);
}

static void put32(phys_addr_t phys, u32 v)
{
	put(phys, &v, sizeof(v));
}

static void put64(phys_addr_t phys, u64 v)
{
	put(phys, &v, sizeof(v));
}

#define INFO	0x10000
#define CMDLINE 0x10100
#define MODLIST 0x10200
#define MEMMAP	0x10300
#define RSDP	0x10400
#define MODNAME 0x10500

/* A version 1 start info: command line, one module (no name), a 2-entry map, an ACPI 2.0 RSDP. */
static void build_qemu_like(void)
{
	static const char rsdp[36] = "RSD PTR \0BOCHS \2";

	memset(mem, 0, sizeof(mem));
	put32(INFO + 0, PVH_START_MAGIC);
	put32(INFO + 4, 1);  /* version */
	put32(INFO + 12, 1); /* nr_modules */
	put64(INFO + 16, MODLIST);
	put64(INFO + 24, CMDLINE);
	put64(INFO + 32, RSDP);
	put64(INFO + 40, MEMMAP);
	put32(INFO + 48, 2);
	put(CMDLINE, "qemu_exit init=/bin/fairshare -- -t 9", 38);
	put64(MODLIST + 0, 0x3000000);
	put64(MODLIST + 8, 4123648);
	put64(MEMMAP + 0, 0);
	put64(MEMMAP + 8, 0x9fc00);
	put32(MEMMAP + 16, 1);
	put64(MEMMAP + 24, 0x100000);
	put64(MEMMAP + 32, 0x1fedf000);
	put32(MEMMAP + 40, 1);
	put(RSDP, rsdp, sizeof(rsdp));
}

START_TEST(test_qemu_like)
{
	struct boot_info bi;

	build_qemu_like();
	ck_assert_int_eq(pvh_parse(INFO, map, NULL, &bi), 0);
	ck_assert_str_eq(bi.loader_name, "PVH");
	ck_assert_str_eq(bi.cmdline, "qemu_exit init=/bin/fairshare -- -t 9");
	ck_assert_uint_eq(bi.nr_modules, 1);
	ck_assert_uint_eq(bi.modules[0].start, 0x3000000);
	ck_assert_uint_eq(bi.modules[0].end, 0x3000000 + 4123648);
	ck_assert_str_eq(bi.modules[0].name, "initrd"); /* QEMU gives -initrd no name */
	ck_assert_uint_eq(bi.nr_mem, 2);
	ck_assert_uint_eq(bi.mem[1].base, 0x100000);
	ck_assert_uint_eq(bi.mem[1].length, 0x1fedf000);
	ck_assert_uint_eq(bi.mem[1].type, 1);
	ck_assert_uint_eq(bi.rsdp_len, 36); /* revision 2 */
	ck_assert_int_eq(memcmp(bi.rsdp, "RSD PTR ", 8), 0);
	ck_assert_uint_eq(bi.warnings, 0);
}
END_TEST

START_TEST(test_module_name_and_acpi1)
{
	struct boot_info bi;

	build_qemu_like();
	put64(MODLIST + 16, MODNAME);
	put(MODNAME, "extra", 6);
	mem[RSDP - MEM_BASE + 15] = 0; /* ACPI 1.0: 20 bytes */
	ck_assert_int_eq(pvh_parse(INFO, map, NULL, &bi), 0);
	ck_assert_str_eq(bi.modules[0].name, "extra");
	ck_assert_uint_eq(bi.rsdp_len, 20);
}
END_TEST

START_TEST(test_bad_magic)
{
	struct boot_info bi;

	build_qemu_like();
	put32(INFO, 0x36d76289); /* multiboot2's */
	ck_assert_int_eq(pvh_parse(INFO, map, NULL, &bi), -EINVAL);
	ck_assert_int_eq(pvh_parse(0x1000, map, NULL, &bi), -EINVAL); /* unmappable */
}
END_TEST

START_TEST(test_version0_has_no_map)
{
	struct boot_info bi;

	build_qemu_like();
	put32(INFO + 4, 0);
	ck_assert_int_eq(pvh_parse(INFO, map, NULL, &bi), 0);
	ck_assert_uint_eq(bi.nr_mem, 0);
	ck_assert_uint_eq(bi.warnings, 1);
}
END_TEST

START_TEST(test_unreadable_and_oversized)
{
	struct boot_info bi;
	static char longline[BOOT_CMDLINE_MAX + 10];

	build_qemu_like();
	put64(INFO + 16, 0x900000); /* module list outside memory */
	put32(INFO + 48, 1000);	    /* more map entries than kept */
	memset(longline, 'x', sizeof(longline) - 1);
	put64(INFO + 24, 0x18000); /* clear of the other tables */
	put(0x18000, longline, sizeof(longline));
	ck_assert_int_eq(pvh_parse(INFO, map, NULL, &bi), 0);
	ck_assert_uint_eq(bi.nr_modules, 0);
	ck_assert_uint_eq(bi.nr_mem, BOOT_MAX_MEM_ENTRIES);
	ck_assert_uint_eq(strlen(bi.cmdline), BOOT_CMDLINE_MAX - 1);
	ck_assert_uint_eq(bi.warnings, 3);
}
END_TEST

START_TEST(test_string_at_the_end_of_memory)
{
	struct boot_info bi;

	build_qemu_like();
	put64(INFO + 24, MEM_BASE + MEM_SIZE - 3);
	memset(mem + MEM_SIZE - 3, 'a', 3); /* no NUL before the end of what can be mapped */
	ck_assert_int_eq(pvh_parse(INFO, map, NULL, &bi), 0);
	ck_assert_str_eq(bi.cmdline, "aaa");
	ck_assert_uint_eq(bi.warnings, 1);
}
END_TEST

Suite *pvh_suite(void)
{
	Suite *s = suite_create("pvh");
	TCase *tc = tcase_create("parse");

	tcase_add_test(tc, test_qemu_like);
	tcase_add_test(tc, test_module_name_and_acpi1);
	tcase_add_test(tc, test_bad_magic);
	tcase_add_test(tc, test_version0_has_no_map);
	tcase_add_test(tc, test_unreadable_and_oversized);
	tcase_add_test(tc, test_string_at_the_end_of_memory);
	suite_add_tcase(s, tc);
	return s;
}

/*
 * Unit tests of the ACPI topology builder (kernel/acpi/topology.c): MADT +
 * SRAT + SLIT into struct machine, with every fallback, the boot options,
 * and the whole boot path from an RSDP over a fake physical address space.
 */
#include <stdlib.h>
#include <string.h>

#include "acpi/topology.h"
#include "acpi_builder.h"
#include "cmdline.h"
#include "fake_arch.h"
#include "lib/errno.h"
#include "unit.h"

static struct acpi_builder b;
static struct acpi_madt_info madt;
static struct acpi_srat_info srat;
static struct acpi_slit_info slit;
static struct machine m;
static struct acpi_machine_notes notes;
static const struct acpi_machine_options defaults = { .maxcpus = MAX_CPUS };

static void setup(void)
{
	fake_console_reset();
}

static bool console_has(const char *s)
{
	return strstr(fake_console_text(), s) != NULL;
}

static void parse_madt(void)
{
	ab_end(&b);
	ck_assert_int_eq(acpi_madt_parse(b.buf, b.len, &madt), 0);
}

static void parse_srat(void)
{
	ab_end(&b);
	ck_assert_int_eq(acpi_srat_parse(b.buf, b.len, &srat), 0);
}

static void parse_slit(u64 n, const u8 *matrix)
{
	ab_slit(&b, n, matrix, (size_t)(n * n));
	ck_assert_int_eq(acpi_slit_parse(b.buf, b.len, &slit), 0);
}

static int build(u32 boot_apic_id, const struct acpi_machine_options *opts, bool with_srat,
		 bool with_slit)
{
	return acpi_build_machine(&madt, with_srat ? &srat : NULL, with_slit ? &slit : NULL,
				  boot_apic_id, opts, &m, &notes);
}

/* 2 sockets x 4 CPUs, APIC IDs 0-3 on domain 0 and 4-7 on domain 1, distance 21. */
static void two_nodes(void)
{
	static const u8 d[] = { 10, 21, 21, 10 };

	ab_madt_begin(&b, 3, 0xFEE00000);
	for (u8 i = 0; i < 8; i++)
		ab_madt_lapic(&b, i, i, 1);
	parse_madt();
	ab_srat_begin(&b, 3);
	for (u8 i = 0; i < 8; i++)
		ab_srat_cpu(&b, i, i / 4, 1);
	ab_srat_mem(&b, 0, 0, 0x40000000, 1);
	ab_srat_mem(&b, 1, 0x40000000, 0x40000000, 1);
	parse_srat();
	parse_slit(2, d);
}

START_TEST(test_two_nodes)
{
	two_nodes();
	ck_assert_int_eq(build(0, &defaults, true, true), 0);
	ck_assert_uint_eq(m.nr_cpus, 8);
	for (u32 c = 0; c < 8; c++) {
		ck_assert_uint_eq(m.cpu[c].apic_id, c);
		ck_assert_uint_eq(m.cpu[c].acpi_uid, c);
		ck_assert_uint_eq(m.cpu[c].node, c / 4);
		ck_assert_uint_eq(m.cpu[c].package, 0); /* CPUID's job, later */
	}
	ck_assert_uint_eq(m.nr_nodes, 2);
	ck_assert_uint_eq(m.node[1].proximity_domain, 1);
	ck_assert_uint_eq(m.node[1].nr_mem, 1);
	ck_assert_uint_eq(m.node[1].mem[0].start, 0x40000000);
	ck_assert_uint_eq(m.node[1].mem[0].end, 0x80000000);
	ck_assert_uint_eq(m.distance[0][0], 10);
	ck_assert_uint_eq(m.distance[0][1], 21);
	ck_assert_uint_eq(m.distance[1][0], 21);
	ck_assert(notes.numa_from_srat && notes.distances_from_slit);

	acpi_machine_print(&notes, &m);
	ck_assert(console_has(
		"ACPI: MADT 8 CPUs (0 disabled), SRAT 2 nodes, SLIT 2x2; using 8 CPUs\n"));
}
END_TEST

/* The boot CPU is CPU 0 wherever the MADT lists it; the rest keep MADT order. */
START_TEST(test_boot_cpu_first)
{
	two_nodes();
	ck_assert_int_eq(build(5, &defaults, true, true), 0);
	ck_assert_uint_eq(m.nr_cpus, 8);
	ck_assert_uint_eq(m.cpu[0].apic_id, 5);
	ck_assert_uint_eq(m.cpu[0].node, 1);
	for (u32 c = 1; c < 8; c++)
		ck_assert_uint_eq(m.cpu[c].apic_id, c <= 5 ? c - 1 : c);

	/* Not in the MADT at all: still CPU 0, with a warning. */
	ck_assert_int_eq(build(0x42, &defaults, true, true), 0);
	ck_assert_uint_eq(m.nr_cpus, 9);
	ck_assert_uint_eq(m.cpu[0].apic_id, 0x42);
	ck_assert_uint_eq(m.cpu[0].acpi_uid, ACPI_UID_UNKNOWN);
	ck_assert(notes.boot_cpu_not_in_madt);
	ck_assert(console_has("boot CPU (APIC ID 0x42) is not an enabled MADT entry"));
	/* ... and, not being in the SRAT either, on node 0. */
	ck_assert_uint_eq(m.cpu[0].node, 0);
	ck_assert_uint_eq(notes.cpus_without_node, 1);

	/* "First enabled" (what host tools use): MADT order exactly. */
	ck_assert_int_eq(build(ACPI_BOOT_CPU_FIRST_ENABLED, &defaults, true, true), 0);
	ck_assert_uint_eq(m.cpu[0].apic_id, 0);
	ck_assert_uint_eq(m.nr_cpus, 8);
}
END_TEST

START_TEST(test_no_madt)
{
	ck_assert_int_eq(acpi_build_machine(NULL, NULL, NULL, 3, &defaults, &m, &notes), 0);
	ck_assert_uint_eq(m.nr_cpus, 1);
	ck_assert_uint_eq(m.cpu[0].apic_id, 3);
	ck_assert_uint_eq(m.nr_nodes, 1);
	ck_assert_uint_eq(m.distance[0][0], 10);
	ck_assert(console_has("no MADT; running on the boot CPU only"));
	acpi_machine_print(&notes, &m);
	ck_assert(console_has("ACPI: no MADT (boot CPU only), no SRAT (1 node), no SLIT "
			      "(distances 10/20); using 1 CPUs"));
}
END_TEST

START_TEST(test_madt_without_enabled_cpus)
{
	ab_madt_begin(&b, 5, 0xFEE00000);
	ab_madt_lapic(&b, 0, 0, 0);
	ab_madt_lapic(&b, 1, 1, 2); /* online-capable: not brought up by default */
	parse_madt();
	ck_assert_int_eq(build(0, &defaults, false, false), 0);
	ck_assert_uint_eq(m.nr_cpus, 1);
	ck_assert(console_has("MADT lists no enabled CPU"));
}
END_TEST

START_TEST(test_online_capable_left_out)
{
	ab_madt_begin(&b, 5, 0xFEE00000);
	ab_madt_lapic(&b, 0, 0, 1);
	ab_madt_lapic(&b, 1, 1, 2);
	ab_madt_lapic(&b, 2, 2, 1);
	parse_madt();
	ck_assert_int_eq(build(0, &defaults, false, false), 0);
	ck_assert_uint_eq(m.nr_cpus, 2);
	ck_assert_uint_eq(m.cpu[1].apic_id, 2);
	acpi_machine_print(&notes, &m);
	ck_assert(console_has("MADT 2 CPUs (1 disabled, 1 online-capable)"));
}
END_TEST

START_TEST(test_no_srat_no_slit)
{
	two_nodes();
	ck_assert_int_eq(build(0, &defaults, false, true), 0);
	ck_assert_uint_eq(m.nr_nodes, 1);
	ck_assert_uint_eq(m.node[0].nr_mem, 0); /* "all memory" */
	for (u32 c = 0; c < m.nr_cpus; c++)
		ck_assert_uint_eq(m.cpu[c].node, 0);

	/* SRAT without SLIT: 10 local, 20 remote. */
	ck_assert_int_eq(build(0, &defaults, true, false), 0);
	ck_assert_uint_eq(m.nr_nodes, 2);
	ck_assert_uint_eq(m.distance[0][1], REMOTE_DISTANCE);
	ck_assert_uint_eq(m.distance[1][1], LOCAL_DISTANCE);
	ck_assert(!notes.distances_from_slit);
	acpi_machine_print(&notes, &m);
	ck_assert(console_has("SRAT 2 nodes, no SLIT (distances 10/20)"));
}
END_TEST

/*
 * Nodes are domains in ascending order, whatever order the SRAT lists them
 * in; the SLIT, indexed by domain, is re-indexed by node.
 */
START_TEST(test_sparse_domains_ascending)
{
	u8 d[6 * 6];

	ab_madt_begin(&b, 3, 0xFEE00000);
	for (u8 i = 0; i < 3; i++)
		ab_madt_lapic(&b, i, i, 1);
	parse_madt();
	ab_srat_begin(&b, 3);
	ab_srat_cpu(&b, 0, 5, 1);
	ab_srat_cpu(&b, 1, 2, 1);
	ab_srat_cpu(&b, 2, 5, 1);
	ab_srat_mem(&b, 4, 0x100000000ull, 0x100000000ull, 1); /* a memory-only domain */
	parse_srat();
	for (int i = 0; i < 6; i++)
		for (int j = 0; j < 6; j++)
			d[i * 6 + j] = i == j ? 10 : (u8)(10 + 10 * i + j);
	parse_slit(6, d);

	ck_assert_int_eq(build(0, &defaults, true, true), 0);
	ck_assert_uint_eq(m.nr_nodes, 3);
	ck_assert_uint_eq(m.node[0].proximity_domain, 2);
	ck_assert_uint_eq(m.node[1].proximity_domain, 4);
	ck_assert_uint_eq(m.node[2].proximity_domain, 5);
	ck_assert_uint_eq(m.cpu[0].node, 2);
	ck_assert_uint_eq(m.cpu[1].node, 0);
	ck_assert_uint_eq(m.cpu[2].node, 2);
	ck_assert_uint_eq(m.node[1].nr_mem, 1);
	ck_assert_uint_eq(m.distance[0][2], d[2 * 6 + 5]);
	ck_assert_uint_eq(m.distance[2][1], d[5 * 6 + 4]);
	ck_assert_uint_eq(m.distance[1][1], 10);
}
END_TEST

/* The 4-socket, 8-node machine: 2 nodes per socket, 4 CPUs per node. */
START_TEST(test_4_sockets_8_nodes)
{
	u8 d[64];

	ab_madt_begin(&b, 5, 0xFEE00000);
	for (u32 i = 0; i < 32; i++)
		ab_madt_x2apic(&b, 0x100 + i, i, 1); /* x2APIC IDs above 255 */
	parse_madt();
	ab_srat_begin(&b, 3);
	for (u32 i = 0; i < 32; i++)
		ab_srat_x2apic(&b, 0x100 + i, i / 4, 1);
	for (u32 n = 0; n < 8; n++)
		ab_srat_mem(&b, n, (u64)n << 32, 1ull << 32, 1);
	parse_srat();
	for (int i = 0; i < 8; i++)
		for (int j = 0; j < 8; j++)
			d[i * 8 + j] = i == j		    ? 10 :
				       i / 2 == j / 2	    ? 11 :
				       (i / 2 ^ j / 2) == 1 ? 21 :
							      31;
	parse_slit(8, d);

	ck_assert_int_eq(build(0x100, &defaults, true, true), 0);
	ck_assert_uint_eq(m.nr_cpus, 32);
	ck_assert_uint_eq(m.nr_nodes, 8);
	for (u32 c = 0; c < 32; c++) {
		ck_assert_uint_eq(m.cpu[c].apic_id, 0x100 + c);
		ck_assert_uint_eq(m.cpu[c].node, c / 4);
	}
	for (u32 i = 0; i < 8; i++)
		for (u32 j = 0; j < 8; j++)
			ck_assert_uint_eq(m.distance[i][j], d[i * 8 + j]);
	ck_assert_uint_eq(m.node[7].mem[0].start, 7ull << 32);
	acpi_machine_print(&notes, &m);
	ck_assert(console_has("MADT 32 CPUs (0 disabled), SRAT 8 nodes, SLIT 8x8; using 32 CPUs"));
}
END_TEST

START_TEST(test_cpu_missing_from_srat)
{
	two_nodes();
	ab_srat_begin(&b, 3);
	ab_srat_cpu(&b, 0, 1, 1);
	ab_srat_cpu(&b, 1, 1, 1);
	parse_srat();
	ck_assert_int_eq(build(0, &defaults, true, false), 0);
	ck_assert_uint_eq(m.nr_nodes, 1);
	ck_assert_uint_eq(m.node[0].proximity_domain, 1);
	ck_assert_uint_eq(notes.cpus_without_node, 6);
	for (u32 c = 0; c < 8; c++)
		ck_assert_uint_eq(m.cpu[c].node, 0);
	ck_assert(console_has("SRAT does not place CPU 2 (APIC ID 0x2); put on node 0"));
	ck_assert(console_has("6 CPUs in all are missing from the SRAT"));
}
END_TEST

START_TEST(test_numa_off_maxcpus_nosmp)
{
	struct acpi_machine_options o = defaults;

	two_nodes();
	o.numa_off = true;
	ck_assert_int_eq(build(0, &o, true, true), 0);
	ck_assert_uint_eq(m.nr_nodes, 1);
	ck_assert_uint_eq(m.nr_cpus, 8);
	ck_assert_uint_eq(m.distance[0][0], 10);
	acpi_machine_print(&notes, &m);
	ck_assert(console_has("SRAT 2 domains (numa=off: 1 node)"));

	o = defaults;
	o.maxcpus = 3;
	ck_assert_int_eq(build(6, &o, true, true), 0);
	ck_assert_uint_eq(m.nr_cpus, 3);
	ck_assert_uint_eq(m.cpu[0].apic_id, 6); /* the boot CPU always stays */
	ck_assert_uint_eq(m.cpu[1].apic_id, 0);
	ck_assert_uint_eq(m.cpu[2].apic_id, 1);
	ck_assert_uint_eq(notes.cpus_left_out, 5);
	ck_assert_uint_eq(m.nr_nodes, 2); /* nodes stay: memory lives there too */

	o.maxcpus = 0;
	ck_assert_int_eq(build(6, &o, true, true), 0);
	ck_assert_uint_eq(m.nr_cpus, 1);

	o = defaults;
	o.nosmp = true;
	ck_assert_int_eq(build(0, &o, true, true), 0);
	ck_assert_uint_eq(m.nr_cpus, 1);
	ck_assert(console_has("nosmp: 7 enabled CPUs left out"));
}
END_TEST

START_TEST(test_options_from_cmdline)
{
	struct acpi_machine_options o;

	acpi_machine_options_get(&o);
	ck_assert(!o.numa_off && !o.nosmp);
	ck_assert_uint_eq(o.maxcpus, MAX_CPUS);
	ck_assert_int_eq(cmdline_parse("numa=off maxcpus=4 nosmp"), 0);
	acpi_machine_options_get(&o);
	ck_assert(o.numa_off && o.nosmp);
	ck_assert_uint_eq(o.maxcpus, 4);
	ck_assert_int_eq(cmdline_parse("numa=on maxcpus=256 nosmp=0"), 0);
}
END_TEST

START_TEST(test_too_many_domains)
{
	ab_madt_begin(&b, 3, 0xFEE00000);
	ab_madt_lapic(&b, 0, 0, 1);
	parse_madt();
	ab_srat_begin(&b, 3);
	for (u32 i = 0; i <= MAX_NODES; i++)
		ab_srat_mem(&b, i, (u64)i << 30, 1 << 30, 1);
	parse_srat();
	ck_assert_int_eq(build(0, &defaults, true, false), 0);
	ck_assert_uint_eq(m.nr_nodes, 1);
	ck_assert(console_has("more than 16 proximity domains; one NUMA node"));
}
END_TEST

START_TEST(test_bad_slit_falls_back)
{
	static const u8 bad[] = { 10, 21, 21, 12 };
	static const u8 one[] = { 10 };

	two_nodes();
	parse_slit(2, bad);
	ck_assert_int_eq(build(0, &defaults, true, true), 0);
	ck_assert_uint_eq(m.distance[0][1], 20);
	acpi_machine_print(&notes, &m);
	ck_assert(console_has("SLIT invalid (distances 10/20)"));

	/* A SLIT that knows domain 0 only: the pairs with domain 1 fall back. */
	parse_slit(1, one);
	ck_assert_int_eq(build(0, &defaults, true, true), 0);
	ck_assert_uint_eq(m.distance[0][0], 10);
	ck_assert_uint_eq(m.distance[0][1], 20);
	ck_assert(!notes.distances_from_slit);
	ck_assert(console_has("does not cover every SRAT domain; 3 distances"));
}
END_TEST

START_TEST(test_node_memory_pages)
{
	ab_madt_begin(&b, 3, 0xFEE00000);
	ab_madt_lapic(&b, 0, 0, 1);
	parse_madt();
	ab_srat_begin(&b, 3);
	ab_srat_cpu(&b, 0, 0, 1);
	ab_srat_mem(&b, 0, 0x1800, 0x3000, 1); /* [0x1800, 0x4800) -> [0x2000, 0x4000) */
	ab_srat_mem(&b, 0, 0x10000, 0x800, 1); /* less than a page once aligned: dropped */
	for (u32 i = 0; i < MAX_NODE_MEM_RANGES + 2; i++)
		ab_srat_mem(&b, 0, 0x100000 * (i + 1), 0x1000, 1);
	parse_srat();
	ck_assert_int_eq(build(0, &defaults, true, false), 0);
	ck_assert_uint_eq(m.node[0].nr_mem, MAX_NODE_MEM_RANGES);
	ck_assert_uint_eq(m.node[0].mem[0].start, 0x2000);
	ck_assert_uint_eq(m.node[0].mem[0].end, 0x4000);
	ck_assert_uint_eq(m.node[0].mem[1].start, 0x100000);
	ck_assert_uint_eq(notes.mem_ranges_dropped, 3);
}
END_TEST

/* ---------------------------------------------------------------- boot path */

static struct ab_mem mem;

/* Lays out two_nodes()' tables in fake memory behind an XSDT and an RSDT. */
static void fake_firmware(struct boot_info *bi, bool give_rsdp)
{
	static const u8 d[] = { 10, 21, 21, 10 };
	u64 e[] = { 0x7FE1000, 0x7FE2000, 0x7FE3000 };

	ab_mem_init(&mem);
	ab_madt_begin(&b, 3, 0xFEE00000);
	for (u8 i = 0; i < 8; i++)
		ab_madt_lapic(&b, i, i, 1);
	ab_end(&b);
	ab_mem_add_table(&mem, e[0], &b);
	ab_srat_begin(&b, 3);
	for (u8 i = 0; i < 8; i++)
		ab_srat_cpu(&b, i, i / 4, 1);
	ab_end(&b);
	ab_mem_add_table(&mem, e[1], &b);
	ab_slit(&b, 2, d, sizeof(d));
	ab_mem_add_table(&mem, e[2], &b);
	ab_root(&b, true, e, 3);
	ab_mem_add_table(&mem, 0x7FE0000, &b);
	ab_root(&b, false, e, 3);
	ab_mem_add_table(&mem, 0x7FE0800, &b);

	memset(bi, 0, sizeof(*bi));
	if (give_rsdp) {
		ab_rsdp(bi->rsdp, 2, 0x7FE0800, 0x7FE0000);
		bi->rsdp_len = 36;
	} else {
		static u8 rom[0x20000];

		memset(rom, 0, sizeof(rom));
		ab_rsdp(rom + 0x5A40, 2, 0x7FE0800, 0x7FE0000);
		ab_mem_add(&mem, 0xE0000, rom, sizeof(rom));
	}
}

static int count_tables;

static void count_table(const struct acpi_table_info *t, void *arg)
{
	count_tables++;
}

START_TEST(test_read_machine)
{
	static struct boot_info bi;

	fake_firmware(&bi, true);
	ck_assert_int_eq(acpi_read_machine(&bi, ab_map, &mem, 4, &m), 0);
	ck_assert_uint_eq(m.nr_cpus, 8);
	ck_assert_uint_eq(m.cpu[0].apic_id, 4);
	ck_assert_uint_eq(m.cpu[0].node, 1);
	ck_assert_uint_eq(m.nr_nodes, 2);
	ck_assert_uint_eq(m.distance[1][0], 21);
	ck_assert(console_has("ACPI: XSDT 0x0000000007fe0000"));
	ck_assert(console_has("ACPI: APIC 0x0000000007fe1000"));
	ck_assert(console_has("ACPI: MADT 8 CPUs (0 disabled), SRAT 2 nodes, SLIT 2x2; using 8 CPUs"));
	acpi_for_each_table(count_table, NULL);
	ck_assert_int_eq(count_tables, 4);
	ab_mem_free(&mem);
}
END_TEST

/* No RSDP from the loader: found in the BIOS ROM area through the same map. */
START_TEST(test_read_machine_bios_scan)
{
	static struct boot_info bi;

	fake_firmware(&bi, false);
	ck_assert_int_eq(acpi_read_machine(&bi, ab_map, &mem, 0, &m), 0);
	ck_assert_uint_eq(m.nr_cpus, 8);

	/* A corrupt loader copy falls back to the scan too. */
	ab_rsdp(bi.rsdp, 2, 0, 0);
	bi.rsdp[8] ^= 1;
	bi.rsdp_len = 36;
	fake_console_reset();
	ck_assert_int_eq(acpi_read_machine(&bi, ab_map, &mem, 0, &m), 0);
	ck_assert(console_has("the loader's RSDP copy is invalid"));
	ck_assert_uint_eq(m.nr_cpus, 8);
	ab_mem_free(&mem);
}
END_TEST

START_TEST(test_read_machine_fallbacks)
{
	static struct boot_info bi;

	/* Nothing mappable: the boot CPU on one node. */
	ab_mem_init(&mem);
	memset(&bi, 0, sizeof(bi));
	ck_assert_int_eq(acpi_read_machine(&bi, ab_map, &mem, 2, &m), -ENOENT);
	ck_assert_uint_eq(m.nr_cpus, 1);
	ck_assert_uint_eq(m.cpu[0].apic_id, 2);
	ck_assert(console_has("no RSDP found"));
	count_tables = 0;
	acpi_for_each_table(count_table, NULL);
	ck_assert_int_eq(count_tables, 0);

	/* acpi=off: the tables are there but not looked at. */
	fake_firmware(&bi, true);
	ck_assert_int_eq(cmdline_parse("acpi=off"), 0);
	ck_assert_int_eq(acpi_read_machine(&bi, ab_map, &mem, 0, &m), -ENOENT);
	ck_assert_uint_eq(m.nr_cpus, 1);
	ck_assert(console_has("disabled by acpi=off"));
	ck_assert_int_eq(cmdline_parse("acpi=on"), 0);

	/* numa=off and maxcpus= through the boot options. */
	ck_assert_int_eq(cmdline_parse("numa=off maxcpus=2"), 0);
	ck_assert_int_eq(acpi_read_machine(&bi, ab_map, &mem, 0, &m), 0);
	ck_assert_uint_eq(m.nr_cpus, 2);
	ck_assert_uint_eq(m.nr_nodes, 1);
	ck_assert_int_eq(cmdline_parse("numa=on maxcpus=256"), 0);
	ab_mem_free(&mem);
}
END_TEST

Suite *acpi_topology_suite(void)
{
	Suite *s = suite_create("acpi_topology");
	TCase *tc = tcase_create("build");
	TCase *boot = tcase_create("boot");

	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, test_two_nodes);
	tcase_add_test(tc, test_boot_cpu_first);
	tcase_add_test(tc, test_no_madt);
	tcase_add_test(tc, test_madt_without_enabled_cpus);
	tcase_add_test(tc, test_online_capable_left_out);
	tcase_add_test(tc, test_no_srat_no_slit);
	tcase_add_test(tc, test_sparse_domains_ascending);
	tcase_add_test(tc, test_4_sockets_8_nodes);
	tcase_add_test(tc, test_cpu_missing_from_srat);
	tcase_add_test(tc, test_numa_off_maxcpus_nosmp);
	tcase_add_test(tc, test_options_from_cmdline);
	tcase_add_test(tc, test_too_many_domains);
	tcase_add_test(tc, test_bad_slit_falls_back);
	tcase_add_test(tc, test_node_memory_pages);
	suite_add_tcase(s, tc);

	tcase_add_checked_fixture(boot, setup, NULL);
	tcase_add_test(boot, test_read_machine);
	tcase_add_test(boot, test_read_machine_bios_scan);
	tcase_add_test(boot, test_read_machine_fallbacks);
	suite_add_tcase(s, boot);
	return s;
}

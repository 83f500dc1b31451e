/* CPUID topology decoding against the leaves of machines described by hand. */
#include <check.h>
#include <string.h>

#include "cpuid_topology.h"
#include "unit.h"

/* A fake CPU: a table of (leaf, subleaf) -> registers; unlisted leaves read as zero. */
struct leaf {
	u32 leaf, sub;
	struct cpuid_regs r;
};
static const struct leaf *fake;
static size_t fake_n;

static struct cpuid_regs fake_cpuid(u32 leaf, u32 sub)
{
	for (size_t i = 0; i < fake_n; i++)
		if (fake[i].leaf == leaf && fake[i].sub == sub)
			return fake[i].r;
	return (struct cpuid_regs){ 0 };
}

#define USE(table) (fake = (table), fake_n = sizeof(table) / sizeof((table)[0]))
/* cpuid(0): eax max leaf, ebx/edx/ecx vendor */
#define VENDOR_INTEL(max)                                       \
	{                                                       \
		0, 0,                                           \
		{                                               \
			max, 0x756e6547, 0x6c65746e, 0x49656e69 \
		}                                               \
	}
#define VENDOR_AMD(max)                                         \
	{                                                       \
		0, 0,                                           \
		{                                               \
			max, 0x68747541, 0x444d4163, 0x69746e65 \
		}                                               \
	}
/* leaf 0xB/0x1F level: eax shift, ebx count, ecx type << 8 | subleaf */
#define LEVEL(lf, sub, shift, count, type)                   \
	{                                                    \
		lf, sub,                                     \
		{                                            \
			shift, count, (type) << 8 | (sub), 0 \
		}                                            \
	}
/* leaf 4 / 0x8000001D cache: type 1 data, 2 instr, 3 unified; level; sharing-1 */
#define CACHE(lf, sub, type, level, share)                                 \
	{                                                                  \
		lf, sub,                                                   \
		{                                                          \
			(type) | (level) << 5 | ((share)-1) << 14, 0, 0, 0 \
		}                                                          \
	}

static void machine_of(struct machine *m, const u32 *ids, u32 n)
{
	memset(m, 0, sizeof(*m));
	m->nr_cpus = n;
	for (u32 i = 0; i < n; i++)
		m->cpu[i].apic_id = ids[i];
}

static void expect_cpu(const struct machine *m, u32 cpu, u32 pkg, u32 core, u32 thread, u32 llc)
{
	ck_assert_msg(m->cpu[cpu].package == pkg && m->cpu[cpu].core == core &&
			      m->cpu[cpu].thread == thread && m->cpu[cpu].llc == llc,
		      "cpu %u (apic %#x): got p%u c%u t%u llc%u, want p%u c%u t%u llc%u", cpu,
		      m->cpu[cpu].apic_id, m->cpu[cpu].package, m->cpu[cpu].core,
		      m->cpu[cpu].thread, m->cpu[cpu].llc, pkg, core, thread, llc);
}

/* QEMU -smp 8,sockets=2,cores=2,threads=2, vendor Intel: leaf 0xB and leaf 4. */
static const struct leaf qemu_intel_2s2c2t[] = {
	VENDOR_INTEL(0xd),
	{ 0x80000000, 0, { 0x80000008, 0, 0, 0 } },
	{ 1, 0, { 0, 0x00080800, 0, 1U << 28 } },
	LEVEL(0xb, 0, 1, 2, 1),
	LEVEL(0xb, 1, 2, 4, 2),
	CACHE(4, 0, 1, 1, 2),
	CACHE(4, 1, 2, 1, 2),
	CACHE(4, 2, 3, 2, 2),
	CACHE(4, 3, 3, 3, 4),
};

START_TEST(qemu_intel_two_sockets)
{
	static const u32 ids[] = { 0, 1, 2, 3, 4, 5, 6, 7 };
	struct apic_id_layout l;
	struct machine m;

	USE(qemu_intel_2s2c2t);
	cpuid_read_layout(fake_cpuid, &l);
	ck_assert_uint_eq(l.smt_bits, 1);
	ck_assert_uint_eq(l.pkg_shift, 2);
	ck_assert_uint_eq(l.llc_level, 3);
	ck_assert_uint_eq(l.llc_shift, 2);
	machine_of(&m, ids, 8);
	cpuid_apply_layout(&l, &m);
	expect_cpu(&m, 0, 0, 0, 0, 0);
	expect_cpu(&m, 1, 0, 0, 1, 0);
	expect_cpu(&m, 2, 0, 1, 0, 0);
	expect_cpu(&m, 5, 1, 0, 1, 1);
	expect_cpu(&m, 7, 1, 1, 1, 1);
}
END_TEST

/* QEMU's AMD-flavoured -cpu max: leaf 0xB present, no leaf 4 data, LLC from 0x8000001D. */
static const struct leaf qemu_amd_2s4c2t[] = {
	VENDOR_AMD(0xd),
	{ 0x80000000, 0, { 0x80000021, 0, 0, 0 } },
	LEVEL(0xb, 0, 1, 2, 1),
	LEVEL(0xb, 1, 3, 8, 2),
	CACHE(0x8000001d, 0, 1, 1, 2),
	CACHE(0x8000001d, 1, 2, 1, 2),
	CACHE(0x8000001d, 2, 3, 2, 2),
	CACHE(0x8000001d, 3, 3, 3, 8),
};

START_TEST(amd_extended_cache_leaf)
{
	u32 ids[16];
	struct apic_id_layout l;
	struct machine m;

	for (u32 i = 0; i < 16; i++)
		ids[i] = i;
	USE(qemu_amd_2s4c2t);
	cpuid_read_layout(fake_cpuid, &l);
	ck_assert_uint_eq(l.smt_bits, 1);
	ck_assert_uint_eq(l.pkg_shift, 3);
	ck_assert_uint_eq(l.llc_shift, 3);
	machine_of(&m, ids, 16);
	cpuid_apply_layout(&l, &m);
	expect_cpu(&m, 9, 1, 0, 1, 1);
	expect_cpu(&m, 14, 1, 3, 0, 1);
}
END_TEST

/* An old AMD part without leaf 0xB: core bits from 0x80000008, SMT from 0x8000001E. */
static const struct leaf amd_legacy[] = {
	VENDOR_AMD(0x6),
	{ 0x80000000, 0, { 0x8000001e, 0, 0, 0 } },
	{ 1, 0, { 0, 0x00100800, 0, 1U << 28 } },
	{ 0x80000008, 0, { 0, 0, 4 << 12 | 15, 0 } },
	{ 0x8000001e, 0, { 0, 1 << 8, 0, 0 } },
};

START_TEST(amd_legacy_leaves)
{
	static const u32 ids[] = { 0x10, 0x11, 0x12, 0x13, 0x20, 0x21 };
	struct apic_id_layout l;
	struct machine m;

	USE(amd_legacy);
	cpuid_read_layout(fake_cpuid, &l);
	ck_assert_uint_eq(l.pkg_shift, 4);
	ck_assert_uint_eq(l.smt_bits, 1);
	ck_assert_uint_eq(l.llc_shift, 4); /* no cache leaves: LLC per package */
	machine_of(&m, ids, 6);
	cpuid_apply_layout(&l, &m);
	expect_cpu(&m, 0, 0, 0, 0, 0); /* APIC 0x10: first package seen is numbered 0 */
	expect_cpu(&m, 3, 0, 1, 1, 0);
	expect_cpu(&m, 5, 1, 0, 1, 1);
}
END_TEST

/* Leaf 0x1F with a die level: the package shift is the last level's. */
static const struct leaf intel_die[] = {
	VENDOR_INTEL(0x1f),	  { 0x80000000, 0, { 0x80000008, 0, 0, 0 } },
	LEVEL(0x1f, 0, 1, 2, 1),  LEVEL(0x1f, 1, 4, 16, 2),
	LEVEL(0x1f, 2, 5, 32, 5), LEVEL(0xb, 0, 1, 2, 1),
	LEVEL(0xb, 1, 4, 16, 2),  CACHE(4, 0, 3, 3, 16),
};

START_TEST(leaf_1f_preferred)
{
	struct apic_id_layout l;

	USE(intel_die);
	cpuid_read_layout(fake_cpuid, &l);
	ck_assert_str_eq(l.source, "CPUID 0x1f");
	ck_assert_uint_eq(l.pkg_shift, 5);
	ck_assert_uint_eq(l.llc_shift, 4); /* one LLC per die */
}
END_TEST

/* Hybrid: SMT on P-cores only, sparse IDs; numbering stays dense. */
START_TEST(hybrid_sparse_ids)
{
	static const u32 ids[] = { 0, 1, 8, 9, 16, 18, 20, 22 };
	struct apic_id_layout l = { .smt_bits = 1, .pkg_shift = 7, .llc_shift = 7, .source = "t" };
	struct machine m;

	machine_of(&m, ids, 8);
	cpuid_apply_layout(&l, &m);
	expect_cpu(&m, 0, 0, 0, 0, 0);
	expect_cpu(&m, 1, 0, 0, 1, 0);
	expect_cpu(&m, 2, 0, 1, 0, 0);
	expect_cpu(&m, 3, 0, 1, 1, 0);
	expect_cpu(&m, 4, 0, 2, 0, 0);
	expect_cpu(&m, 7, 0, 5, 0, 0);
}
END_TEST

/* A single-CPU machine without HTT: everything zero. */
static const struct leaf uniprocessor[] = {
	VENDOR_INTEL(0x2),
	{ 1, 0, { 0, 0, 0, 0 } },
};

START_TEST(single_cpu_without_topology_leaves)
{
	static const u32 ids[] = { 0 };
	struct apic_id_layout l;
	struct machine m;

	USE(uniprocessor);
	cpuid_read_layout(fake_cpuid, &l);
	ck_assert_uint_eq(l.pkg_shift, 0);
	ck_assert_uint_eq(l.smt_bits, 0);
	machine_of(&m, ids, 1);
	cpuid_apply_layout(&l, &m);
	expect_cpu(&m, 0, 0, 0, 0, 0);
}
END_TEST

Suite *cpuid_topology_suite(void)
{
	Suite *s = suite_create("cpuid_topology");
	TCase *tc = tcase_create("decode");

	tcase_add_test(tc, qemu_intel_two_sockets);
	tcase_add_test(tc, amd_extended_cache_leaf);
	tcase_add_test(tc, amd_legacy_leaves);
	tcase_add_test(tc, leaf_1f_preferred);
	tcase_add_test(tc, hybrid_sparse_ids);
	tcase_add_test(tc, single_cpu_without_topology_leaves);
	suite_add_tcase(s, tc);
	return s;
}

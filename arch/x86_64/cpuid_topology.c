/*
 * CPUID topology decoding. An APIC ID is a bit field: [package | core |
 * thread], with widths the CPU reports. Leaves 0xB/0x1F list the levels
 * and the shift to the next one; level type 1 is SMT and the last level's
 * shift strips everything below the package. The LLC's sharing count
 * (leaf 4 or 0x8000001D, EAX[25:14] + 1) rounded up to a power of two is
 * how many low APIC ID bits the CPUs sharing it differ in.
 */
#include "cpuid_topology.h"

#define LEVEL_TYPE_SMT	   1
#define LEVEL_TYPE_INVALID 0
#define MAX_SUBLEAVES	   8

static u32 ceil_log2(u32 n)
{
	u32 bits = 0;

	while ((1U << bits) < n && bits < 31)
		bits++;
	return bits;
}

static bool read_extended_leaf(cpuid_reader_t cpuid_fn, u32 leaf, struct apic_id_layout *l)
{
	bool found = false;

	for (u32 sub = 0; sub < MAX_SUBLEAVES; sub++) {
		struct cpuid_regs r = cpuid_fn(leaf, sub);
		u32 type = (r.ecx >> 8) & 0xff, shift = r.eax & 0x1f;

		if (type == LEVEL_TYPE_INVALID || (r.ebx & 0xffff) == 0)
			break;
		if (type == LEVEL_TYPE_SMT)
			l->smt_bits = shift;
		l->pkg_shift = shift; /* the last valid level's shift reaches the package */
		found = true;
	}
	return found;
}

static bool is_amd(cpuid_reader_t cpuid_fn)
{
	struct cpuid_regs r = cpuid_fn(0, 0);

	/* "AuthenticAMD" and Hygon's "HygonGenuine" share AMD's leaves. */
	return (r.ebx == 0x68747541 && r.edx == 0x69746e65 && r.ecx == 0x444d4163) ||
	       (r.ebx == 0x6f677948 && r.edx == 0x6e65476e && r.ecx == 0x656e6975);
}

static void read_legacy(cpuid_reader_t cpuid_fn, u32 max_basic, u32 max_ext, bool amd,
			struct apic_id_layout *l)
{
	struct cpuid_regs r1 = cpuid_fn(1, 0);
	u32 logical = (r1.edx & (1U << 28)) ? (r1.ebx >> 16) & 0xff : 1;

	l->source = "CPUID 0x1/0x4";
	if (logical <= 1) {
		l->smt_bits = l->pkg_shift = 0;
		return;
	}
	l->pkg_shift = ceil_log2(logical);
	if (amd && max_ext >= 0x80000008) {
		struct cpuid_regs r8 = cpuid_fn(0x80000008, 0);
		u32 core_bits = (r8.ecx >> 12) & 0xf;

		l->source = "CPUID 0x80000008";
		if (core_bits)
			l->pkg_shift = core_bits;
		l->smt_bits = 0;
		if (max_ext >= 0x8000001e)
			l->smt_bits = ceil_log2(((cpuid_fn(0x8000001e, 0).ebx >> 8) & 0xff) + 1);
	} else if (max_basic >= 4) {
		u32 cores = ((cpuid_fn(4, 0).eax >> 26) & 0x3f) + 1;

		l->smt_bits = ceil_log2(logical / cores);
	}
}

/* The highest-level data or unified cache in a leaf-4-shaped leaf. */
static bool read_llc(cpuid_reader_t cpuid_fn, u32 leaf, struct apic_id_layout *l)
{
	u32 best_level = 0, sharing = 0;

	for (u32 sub = 0; sub < 16; sub++) {
		struct cpuid_regs r = cpuid_fn(leaf, sub);
		u32 type = r.eax & 0x1f, level = (r.eax >> 5) & 0x7;

		if (type == 0)
			break;
		if (type == 2) /* instruction cache */
			continue;
		if (level >= best_level) {
			best_level = level;
			sharing = ((r.eax >> 14) & 0xfff) + 1;
		}
	}
	if (!best_level)
		return false;
	l->llc_level = best_level;
	l->llc_shift = ceil_log2(sharing);
	return true;
}

void cpuid_read_layout(cpuid_reader_t cpuid_fn, struct apic_id_layout *l)
{
	u32 max_basic = cpuid_fn(0, 0).eax, max_ext = cpuid_fn(0x80000000, 0).eax;
	bool amd = is_amd(cpuid_fn);

	*l = (struct apic_id_layout){ 0 };
	if (max_basic >= 0x1f && read_extended_leaf(cpuid_fn, 0x1f, l))
		l->source = "CPUID 0x1f";
	else if (max_basic >= 0xb && read_extended_leaf(cpuid_fn, 0xb, l))
		l->source = "CPUID 0xb";
	else
		read_legacy(cpuid_fn, max_basic, max_ext, amd, l);

	if (!(max_basic >= 4 && read_llc(cpuid_fn, 4, l)) &&
	    !(max_ext >= 0x8000001d && read_llc(cpuid_fn, 0x8000001d, l))) {
		l->llc_level = 0;
		l->llc_shift = l->pkg_shift;
	}
	/* An LLC never spans packages in the scheduler's model. */
	if (l->llc_shift > l->pkg_shift)
		l->llc_shift = l->pkg_shift;
}

/* Index of value in the sorted unique list vals[0..*n), inserting it if new. */
static u32 dense_index(u32 *vals, u32 *n, u32 value)
{
	u32 i = 0;

	while (i < *n && vals[i] < value)
		i++;
	if (i == *n || vals[i] != value) {
		for (u32 j = *n; j > i; j--)
			vals[j] = vals[j - 1];
		vals[i] = value;
		(*n)++;
	}
	return i;
}

/* Position of value among the sorted unique values of key(cpu) over CPUs matching group. */
static u32 rank_among(const struct machine *m, u32 cpu,
		      u32 (*key)(const struct apic_id_layout *, u32),
		      bool (*same_group)(const struct apic_id_layout *, u32, u32),
		      const struct apic_id_layout *l)
{
	u32 mine = key(l, m->cpu[cpu].apic_id), rank = 0, seen[MAX_CPUS], n = 0;

	for (u32 i = 0; i < m->nr_cpus; i++) {
		u32 k;

		if (!same_group(l, m->cpu[i].apic_id, m->cpu[cpu].apic_id))
			continue;
		k = key(l, m->cpu[i].apic_id);
		if (k < mine) {
			u32 before = n;

			dense_index(seen, &n, k);
			rank += n != before;
		}
	}
	return rank;
}

static u32 pkg_of(const struct apic_id_layout *l, u32 apic)
{
	return l->pkg_shift >= 32 ? 0 : apic >> l->pkg_shift;
}

static u32 core_key(const struct apic_id_layout *l, u32 apic)
{
	return apic >> l->smt_bits;
}

static u32 thread_key(const struct apic_id_layout *l, u32 apic)
{
	return apic & ((1U << l->smt_bits) - 1);
}

static bool same_package(const struct apic_id_layout *l, u32 a, u32 b)
{
	return pkg_of(l, a) == pkg_of(l, b);
}

static bool same_core(const struct apic_id_layout *l, u32 a, u32 b)
{
	return core_key(l, a) == core_key(l, b);
}

void cpuid_apply_layout(const struct apic_id_layout *l, struct machine *m)
{
	u32 pkgs[MAX_CPUS], llcs[MAX_CPUS], nr_pkgs = 0, nr_llcs = 0;

	for (u32 i = 0; i < m->nr_cpus; i++) {
		dense_index(pkgs, &nr_pkgs, pkg_of(l, m->cpu[i].apic_id));
		dense_index(llcs, &nr_llcs, m->cpu[i].apic_id >> l->llc_shift);
	}
	for (u32 i = 0; i < m->nr_cpus; i++) {
		struct machine_cpu *c = &m->cpu[i];

		c->package = dense_index(pkgs, &nr_pkgs, pkg_of(l, c->apic_id));
		c->llc = dense_index(llcs, &nr_llcs, c->apic_id >> l->llc_shift);
		c->core = rank_among(m, i, core_key, same_package, l);
		c->thread = rank_among(m, i, thread_key, same_core, l);
	}
}

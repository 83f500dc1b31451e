/*
 * RDSEED and RDRAND (arch/random.h). CPUID says which the CPU has: leaf 7
 * EBX bit 18 for RDSEED, leaf 1 ECX bit 30 for RDRAND. Either may report
 * no value for now (CF clear); ten tries each, then the caller falls back.
 */
#include <arch/random.h>

#define RETRIES 10

static int have_rdseed = -1, have_rdrand = -1;

static void cpuid_count(u32 leaf, u32 sub, u32 *a, u32 *b, u32 *c, u32 *d)
{
	__asm__ volatile("cpuid" : "=a"(*a), "=b"(*b), "=c"(*c), "=d"(*d) : "a"(leaf), "c"(sub));
}

static void probe(void)
{
	u32 a, b, c, d, max;

	cpuid_count(0, 0, &max, &b, &c, &d);
	cpuid_count(1, 0, &a, &b, &c, &d);
	have_rdrand = !!(c & (1u << 30));
	have_rdseed = 0;
	if (max >= 7) {
		cpuid_count(7, 0, &a, &b, &c, &d);
		have_rdseed = !!(b & (1u << 18));
	}
}

static bool try_rdseed(u64 *out)
{
	u8 ok;

	for (int i = 0; i < RETRIES; i++) {
		__asm__ volatile("rdseed %0; setc %1" : "=r"(*out), "=qm"(ok) : : "cc");
		if (ok)
			return true;
	}
	return false;
}

static bool try_rdrand(u64 *out)
{
	u8 ok;

	for (int i = 0; i < RETRIES; i++) {
		__asm__ volatile("rdrand %0; setc %1" : "=r"(*out), "=qm"(ok) : : "cc");
		if (ok)
			return true;
	}
	return false;
}

bool arch_random_u64(u64 *out)
{
	if (__atomic_load_n(&have_rdrand, __ATOMIC_RELAXED) < 0)
		probe(); /* racing probes find the same answer */
	if (have_rdseed && try_rdseed(out))
		return true;
	return have_rdrand && try_rdrand(out);
}

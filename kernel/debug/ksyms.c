/* Address-to-symbol lookup over the table tools/gen-ksyms links into the kernel. */
#include "debug/ksyms.h"

#include "lib/string.h"

const char *ksym_lookup_in(const struct ksym_table *t, u64 addr, u64 *offset, u64 *size)
{
	u64 lo = 0, hi = t->count;

	/* Find the last symbol starting at or below addr. */
	while (lo < hi) {
		u64 mid = lo + (hi - lo) / 2;

		if (t->addrs[mid] <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return NULL;
	lo--;
	if (addr - t->addrs[lo] >= t->sizes[lo])
		return NULL;
	*offset = addr - t->addrs[lo];
	*size = t->sizes[lo];
	return t->names + t->name_offs[lo];
}

const char *ksym_lookup(u64 addr, u64 *offset, u64 *size)
{
	return ksym_lookup_in(&ksym_kernel_table, addr, offset, size);
}

u64 ksym_address(const char *name)
{
	const struct ksym_table *t = &ksym_kernel_table;

	for (u64 i = 0; i < t->count; i++)
		if (strcmp(t->names + t->name_offs[i], name) == 0)
			return t->addrs[i];
	return 0;
}

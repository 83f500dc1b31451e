/*
 * The kernel's own symbol table, linked into the image by tools/gen-ksyms,
 * so fault reports name functions: "kernel_main+0x26/0x2f0".
 */
#ifndef FULCRUM_DEBUG_KSYMS_H
#define FULCRUM_DEBUG_KSYMS_H

#include "lib/types.h"

/* Text symbols sorted by address; names[name_offs[i]] is symbol i's name. */
struct ksym_table {
	u64 count;
	const u64 *addrs;
	const u32 *sizes;
	const u32 *name_offs;
	const char *names;
};

/* Generated at link time (build/ksyms-table.c). */
extern const struct ksym_table ksym_kernel_table;

/*
 * The symbol containing addr, with addr's offset into it and its size; NULL
 * if addr lies in no symbol ([addr_i, addr_i + size_i) for some i).
 */
const char *ksym_lookup_in(const struct ksym_table *t, u64 addr, u64 *offset, u64 *size);
const char *ksym_lookup(u64 addr, u64 *offset, u64 *size);

/* The address of a symbol by name, or 0. */
u64 ksym_address(const char *name);

#endif

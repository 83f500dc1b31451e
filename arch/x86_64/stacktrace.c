/*
 * Call traces by frame pointer: the kernel is built with
 * -fno-omit-frame-pointer, so [rbp] holds the caller's rbp and [rbp + 8]
 * the return address. The walk trusts nothing it reads: each frame must be
 * 8-aligned, on the same known stack and above the last.
 */
#include "stacktrace.h"

#include <arch/memory.h>

#include "debug/ksyms.h"
#include "gdt.h"
#include "printk.h"

extern u8 boot_stack_bottom[], boot_stack_top[], boot_stack_guard[];

bool stack_bounds(u64 addr, u64 *lo, u64 *hi, const char **name)
{
	if (addr >= (u64)boot_stack_bottom && addr < (u64)boot_stack_top) {
		*lo = (u64)boot_stack_bottom;
		*hi = (u64)boot_stack_top;
		*name = "boot stack";
		return true;
	}
	return gdt_ist_stack_of(addr, lo, hi, name);
}

bool stack_guard_hit(u64 addr, const char **name)
{
	if (addr >= (u64)boot_stack_guard && addr < (u64)boot_stack_guard + PAGE_SIZE) {
		*name = "boot stack";
		return true;
	}
	return false;
}

static void print_address(u64 addr)
{
	u64 offset, size;
	const char *sym = ksym_lookup(addr, &offset, &size);

	if (sym)
		printk(KERN_EMERG " %s+0x%llx/0x%llx\n", sym, (unsigned long long)offset,
		       (unsigned long long)size);
	else
		printk(KERN_EMERG " 0x%016llx\n", (unsigned long long)addr);
}

void stacktrace_print(u64 rbp)
{
	u64 lo, hi;
	const char *name;

	if (!stack_bounds(rbp, &lo, &hi, &name))
		return;
	for (int depth = 0; depth < STACKTRACE_MAX_DEPTH; depth++) {
		const u64 *frame = (const u64 *)rbp;
		u64 next, ret;

		if (rbp & 7 || rbp < lo || rbp + 16 > hi)
			return;
		next = frame[0];
		ret = frame[1];
		if (ret == 0)
			return;
		print_address(ret);
		if (next <= rbp) /* stacks grow down: callers' frames lie above */
			return;
		rbp = next;
	}
	printk(KERN_EMERG " ... (trace cut at %d frames)\n", STACKTRACE_MAX_DEPTH);
}

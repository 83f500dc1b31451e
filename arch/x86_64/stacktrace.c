/*
 * Call traces by frame pointer: the kernel is built with
 * -fno-omit-frame-pointer, so [rbp] holds the caller's rbp and [rbp + 8]
 * the return address. The walk trusts nothing it reads: each frame must be
 * 8-aligned, on the same known stack and above the last.
 */
#include "stacktrace.h"

#include <arch/memory.h>

#include <arch/smp.h>

#include "cpu_local.h"
#include "debug/ksyms.h"
#include "printk.h"

extern u8 boot_stack_guard[];

static const char *const ist_names[IST_COUNT] = { "#DF stack", "NMI stack", "#MC stack" };

static bool within(u64 addr, const u8 *base, u64 size, u64 *lo, u64 *hi)
{
	if (!base || addr < (u64)base || addr >= (u64)base + size)
		return false;
	*lo = (u64)base;
	*hi = (u64)base + size;
	return true;
}

/* The stacks of the CPU we run on: its kernel stack and its IST stacks. */
bool stack_bounds(u64 addr, u64 *lo, u64 *hi, const char **name)
{
	const struct cpu_local *c = this_cpu_local();

	if (within(addr, c->kernel_stack, KERNEL_STACK_SIZE, lo, hi)) {
		*name = c->cpu == 0 ? "boot stack" : "kernel stack";
		return true;
	}
	if (within(addr, kernel_current_task_stack(), KERNEL_STACK_SIZE, lo, hi)) {
		*name = "task stack";
		return true;
	}
	for (int i = 0; i < IST_COUNT; i++) {
		if (within(addr, c->ist_stack[i], IST_STACK_SIZE, lo, hi)) {
			*name = ist_names[i];
			return true;
		}
	}
	return false;
}

bool stack_guard_hit(u64 addr, const char **name)
{
	if (addr >= (u64)boot_stack_guard && addr < (u64)boot_stack_guard + PAGE_SIZE) {
		*name = "boot stack";
		return true;
	}
	return false;
}

void stacktrace_print_address(u64 addr)
{
	u64 offset, size;
	const char *sym = ksym_lookup(addr, &offset, &size);

	if (sym)
		printk(KERN_EMERG " %s+0x%llx/0x%llx\n", sym, (unsigned long long)offset,
		       (unsigned long long)size);
	else
		printk(KERN_EMERG " 0x%016llx\n", (unsigned long long)addr);
}

/* True if addr follows a call instruction in kernel text: a plausible return address. */
static bool is_return_address(u64 addr)
{
	u64 offset, size;
	const u8 *p = (const u8 *)addr;

	if (!ksym_lookup(addr, &offset, &size) || offset < 2)
		return false;
	if (offset >= 5 && p[-5] == 0xe8) /* call rel32 */
		return true;
	/* call through a register or memory: FF /2 with 0..6 bytes of operand */
	for (unsigned int len = 2; len <= 7 && len <= offset; len++)
		if (p[-(int)len] == 0xff && ((p[-(int)len + 1] >> 3) & 7) == 2)
			return true;
	return false;
}

/*
 * The faulting function may not have built its frame: GCC leaves leaf
 * functions frameless even with -fno-omit-frame-pointer, and a fault in
 * the prologue comes before it. Then the return address is on top of the
 * stack (one slot up after "push %rbp"), not at [rbp + 8].
 */
static void print_unframed_caller(u64 rip, u64 rsp)
{
	static const u8 prologue[4] = { 0x55, 0x48, 0x89, 0xe5 }; /* push %rbp; mov %rsp,%rbp */
	u64 offset, size, lo, hi, slot, ret;
	const char *name;
	const u8 *fn;
	bool framed;

	if (!ksym_lookup(rip, &offset, &size))
		return;
	fn = (const u8 *)(rip - offset);
	framed = size >= 4 && fn[0] == prologue[0] && fn[1] == prologue[1] &&
		 fn[2] == prologue[2] && fn[3] == prologue[3];
	if (framed && offset >= 4)
		return; /* the frame is built: the rbp chain starts with our caller */
	slot = framed && offset >= 1 ? rsp + 8 : rsp;
	if (!stack_bounds(slot, &lo, &hi, &name) || slot + 8 > hi || slot & 7)
		return;
	ret = *(const u64 *)slot;
	if (is_return_address(ret))
		stacktrace_print_address(ret);
}

void stacktrace_print_fault(u64 rip, u64 rsp, u64 rbp)
{
	print_unframed_caller(rip, rsp);
	stacktrace_print(rbp);
}

void stacktrace_print(u64 rbp)
{
	u64 lo, hi;
	const char *name;

	if (stack_bounds(rbp, &lo, &hi, &name))
		stacktrace_print_within(rbp, lo, hi);
}

void stacktrace_print_within(u64 rbp, u64 lo, u64 hi)
{
	for (int depth = 0; depth < STACKTRACE_MAX_DEPTH; depth++) {
		const u64 *frame = (const u64 *)rbp;
		u64 next, ret;

		if (rbp & 7 || rbp < lo || rbp + 16 > hi)
			return;
		next = frame[0];
		ret = frame[1];
		if (ret == 0)
			return;
		stacktrace_print_address(ret);
		if (next <= rbp) /* stacks grow down: callers' frames lie above */
			return;
		rbp = next;
	}
	printk(KERN_EMERG " ... (trace cut at %d frames)\n", STACKTRACE_MAX_DEPTH);
}

/* Frame-pointer call traces and the stacks they are allowed to walk. */
#ifndef FULCRUM_X86_STACKTRACE_H
#define FULCRUM_X86_STACKTRACE_H

#include "lib/types.h"

#define STACKTRACE_MAX_DEPTH 32

/*
 * Prints " function+0x1a/0x30" for each return address found by following
 * saved frame pointers from rbp. Every frame is checked to lie on the same
 * known stack, above the previous one, before it is read.
 */
void stacktrace_print(u64 rbp);

/* The same walk on a stack given as [lo, hi) (a switched-out task's). */
void stacktrace_print_within(u64 rbp, u64 lo, u64 hi);

/* Prints one " function+0x1a/0x30" line (or the bare address). */
void stacktrace_print_address(u64 addr);

/*
 * The trace of a fault at rip with the given rsp and rbp: the caller of a
 * function that had not built its frame first, then the rbp chain.
 */
void stacktrace_print_fault(u64 rip, u64 rsp, u64 rbp);

/* Finds the known stack (boot, IST, ...) containing addr: [lo, hi) and a name. */
bool stack_bounds(u64 addr, u64 *lo, u64 *hi, const char **name);

/* True if addr is in the guard page below a known stack. */
bool stack_guard_hit(u64 addr, const char **name);

#endif

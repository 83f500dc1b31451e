/*
 * Kernel-thread contexts: what the scheduler saves when it switches from
 * one task to another. Only callee-saved registers and the stack pointer
 * need saving, since a switch is a function call; plus what the CPU must
 * know of the task for ring 3: its kernel stack, its FS base and, for a
 * thread that runs user code, its x87/SSE registers.
 */
#ifndef FULCRUM_ARCH_CONTEXT_H
#define FULCRUM_ARCH_CONTEXT_H

#include "lib/types.h"

struct fpu_state;

struct arch_context {
	u64 rsp;       /* callee-saved registers and the return address sit on the stack here */
	u64 stack_top; /* ring-3 entries land here (TSS.rsp0); 0 (boot, idle): keep the CPU's */
	u64 fs_base;   /* the thread's FS base (arch_set_fs_base) */
	struct fpu_state *fpu; /* a user thread's x87/SSE state (arch/fpu.h); NULL: none */
};

/*
 * Prepares ctx so that the first switch to it calls entry(arg) on the
 * stack whose top is stack_top, which also becomes the stack interrupts
 * and system calls from ring 3 use. entry must never return. ctx->fpu is
 * left alone (a zeroed context has none; arch_fpu_alloc gives one).
 */
void arch_context_init(struct arch_context *ctx, void *stack_top, void (*entry)(void *arg),
		       void *arg);

/*
 * Saves the caller's context in prev and resumes next, with next's kernel
 * stack for ring-3 entries, next's FS base and next's x87/SSE registers
 * (when each has an area); returns when prev is switched back to.
 * Interrupts off.
 */
void arch_context_switch(struct arch_context *prev, struct arch_context *next);

/*
 * The context last switched to on this CPU, i.e. the running task's; NULL
 * before the CPU's first switch. One per-CPU load, so it is right even
 * with preemption on: a task moved to another CPU reads that CPU's slot,
 * which by then holds its own context again.
 */
struct arch_context *arch_current_context(void);

#endif

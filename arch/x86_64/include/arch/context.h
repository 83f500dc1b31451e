/*
 * Kernel-thread contexts: what the scheduler saves when it switches from
 * one task to another. Only callee-saved registers and the stack pointer
 * need saving, since a switch is a function call.
 */
#ifndef FULCRUM_ARCH_CONTEXT_H
#define FULCRUM_ARCH_CONTEXT_H

#include "lib/types.h"

struct arch_context {
	u64 rsp; /* callee-saved registers and the return address sit on the stack here */
};

/*
 * Prepares ctx so that the first switch to it calls entry(arg) on the
 * stack whose top is stack_top. entry must never return.
 */
void arch_context_init(struct arch_context *ctx, void *stack_top, void (*entry)(void *arg),
		       void *arg);

/* Saves the caller's context in prev and resumes next; returns when prev is switched back to. */
void arch_context_switch(struct arch_context *prev, struct arch_context *next);

#endif

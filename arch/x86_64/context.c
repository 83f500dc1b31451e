/*
 * Task contexts: new kernel-thread stacks laid out as if a switch had
 * saved them, and the switch itself, which also points the CPU's ring-3
 * entries (TSS.rsp0, the syscall stack) at the next task's kernel stack
 * and gives it its FS base and its x87/SSE registers.
 */
#include <arch/context.h>
#include <arch/fpu.h>

#include "cpu_local.h"
#include "x86.h"

extern const u8 context_start[];

/* switch.asm: saves callee-saved registers, stores RSP in *prev_rsp, loads next_rsp, pops. */
void context_switch_stacks(u64 *prev_rsp, u64 next_rsp);

struct initial_frame {
	u64 r15, r14, r13, r12, rbx, rbp; /* popped by context_switch_stacks */
	u64 ret;			  /* its "ret" goes to context_start */
};
/* After the pops and the ret, RSP is the 16-aligned stack top: entry is called as the ABI wants. */
_Static_assert(sizeof(struct initial_frame) == 56, "initial frame layout");

void arch_context_init(struct arch_context *ctx, void *stack_top, void (*entry)(void *arg), void *arg)
{
	u64 top = (u64)stack_top & ~15UL;
	struct initial_frame *f = (struct initial_frame *)top - 1;

	*f = (struct initial_frame){
		.r12 = (u64)entry,
		.r13 = (u64)arg,
		.ret = (u64)context_start,
	};
	ctx->rsp = (u64)f;
	ctx->stack_top = top;
	ctx->fs_base = 0;
}

_Static_assert(__builtin_offsetof(struct cpu_local, ctx) == CPU_LOCAL_CTX, "cpu_local layout");

struct arch_context *arch_current_context(void)
{
	struct arch_context *ctx;

	/* A single GS-relative load: no window for a migration between CPU and slot. */
	__asm__ volatile("movq %%gs:%c1, %0" : "=r"(ctx) : "i"(CPU_LOCAL_CTX));
	return ctx;
}

void arch_context_switch(struct arch_context *prev, struct arch_context *next)
{
	struct cpu_local *c = this_cpu_local();

	if (next->stack_top) {
		c->tss.rsp[0] = next->stack_top;
		c->syscall_rsp = next->stack_top;
	}
	/*
	 * Always written: a user "mov fs, sel" can change the base behind our
	 * back, and the next task must not inherit that.
	 */
	wrmsr(MSR_FS_BASE, next->fs_base);
	fpu_switch(prev, next);
	c->ctx = next;
	context_switch_stacks(&prev->rsp, next->rsp);
}

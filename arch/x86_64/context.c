/* New kernel-thread contexts: a stack laid out as if arch_context_switch had saved it. */
#include <arch/context.h>

extern const u8 context_start[];

struct initial_frame {
	u64 r15, r14, r13, r12, rbx, rbp; /* popped by arch_context_switch */
	u64 ret;			  /* its "ret" goes to context_start */
};
/* After the pops and the ret, RSP is the 16-aligned stack top: entry is called as the ABI wants. */
_Static_assert(sizeof(struct initial_frame) == 56, "initial frame layout");

void arch_context_init(struct arch_context *ctx, void *stack_top, void (*entry)(void *arg),
		       void *arg)
{
	struct initial_frame *f = (struct initial_frame *)((u64)stack_top & ~15UL) - 1;

	*f = (struct initial_frame){
		.r12 = (u64)entry,
		.r13 = (u64)arg,
		.ret = (u64)context_start,
	};
	ctx->rsp = (u64)f;
}

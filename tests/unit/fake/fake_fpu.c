/*
 * Host stand-ins for fpu.c's calls on the live x87/SSE registers
 * (arch/fpu.h), which the signal frame code makes: the registers are a
 * variable, so a test sets them, lets a frame save them, clobbers them
 * and checks what rt_sigreturn loads back.
 */
#include <string.h>

#include "fake_fpu.h"

struct fpu_state fake_fpu_live;

void fpu_init_state(struct fpu_state *st)
{
	memset(st, 0, sizeof(*st));
	st->fcw = FPU_DEFAULT_FCW;
	st->mxcsr = FPU_DEFAULT_MXCSR;
}

u32 fpu_mxcsr_mask(void)
{
	return FPU_MXCSR_MASK_DEFAULT;
}

void fpu_save_current(struct fpu_state *st)
{
	*st = fake_fpu_live;
}

void fpu_restore_current(struct fpu_state *st)
{
	fpu_sanitize(st, fpu_mxcsr_mask());
	fake_fpu_live = *st;
}

void fpu_reset_current(void)
{
	fpu_init_state(&fake_fpu_live);
}

/*
 * The x87/SSE state of threads that run user code. The kernel itself is
 * built without SSE or x87 code, so the registers always hold the state
 * of the user thread that ran last: each thread with an area gets it
 * saved and restored at every context switch (eagerly; no #NM tricks).
 * Kernel threads have no area and leave the registers alone. AVX stays
 * off (no XSAVE, CR4.OSXSAVE clear), so FXSAVE's 512 bytes are the whole
 * state.
 */
#ifndef FULCRUM_ARCH_FPU_H
#define FULCRUM_ARCH_FPU_H

#include "lib/types.h"

#define FPU_STATE_SIZE 512

/* An FXSAVE image (64-bit format), as Linux also puts it in a signal frame. */
struct fpu_state {
	u16 fcw, fsw;
	u8 ftw, reserved1;
	u16 fop;
	u64 rip, rdp;
	u32 mxcsr, mxcsr_mask;
	u8 st[8][16];	/* x87/MMX registers, 16 bytes each */
	u8 xmm[16][16]; /* xmm0-15 */
	u8 reserved2[48];
	u8 sw_reserved[48]; /* XSAVE's software area: zero here (no extended state) */
} __attribute__((aligned(16)));

_Static_assert(sizeof(struct fpu_state) == FPU_STATE_SIZE, "FXSAVE image size");
_Static_assert(__builtin_offsetof(struct fpu_state, mxcsr) == 24, "FXSAVE mxcsr");
_Static_assert(__builtin_offsetof(struct fpu_state, st) == 32, "FXSAVE st0");
_Static_assert(__builtin_offsetof(struct fpu_state, xmm) == 160, "FXSAVE xmm0");
_Static_assert(__builtin_offsetof(struct fpu_state, sw_reserved) == 464, "FXSAVE sw area");

/* The state after FNINIT plus the SSE default: every exception masked, round to nearest. */
#define FPU_DEFAULT_FCW	       0x37f
#define FPU_DEFAULT_MXCSR      0x1f80
/* MXCSR bits every SSE CPU accepts when FXSAVE reports a mask of 0 (no DAZ). */
#define FPU_MXCSR_MASK_DEFAULT 0xffbf

struct arch_context;

/*
 * Gives ctx an area holding the default state (for a thread about to run
 * user code); if ctx is the caller's, its registers are reset to it too.
 * 0, or -ENOMEM. An area it already has is kept as it is.
 */
int arch_fpu_alloc(struct arch_context *ctx);

/*
 * Drops ctx's area. Safe on the caller's own context (it then stops being
 * saved) and on a task that will never run again; not on a task running
 * on another CPU.
 */
void arch_fpu_free(struct arch_context *ctx);

/* fork/clone: child's area (from arch_fpu_alloc) gets the caller's live state. */
void arch_fpu_fork(struct arch_context *child);

/* execve: the caller's state back to the defaults. */
void arch_fpu_reset(void);

/* ---------------------------------------------------------------- arch/x86_64 only */

/* Every CPU, at its first stop (user_cpu_init): CR0/CR4 for x87 and SSE, default state. */
void fpu_cpu_init(bool boot_cpu);

/* arch_context_switch: prev's registers into its area, next's loaded from its area. */
void fpu_switch(struct arch_context *prev, struct arch_context *next);

/* The calling thread's live state into st / from st (st->mxcsr made valid first). */
void fpu_save_current(struct fpu_state *st);
void fpu_restore_current(struct fpu_state *st);

/* The calling thread's live state to the defaults (a signal handler starts with them). */
void fpu_reset_current(void);

/* The default image. */
void fpu_init_state(struct fpu_state *st);

/* MXCSR bits this CPU accepts; FXRSTOR of any other bit set raises #GP. */
u32 fpu_mxcsr_mask(void);

/*
 * Makes an image from user memory safe to load: MXCSR's reserved bits
 * cleared (the only FXRSTOR operand check), the software area zeroed.
 */
static inline void fpu_sanitize(struct fpu_state *st, u32 mxcsr_mask)
{
	st->mxcsr &= mxcsr_mask;
	for (size_t i = 0; i < sizeof(st->sw_reserved); i++)
		st->sw_reserved[i] = 0;
}

#endif

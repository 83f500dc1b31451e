/*
 * x87/SSE state of user threads: each CPU is set up for SSE (CR0, CR4),
 * and threads that run user code carry a 512-byte FXSAVE area that the
 * context switch saves and restores. The kernel is built without SSE and
 * x87 code, so between switches the registers belong to the user thread
 * that ran last, and nothing else needs to save them.
 */
#include <arch/context.h>
#include <arch/cpu.h>
#include <arch/fpu.h>

#include "cpu_local.h"
#include "lib/errno.h"
#include "lib/string.h"
#include "mm/heap.h"
#include "printk.h"
#include "x86.h"

#define CR0_MP	       (1UL << 1)  /* WAIT/FWAIT honour TS */
#define CR0_EM	       (1UL << 2)  /* x87 emulated: every x87/SSE instruction raises #UD */
#define CR0_TS	       (1UL << 3)  /* task switched: the next x87/SSE instruction raises #NM */
#define CR0_NE	       (1UL << 5)  /* x87 errors as #MF, not the legacy FERR# interrupt */
#define CR4_OSFXSR     (1UL << 9)  /* FXSAVE/FXRSTOR and SSE enabled */
#define CR4_OSXMMEXCPT (1UL << 10) /* unmasked SSE exceptions raise #XM */

static struct fpu_state default_state;
static u32 mxcsr_mask = FPU_MXCSR_MASK_DEFAULT;

static inline void fxsave(struct fpu_state *st)
{
	__asm__ volatile("fxsave64 %0" : "=m"(*st) : : "memory");
}

static inline void fxrstor(const struct fpu_state *st)
{
	__asm__ volatile("fxrstor64 %0" : : "m"(*st) : "memory");
}

static inline void write_cr0(u64 v)
{
	__asm__ volatile("mov %0, %%cr0" : : "r"(v) : "memory");
}

void fpu_init_state(struct fpu_state *st)
{
	memset(st, 0, sizeof(*st));
	st->fcw = FPU_DEFAULT_FCW;
	st->mxcsr = FPU_DEFAULT_MXCSR;
}

u32 fpu_mxcsr_mask(void)
{
	return mxcsr_mask;
}

void fpu_cpu_init(bool boot_cpu)
{
	write_cr0((read_cr0() & ~(CR0_EM | CR0_TS)) | CR0_MP | CR0_NE);
	write_cr4(read_cr4() | CR4_OSFXSR | CR4_OSXMMEXCPT);
	if (boot_cpu) {
		struct fpu_state probe;

		/* FXSAVE fills in the MXCSR bits this CPU supports (0 means the SSE default). */
		memset(&probe, 0, sizeof(probe));
		fxsave(&probe);
		if (probe.mxcsr_mask)
			mxcsr_mask = probe.mxcsr_mask;
		fpu_init_state(&default_state);
		pr_info("fpu: FXSAVE state (%u bytes), MXCSR mask %#x\n", FPU_STATE_SIZE, mxcsr_mask);
	}
	/* Whatever firmware left in the registers is nobody's; the defaults are. */
	__asm__ volatile("fninit");
	fxrstor(&default_state);
}

void fpu_save_current(struct fpu_state *st)
{
	fxsave(st);
}

void fpu_restore_current(struct fpu_state *st)
{
	fpu_sanitize(st, mxcsr_mask);
	fxrstor(st);
}

void fpu_reset_current(void)
{
	fxrstor(&default_state);
}

void fpu_switch(struct arch_context *prev, struct arch_context *next)
{
	if (prev->fpu)
		fxsave(prev->fpu);
	if (next->fpu)
		fxrstor(next->fpu);
}

/* Is ctx the context running on this CPU? Interrupts off. */
static bool is_current(const struct arch_context *ctx)
{
	return this_cpu_local()->ctx == ctx;
}

int arch_fpu_alloc(struct arch_context *ctx)
{
	struct fpu_state *st;
	unsigned long flags;

	if (ctx->fpu)
		return 0;
	st = kmalloc(sizeof(*st)); /* 16-aligned, as FXSAVE wants */
	if (!st)
		return -ENOMEM;
	fpu_init_state(st);
	flags = arch_irq_save();
	ctx->fpu = st;
	if (is_current(ctx))
		fxrstor(st); /* from now on a switch saves the registers: make them ours */
	arch_irq_restore(flags);
	return 0;
}

void arch_fpu_free(struct arch_context *ctx)
{
	unsigned long flags = arch_irq_save();
	struct fpu_state *st = ctx->fpu;

	ctx->fpu = NULL; /* before the free: a switch away from ctx no longer saves into it */
	arch_irq_restore(flags);
	kfree(st);
}

void arch_fpu_fork(struct arch_context *child)
{
	unsigned long flags = arch_irq_save();

	if (child->fpu) {
		/* A caller without an area (a kernel thread) has no state of its own to give. */
		if (this_cpu_local()->ctx && this_cpu_local()->ctx->fpu)
			fxsave(child->fpu);
		else
			fpu_init_state(child->fpu);
	}
	arch_irq_restore(flags);
}

void arch_fpu_reset(void)
{
	fxrstor(&default_state);
}

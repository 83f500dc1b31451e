/*
 * ktest=fpu_switches: x87/SSE state survives context switches. Threads on
 * one CPU, each with its own FPU area, load different register contents
 * (every xmm register, MXCSR's rounding mode, the x87 control word),
 * yield to each other many times, and check that they still hold their
 * own; a fresh area starts with the defaults, and a fork copy is the
 * caller's state.
 */
#include <arch/context.h>
#include <arch/fpu.h>
#include <arch/smp.h>

#include "ktest.h"
#include "lib/errno.h"
#include "lib/string.h"
#include "sched/sched.h"

#define FPU_THREADS 3
#define FPU_ROUNDS  200

struct fpu_worker {
	int id;
	int result; /* 0, or the failing check */
};

/* Thread id's register contents: every byte of xmm i is id * 16 + i, MXCSR rounds per id. */
static void fill_pattern(struct fpu_state *st, int id)
{
	fpu_init_state(st);
	st->fcw = (u16)(FPU_DEFAULT_FCW & ~0xc00) | (u16)((id & 3) << 10);  /* x87 rounding */
	st->mxcsr = (FPU_DEFAULT_MXCSR & ~0x6000u) | ((u32)(id & 3) << 13); /* SSE rounding */
	for (int i = 0; i < 16; i++)
		memset(st->xmm[i], id * 16 + i, 16);
}

static int check_pattern(const struct fpu_state *got, int id)
{
	struct fpu_state want;

	fill_pattern(&want, id);
	if (got->fcw != want.fcw)
		return 1;
	if (got->mxcsr != want.mxcsr)
		return 2;
	if (memcmp(got->xmm, want.xmm, sizeof(want.xmm)))
		return 3;
	return 0;
}

static void fpu_worker(void *arg)
{
	struct fpu_worker *w = arg;
	struct arch_context *ctx = &current_task()->ctx;
	struct fpu_state st;

	if (arch_fpu_alloc(ctx)) {
		w->result = -ENOMEM;
		return;
	}
	/* A new area gives the defaults: nothing of the last thread's registers. */
	fpu_save_current(&st);
	if (st.mxcsr != FPU_DEFAULT_MXCSR || st.fcw != FPU_DEFAULT_FCW || st.xmm[0][0] ||
	    st.xmm[15][15]) {
		w->result = 10;
		goto out;
	}
	fill_pattern(&st, w->id);
	fpu_restore_current(&st);
	for (int round = 0; round < FPU_ROUNDS && !w->result; round++) {
		task_yield();
		fpu_save_current(&st);
		w->result = check_pattern(&st, w->id);
	}
out:
	arch_fpu_free(ctx); /* its own: no switch saves into it any more */
}

/* A fork child's area starts as a copy of the caller's live registers. */
static void fork_copier(void *arg)
{
	struct fpu_worker *w = arg;
	struct arch_context child = { 0 };
	struct arch_context *ctx = &current_task()->ctx;
	struct fpu_state st;

	if (arch_fpu_alloc(ctx) || arch_fpu_alloc(&child)) {
		w->result = -ENOMEM;
		arch_fpu_free(ctx);
		return;
	}
	fill_pattern(&st, w->id);
	fpu_restore_current(&st);
	arch_fpu_fork(&child);
	w->result = check_pattern(child.fpu, w->id);
	/* execve's reset: back to the defaults */
	arch_fpu_reset();
	fpu_save_current(&st);
	if (!w->result && (st.mxcsr != FPU_DEFAULT_MXCSR || st.xmm[1][0]))
		w->result = 20;
	arch_fpu_free(&child);
	arch_fpu_free(ctx);
}

KTEST(fpu_switches);
static int fpu_switches(void)
{
	struct fpu_worker w[FPU_THREADS + 1];
	struct task *t[FPU_THREADS + 1];
	u32 cpu = arch_cpu_id();

	for (int i = 0; i <= FPU_THREADS; i++) {
		w[i] = (struct fpu_worker){ .id = i + 1 };
		t[i] = kthread_create_on_cpu(i < FPU_THREADS ? fpu_worker : fork_copier, &w[i],
					     "fpu_ktest", 0, cpu);
		KTEST_EXPECT(t[i]);
	}
	for (int i = 0; i <= FPU_THREADS; i++)
		task_reap(t[i]);
	for (int i = 0; i <= FPU_THREADS; i++) {
		if (w[i].result)
			pr_err("KTEST fpu_switches: thread %d failed check %d\n", i, w[i].result);
		KTEST_EXPECT(w[i].result == 0);
	}
	pr_info("KTEST fpu_switches: %d threads x %d switches kept their x87/SSE state\n",
		FPU_THREADS, FPU_ROUNDS);
	return 0;
}

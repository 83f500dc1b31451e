/*
 * In-kernel tests of the tracer, whose checks are in the boot harness: it
 * reads the trace file (tests/boot/run.py, trace-*). Each test traces a
 * scene with known pids and prints them; the harness then holds the
 * trace to the events the scene must produce.
 *
 *   trace_pingpong     two kernel threads pinned on CPU 1 hand a turn back
 *                      and forth through one wait queue
 *   trace_migrate      a sleeping kernel thread's mask moves it from CPU 1
 *                      to CPU 2: its wake-up migrates it
 *   trace_panic_flush  with trace= at boot: a thread lives and exits, then
 *                      the kernel panics; the panic path must deliver it
 */
#include <arch/smp.h>

#include "ktest.h"
#include "panic.h"
#include "sched/sched.h"
#include "sched/wait.h"
#include "trace/trace.h"

#define PP_CPU	  1
#define PP_ROUNDS 20
#define MIG_FROM  1
#define MIG_TO	  2

static struct {
	struct wait_queue wq;
	volatile int go;   /* both threads exist: start */
	volatile int turn; /* whose turn it is: 0 or 1 */
} pp = { WAIT_QUEUE_INIT(pp.wq), 0, 0 };

/* One side: PP_ROUNDS times wait for its turn, give the turn away, wake the other. */
static void pp_side(void *arg)
{
	int me = (int)(uintptr_t)arg;

	wait_event(&pp.wq, pp.go);
	for (int i = 0; i < PP_ROUNDS; i++) {
		wait_event(&pp.wq, pp.turn == me);
		pp.turn = 1 - me;
		wake_up_all(&pp.wq);
	}
}

KTEST(trace_pingpong);
static int trace_pingpong(void)
{
	struct task *a, *b;
	int pid_a, pid_b;

	if (sched_nr_cpus() <= PP_CPU) {
		pr_info("KTEST trace_pingpong: needs CPU %u\n", PP_CPU);
		return KTEST_SKIP;
	}
	trace_clear();
	KTEST_EXPECT(trace_start() == 0);
	a = kthread_create_on_cpu(pp_side, (void *)0, "pp_a", 0, PP_CPU);
	b = kthread_create_on_cpu(pp_side, (void *)1, "pp_b", 0, PP_CPU);
	KTEST_EXPECT(a && b);
	pid_a = a->pid;
	pid_b = b->pid;
	pp.go = 1;
	wake_up_all(&pp.wq);
	KTEST_EXPECT(task_reap(a) == 0);
	KTEST_EXPECT(task_reap(b) == 0);
	trace_stop();
	trace_dump(); /* now: the next test's trace_clear would drop them (no channel: nothing) */
	pr_info("KTEST trace_pingpong: pids %d %d on cpu%u, %u rounds each\n", pid_a, pid_b, PP_CPU,
		PP_ROUNDS);
	return 0;
}

static struct {
	struct wait_queue wq;
	volatile int step; /* 1: the thread sleeps; 2: it may go on */
} mig = { WAIT_QUEUE_INIT(mig.wq), 0 };

static void mig_thread(void *arg)
{
	mig.step = 1;
	wake_up_all(&mig.wq);
	wait_event(&mig.wq, mig.step == 2);
}

KTEST(trace_migrate);
static int trace_migrate(void)
{
	struct cpumask to = CPUMASK_EMPTY;
	struct task *t;
	int pid;

	if (sched_nr_cpus() <= MIG_TO) {
		pr_info("KTEST trace_migrate: needs CPU %u\n", MIG_TO);
		return KTEST_SKIP;
	}
	trace_clear();
	KTEST_EXPECT(trace_start() == 0);
	t = kthread_create_on_cpu(mig_thread, NULL, "tr_mig", 0, MIG_FROM);
	KTEST_EXPECT(t != NULL);
	pid = t->pid;
	wait_event(&mig.wq, mig.step == 1);
	/* Asleep, or about to be: either way its next wake-up places it by the new mask. */
	cpumask_set_cpu(MIG_TO, &to);
	KTEST_EXPECT(set_cpus_allowed(t, &to) == 0);
	mig.step = 2;
	wake_up_all(&mig.wq);
	KTEST_EXPECT(task_reap(t) == 0);
	trace_stop();
	trace_dump();
	pr_info("KTEST trace_migrate: pid %d from cpu%u to cpu%u\n", pid, MIG_FROM, MIG_TO);
	return 0;
}

static void short_life(void *arg)
{
}

KTEST(trace_panic_flush);
static int trace_panic_flush(void)
{
	struct task *t;
	int pid;

	if (!trace_active) {
		pr_info("KTEST trace_panic_flush: it panics on purpose; boot with trace= to run it\n");
		return KTEST_SKIP;
	}
	t = kthread_create(short_life, NULL, "tr_panic", 0);
	KTEST_EXPECT(t != NULL);
	pid = t->pid;
	KTEST_EXPECT(task_reap(t) == 0);
	pr_info("KTEST trace_panic_flush: pid %d lived and exited; panicking\n", pid);
	panic("trace_panic_flush: deliberate, with pid %d's life in the trace rings", pid);
}

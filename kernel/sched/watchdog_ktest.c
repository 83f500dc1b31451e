/*
 * Deliberate faults for the lockup and hang detectors (watchdog.c), one
 * in-kernel test each: a kernel thread on CPU 1 that spins with
 * preemption off (soft lockup), one that spins with interrupts off (hard
 * lockup), and one that blocks uninterruptibly (hung task), beside one
 * that blocks killably and must not be reported. Each fault
 * lasts until its report has been made (or five thresholds have passed),
 * then ends, so the run goes on; the test passes if the report named the
 * right CPU or task. They need a small threshold on the command line
 * (at most WD_KTEST_MAX_MS) and skip otherwise, so `ktest=all` leaves
 * them out: e.g. `ktest=watchdog_soft_lockup softlockup_ms=1000`.
 */
#include <arch/cpu.h>
#include <arch/time.h>

#include "ktest.h"
#include "sched/sched.h"
#include "sched/wait.h"
#include "sched/watchdog.h"

#define WD_KTEST_MAX_MS 5000
#define WD_KTEST_CPU	1

/* The detector's threshold from the command line, through the registry's parse. */
static bool threshold_small(const char *option, s64 ms)
{
	if (ms > 0 && ms <= WD_KTEST_MAX_MS)
		return true;
	pr_info("KTEST watchdog: needs %s between 1 and %d (it is %lld)\n", option, WD_KTEST_MAX_MS,
		(long long)ms);
	return false;
}

struct fault {
	u64 deadline;	    /* clock at which the fault gives up waiting for its report */
	u64 reports_before; /* the detector's count when the fault began */
	volatile bool started;
};

static u64 soft_reports(void)
{
	struct sched_watchdog_counts c;

	sched_watchdog_counts(&c);
	return c.soft_lockups;
}

static u64 hard_reports(void)
{
	struct sched_watchdog_counts c;

	sched_watchdog_counts(&c);
	return c.hard_lockups;
}

/* Runs with preemption off and interrupts on: the tick comes, schedule() never does. */
static __attribute__((noinline)) void watchdog_ktest_spin_preempt_off(struct fault *f)
{
	preempt_disable();
	f->started = true;
	while (soft_reports() == f->reports_before && arch_clock_ns() < f->deadline)
		arch_cpu_relax();
	preempt_enable();
}

static void soft_lockup_thread(void *arg)
{
	watchdog_ktest_spin_preempt_off(arg);
}

/* Runs with interrupts off: this CPU's tick stops; only an NMI gets in. */
static __attribute__((noinline)) void watchdog_ktest_spin_irqs_off(struct fault *f)
{
	unsigned long flags = arch_irq_save();

	f->started = true;
	while (hard_reports() == f->reports_before && arch_clock_ns() < f->deadline)
		arch_cpu_relax();
	arch_irq_restore(flags);
}

static void hard_lockup_thread(void *arg)
{
	watchdog_ktest_spin_irqs_off(arg);
}

static int run_spinner(void (*fn)(void *), const char *name, u64 threshold_ms, struct fault *f)
{
	struct task *t;

	if (sched_nr_cpus() <= WD_KTEST_CPU) {
		pr_info("KTEST %s: needs a CPU %d\n", name, WD_KTEST_CPU);
		return KTEST_SKIP;
	}
	f->deadline = arch_clock_ns() + 5 * threshold_ms * 1000000ULL;
	t = kthread_create_on_cpu(fn, f, name, 0, WD_KTEST_CPU);
	KTEST_EXPECT(t != NULL);
	KTEST_EXPECT(task_reap(t) == 0);
	KTEST_EXPECT(f->started);
	return 0;
}

/* A kernel thread holding CPU 1 with preemption off is reported as a soft lockup of CPU 1. */
KTEST(watchdog_soft_lockup);
static int watchdog_soft_lockup(void)
{
	struct sched_watchdog_counts c;
	struct fault f = { .reports_before = soft_reports() };
	s64 ms = 0;
	int rc;

	sched_watchdog_counts(&c);
	ms = c.soft_ms;
	if (!threshold_small("softlockup_ms", ms))
		return KTEST_SKIP;
	rc = run_spinner(soft_lockup_thread, "wd_soft", (u64)ms, &f);
	if (rc)
		return rc;
	sched_watchdog_counts(&c);
	KTEST_EXPECT(c.soft_lockups > f.reports_before);
	KTEST_EXPECT(c.last_soft_cpu == WD_KTEST_CPU);
	pr_info("KTEST watchdog_soft_lockup: reported on cpu%u, pid %d\n", c.last_soft_cpu,
		c.last_soft_pid);
	return 0;
}

/* A kernel thread spinning on CPU 1 with interrupts off is reported as a hard lockup of CPU 1. */
KTEST(watchdog_hard_lockup);
static int watchdog_hard_lockup(void)
{
	struct sched_watchdog_counts c;
	struct fault f = { .reports_before = hard_reports() };
	s64 ms = 0;
	int rc;

	sched_watchdog_counts(&c);
	ms = c.hard_ms;
	if (!threshold_small("hardlockup_ms", ms))
		return KTEST_SKIP;
	rc = run_spinner(hard_lockup_thread, "wd_hard", (u64)ms, &f);
	if (rc)
		return rc;
	sched_watchdog_counts(&c);
	KTEST_EXPECT(c.hard_lockups > f.reports_before);
	KTEST_EXPECT(c.last_hard_cpu == WD_KTEST_CPU);
	pr_info("KTEST watchdog_hard_lockup: reported on cpu%u\n", c.last_hard_cpu);
	return 0;
}

static struct wait_queue hung_wq = WAIT_QUEUE_INIT(hung_wq);
static volatile bool hung_release;

/* Sleeps uninterruptibly until the test lets it go (after the report). */
static __attribute__((noinline)) void watchdog_ktest_block(void)
{
	wait_event(&hung_wq, READ_ONCE(hung_release));
}

static void hung_thread(void *arg)
{
	watchdog_ktest_block();
}

/* A kernel thread blocked in TASK_UNINTERRUPTIBLE past hung_task_ms is reported by name and pid. */
KTEST(watchdog_hung_task);
static int watchdog_hung_task(void)
{
	struct sched_watchdog_counts c;
	struct task *t;
	u64 before, deadline;
	s64 ms = 0;
	int pid;

	sched_watchdog_counts(&c);
	ms = c.hung_ms;
	if (!threshold_small("hung_task_ms", ms))
		return KTEST_SKIP;
	sched_watchdog_counts(&c);
	before = c.hung_tasks;
	deadline = arch_clock_ns() + 5 * (u64)ms * 1000000ULL;
	hung_release = false;
	t = kthread_create(hung_thread, NULL, "wd_hung", 0);
	KTEST_EXPECT(t != NULL);
	pid = t->pid;
	do {
		sched_sleep_ns(10000000); /* short sleeps: never long enough to be reported itself */
		sched_watchdog_counts(&c);
	} while (c.hung_tasks == before && arch_clock_ns() < deadline);
	hung_release = true;
	wake_up_all(&hung_wq);
	KTEST_EXPECT(task_reap(t) == 0);
	KTEST_EXPECT(c.hung_tasks > before);
	KTEST_EXPECT(c.last_hung_pid == pid);
	pr_info("KTEST watchdog_hung_task: reported pid %d\n", c.last_hung_pid);
	return 0;
}

/* Sleeps killably (as a vfork parent does) until the test lets it go. */
static __attribute__((noinline)) void watchdog_ktest_block_killable(void)
{
	struct waiter w = { .task = NULL };

	for (;;) {
		wait_prepare_state(&hung_wq, &w, TASK_KILLABLE);
		if (READ_ONCE(hung_release))
			break;
		schedule();
	}
	wait_finish(&hung_wq, &w);
}

static void killable_thread(void *arg)
{
	watchdog_ktest_block_killable();
}

/*
 * Two kernel threads block side by side past hung_task_ms, one killably
 * and one uninterruptibly: only the second is a hung task, as on Linux
 * (whose detector skips TASK_KILLABLE). After its report the test waits a
 * further threshold, in which a report of the killable one would have come.
 */
KTEST(watchdog_hung_killable);
static int watchdog_hung_killable(void)
{
	struct sched_watchdog_counts c;
	struct task *killable, *blocked;
	u64 before, deadline;
	int pid, killable_pid;

	sched_watchdog_counts(&c);
	if (!threshold_small("hung_task_ms", c.hung_ms))
		return KTEST_SKIP;
	before = c.hung_tasks;
	deadline = arch_clock_ns() + 5 * (u64)c.hung_ms * 1000000ULL;
	hung_release = false;
	killable = kthread_create(killable_thread, NULL, "wd_killable", 0);
	KTEST_EXPECT(killable != NULL);
	killable_pid = killable->pid;
	blocked = kthread_create(hung_thread, NULL, "wd_hung", 0);
	KTEST_EXPECT(blocked != NULL);
	pid = blocked->pid;
	do {
		sched_sleep_ns(10000000);
		sched_watchdog_counts(&c);
	} while (c.hung_tasks == before && arch_clock_ns() < deadline);
	deadline = arch_clock_ns() + (u64)c.hung_ms * 1000000ULL;
	while (arch_clock_ns() < deadline)
		sched_sleep_ns(10000000);
	sched_watchdog_counts(&c);
	hung_release = true;
	wake_up_all(&hung_wq);
	KTEST_EXPECT(task_reap(killable) == 0);
	KTEST_EXPECT(task_reap(blocked) == 0);
	KTEST_EXPECT(c.hung_tasks == before + 1);
	KTEST_EXPECT(c.last_hung_pid == pid);
	pr_info("KTEST watchdog_hung_killable: %llu report(s), the last of pid %d (uninterruptible "
		"pid %d, killable pid %d)\n",
		(unsigned long long)(c.hung_tasks - before), c.last_hung_pid, pid, killable_pid);
	return 0;
}

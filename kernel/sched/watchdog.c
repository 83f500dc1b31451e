/*
 * The scheduler's watchdogs, all driven by the timer tick and measured on
 * the kernel's clock (arch_clock_ns), each with its own boot option:
 *
 *   stall        a queued task that has not run for sched_watchdog_ms: one
 *                diagnosis block (its class, the task, the CPU's queue as
 *                that class shows it, the CPU's last scheduler events);
 *                then, as sched_ext does, the class is given up on: marked
 *                failed (the pick loop skips it) and every task of it moved
 *                to fair without calling the class again.
 *   soft lockup  a CPU that has not passed through schedule() for
 *                softlockup_ms although its tick runs (interrupts on). A
 *                CPU that is merely busy with one task is asked to pass
 *                through schedule() every fifth of the threshold (a
 *                reschedule request at its own tick), as Linux's watchdog
 *                thread wakes every 4 s; only code that refuses that
 *                (preempt_disable) is stuck.
 *   hard lockup  a CPU whose timer interrupt stopped for hardlockup_ms: each
 *                CPU watches the tick count of the next online CPU (Linux's
 *                "buddy" detector) and fetches its trace with an NMI.
 *   hung task    a task asleep in TASK_UNINTERRUPTIBLE for hung_task_ms.
 *
 * Stalls and hung tasks are found by a walk over every task, made by
 * whichever CPU's tick comes first once a scan period is due (a quarter
 * of the smaller threshold). Under TCG a virtual CPU may not run at all
 * for a while when the host is busy, and its clock jumps: a gap of more
 * than PAUSE_NS between two ticks of a CPU restarts that CPU's
 * measurements rather than count as a stall.
 */
#include "sched/watchdog.h"

#include <arch/backtrace.h>
#include <arch/smp.h>
#include <arch/time.h>

#include "cmdline.h"
#include "lib/printf.h"
#include "lib/spinlock.h"
#include "panic.h"
#include "printk.h"
#include "sched/rt/rt.h"
#include "sched/sched.h"
#include "trace/trace.h"

#define NSEC_PER_MSEC 1000000ULL
#define PAUSE_NS      (250 * NSEC_PER_MSEC)
#define SCAN_MIN_NS   (50 * NSEC_PER_MSEC)
#define NMI_WAIT_US   1000000
#define HUNG_PER_SCAN 4

static s64 sched_watchdog_ms = 10000;
BOOT_OPTION_INT(
	sched_watchdog_ms, "sched_watchdog_ms", &sched_watchdog_ms, 0, 3600000,
	"stall watchdog: a queued task not run for this long fails its class (moved to fair); 0 off");
static s64 softlockup_ms = 10000;
BOOT_OPTION_INT(softlockup_ms, "softlockup_ms", &softlockup_ms, 0, 3600000,
		"soft-lockup detector: a CPU not scheduling for this long; 0 off");
static bool softlockup_panic;
BOOT_OPTION_BOOL(softlockup_panic, "softlockup_panic", &softlockup_panic,
		 "panic after a soft-lockup report instead of carrying on");
static s64 hardlockup_ms = 10000;
BOOT_OPTION_INT(hardlockup_ms, "hardlockup_ms", &hardlockup_ms, 0, 3600000,
		"hard-lockup detector: a CPU whose timer interrupt stopped this long; 0 off");
static bool hardlockup_panic;
BOOT_OPTION_BOOL(hardlockup_panic, "hardlockup_panic", &hardlockup_panic,
		 "panic after a hard-lockup report instead of carrying on");
static s64 hung_task_ms = 120000;
BOOT_OPTION_INT(hung_task_ms, "hung_task_ms", &hung_task_ms, 0, 36000000,
		"hung-task detector: a task blocked uninterruptibly this long; 0 off");
static bool hung_task_panic;
BOOT_OPTION_BOOL(hung_task_panic, "hung_task_panic", &hung_task_panic,
		 "panic after a hung-task report instead of carrying on");

/* One CPU's watchdog state, written by its own tick only. */
static struct wd_cpu {
	u64 last_tick;	   /* clock at its last tick; 0 before the first */
	u64 resumed;	   /* clock after its last long gap between ticks */
	u64 soft_reported; /* clock of its last soft-lockup report (or of its first tick) */
	u64 forced;	   /* clock of its last reschedule request for the soft-lockup check */
	u32 buddy;	   /* the CPU whose ticks it watches */
	u64 buddy_ticks;   /* ... their count when last seen to change */
	u64 buddy_stamp;   /* ... and when that was */
	bool buddy_reported;
} wd[MAX_CPUS];

static u64 next_scan; /* clock at which the next task walk is due */
static struct spinlock fail_lock = SPINLOCK_INIT;
static struct sched_watchdog_counts counts;

void sched_watchdog_counts(struct sched_watchdog_counts *out)
{
	*out = counts;
	out->stall_ms = sched_watchdog_ms;
	out->soft_ms = softlockup_ms;
	out->hard_ms = hardlockup_ms;
	out->hung_ms = hung_task_ms;
}

static u64 max_u64(u64 a, u64 b)
{
	return a > b ? a : b;
}

/* "12.345" for ns as seconds with three decimals, into buf. */
static const char *secs(char *buf, u64 ns)
{
	u64 ms = ns / NSEC_PER_MSEC;

	ksnprintf(buf, 24, "%llu.%03llu", (unsigned long long)(ms / 1000),
		  (unsigned long long)(ms % 1000));
	return buf;
}

/* A reference to p unless it is already on its way to being freed. */
static bool task_get_unless_zero(struct task *p)
{
	int refs = __atomic_load_n(&p->refs, __ATOMIC_RELAXED);

	while (refs > 0)
		if (__atomic_compare_exchange_n(&p->refs, &refs, refs + 1, false, __ATOMIC_ACQUIRE,
						__ATOMIC_RELAXED))
			return true;
	return false;
}

/* Locks p's pi_lock and runqueue (as core.c's task_rq_lock); interrupts are off already. */
static struct rq *lock_task_rq(struct task *p)
{
	spin_lock(&p->pi_lock);
	for (;;) {
		struct rq *rq = task_rq(p);

		spin_lock(&rq->lock);
		if (rq == task_rq(p))
			return rq;
		spin_unlock(&rq->lock);
	}
}

static void unlock_task_rq(struct task *p, struct rq *rq)
{
	spin_unlock(&rq->lock);
	spin_unlock(&p->pi_lock);
}

/* ---------------------------------------------------------------- what a report shows */

/* The CPU's runqueue: curr, nr_running, then each class's own listing (when locked). */
static void show_rq(struct rq *rq, bool locked)
{
	const struct sched_class *class;
	struct task *curr = READ_ONCE(rq->curr);
	char buf[24];

	pr_emerg("cpu%u runqueue: curr %s:%d (%s), nr_running %u, last scheduled %s s ago%s\n",
		 rq->cpu, curr->comm, curr->pid, curr == rq->idle ? "idle" : curr->sched_class->name,
		 READ_ONCE(rq->nr_running), secs(buf, arch_clock_ns() - READ_ONCE(rq->last_schedule)),
		 locked ? "" : " (its lock is held: no listing)");
	if (!locked)
		return;
	for_each_class (class)
		if (class->dump && !sched_class_failed(class))
			class->dump(rq);
}

static const char *const event_names[] = {
	[SCHED_EV_NONE] = "none",
	[SCHED_EV_SWITCH] = "switch",
	[SCHED_EV_WAKEUP] = "wakeup",
	[SCHED_EV_MIGRATE] = "migrate",
};

/* The CPU's event ring, oldest first (rq lock held). */
static void show_events(struct rq *rq)
{
	pr_emerg("last scheduler events on cpu%u, oldest first:\n", rq->cpu);
	for (u32 i = 0; i < SCHED_EVENTS; i++) {
		const struct sched_event *e = &rq->events.ev[(rq->events.next + i) % SCHED_EVENTS];
		u64 us = e->clock / 1000;

		if (e->type == SCHED_EV_NONE)
			continue;
		if (e->type == SCHED_EV_SWITCH)
			pr_emerg("  [%5llu.%06llu] %s pid %d -> pid %d\n",
				 (unsigned long long)(us / 1000000),
				 (unsigned long long)(us % 1000000), event_names[e->type], e->pid_a,
				 e->pid_b);
		else
			pr_emerg("  [%5llu.%06llu] %s pid %d %s cpu%u\n",
				 (unsigned long long)(us / 1000000),
				 (unsigned long long)(us % 1000000), event_names[e->type], e->pid_a,
				 e->type == SCHED_EV_WAKEUP ? "last ran on" : "from", e->other_cpu);
	}
}

/* ---------------------------------------------------------------- the fallback */

/* p, of the failed class, becomes fair where it stands (its pi_lock and rq lock held). */
static void rehome_one(struct task *p, void *arg)
{
	const struct sched_class *failed = arg;
	struct rq *rq;

	if (p->sched_class != failed)
		return;
	rq = lock_task_rq(p);
	if (p->sched_class == failed) {
		p->sched_class = &fair_sched_class;
		fair_adopt_task(rq, p);
	}
	unlock_task_rq(p, rq);
}

static u32 nr_of_class;

static void count_one(struct task *p, void *arg)
{
	if (p->sched_class == arg)
		nr_of_class++;
}

/*
 * Gives up on class: the core never calls it again and its tasks become
 * fair tasks (never through its own dequeue: its queue may be the
 * problem). New tasks get fair. Interrupts off, no lock held.
 */
static void fail_class(const struct sched_class *class)
{
	spin_lock(&fail_lock);
	if (sched_class_failed(class) || sched_nr_failed == SCHED_CLASSES_MAX) {
		spin_unlock(&fail_lock);
		return;
	}
	sched_failed_classes[sched_nr_failed] = class;
	__atomic_store_n(&sched_nr_failed, sched_nr_failed + 1, __ATOMIC_RELEASE);
	if (sched_default_class == class)
		sched_default_class = &fair_sched_class;
	spin_unlock(&fail_lock);
	nr_of_class = 0;
	sched_for_each_task(count_one, (void *)class);
	/* Said before the tasks move: once they run, their own output would cut into the block. */
	pr_emerg("sched: watchdog: class %s disabled; its %u tasks now run under fair\n",
		 class->name, nr_of_class);
	pr_emerg("sched: watchdog: end of stall report\n");
	sched_for_each_task(rehome_one, (void *)class);
}

/* ---------------------------------------------------------------- stalls and hung tasks */

struct scan {
	u64 now;
	struct task *stalled; /* the longest-waiting stalled task, with a reference */
	u64 stalled_for;
	struct task *hung[HUNG_PER_SCAN];
	u32 nr_hung;
};

static void scan_one(struct task *p, void *arg)
{
	struct scan *s = arg;
	u64 queued = READ_ONCE(p->stats.last_queued), blocked = READ_ONCE(p->stats.last_blocked);
	u32 cpu = READ_ONCE(p->cpu);

	if (sched_watchdog_ms && queued && READ_ONCE(p->on_rq) && cpu < sched_nr_cpus() &&
	    READ_ONCE(cpu_rq(cpu)->curr) != p && READ_ONCE(p->stats.wd_reported) != queued) {
		u64 since = max_u64(queued, wd[cpu].resumed);
		u64 waited = s->now > since ? s->now - since : 0;

		if (waited >= (u64)sched_watchdog_ms * NSEC_PER_MSEC && waited > s->stalled_for &&
		    task_get_unless_zero(p)) {
			if (s->stalled)
				task_put(s->stalled);
			s->stalled = p;
			s->stalled_for = waited;
		}
	}
	/* Exactly UNINTERRUPTIBLE: a killable wait (TASK_KILLABLE) can be ended, so is no hang. */
	if (hung_task_ms && READ_ONCE(p->state) == TASK_UNINTERRUPTIBLE && !READ_ONCE(p->on_rq) &&
	    blocked && s->now - blocked >= (u64)hung_task_ms * NSEC_PER_MSEC &&
	    READ_ONCE(p->stats.wd_reported) != blocked && s->nr_hung < HUNG_PER_SCAN &&
	    task_get_unless_zero(p))
		s->hung[s->nr_hung++] = p;
}

static void report_stall(struct task *p)
{
	const struct sched_class *class;
	struct rq *rq = lock_task_rq(p);
	u64 queued = p->stats.last_queued, now = arch_clock_ns();
	char b1[24], b2[24];
	bool give_up;

	/* Confirm under the locks: still queued, not running, the same wait. */
	if (!p->on_rq || task_running(rq, p) || !queued || p->stats.wd_reported == queued ||
	    now - max_u64(queued, wd[rq->cpu].resumed) < (u64)sched_watchdog_ms * NSEC_PER_MSEC) {
		unlock_task_rq(p, rq);
		return;
	}
	p->stats.wd_reported = queued;
	class = p->sched_class;
	counts.stalls++;
	trace_sched_watchdog("stall", rq->cpu, p, (now - queued) / NSEC_PER_MSEC);
	counts.last_stall_cpu = rq->cpu;
	counts.last_stall_pid = p->pid;
	/*
	 * A real-time task may wait for good behind a FIFO task of its own
	 * priority or above: that is its policy working, not its class failing.
	 */
	give_up = class != &fair_sched_class && class != &stop_sched_class &&
		  class != &idle_sched_class && !sched_policy_rt(p->policy);
	pr_emerg("sched: watchdog: BUG: runnable task stalled for %s s in class %s on cpu%u\n",
		 secs(b1, now - queued), class->name, rq->cpu);
	pr_emerg("task %s:%d class %s cpu%u: runnable since %s s, not run since\n", p->comm, p->pid,
		 class->name, rq->cpu, secs(b2, queued));
	show_rq(rq, true); /* the failing class's own listing among the others */
	if (!class->dump)
		pr_emerg("class %s has no dump operation\n", class->name);
	show_events(rq);
	unlock_task_rq(p, rq);
	if (give_up)
		fail_class(class);
	else
		pr_emerg("sched: watchdog: end of stall report\n");
}

static void report_hung(struct task *p)
{
	struct rq *rq = lock_task_rq(p);
	u64 blocked = p->stats.last_blocked, now = arch_clock_ns();
	char b1[24];

	if (p->state != TASK_UNINTERRUPTIBLE || p->on_rq || p->stats.wd_reported == blocked ||
	    now - blocked < (u64)hung_task_ms * NSEC_PER_MSEC) {
		unlock_task_rq(p, rq);
		return;
	}
	p->stats.wd_reported = blocked;
	counts.hung_tasks++;
	trace_sched_watchdog("hung_task", rq->cpu, p, (now - blocked) / NSEC_PER_MSEC);
	counts.last_hung_pid = p->pid;
	pr_emerg("INFO: task %s:%d blocked for more than %llu seconds.\n", p->comm, p->pid,
		 (unsigned long long)(hung_task_ms / 1000));
	pr_emerg("task:%s state:D pid:%d cpu:%u class:%s blocked for %s s\n", p->comm, p->pid,
		 p->cpu, p->sched_class->name, secs(b1, now - blocked));
	arch_show_task_trace(&p->ctx, p->stack, TASK_STACK_SIZE);
	show_rq(rq, true);
	unlock_task_rq(p, rq);
	if (hung_task_panic)
		panic("hung_task: blocked tasks");
}

static void scan_tasks(u64 now)
{
	struct scan s = { .now = now };

	sched_for_each_task(scan_one, &s);
	for (u32 i = 0; i < s.nr_hung; i++) {
		report_hung(s.hung[i]);
		task_put(s.hung[i]);
	}
	if (s.stalled) {
		report_stall(s.stalled);
		task_put(s.stalled);
	}
}

static u64 scan_period(void)
{
	u64 ms = 0, ns;

	if (sched_watchdog_ms)
		ms = (u64)sched_watchdog_ms;
	if (hung_task_ms && (!ms || (u64)hung_task_ms < ms))
		ms = (u64)hung_task_ms;
	ns = ms * NSEC_PER_MSEC / 4;
	return ns < SCAN_MIN_NS ? SCAN_MIN_NS : ns;
}

/* The first tick at or after the due time walks the tasks; the others go on. */
static void maybe_scan(u64 now)
{
	u64 due = __atomic_load_n(&next_scan, __ATOMIC_RELAXED);

	if (!sched_watchdog_ms && !hung_task_ms)
		return;
	if (!due) {
		__atomic_compare_exchange_n(&next_scan, &due, now + scan_period(), false,
					    __ATOMIC_RELAXED, __ATOMIC_RELAXED);
		return;
	}
	if ((s64)(now - due) < 0 ||
	    !__atomic_compare_exchange_n(&next_scan, &due, now + scan_period(), false,
					 __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
		return;
	scan_tasks(now);
}

/* ---------------------------------------------------------------- lockups */

static void check_soft_lockup(struct rq *rq, struct wd_cpu *w, u64 now)
{
	u64 thresh = (u64)softlockup_ms * NSEC_PER_MSEC;
	u64 sched_at = max_u64(READ_ONCE(rq->last_schedule), w->resumed);
	struct task *curr;
	char buf[24];

	if (!softlockup_ms)
		return;
	if (now - max_u64(sched_at, w->soft_reported) < thresh) {
		/* Ask for a pass through schedule() before the threshold comes near. */
		if (now - max_u64(sched_at, w->forced) >= thresh / 5) {
			w->forced = now;
			spin_lock(&rq->lock);
			resched_curr(rq);
			spin_unlock(&rq->lock);
		}
		return;
	}
	w->soft_reported = now;
	curr = rq->curr;
	counts.soft_lockups++;
	trace_sched_watchdog("soft_lockup", rq->cpu, curr, (now - sched_at) / NSEC_PER_MSEC);
	counts.last_soft_cpu = rq->cpu;
	counts.last_soft_pid = curr->pid;
	pr_emerg("watchdog: BUG: soft lockup - CPU#%u stuck for %ss! [%s:%d]\n", rq->cpu,
		 secs(buf, now - sched_at), curr->comm, curr->pid);
	pr_emerg("CPU: %u PID: %d Comm: %s\n", rq->cpu, curr->pid, curr->comm);
	arch_show_interrupted();
	spin_lock(&rq->lock);
	show_rq(rq, true);
	spin_unlock(&rq->lock);
	if (softlockup_panic)
		panic("softlockup: hung tasks");
}

static u32 next_online_cpu(u32 cpu)
{
	u32 n = sched_nr_cpus();

	for (u32 i = 1; i < n; i++) {
		u32 c = (cpu + i) % n;

		if (arch_cpu_online(c))
			return c;
	}
	return cpu;
}

static void report_hard_lockup(u32 cpu, u64 frozen_ns)
{
	struct rq *rq = cpu_rq(cpu);
	bool locked;
	char buf[24];

	trace_sched_watchdog("hard_lockup", cpu, NULL, frozen_ns / NSEC_PER_MSEC);
	pr_emerg("watchdog: Watchdog detected hard LOCKUP on cpu %u (no timer interrupt for %s s; "
		 "seen from cpu%u)\n",
		 cpu, secs(buf, frozen_ns), arch_cpu_id());
	if (!arch_cpu_backtrace(cpu, NMI_WAIT_US))
		pr_emerg("watchdog: cpu%u did not answer the NMI\n", cpu);
	locked = spin_trylock(&rq->lock);
	show_rq(rq, locked);
	if (locked)
		spin_unlock(&rq->lock);
	/* Counted once the report is out: the test's spinner ends when it sees the count move. */
	counts.last_hard_cpu = cpu;
	__atomic_add_fetch(&counts.hard_lockups, 1, __ATOMIC_RELEASE);
	if (hardlockup_panic)
		panic("Hard LOCKUP");
}

static void check_hard_lockup(struct wd_cpu *w, u32 cpu, u64 now)
{
	u32 buddy;
	u64 ticks;

	if (!hardlockup_ms || sched_nr_cpus() < 2)
		return;
	buddy = next_online_cpu(cpu);
	if (buddy == cpu)
		return;
	ticks = arch_cpu_timer_ticks(buddy);
	if (buddy != w->buddy || ticks != w->buddy_ticks || w->resumed == now) {
		w->buddy = buddy;
		w->buddy_ticks = ticks;
		w->buddy_stamp = now;
		w->buddy_reported = false;
		return;
	}
	if (!w->buddy_reported && now - w->buddy_stamp >= (u64)hardlockup_ms * NSEC_PER_MSEC) {
		w->buddy_reported = true;
		report_hard_lockup(buddy, now - w->buddy_stamp);
	}
}

/* ---------------------------------------------------------------- entry points */

void sched_watchdog_tick(struct rq *rq)
{
	struct wd_cpu *w = &wd[rq->cpu];
	u64 now = arch_clock_ns();

	if (!now || machine_stopping())
		return;
	if (!w->last_tick) {
		w->soft_reported = w->forced = w->resumed = now;
	} else if (now - w->last_tick > PAUSE_NS) {
		w->resumed = now; /* this CPU did not run for a while (a paused virtual CPU) */
	}
	w->last_tick = now;
	check_soft_lockup(rq, w, now);
	check_hard_lockup(w, rq->cpu, now);
	maybe_scan(now);
}

void sched_watchdog_new_task(struct task *p)
{
	p->sched_class = &fair_sched_class;
}

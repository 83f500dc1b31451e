/*
 * The scheduler's internals, shared by core.c (runqueues, schedule, wake-up,
 * tick), the classes (fair.c, idle.c), placement (select.c) and balancing
 * (balance.c). Everything here also builds on the host for unit tests.
 *
 * Locking:
 *   rq->lock        guards the runqueue and every queued task's scheduling
 *                   fields; taken with interrupts off. Two runqueue locks
 *                   are taken in CPU order (double_rq_lock).
 *   task->pi_lock   serialises wake-ups of a task and its CPU choice; taken
 *                   before rq->lock, never inside it.
 *   A task's cpu field changes with the old and new rq locks held (the
 *   balancer moving a queued task), or with pi_lock held while the task
 *   is off every queue (a wake-up placing it). So a change to a queued
 *   task takes pi_lock, then its rq lock, and re-checks task_cpu()
 *   (task_rq_lock in core.c).
 */
#ifndef FULCRUM_SCHED_SCHED_H
#define FULCRUM_SCHED_SCHED_H

#include "lib/compiler.h"
#include "lib/cpumask.h"
#include "lib/list.h"
#include "lib/rbtree.h"
#include "lib/spinlock.h"
#include "lib/types.h"
#include "machine.h"
#include "sched/features.h"
#include "sched/topology.h"
#include "sched/task.h"
#include "sched/wait.h"

#define NICE_0_LOAD 1024

#define CPU_LOAD_IDX_MAX 5

/* Enqueue/dequeue flags, as in Linux 3.8. */
#define ENQUEUE_WAKEUP 0x01
#define ENQUEUE_HEAD   0x02
#define ENQUEUE_WAKING 0x04 /* vruntime is relative to the old queue's min_vruntime */
#define DEQUEUE_SLEEP  0x01

/* Wake flags. */
#define WF_SYNC	    0x01 /* the waker goes to sleep soon */
#define WF_FORK	    0x02 /* a new task's first wake-up */
#define WF_MIGRATED 0x04 /* placed on another CPU than before */

/* CFS runqueue: one per CPU (no group scheduling). */
struct cfs_rq {
	struct load_weight load;
	u32 nr_running;
	u64 min_vruntime;
	struct rb_root_cached tasks_timeline;
	struct sched_entity *curr, *next, *last, *skip;
	struct cfs_pelt pelt; /* load tracking of the queue (pelt.c) */
	/*
	 * sched_fair=eevdf only (eevdf.c): over the entities in the timeline
	 * (not curr), sum of (vruntime - min_vruntime) * weight and sum of
	 * weight; and the delayed-dequeue entities, which are in the timeline,
	 * the load and those sums but not in nr_running.
	 */
	s64 avg_vruntime;
	u64 avg_load;
	u32 nr_delayed;
};

/* schedstat per-CPU counters, in /proc/schedstat version 15 order. */
struct rq_sched_stats {
	u64 yld_count;
	u64 sched_count;
	u64 sched_goidle;
	u64 ttwu_count;
	u64 ttwu_local;
	u64 rq_cpu_time;
	u64 run_delay;
	u64 pcount;
	u64 wasted_idle_ns; /* idle while an allowed task waited on another queue */
	u64 nr_migrations;  /* tasks moved here from another CPU (core.c: set_task_cpu) */
};

/*
 * The last scheduler events on one CPU, for the stall watchdog's report
 * (kernel/sched/watchdog.c): a ring of SCHED_EVENTS entries written under
 * the CPU's rq lock, a few stores each.
 */
enum sched_event_type {
	SCHED_EV_NONE,
	SCHED_EV_SWITCH,  /* pid_a switched out, pid_b in */
	SCHED_EV_WAKEUP,  /* pid_a woken here; other_cpu: the CPU it last ran on */
	SCHED_EV_MIGRATE, /* pid_a moved here by the balancer from other_cpu */
};

#define SCHED_EVENTS 16

struct sched_event {
	u64 clock;
	u8 type;
	u32 other_cpu;
	int pid_a, pid_b;
};

struct sched_event_ring {
	u32 next; /* index of the next entry to write, mod SCHED_EVENTS */
	struct sched_event ev[SCHED_EVENTS];
};

struct rq {
	struct spinlock lock;
	u32 cpu;
	bool online;
	u32 nr_running;
	/*
	 * Of nr_running, the tasks their class holds back for now (real-time
	 * throttling): queued, but the CPU may idle with them. Set by the class.
	 */
	u32 nr_throttled;
	struct load_weight load; /* sum of queued tasks' weights */
	unsigned long cpu_load[CPU_LOAD_IDX_MAX];
	unsigned long cpu_power; /* SCHED_POWER_SCALE for a whole CPU */
	struct cfs_rq cfs;
	struct list_head cfs_tasks; /* queued fair tasks, for the balancer */
	struct task *curr, *idle;
	struct task *prev_task; /* the task switched away from, until finish_task_switch */
	bool need_resched;
	u64 clock; /* ns, updated under the lock */
	u64 clock_task;
	u64 idle_stamp, avg_idle;
	u64 next_balance; /* clock at which periodic balancing is due */
	u64 nr_switches;
	u64 last_schedule; /* clock at the last pass through __schedule (soft-lockup check) */
	struct sched_event_ring events;
	struct rq_sched_stats stats;
};

/*
 * The core's run-time accounting, which every class calls to charge the
 * running task (from its update_curr, task_tick, put_prev_task ...): rq
 * lock held, rq->curr the task being charged. Advances rq->curr's
 * sum_exec_runtime and exec_start to rq->clock_task, counts the time in
 * rq's schedstat, and returns the ns charged (0 if the clock did not
 * move). Inline: it runs several times per context switch.
 */
static inline u64 update_curr_common(struct rq *rq)
{
	struct task *curr = rq->curr;
	u64 now = rq->clock_task, delta = now - curr->exec_start;

	if ((s64)delta <= 0)
		return 0;
	curr->sum_exec_runtime += delta;
	curr->exec_start = now;
	rq->stats.rq_cpu_time += delta; /* schedstat: time tasks ran here */
	return delta;
}

/* Why the core calls a class's balance operation. */
enum sched_balance_why {
	/*
	 * rq is about to go idle (schedule(), nothing queued): pull work now.
	 * rq->lock held, interrupts off; the class may drop and retake the lock.
	 */
	SCHED_BALANCE_NEWIDLE,
	/* The tick on rq's CPU: periodic balancing. Interrupts off, no rq lock held. */
	SCHED_BALANCE_TICK,
};

/*
 * A scheduling policy: the whole boundary between the core (core.c) and a
 * class. The core calls a class only through these operations and never
 * touches its per-runqueue or per-task state; a class keeps its per-task
 * state in the task's class slot (p->se for fair, sched_task_priv()
 * otherwise) and charges run time only through update_curr_common().
 * docs/scheduler-classes.md has the table of operations.
 *
 * Unless said otherwise an operation runs with rq->lock held and interrupts
 * off, and acts on rq (p's runqueue) only. "Required": a class without it
 * is refused at registration (sched_classes_init() names the operation);
 * every other operation may be NULL, which the core reads as "nothing to do".
 */
struct sched_class {
	const char *name; /* what sched= calls it; required */
	int rank; /* lower runs first: stop 0, fair 100, idle 1000; a lab class picks its place */

	/*
	 * Per-runqueue set-up: sched_init() calls it for every class and every
	 * runqueue before any task exists (no lock needed, nothing runs yet).
	 * A class with per-CPU state outside struct rq initialises it here.
	 */
	void (*rq_init)(struct rq *rq);

	/* Required. Makes p runnable on rq (the core sets p->on_rq and rq->nr_running). */
	void (*enqueue_task)(struct rq *rq, struct task *p, int flags);
	/* Required. Removes p from rq's queue (p may be rq->curr). */
	void (*dequeue_task)(struct rq *rq, struct task *p, int flags);
	/* rq->curr gives up the CPU (task_yield, the sched_yield system call); schedule() follows. */
	void (*yield_task)(struct rq *rq);
	/*
	 * p of this class became runnable on rq while rq->curr is of this class
	 * too: should rq->curr be preempted? Calls resched_curr() if so. (A task
	 * of a higher class always preempts; the core decides that itself.)
	 */
	void (*check_preempt_curr)(struct rq *rq, struct task *p, int wake_flags);
	/*
	 * Required. The task of this class to run next on rq, now the class's
	 * current, or NULL if it has none. The core then makes it rq->curr and
	 * starts its run-time accounting (exec_start, prev_sum_exec_runtime).
	 */
	struct task *(*pick_next_task)(struct rq *rq);
	/*
	 * Required. prev (rq->curr, of this class) stops running; it may still
	 * be queued (preempted), then the class puts it back among its waiters.
	 */
	void (*put_prev_task)(struct rq *rq, struct task *prev);
	/*
	 * Chooses a CPU for p (sd_flag: SD_BALANCE_WAKE/FORK/EXEC). Runs with
	 * p->pi_lock held and no rq lock; reads the sched topology snapshot.
	 * NULL: p stays on its CPU. The core falls back on an allowed online
	 * CPU if the answer is not one.
	 */
	u32 (*select_task_rq)(struct task *p, int sd_flag, int wake_flags);
	/* Charges rq->curr (of this class) its run time up to rq->clock_task (task_sched_runtime). */
	void (*update_curr)(struct rq *rq);
	/* The tick hit while p (rq->curr, of this class) ran. */
	void (*task_tick)(struct rq *rq, struct task *p);
	/*
	 * p joins the class: a new task at creation (no lock held, p not yet
	 * visible to anyone), or an existing one in sched_setclass() (p's
	 * rq->lock and pi_lock held, p dequeued and not current in its old
	 * class). Initialises p's class slot, which the core has zeroed.
	 */
	void (*task_init)(struct task *p);
	/* A new task p is about to be woken for the first time (task_wake_new); no rq lock. */
	void (*task_fork)(struct task *p);
	/* p is about to be woken (before select_task_rq); pi_lock held, no rq lock. */
	void (*task_waking)(struct task *p);
	/* p moves to new_cpu while not queued there yet. */
	void (*migrate_task_rq)(struct task *p, u32 new_cpu);
	/* p's nice changed, p already re-queued with its new weight if queued. */
	void (*prio_changed)(struct rq *rq, struct task *p, int old_nice);
	/*
	 * sched_setclass(): p leaves this class (already dequeued and put, if
	 * it was queued and running) ...
	 */
	void (*switched_from)(struct rq *rq, struct task *p);
	/*
	 * ... and p has joined this class: task_init() done, p enqueued if it
	 * is runnable. If p is rq->curr it is running: the class takes it as
	 * its current, as if pick_next_task() had returned it.
	 */
	void (*switched_to)(struct rq *rq, struct task *p);
	/*
	 * p of this class has exited and run for the last time (after its
	 * final switch away; no lock held, p off every queue). Frees whatever
	 * the class allocated for p; p itself is freed by the core later.
	 */
	void (*task_dead)(struct task *p);
	/*
	 * Balancing between runqueues, called by the core for every class in
	 * rank order: see enum sched_balance_why for the two cases and their
	 * locks. For SCHED_BALANCE_NEWIDLE the core stops at the first class
	 * after which rq has a task queued.
	 */
	void (*balance)(struct rq *rq, enum sched_balance_why why);
	/*
	 * A task of this class queued on rq, not running, that may run on cpu,
	 * or NULL; looks at no more than max of its tasks. For schedstat's
	 * wasted-idle time and sched_wasted_check (stats.c), from cpu's tick
	 * with rq->lock held (taken by trylock). NULL op: the class's waiting
	 * tasks are not counted.
	 */
	struct task *(*waiter_for)(struct rq *rq, u32 cpu, u32 max);
	/*
	 * How many tasks of this class are queued on rq (its running one
	 * included), each also counted in rq->nr_running. For sched_verify's
	 * per-pick check that the classes together hold no more tasks than
	 * rq->nr_running says (verify.c); rq lock held, must change nothing.
	 * NULL op: the class's tasks are left out of that check.
	 */
	u32 (*nr_queued)(const struct rq *rq);
	/*
	 * Optional. Prints rq's queue as this class sees it (one pr_emerg line
	 * per queued task, then anything else worth knowing), for the stall
	 * watchdog's report. rq lock held, interrupts off; it must not sleep
	 * nor change anything, and should expect a queue that may be wrong
	 * (that is why it is being called): bound every walk.
	 */
	void (*dump)(struct rq *rq);
};

/*
 * Per-task state of a class defined outside the kernel's own files (a lab
 * class, a test's FIFO class): each task has a class slot of
 * SCHED_TASK_PRIV_SIZE bytes, shared by the classes (a union: only the
 * task's current class uses it). A class reads and writes its state as
 *
 *	struct my_task *mt = sched_task_priv(p, struct my_task);
 *
 * which fails to compile if the type does not fit or needs more than
 * 8-byte alignment. The core zeroes the slot before the class's task_init.
 * sched_priv_task(mt) goes back from the state to its task.
 */
#define sched_task_priv(p, type)                                                              \
	({                                                                                    \
		_Static_assert(sizeof(type) <= SCHED_TASK_PRIV_SIZE, "class slot too small"); \
		_Static_assert(_Alignof(type) <= 8, "class slot aligned to 8 bytes only");    \
		(type *)(void *)(p)->class_priv;                                              \
	})
#define sched_priv_task(priv) container_of((void *)(priv), struct task, class_priv)

/*
 * Moves p to class (the watchdog's fallback, the stopper's adoption):
 * takes p's pi_lock and rq lock. p is dequeued from and put by its old
 * class if queued / running, switched_from, its slot zeroed, then
 * task_init, enqueued (if it was queued), switched_to. No-op if p already
 * is in class. __sched_setclass() is the same with both locks held.
 */
void sched_setclass(struct task *p, const struct sched_class *class);
void __sched_setclass(struct rq *rq, struct task *p, const struct sched_class *class);

/*
 * schedule()'s bookkeeping, everything but the context switch, shared by
 * the kernel's __schedule() and the host simulators: rq->lock held,
 * interrupts off. Updates the clock; takes prev (rq->curr) off the queue
 * if it is going to sleep (not when preempt: a preempted task stays
 * queued); lets the classes balance (SCHED_BALANCE_NEWIDLE) if nothing is
 * left queued; puts prev; picks next (the first class with a task);
 * counts it in the statistics; and, if next is not prev, makes it rq->curr
 * with on_cpu set and prev in rq->prev_task. Returns next. The caller
 * switches to next and, in next, clears prev->on_cpu and drops the lock.
 */
struct task *sched_pick_next(struct rq *rq, bool preempt);

extern const struct sched_class stop_sched_class;
extern const struct sched_class fair_sched_class;
extern const struct sched_class idle_sched_class;

/*
 * A policy class (fair, a lab's round-robin, an EEVDF variant...) is one
 * file defining a struct sched_class and one line registering it:
 *
 *	SCHED_CLASS_REGISTER(rr_sched_class);
 *
 * sched_init() orders the registered classes by rank between stop and
 * idle; `sched=NAME` chooses the class of new tasks (default: fair).
 */
#define SCHED_CLASS_REGISTER(cls)                                                        \
	static const struct sched_class *const __sched_class_##cls __attribute__((used)) \
	__attribute__((section("sched_classes"), aligned(8))) = &(cls)

#define SCHED_CLASSES_MAX 8

/* Every class, highest-priority first, stop ... idle; NULL-terminated. */
extern const struct sched_class *sched_class_list[SCHED_CLASSES_MAX + 3];
#define for_each_class(class) \
	for (const struct sched_class *const *__c = sched_class_list; ((class) = *__c); __c++)

/* The class new tasks get (sched=). */
extern const struct sched_class *sched_default_class;

/*
 * Classes the stall watchdog gave up on: the core never calls them again
 * (the pick loop skips them; their tasks were moved to fair).
 */
extern const struct sched_class *sched_failed_classes[SCHED_CLASSES_MAX];
extern u32 sched_nr_failed;

static inline bool sched_class_failed(const struct sched_class *class)
{
	for (u32 i = 0; i < __atomic_load_n(&sched_nr_failed, __ATOMIC_ACQUIRE); i++)
		if (sched_failed_classes[i] == class)
			return true;
	return false;
}

/* A registered class by name, or NULL. */
const struct sched_class *sched_class_find(const char *name);

/*
 * Builds sched_class_list: stop, then classes[0..n) by rank, then idle
 * (sched_init() passes the registered classes). A class without a name or
 * a required operation is left out after a pr_err naming the class and
 * the operation. Returns how many were left out. Exposed for tests.
 */
u32 sched_classes_setup(const struct sched_class *const *classes, u32 n);

/* ---------------------------------------------------------------- runqueues */

struct rq *cpu_rq(u32 cpu);
struct rq *this_rq(void);
u32 sched_nr_cpus(void); /* CPUs with a runqueue */

static inline u32 task_cpu(const struct task *p)
{
	return p->cpu;
}

static inline struct rq *task_rq(const struct task *p)
{
	return cpu_rq(p->cpu);
}

static inline bool task_running(const struct rq *rq, const struct task *p)
{
	return rq->curr == p;
}

void update_rq_clock(struct rq *rq);

/* Asks rq's current task to reschedule; sends an IPI when rq is another CPU. */
void resched_curr(struct rq *rq);

/* Adds / removes a task on a runqueue's accounting (rq lock held). */
void activate_task(struct rq *rq, struct task *p, int flags);
void deactivate_task(struct rq *rq, struct task *p, int flags);

/* rq lock held: moves queued, not running p from its rq to dst (both locked). */
void move_queued_task(struct rq *src, struct rq *dst, struct task *p);

void double_rq_lock(struct rq *a, struct rq *b);
void double_rq_unlock(struct rq *a, struct rq *b);

/* True if cpu runs its idle task with nothing queued. */
bool idle_cpu(u32 cpu);

/* ---------------------------------------------------------------- weights */

extern const int prio_to_weight[40];
extern const u32 prio_to_wmult[40];

void set_load_weight(struct task *p);
void update_load_add(struct load_weight *lw, unsigned long inc);
void update_load_sub(struct load_weight *lw, unsigned long dec);

/* delta * weight / lw->weight with the cached inverse (Linux's calc_delta_mine). */
u64 calc_delta_mine(u64 delta, unsigned long weight, struct load_weight *lw);

/* ---------------------------------------------------------------- tunables */

/*
 * Effective values in ns: the normalised (1-CPU) values times
 * 1 + ilog2(min(online CPUs, 8)), as Linux's SCHED_TUNABLESCALING_LOG.
 * Set on the command line as sched_latency_ns= etc. (normalised values).
 */
extern u64 sysctl_sched_latency;
extern u64 sysctl_sched_min_granularity;
extern u64 sysctl_sched_wakeup_granularity;
extern u64 sysctl_sched_migration_cost;

/*
 * The CPU's recent idle periods, which new-idle balancing reads to judge
 * whether pulling is worth it: the core's, whatever the class (Linux keeps
 * them in ttwu_do_wakeup and sched_init). A class stamps rq->idle_stamp
 * when rq goes idle; a wake-up on rq (rq->lock held) folds the period
 * since the stamp into rq->avg_idle -- an eighth of the difference,
 * periods longer than 2 * migration cost counted as that -- and clears
 * the stamp. avg_idle starts at 2 * sysctl_sched_migration_cost.
 */
void rq_update_avg_idle(struct rq *rq);

static inline u64 rq_initial_avg_idle(void)
{
	return 2 * sysctl_sched_migration_cost;
}
extern u32 sched_nr_latency;

/* Recomputes the effective tunables for ncpus online CPUs. */
void sched_update_tunables(u32 ncpus);

/*
 * The CFS knobs at run time, by Linux's sysctl names (sched_latency_ns,
 * ...): the effective values; setting one sets its 1-CPU value to
 * value / (1 + log2 CPUs) as Linux does, within Linux's bounds (-EINVAL),
 * and recomputes the rest. -ENOENT for another name. sched_tunable_name(i)
 * lists them (NULL past the last).
 */
const char *sched_tunable_name(u32 i);
int sched_tunable_get(const char *name, u64 *value);
int sched_tunable_set(const char *name, u64 value, u32 ncpus);

/* ---------------------------------------------------------------- core entry points */

/* Sets up a runqueue and an idle task per CPU of m; the caller's context becomes CPU 0's idle task. */
int sched_init(const struct machine *m);

/* The tick on cpu (interrupts off). */
void scheduler_tick(u32 cpu);

/* Each CPU's idle loop, entered once it has nothing else to do; never returns. */
__noreturn void sched_idle_loop(void);

/* Woken whenever a task exits (task_reap waits here); task.c's. */
extern struct wait_queue task_exit_wq;

/*
 * The scheduler's part of a new task t (task.c's task_create, the idle
 * tasks): state, the default class (its task_init called), nice and
 * weight, every CPU allowed, the name. t is zeroed and not yet visible.
 */
void sched_task_init(struct task *t, const char *name, int nice);

/* A new task's first code (kthread_entry): finishes the switch that started it (drops the lock). */
void schedule_tail(void);

/* From interrupt exit (interrupts off): switch away if the tick or a wake-up asked for it. */
void preempt_schedule_irq(void);

/* ---------------------------------------------------------------- checks */

/*
 * The stall watchdog -> fair: p, of a class given up on, becomes a fair
 * task where it stands (p->sched_class already fair; p's pi_lock and rq
 * lock held); nothing of the old class is called or trusted. Queued: into
 * the timeline at min_vruntime; running: fair's current, so that
 * put_prev_task finds it as it would any fair task; asleep: a vruntime
 * that task_waking_fair can make relative.
 */
void fair_adopt_task(struct rq *rq, struct task *p);

/*
 * Checks rq's CFS queue (rq lock held): the timeline is a valid rbtree in
 * vruntime order with the right leftmost, the running task is not in it,
 * nr_running and the loads match the queued tasks, buddies are queued
 * here, min_vruntime has not decreased since the last check. Returns 0,
 * or -EINVAL after a pr_err per problem. Run at every enqueue, dequeue and
 * pick when sched_feat(SCHED_VERIFY).
 */
int fair_verify(struct rq *rq);

/*
 * The class-independent checks at every pick (rq lock held): next belongs
 * to this CPU and may run on it, is queued and not dead and is not running
 * anywhere else; an idle pick finds nothing queued. Counted with the rest.
 */
void sched_verify_pick(struct rq *rq, struct task *prev, struct task *next);

/*
 * Under SCHED_VERIFY: checks that this CPU holds rq->lock, as the caller's
 * contract says (pr_err naming the function, counted with the other
 * checks). Otherwise one predictable branch. Whether another CPU holds it
 * is known only in a SPINLOCK_DEBUG build (lib/spinlock.h).
 */
#define assert_rq_held(rq)                                    \
	do {                                                  \
		if (sched_feat(SCHED_VERIFY))                 \
			sched_verify_rq_held((rq), __func__); \
	} while (0)
void sched_verify_rq_held(struct rq *rq, const char *func);

/* Counts one invariant check; ok false counts a violation too. */
void sched_verify_count(bool ok);

/* Checks made and violations found since boot, over every CPU. */
void sched_verify_totals(u64 *checks, u64 *violations);

/* Appends an event to rq's ring (rq lock held). */
static inline void sched_event_record(struct rq *rq, u8 type, int pid_a, int pid_b, u32 other_cpu)
{
	struct sched_event *e = &rq->events.ev[rq->events.next++ % SCHED_EVENTS];

	e->clock = rq->clock;
	e->type = type;
	e->pid_a = pid_a;
	e->pid_b = pid_b;
	e->other_cpu = other_cpu;
}

/* ---------------------------------------------------------------- watchdogs (watchdog.c) */

/* From every CPU's tick, after scheduler_tick's own work (interrupts off, no rq lock). */
void sched_watchdog_tick(struct rq *rq);

/* A new task of a class that has failed: gives it to fair before its first wake-up. */
void sched_watchdog_new_task(struct task *p);

/* Per-CPU load history, updated every tick (Linux 3.8's cpu_load[]). */
void update_cpu_load(struct rq *rq);

#endif

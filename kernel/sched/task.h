/*
 * struct task: one schedulable thread -- a kernel thread, or a thread of
 * a user process (kernel/proc hangs its state off proc) -- and the calls
 * other subsystems make on tasks: create, sleep, wake, exit (task.c for
 * their lives, core.c for scheduling). The scheduler's internals are in
 * kernel/sched/sched.h.
 */
#ifndef FULCRUM_SCHED_TASK_H
#define FULCRUM_SCHED_TASK_H

#include <arch/context.h>

#include "lib/cpumask.h"
#include "lib/list.h"
#include "lib/rbtree.h"
#include "lib/spinlock.h"
#include "lib/types.h"
#include "sched/pelt.h"

#define TASK_COMM_LEN 16

/* Task states, as Linux names them. */
#define TASK_RUNNING	     0
#define TASK_INTERRUPTIBLE   1
#define TASK_UNINTERRUPTIBLE 2
#define TASK_DEAD	     64
#define TASK_WAKEKILL	     256 /* with UNINTERRUPTIBLE: a fatal signal ends the wait */
/* Blocked, but a fatal signal ends it (vfork's wait): not a hung task, as on Linux. */
#define TASK_KILLABLE	     (TASK_WAKEKILL | TASK_UNINTERRUPTIBLE)

/* Scheduling policies (Linux's numbers). FIFO and RR: the real-time class, kernel/sched/rt/. */
#define SCHED_NORMAL 0
#define SCHED_FIFO   1
#define SCHED_RR     2
#define SCHED_BATCH  3
#define SCHED_IDLE   5

#define NICE_MIN (-20)
#define NICE_MAX 19

struct load_weight {
	unsigned long weight;
	u32 inv_weight; /* 2^32 / weight; 0 means "recompute" */
};

/*
 * A CFS-scheduled entity (a task; groups would be entities too): the fair
 * class's per-task state, in its slot of struct task. Its weight is the
 * task's (task->load), its run time the task-level accounting below.
 */
struct sched_entity {
	struct rb_node run_node;     /* in cfs_rq.tasks_timeline while queued and not running */
	struct list_head group_node; /* in rq.cfs_tasks while queued (the balancer's list) */
	bool on_rq;
	u64 vruntime; /* virtual runtime (ns at nice 0), wrap-safe compares */

	/* sched_fair=eevdf only (kernel/sched/eevdf.c); CFS leaves them alone. */
	bool sched_delayed;   /* asleep, but left queued until its lag is burnt off */
	bool custom_slice;    /* slice set by sched_setattr(2), not the base slice */
	bool rel_deadline;    /* deadline holds deadline - vruntime while between queues */
	bool place_initial;   /* new task: its first enqueue is an initial placement */
	u64 deadline;	      /* virtual deadline: vruntime + slice / weight when it was set */
	u64 min_vruntime;     /* the smallest vruntime in its timeline subtree (augmented) */
	s64 vlag;	      /* V - vruntime when it left; while running, the deadline it got */
	u64 slice;	      /* requested run time, ns */
	unsigned long weight; /* the weight it was queued with, in the queue's sums */
};

/* Bytes of the class slot of struct task (fair's sched_entity and any class's state fit). */
#define SCHED_TASK_PRIV_SIZE 128
_Static_assert(sizeof(struct sched_entity) <= SCHED_TASK_PRIV_SIZE, "fair's entity fits the slot");

/* Per-task scheduling statistics (issue 4 item 8). */
struct task_sched_stats {
	u64 run_delay;	  /* ns spent runnable but waiting on a runqueue */
	u64 last_queued;  /* clock when it last became runnable and waiting, 0 if not */
	u64 last_blocked; /* clock when it last went to sleep (the hung-task check) */
	u64 wd_reported;  /* the last_queued or last_blocked a watchdog already reported */
	u64 pcount;	  /* times it was picked to run (timeslices) */
	u64 nr_voluntary_switches;
	u64 nr_involuntary_switches;
	u64 nr_wakeups, nr_wakeups_sync, nr_wakeups_migrate, nr_wakeups_local, nr_wakeups_remote,
		nr_wakeups_affine, nr_wakeups_affine_attempts;
};

struct sched_class;
struct process;
struct user_regs;
struct arch_mm;
struct vfork_wait;

struct task {
	/* Scheduler state: see the locking rules in kernel/sched/sched.h. */
	volatile long state; /* TASK_* */
	const struct sched_class *sched_class;
	/*
	 * The class slot: the per-task state of the task's current class. Fair
	 * uses se; every other class its own type through sched_task_priv()
	 * (kernel/sched/sched.h). sched_setclass() zeroes it between classes.
	 */
	union {
		struct sched_entity se;
		unsigned char class_priv[SCHED_TASK_PRIV_SIZE];
	};
	int on_rq;	     /* queued on cpu's runqueue (running counts) */
	volatile int on_cpu; /* running, or its context not yet saved */
	u32 cpu;	     /* the runqueue it is on, or was last on */
	int nice;	     /* -20..19 */
	u32 policy;	     /* SCHED_* */
	u32 rt_priority;     /* SCHED_FIFO/RR: 1..99 (higher runs first); 0 otherwise */
	struct cpumask cpus_allowed;
	u32 nr_cpus_allowed;
	volatile bool migration_pending; /* set_cpus_allowed() is moving it off a CPU it may not use */
	struct spinlock pi_lock;	 /* serialises wake-ups of this task */
	int preempt_count; /* > 0: no preemption at interrupt exit (preempt_disable) */
	struct task_sched_stats stats;

	/*
	 * Class-independent accounting, kept by the core: the weight its nice
	 * value gives it (set_load_weight) and its run time, which every class
	 * advances through update_curr_common() while the task runs.
	 */
	struct load_weight load;
	u64 exec_start;		   /* clock_task when it last started running or was accounted */
	u64 sum_exec_runtime;	   /* ns it has run, in total */
	u64 prev_sum_exec_runtime; /* sum_exec_runtime when it was last picked */
	u64 nr_migrations;	   /* times it moved to another CPU (set_task_cpu) */
	struct sched_avg pelt;	   /* a fair task's load tracking (pelt.c) */

	/* Identity and life. */
	int pid;
	char comm[TASK_COMM_LEN];
	struct list_head all_tasks; /* in the global task list */
	struct arch_context ctx;
	void *stack; /* kernel stack (TASK_STACK_SIZE), NULL for boot/idle tasks */
	void (*thread_fn)(void *arg);
	void *thread_arg;
	int exit_code;
	int refs; /* task_get/put: the last put frees it (after task_reap) */

	/* A user thread's state, kernel/proc's (proc NULL: a kernel thread). */
	struct process *proc;
	struct list_head thread_node; /* in proc->threads */
	u64 sig_pending;	      /* signals sent to this thread (bit sig - 1) */
	u64 sig_blocked;
	u64 sig_saved_blocked;	       /* ppoll/pselect6: the mask from before the call's own */
	bool sig_restore_blocked;      /* ... which comes back after signal delivery */
	int *clear_child_tid;	       /* CLONE_CHILD_CLEARTID / set_tid_address */
	struct user_regs *user_regs;   /* its ring-3 registers, at the top of its kernel stack */
	struct arch_mm *mm;	       /* the page tables it runs on; NULL: kernel only */
	struct vfork_wait *vfork_done; /* a vfork child: its parent's wait, until exec or exit */
};

#define TASK_STACK_SIZE 16384

/* The task running on this CPU. */
struct task *current_task(void);

/*
 * Creates a kernel thread running fn(arg) with the given name and nice
 * value, placed by the fork balancing path and woken. Returns it, or NULL
 * when out of memory. Returning from fn exits the thread.
 */
struct task *kthread_create(void (*fn)(void *arg), void *arg, const char *name, int nice);

/*
 * The parts kthread_create is made of, for tasks others own (user
 * threads): a task that will run fn(arg), with this nice value, allowed
 * on `allowed` (NULL: every CPU), pid 0 for the next free one or 1 for
 * init. It is not runnable until task_wake_new(), which places it as a
 * fork. Its one reference is its own, dropped after it has exited and
 * switched away for the last time; holders of a pointer take their own.
 */
struct task *task_create(void (*fn)(void *arg), void *arg, const char *name, int nice,
			 const struct cpumask *allowed, int pid);
void task_wake_new(struct task *t);
void task_get(struct task *t);
void task_put(struct task *t);

/* Called with a task about to be freed (kernel/proc frees its FPU area and the like). */
extern void (*task_free_hook)(struct task *t);

/* Like kthread_create, pinned to one CPU. */
struct task *kthread_create_on_cpu(void (*fn)(void *arg), void *arg, const char *name, int nice,
				   u32 cpu);

/* Ends the calling thread; its memory is reclaimed by task_reap(). */
__attribute__((noreturn)) void task_exit(int code);

/*
 * Waits (sleeping) until t has exited, then frees it; returns its exit
 * code. Each task is reaped once, by its creator or whoever holds it.
 */
int task_reap(struct task *t);

/*
 * Wakes t if it sleeps; returns true if it did. sync says the waker is
 * about to sleep (WF_SYNC), which wake_affine takes into account.
 */
bool wake_up_task(struct task *t, bool sync);

/* Gives up the CPU: sets the state first (e.g. TASK_INTERRUPTIBLE) to sleep. */
void schedule(void);

/*
 * Preemption off / on for the calling task: while off, an interrupt never
 * switches it out (it may still sleep or call schedule() itself). Nests.
 * preempt_enable() switches at once if a reschedule was asked meanwhile.
 * Kernel code holding the CPU this way for softlockup_ms is a soft lockup.
 */
void preempt_disable(void);
void preempt_enable(void);

/* Gives the CPU to another runnable task if there is one (the sched_yield system call). */
void task_yield(void);

/* Sleeps at least ns nanoseconds (timer-tick granularity). */
void sched_sleep_ns(u64 ns);

/* The CPU time t has had, up to now (its running stretch included), in ns. */
u64 task_sched_runtime(struct task *t);

/* Calls fn on every task that exists, with the task list locked and interrupts off. */
void sched_for_each_task(void (*fn)(struct task *p, void *arg), void *arg);

/* Sets t's nice value (clamped to -20..19) and reweights it. */
void set_task_nice(struct task *t, int nice);

/*
 * t's requested slice (sched_setattr's sched_runtime), which EEVDF's
 * deadlines use: runtime clamped to 0.1-100 ms, or 0 for the base slice
 * again. Takes t's pi_lock and rq lock; returns the slice now in force (ns).
 */
u64 sched_set_slice(struct task *t, u64 runtime);

/* Restricts t to mask (must hold an online CPU); moves it if it runs elsewhere. Returns 0 or -EINVAL. */
int set_cpus_allowed(struct task *t, const struct cpumask *mask);

#endif

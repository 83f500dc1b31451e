/*
 * Wait queues: sleep until a condition holds, woken by whoever makes it
 * true. The waiter sets its state before testing the condition, so a
 * wake-up between the test and schedule() is never lost.
 */
#ifndef FULCRUM_SCHED_WAIT_H
#define FULCRUM_SCHED_WAIT_H

#include "lib/list.h"
#include "lib/spinlock.h"
#include "time/hrtimer.h"

struct task;

struct wait_queue {
	struct spinlock lock;
	struct list_head waiters;
};

struct waiter {
	struct list_head node;
	struct task *task;
};

#define WAIT_QUEUE_INIT(name)                                 \
	{                                                     \
		SPINLOCK_INIT, LIST_HEAD_INIT((name).waiters) \
	}

void wait_queue_init(struct wait_queue *wq);

/*
 * Queues w (if not yet) and marks the caller as sleeping: uninterruptibly
 * (TASK_UNINTERRUPTIBLE, which the hung-task check watches), or, with
 * wait_prepare_state(TASK_INTERRUPTIBLE), as a wait that a signal ends
 * (the caller tests for a pending signal after preparing), or with
 * TASK_KILLABLE, one that only a fatal signal ends (signal_fatal_pending;
 * not watched). Either way any wake_up_task() wakes it.
 */
void wait_prepare(struct wait_queue *wq, struct waiter *w);
void wait_prepare_state(struct wait_queue *wq, struct waiter *w, long state);
/* Dequeues w and marks the caller running. */
void wait_finish(struct wait_queue *wq, struct waiter *w);

/* Wakes every waiter; sync: the waker is about to sleep (WF_SYNC). Returns how many woke. */
unsigned int wake_up_all_sync(struct wait_queue *wq, bool sync);
#define wake_up_all(wq) wake_up_all_sync((wq), false)

/*
 * A timeout for a sleep on wait queues: armed before the caller sets its
 * sleeping state; at its deadline it fires (a high-resolution timer on the
 * arming CPU, time/hrtimer.c, which implements these) and wakes the task
 * that armed it. The caller tests wait_timer_fired() after setting its
 * state, like any other condition.
 */
struct wait_timer {
	struct hrtimer timer;
	struct task *task;
	u64 deadline_ns;
	bool fired;
};

void wait_timer_arm(struct wait_timer *t, u64 deadline_ns);
/* Whether t fired; a full barrier, so a fire after the caller's state change is never missed. */
bool wait_timer_fired(struct wait_timer *t);
/* Must be called before t goes out of scope (fired or not); waits out a callback in flight. */
void wait_timer_disarm(struct wait_timer *t);

/* Sleeps until cond is true; cond is re-tested after every wake-up. */
#define wait_event(wq, cond)                          \
	do {                                          \
		struct waiter __w = { .task = NULL }; \
		for (;;) {                            \
			wait_prepare((wq), &__w);     \
			if (cond)                     \
				break;                \
			schedule();                   \
		}                                     \
		wait_finish((wq), &__w);              \
	} while (0)

#endif

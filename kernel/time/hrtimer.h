/*
 * High-resolution timers: per-CPU queues of callbacks ordered by expiry
 * (kernel clock, ns), each CPU's hardware timer armed for its earliest
 * one. The periodic scheduler tick is one of these timers; every other
 * deadline (sleeps, poll/select/futex timeouts, interval timers) ends when
 * it is due, not at the next tick.
 */
#ifndef FULCRUM_TIME_HRTIMER_H
#define FULCRUM_TIME_HRTIMER_H

#include "lib/rbtree.h"
#include "lib/types.h"

struct hrtimer;
struct hrtimer_base;

enum hrtimer_restart {
	HRTIMER_NORESTART, /* the timer is done */
	HRTIMER_RESTART,   /* requeue at the (updated) t->expires */
};

/*
 * Runs in the timer interrupt of the CPU whose queue held t, interrupts
 * off, no queue lock held. It may wake tasks and send signals; it must not
 * start or cancel t itself (return HRTIMER_RESTART after moving
 * t->expires on, instead).
 */
typedef enum hrtimer_restart (*hrtimer_fn)(struct hrtimer *t);

struct hrtimer {
	struct rb_node node; /* in base->queue while pending; RB_EMPTY_NODE otherwise */
	u64 expires;	     /* kernel clock (arch_clock_ns), ns */
	hrtimer_fn fn;
	struct hrtimer_base *base; /* the queue it is (or was last) on; NULL before the first start */
};

/* Prepares t (not pending) with its callback. */
void hrtimer_init(struct hrtimer *t, hrtimer_fn fn);

/*
 * Queues t on the calling CPU to fire at expires_ns (a deadline already
 * passed fires at once, in the next timer interrupt). A pending t is moved;
 * a t whose callback runs elsewhere is waited for first. Starts and cancels
 * of one timer are serialized by its owner.
 */
void hrtimer_start(struct hrtimer *t, u64 expires_ns);

/*
 * Dequeues t if pending and waits until its callback, if running on
 * another CPU, has returned; afterwards t may be freed. Returns whether t
 * was pending. Not to be called from t's own callback.
 */
bool hrtimer_cancel(struct hrtimer *t);

/* Whether t is queued (a snapshot: it may fire right after). */
bool hrtimer_pending(const struct hrtimer *t);

/*
 * Starts cpu's queue, from that CPU, interrupts off: from now on its
 * hardware timer is kept armed for the earliest pending timer. tick is
 * the CPU's periodic tick timer, already started by the caller.
 */
void hrtimer_cpu_start(unsigned int cpu, struct hrtimer *tick);

/* The timer interrupt of the calling CPU: runs the due callbacks, re-arms the hardware. */
void hrtimer_interrupt(unsigned int cpu);

/* Callbacks run so far on cpu, the tick's included (for tests and /proc). */
u64 hrtimer_fired_count(unsigned int cpu);

/* Periodic ticks taken so far by cpu (kernel/tick.c). */
u64 kernel_tick_count(unsigned int cpu);

/*
 * Whether timers end at their deadline (default), or, with the boot option
 * "nohighres", only at the next tick of their CPU (the old behaviour).
 */
bool hrtimer_highres(void);

#endif

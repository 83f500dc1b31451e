/*
 * A sleeping lock for pipe and socket state that stays locked across
 * copies to and from user memory (which may fault and sleep), where a
 * spinlock with interrupts off will not do: Linux's pipe mutex. A waiter
 * sleeps on the lock's wait queue; there is no optimistic spinning.
 */
#ifndef FULCRUM_IPC_SLEEPLOCK_H
#define FULCRUM_IPC_SLEEPLOCK_H

#include "lib/spinlock.h"
#include "sched/wait.h"

struct sleeplock {
	struct spinlock lock; /* guards held */
	bool held;
	struct wait_queue wq; /* tasks waiting for the lock */
};

void sleeplock_init(struct sleeplock *l);
/* Process context only; not interruptible (like mutex_lock). */
void sleeplock_acquire(struct sleeplock *l);
void sleeplock_release(struct sleeplock *l);

static inline bool sleeplock_held(const struct sleeplock *l)
{
	return __atomic_load_n(&l->held, __ATOMIC_RELAXED);
}

#endif

/*
 * Spinlocks: a test-and-test-and-set lock on GCC's atomic builtins. The
 * _irqsave forms also mask interrupts on this CPU, for data an interrupt
 * handler touches too.
 */
#ifndef FULCRUM_LIB_SPINLOCK_H
#define FULCRUM_LIB_SPINLOCK_H

#include <arch/cpu.h>

#include "lib/types.h"

struct spinlock {
	volatile u32 locked;
};

#define SPINLOCK_INIT \
	{             \
		0     \
	}

static inline bool spin_trylock(struct spinlock *l)
{
	return __atomic_exchange_n(&l->locked, 1, __ATOMIC_ACQUIRE) == 0;
}

static inline void spin_lock(struct spinlock *l)
{
	while (!spin_trylock(l))
		while (__atomic_load_n(&l->locked, __ATOMIC_RELAXED))
			arch_cpu_relax();
}

static inline void spin_unlock(struct spinlock *l)
{
	__atomic_store_n(&l->locked, 0, __ATOMIC_RELEASE);
}

static inline bool spin_is_locked(const struct spinlock *l)
{
	return __atomic_load_n(&l->locked, __ATOMIC_RELAXED) != 0;
}

static inline unsigned long spin_lock_irqsave(struct spinlock *l)
{
	unsigned long flags = arch_irq_save();

	spin_lock(l);
	return flags;
}

static inline void spin_unlock_irqrestore(struct spinlock *l, unsigned long flags)
{
	spin_unlock(l);
	arch_irq_restore(flags);
}

#endif

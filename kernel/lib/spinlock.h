/*
 * Spinlocks: a test-and-test-and-set lock on GCC's atomic builtins. The
 * _irqsave forms also mask interrupts on this CPU, for data an interrupt
 * handler touches too.
 *
 * Owner: built with SPINLOCK_DEBUG (make SPINLOCK_DEBUG=1; the host unit
 * tests always are), every lock taken records the CPU that took it, and
 * spin_held_here() tells whether this CPU holds it. Without it nothing is
 * recorded -- taking a lock costs nothing more -- the owner stays
 * SPIN_OWNER_UNKNOWN and spin_held_here() can only say whether someone
 * holds the lock.
 */
#ifndef FULCRUM_LIB_SPINLOCK_H
#define FULCRUM_LIB_SPINLOCK_H

#include <arch/cpu.h>
#include <arch/smp.h>

#include "lib/compiler.h"
#include "lib/types.h"

#define SPIN_OWNER_UNKNOWN 0xffffffffU

struct spinlock {
	volatile u32 locked;
	u32 owner; /* SPINLOCK_DEBUG: the CPU that last took it; else SPIN_OWNER_UNKNOWN */
};

#define SPINLOCK_INIT                 \
	{                             \
		0, SPIN_OWNER_UNKNOWN \
	}

static inline bool spin_trylock(struct spinlock *l)
{
	if (__atomic_exchange_n(&l->locked, 1, __ATOMIC_ACQUIRE) != 0)
		return false;
#ifdef SPINLOCK_DEBUG
	l->owner = arch_cpu_id();
#endif
	return true;
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

/*
 * Held, and by this CPU as far as the lock knows: with SPINLOCK_DEBUG the
 * owner recorded at the take must be this CPU; without it, held at all.
 */
static inline bool spin_held_here(const struct spinlock *l)
{
#ifdef SPINLOCK_DEBUG
	return spin_is_locked(l) && l->owner == arch_cpu_id();
#else
	return spin_is_locked(l);
#endif
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

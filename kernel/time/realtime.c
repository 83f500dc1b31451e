/*
 * The wall clock: the RTC gives whole seconds, so it is read once and the
 * calibrated kernel clock (arch_clock_ns) carries it on with 1 ns steps;
 * REALTIME never goes backwards and nothing here sets it.
 */
#include "time/realtime.h"

#include <arch/time.h>

#include "lib/spinlock.h"
#include "proc/sys_time.h"

static struct spinlock realtime_lock = SPINLOCK_INIT;
static bool realtime_ready;
static u64 realtime_offset; /* CLOCK_REALTIME - arch_clock_ns(), ns */

void clock_realtime_init(void)
{
	unsigned long flags;
	u64 secs, now, wall;

	if (__atomic_load_n(&realtime_ready, __ATOMIC_ACQUIRE))
		return;
	/* Read outside our lock: the RTC may make us wait out an update. */
	secs = arch_rtc_seconds();
	now = arch_clock_ns();
	wall = secs < KTIME_MAX / NSEC_PER_SEC ? secs * NSEC_PER_SEC : KTIME_MAX;
	flags = spin_lock_irqsave(&realtime_lock);
	if (!realtime_ready) {
		/* An RTC at 0 (unusable) makes REALTIME the uptime, never negative. */
		realtime_offset = wall > now ? wall - now : 0;
		__atomic_store_n(&realtime_ready, true, __ATOMIC_RELEASE);
	}
	spin_unlock_irqrestore(&realtime_lock, flags);
}

u64 clock_realtime_offset_ns(void)
{
	clock_realtime_init();
	return realtime_offset;
}

u64 clock_realtime_ns(void)
{
	return clock_realtime_offset_ns() + arch_clock_ns();
}

/*
 * The wall clock (realtime.c): CLOCK_REALTIME as the RTC's date, read
 * once, plus the kernel clock since. clock_gettime, the absolute
 * deadlines of futexes and timers, and file timestamps read it.
 */
#ifndef FULCRUM_TIME_REALTIME_H
#define FULCRUM_TIME_REALTIME_H

#include "lib/types.h"

/*
 * Nanoseconds since the epoch: the RTC's reading (once, at first use)
 * plus the kernel clock since then. 0 + uptime when the RTC is unusable.
 */
u64 clock_realtime_ns(void);

/* What CLOCK_REALTIME adds to the kernel clock (arch_clock_ns), in ns. */
u64 clock_realtime_offset_ns(void);

/* Reads the RTC and fixes the realtime offset; later calls do nothing. Called at boot if wanted. */
void clock_realtime_init(void);

#endif

/* The kernel's clock: nanoseconds since kernel entry, from the calibrated TSC. */
#ifndef FULCRUM_ARCH_TIME_H
#define FULCRUM_ARCH_TIME_H

#include "lib/types.h"

/* Nanoseconds since kernel entry; 0 until the clock is calibrated. */
u64 arch_clock_ns(void);

/* TSC ticks per second once calibrated, else 0. */
u64 arch_tsc_hz(void);

/* The raw cycle counter (TSC ticks), for measuring short stretches of code. */
u64 arch_cycles(void);

/*
 * Arms the calling CPU's one-shot timer to interrupt at deadline_ns
 * (kernel clock); a deadline already passed interrupts at once. Replaces
 * the previous setting. Interrupts off.
 */
void arch_timer_program(u64 deadline_ns);

/*
 * The wall clock (arch/x86_64/rtc.c): seconds since 1970-01-01 UTC from
 * the CMOS RTC, read now (waits out an update in progress, at most a few
 * ms; not for hot paths). 0, with a warning, when the RTC gives no valid
 * date.
 */
u64 arch_rtc_seconds(void);

#endif

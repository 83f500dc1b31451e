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

#endif

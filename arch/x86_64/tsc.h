/* The TSC as the kernel clock: entry timestamp and calibration. */
#ifndef FULCRUM_X86_TSC_H
#define FULCRUM_X86_TSC_H

#include "lib/types.h"

/*
 * Measures the TSC frequency: CPUID leaf 0x15 when it states one, else
 * against PIT channel 2. entry_tsc is the TSC read at kernel entry, the
 * zero of arch_clock_ns().
 */
void tsc_init(u64 entry_tsc);

/* Busy-waits us microseconds by the TSC (after tsc_init). */
void tsc_delay_us(u64 us);

#endif

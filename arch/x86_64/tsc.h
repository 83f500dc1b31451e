/* The TSC as the kernel clock: entry timestamp and calibration. */
#ifndef FULCRUM_X86_TSC_H
#define FULCRUM_X86_TSC_H

#include "boot/boot_info.h"
#include "lib/types.h"

/* A free-running counter the TSC can be measured against (HPET, PM timer). */
struct ref_clock {
	const char *name;
	u64 hz;
	u64 mask; /* the counter's width: differences are taken modulo mask + 1 */
	u64 (*read)(void);
};

/*
 * At kernel entry: entry_tsc is the TSC read then, the zero of
 * arch_clock_ns(). Measures the TSC against the PIT when one answers;
 * otherwise leaves the clock at 0 for tsc_calibrate_late(). bi gives
 * the loader's RSDP copy for that later step.
 */
void tsc_init(u64 entry_tsc, const struct boot_info *bi);

/*
 * After paging, before the local APIC timer is measured: without a PIT,
 * calibrates against the HPET, else the ACPI PM timer, else CPUID 0x15 or
 * 0x16. With tsc_compare, first prints the figure from every reference.
 */
void tsc_calibrate_late(void);

/* hz as counts per ns in 32.32 fixed point: counts = ns * mult >> 32. */
u64 hz_to_ns_mult(u64 hz);

/* The TSC value at which arch_clock_ns() reads ns (for TSC-deadline timers). */
u64 tsc_from_clock_ns(u64 ns);

/* Busy-waits us microseconds by the TSC (after calibration; no wait before). */
void tsc_delay_us(u64 us);

#endif

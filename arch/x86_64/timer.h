/* The local APIC timer: calibrated once, ticking on every CPU. */
#ifndef FULCRUM_X86_TIMER_H
#define FULCRUM_X86_TIMER_H

/* Boot CPU: measures the APIC timer against the TSC and starts its tick. */
void timer_init_boot(void);
/* An AP: starts its tick with the boot CPU's calibration. */
void timer_init_ap(void);

#endif

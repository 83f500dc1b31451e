/* The local APIC, in xAPIC (MMIO) or x2APIC (MSR) mode: IDs, EOI, IPIs, timer registers. */
#ifndef FULCRUM_X86_APIC_H
#define FULCRUM_X86_APIC_H

#include "lib/types.h"

/* Interrupt vectors the kernel owns. */
#define VECTOR_TIMER	     0xec
#define VECTOR_CALL_FUNCTION 0xfb
#define VECTOR_RESCHEDULE    0xfd
#define VECTOR_APIC_ERROR    0xfe
#define VECTOR_SPURIOUS	     0xff

/* ICR delivery modes and flags. */
#define ICR_FIXED	 0x000
#define ICR_NMI		 0x400
#define ICR_INIT	 0x500
#define ICR_STARTUP	 0x600
#define ICR_LEVEL_ASSERT 0x4000
#define ICR_ALL_BUT_SELF 0xc0000

/* Register offsets (xAPIC MMIO; x2APIC MSR = 0x800 + offset / 16). */
enum apic_reg {
	APIC_ID = 0x20,
	APIC_VERSION = 0x30,
	APIC_TPR = 0x80,
	APIC_EOI = 0xb0,
	APIC_SVR = 0xf0,
	APIC_ESR = 0x280,
	APIC_ICR = 0x300,
	APIC_ICR_HIGH = 0x310,
	APIC_LVT_TIMER = 0x320,
	APIC_LVT_LINT0 = 0x350,
	APIC_LVT_LINT1 = 0x360,
	APIC_LVT_ERROR = 0x370,
	APIC_TIMER_INITIAL = 0x380,
	APIC_TIMER_CURRENT = 0x390,
	APIC_TIMER_DIVIDE = 0x3e0,
};

/* Boot CPU: chooses the mode (x2APIC when CPUID offers it, unless nox2apic), maps, enables. */
void apic_init_boot(void);
/* An AP: enables its local APIC in the mode the boot CPU chose. */
void apic_init_ap(void);

bool apic_x2apic_mode(void);
u32 apic_read(enum apic_reg reg);
void apic_write(enum apic_reg reg, u32 value);
u32 apic_id(void);
void apic_eoi(void);

/* Sends an IPI (ICR low word icr) to apic_id; waits for the previous one to leave first. */
void apic_send_ipi(u32 dest_apic_id, u32 icr);

#endif

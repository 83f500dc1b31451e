/*
 * The scheduler tick from the local APIC timer at `hz` per second. With
 * TSC-deadline mode (CPUID.1:ECX[24]) each tick arms the next deadline in
 * TSC units, already calibrated; otherwise the timer runs periodic mode
 * with a count measured against the TSC over 10 ms.
 */
#include "timer.h"

#include <arch/smp.h>
#include <arch/time.h>

#include "apic.h"
#include "cmdline.h"
#include "cpu_local.h"
#include "irq.h"
#include "printk.h"
#include "tsc.h"
#include "x86.h"

#define MSR_TSC_DEADLINE 0x6e0
#define LVT_PERIODIC	 (1U << 17)
#define LVT_TSC_DEADLINE (2U << 17)
#define LVT_MASKED	 0x10000
#define DIVIDE_BY_16	 0x3
#define CALIBRATE_US	 10000

static s64 hz = 250;
BOOT_OPTION_INT(hz, "hz", &hz, 10, 1000, "timer interrupts per second on each CPU");

static bool notscdeadline;
BOOT_OPTION_BOOL(notscdeadline, "notscdeadline", &notscdeadline,
		 "use the APIC timer's periodic mode even where TSC-deadline mode exists");

static bool tsc_deadline;
static u64 tsc_period;	/* TSC ticks per tick, deadline mode */
static u32 apic_period; /* APIC timer counts per tick, periodic mode */

static void timer_interrupt(struct trap_frame *f)
{
	struct cpu_local *c = this_cpu_local();

	c->timer_ticks++;
	if (tsc_deadline)
		wrmsr(MSR_TSC_DEADLINE, rdtsc() + tsc_period);
	c->irq_frame = f;
	kernel_timer_tick(c->cpu);
	c->irq_frame = NULL;
}

static void timer_start(void)
{
	if (tsc_deadline) {
		apic_write(APIC_LVT_TIMER, VECTOR_TIMER | LVT_TSC_DEADLINE);
		wrmsr(MSR_TSC_DEADLINE, rdtsc() + tsc_period);
	} else {
		apic_write(APIC_TIMER_DIVIDE, DIVIDE_BY_16);
		apic_write(APIC_LVT_TIMER, VECTOR_TIMER | LVT_PERIODIC);
		apic_write(APIC_TIMER_INITIAL, apic_period);
	}
}

static u32 measure_apic_timer(void)
{
	u32 left;

	apic_write(APIC_TIMER_DIVIDE, DIVIDE_BY_16);
	apic_write(APIC_LVT_TIMER, VECTOR_TIMER | LVT_MASKED);
	apic_write(APIC_TIMER_INITIAL, 0xffffffff);
	tsc_delay_us(CALIBRATE_US);
	left = apic_read(APIC_TIMER_CURRENT);
	apic_write(APIC_TIMER_INITIAL, 0);
	return 0xffffffff - left;
}

void timer_init_boot(void)
{
	tsc_deadline = (cpuid(1, 0).ecx & (1U << 24)) && !notscdeadline;
	irq_set_handler(VECTOR_TIMER, timer_interrupt);
	if (tsc_deadline) {
		tsc_period = arch_tsc_hz() / (u64)hz;
		pr_info("timer: local APIC in TSC-deadline mode, %lld Hz\n", (long long)hz);
	} else {
		u64 per_second = (u64)measure_apic_timer() * (1000000 / CALIBRATE_US);

		apic_period = (u32)(per_second / (u64)hz);
		pr_info("timer: local APIC periodic, %llu.%03llu MHz bus/16, %lld Hz\n",
			(unsigned long long)(per_second / 1000000),
			(unsigned long long)(per_second / 1000 % 1000), (long long)hz);
	}
	timer_start();
}

void timer_init_ap(void)
{
	timer_start();
}

u64 arch_cpu_timer_ticks(unsigned int cpu)
{
	return cpu < MAX_CPUS && cpu_locals[cpu] ? cpu_locals[cpu]->timer_ticks : 0;
}

/*
 * The local APIC timer as each CPU's one-shot event device. The kernel's
 * timer queue (kernel/time/hrtimer.c) says when the next interrupt is due
 * (arch_timer_program) and emulates the periodic scheduler tick at `hz`
 * on it. With TSC-deadline mode (CPUID.1:ECX[24]) a deadline is written
 * in TSC units to IA32_TSC_DEADLINE, exact to the cycle; otherwise the
 * timer runs one-shot mode with a count from its rate, measured against
 * the (already calibrated) TSC over 10 ms.
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
#define LVT_ONESHOT	 (0U << 17)
#define LVT_TSC_DEADLINE (2U << 17)
#define LVT_MASKED	 0x10000
#define DIVIDE_BY_16	 0x3
#define CALIBRATE_US	 10000
#define NS_PER_SEC	 1000000000ULL

static s64 hz = 250;
BOOT_OPTION_INT(hz, "hz", &hz, 10, 1000, "scheduler ticks per second on each CPU");

static bool notscdeadline;
BOOT_OPTION_BOOL(notscdeadline, "notscdeadline", &notscdeadline,
		 "use the APIC timer's one-shot mode even where TSC-deadline mode exists");

static bool tsc_deadline;
static u64 apic_hz;	/* APIC timer counts per second (bus clock / 16), one-shot mode */
static u64 apic_per_ns; /* the same, per ns in 32.32 fixed point */

static void timer_interrupt(struct trap_frame *f)
{
	struct cpu_local *c = this_cpu_local();

	c->timer_ticks++;
	c->irq_frame = f;
	kernel_timer_interrupt(c->cpu);
	c->irq_frame = NULL;
}

void arch_timer_program(u64 deadline_ns)
{
	u64 now, count;

	if (tsc_deadline) {
		/* A deadline at or before the TSC fires at once; 0 would disarm instead. */
		wrmsr(MSR_TSC_DEADLINE, tsc_from_clock_ns(deadline_ns) | 1);
		return;
	}
	now = arch_clock_ns();
	count = deadline_ns > now ?
			(u64)(((unsigned __int128)(deadline_ns - now) * apic_per_ns) >> 32) :
			0;
	/* 0 would stop the timer; a count past 32 bits fires early and is re-armed. */
	if (count < 1)
		count = 1;
	if (count > 0xffffffffULL)
		count = 0xffffffffULL;
	apic_write(APIC_TIMER_INITIAL, (u32)count);
}

static void timer_start(void)
{
	if (tsc_deadline) {
		apic_write(APIC_LVT_TIMER, VECTOR_TIMER | LVT_TSC_DEADLINE);
		/* The LVT write must land before the first deadline (SDM 10.5.4.1). */
		__asm__ volatile("mfence" ::: "memory");
	} else {
		apic_write(APIC_TIMER_DIVIDE, DIVIDE_BY_16);
		apic_write(APIC_LVT_TIMER, VECTOR_TIMER | LVT_ONESHOT);
	}
	kernel_timer_start(this_cpu_local()->cpu, NS_PER_SEC / (u64)hz);
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
	tsc_calibrate_late(); /* a no-op where the PIT already did it */
	tsc_deadline = (cpuid(1, 0).ecx & (1U << 24)) && !notscdeadline;
	irq_set_handler(VECTOR_TIMER, timer_interrupt);
	if (tsc_deadline) {
		pr_info("timer: local APIC in TSC-deadline mode, tick %lld Hz\n", (long long)hz);
	} else {
		apic_hz = (u64)measure_apic_timer() * (1000000 / CALIBRATE_US);
		apic_per_ns = hz_to_ns_mult(apic_hz);
		pr_info("timer: local APIC one-shot, %llu.%03llu MHz bus/16, tick %lld Hz\n",
			(unsigned long long)(apic_hz / 1000000),
			(unsigned long long)(apic_hz / 1000 % 1000), (long long)hz);
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

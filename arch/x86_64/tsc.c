/*
 * Time from the TSC. Calibration gates PIT channel 2 for a fixed count
 * (PIT input clock 1.193182 MHz) and counts TSC ticks meanwhile, three
 * times, keeping the median. Nanoseconds come from a 32.32 fixed-point
 * multiplier so the hot path has no division.
 */
#include "tsc.h"

#include <arch/time.h>

#include "printk.h"
#include "x86.h"

#define PIT_HZ		 1193182
#define PIT_CH2_DATA	 0x42
#define PIT_COMMAND	 0x43
#define PIT_GATE_PORT	 0x61 /* bit 0: channel 2 gate, bit 1: speaker, bit 5: output */
#define CALIBRATE_MS	 10
#define CALIBRATE_ROUNDS 3
#define POLL_LIMIT	 (1ULL << 32) /* TSC ticks: gives up if the PIT never fires */

static u64 entry_tsc, tsc_hz, ns_mult;

static u64 pit_measure_tsc(void)
{
	u16 count = PIT_HZ * CALIBRATE_MS / 1000;
	u64 start, now;

	outb(PIT_GATE_PORT, (inb(PIT_GATE_PORT) & ~0x02) | 0x01);
	outb(PIT_COMMAND, 0xb0); /* channel 2, lobyte/hibyte, mode 0 (interrupt on terminal count) */
	outb(PIT_CH2_DATA, count & 0xff);
	outb(PIT_CH2_DATA, count >> 8);
	start = rdtsc();
	do {
		now = rdtsc();
		if (now - start > POLL_LIMIT)
			return 0;
	} while (!(inb(PIT_GATE_PORT) & 0x20));
	return (now - start) * 1000 / CALIBRATE_MS;
}

static u64 calibrate_pit(void)
{
	u64 r[CALIBRATE_ROUNDS];

	for (int i = 0; i < CALIBRATE_ROUNDS; i++) {
		r[i] = pit_measure_tsc();
		if (!r[i])
			return 0;
	}
	/* Median of three: one round slowed by the host does not skew the clock. */
	for (int i = 0; i < CALIBRATE_ROUNDS; i++)
		for (int j = i + 1; j < CALIBRATE_ROUNDS; j++)
			if (r[j] < r[i]) {
				u64 t = r[i];

				r[i] = r[j];
				r[j] = t;
			}
	return r[CALIBRATE_ROUNDS / 2];
}

static u64 calibrate_cpuid(void)
{
	struct cpuid_regs r;

	if (cpuid(0, 0).eax < 0x15)
		return 0;
	r = cpuid(0x15, 0); /* TSC = crystal (ECX Hz) * EBX / EAX */
	if (!r.eax || !r.ebx || !r.ecx)
		return 0;
	return (u64)r.ecx * r.ebx / r.eax;
}

void tsc_init(u64 entry)
{
	const char *source = "CPUID 0x15";

	entry_tsc = entry;
	tsc_hz = calibrate_cpuid();
	if (!tsc_hz) {
		source = "PIT";
		tsc_hz = calibrate_pit();
	}
	if (!tsc_hz) {
		tsc_hz = 1000000000;
		pr_warn("tsc: calibration failed (no PIT answer); assuming 1 GHz, times are wrong\n");
		source = "a guess";
	}
	ns_mult = (1000000000ULL << 32) / tsc_hz;
	pr_info("tsc: %llu.%03llu MHz (calibrated against %s)\n",
		(unsigned long long)(tsc_hz / 1000000), (unsigned long long)(tsc_hz / 1000 % 1000),
		source);
}

u64 arch_cycles(void)
{
	return rdtsc();
}

u64 arch_clock_ns(void)
{
	if (!ns_mult)
		return 0;
	return (u64)(((unsigned __int128)(rdtsc() - entry_tsc) * ns_mult) >> 32);
}

u64 arch_tsc_hz(void)
{
	return tsc_hz;
}

void tsc_delay_us(u64 us)
{
	u64 start = rdtsc(), ticks = tsc_hz / 1000000 * us;

	while (rdtsc() - start < ticks)
		__asm__ volatile("pause");
}

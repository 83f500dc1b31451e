/*
 * Time from the TSC. Its rate is measured against a reference clock, the
 * first that exists of: PIT channel 2 (its count at 1.193182 MHz read
 * with the TSC on either side, of five rounds the one bracketed most
 * tightly), the HPET's main counter (ACPI HPET table), the
 * ACPI PM timer (FADT); failing those it is taken from CPUID leaf 0x15
 * (crystal x ratio) or 0x16 (base MHz). A measurement counts TSC ticks
 * over 10 ms of the reference (HPET and PM timer: three times, keeping
 * the median). The PIT
 * needs only I/O ports and is used at kernel entry; the others need the
 * ACPI tables and MMIO mappings, so on a machine without a PIT the clock
 * reads 0 until tsc_calibrate_late(), early in the timer's set-up.
 * Nanoseconds come from a 32.32 fixed-point multiplier, so the hot path
 * has no division.
 */
#include "tsc.h"

#include <arch/memory.h>
#include <arch/time.h>

#include "acpi/tables.h"
#include "acpi/topology.h"
#include "cmdline.h"
#include "hpet.h"
#include "pmtimer.h"
#include "printk.h"
#include "x86.h"

#define PIT_HZ		 1193182
#define PIT_CH2_DATA	 0x42
#define PIT_COMMAND	 0x43
#define PIT_GATE_PORT	 0x61 /* bit 0: channel 2 gate, bit 1: speaker, bit 5: output */
#define PIT_PROBE_READS	 1000
#define CALIBRATE_MS	 10
#define CALIBRATE_ROUNDS 3
#define PIT_ROUNDS	 5
#define POLL_LIMIT	 (1ULL << 32) /* TSC ticks: gives up if the reference never moves */
#define LOW_4G		 (4ULL << 30)

static u64 entry_tsc, tsc_hz, ns_mult;
static u64 tsc_per_ns; /* 32.32 fixed point: TSC ticks per ns */
static bool pit_exists;
static const struct boot_info *boot_info;
static struct acpi_tables tables; /* boot-time scratch, too big for a stack */

static bool tsc_compare;
BOOT_OPTION_BOOL(tsc_compare, "tsc_compare", &tsc_compare,
		 "measure the TSC against every reference clock present and print each figure");

/*
 * Whether a PIT answers: channel 2 loaded with 0xffff must count down.
 * Without one the ports read all ones, so the latched count never moves.
 */
static bool pit_probe(void)
{
	outb(PIT_GATE_PORT, (inb(PIT_GATE_PORT) & ~0x02) | 0x01);
	outb(PIT_COMMAND, 0xb0); /* channel 2, lobyte/hibyte, mode 0 */
	outb(PIT_CH2_DATA, 0xff);
	outb(PIT_CH2_DATA, 0xff);
	for (int i = 0; i < PIT_PROBE_READS; i++) {
		u16 count;

		outb(PIT_COMMAND, 0x80); /* latch channel 2's count */
		count = inb(PIT_CH2_DATA);
		count |= (u16)(inb(PIT_CH2_DATA) << 8);
		if (count != 0xffff)
			return true;
	}
	return false;
}

/*
 * Channel 2's count, latched, with the TSC read just before and just
 * after: *tsc is their midpoint, the return value their distance (how
 * uncertain *tsc is: large when the CPU was taken away meanwhile, as a
 * vCPU on a loaded host often is).
 */
static u64 pit_read_pair(u16 *count, u64 *tsc)
{
	u64 t0 = rdtsc(), t1;

	outb(PIT_COMMAND, 0x80); /* latch channel 2's count */
	*count = inb(PIT_CH2_DATA);
	*count |= (u16)(inb(PIT_CH2_DATA) << 8);
	t1 = rdtsc();
	*tsc = t0 + (t1 - t0) / 2;
	return t1 - t0;
}

/*
 * One round: channel 2 counts down from 0xffff (55 ms); the TSC is read
 * with the count at the start and once CALIBRATE_MS of counts have gone.
 * Both clocks run on meanwhile, so only the two reads' brackets matter:
 * *spread gets the larger. A round that saw the count wrap (output high)
 * or never saw it move gives 0.
 */
static u64 pit_round(u64 *spread)
{
	const u16 want = PIT_HZ * CALIBRATE_MS / 1000;
	u16 c0, c1;
	u64 t0, t1, s0, s1, begin = rdtsc();

	outb(PIT_GATE_PORT, (inb(PIT_GATE_PORT) & ~0x02) | 0x01);
	outb(PIT_COMMAND, 0xb0); /* channel 2, lobyte/hibyte, mode 0 (out high at terminal count) */
	outb(PIT_CH2_DATA, 0xff);
	outb(PIT_CH2_DATA, 0xff);
	do {
		s0 = pit_read_pair(&c0, &t0);
		if (rdtsc() - begin > POLL_LIMIT)
			return 0;
	} while (c0 == 0xffff); /* counting has begun */
	do {
		s1 = pit_read_pair(&c1, &t1);
		if (rdtsc() - begin > POLL_LIMIT || (inb(PIT_GATE_PORT) & 0x20))
			return 0;
	} while ((u16)(c0 - c1) < want);
	*spread = s0 > s1 ? s0 : s1;
	return (t1 - t0) * PIT_HZ / (u16)(c0 - c1);
}

/*
 * The PIT's figure: of PIT_ROUNDS rounds, the one whose reads were
 * bracketed most tightly, so a round in which the CPU was taken away at
 * the wrong moment is not used.
 */
static u64 pit_measure_tsc(const void *arg)
{
	u64 best = 0, best_spread = ~0ULL;

	(void)arg;
	for (int i = 0; i < PIT_ROUNDS; i++) {
		u64 spread = 0, hz = pit_round(&spread);

		if (hz && spread < best_spread) {
			best = hz;
			best_spread = spread;
		}
	}
	return best;
}

/* TSC ticks per second over CALIBRATE_MS of a free-running counter; 0 if it does not move. */
static u64 counter_measure_tsc(const void *arg)
{
	const struct ref_clock *r = arg;
	u64 want = r->hz * CALIBRATE_MS / 1000, start, ticks, t0, t1;

	/* Start on an edge of the reference, so a slow counter loses no fraction of a count. */
	start = r->read();
	t0 = rdtsc();
	while (r->read() == start)
		if (rdtsc() - t0 > POLL_LIMIT)
			return 0;
	start = r->read();
	t0 = rdtsc();
	do {
		ticks = (r->read() - start) & r->mask;
		t1 = rdtsc();
		if (t1 - t0 > POLL_LIMIT)
			return 0;
	} while (ticks < want);
	return (t1 - t0) * r->hz / ticks;
}

/* The median of three measurements: one round slowed by the host does not skew the clock. */
static u64 median_of_rounds(u64 (*measure)(const void *arg), const void *arg)
{
	u64 r[CALIBRATE_ROUNDS];

	for (int i = 0; i < CALIBRATE_ROUNDS; i++) {
		r[i] = measure(arg);
		if (!r[i])
			return 0;
	}
	for (int i = 0; i < CALIBRATE_ROUNDS; i++)
		for (int j = i + 1; j < CALIBRATE_ROUNDS; j++)
			if (r[j] < r[i]) {
				u64 t = r[i];

				r[i] = r[j];
				r[j] = t;
			}
	return r[CALIBRATE_ROUNDS / 2];
}

/* What CPUID states: leaf 0x15 (crystal Hz * EBX / EAX), else leaf 0x16 (base MHz); 0 if neither. */
static u64 calibrate_cpuid(const char **source)
{
	u32 max = cpuid(0, 0).eax;
	struct cpuid_regs r;

	if (max >= 0x15) {
		r = cpuid(0x15, 0);
		if (r.eax && r.ebx && r.ecx) {
			*source = "CPUID 0x15";
			return (u64)r.ecx * r.ebx / r.eax;
		}
	}
	if (max >= 0x16) {
		r = cpuid(0x16, 0);
		if (r.eax & 0xffff) {
			*source = "CPUID 0x16";
			return (u64)(r.eax & 0xffff) * 1000000;
		}
	}
	return 0;
}

static const void *map_low(u64 phys, u32 len, void *ctx)
{
	(void)ctx;
	if (phys + len < phys || phys + len > LOW_4G)
		return NULL;
	return phys_to_virt(phys);
}

static void print_mhz(const char *what, u64 hz, const char *source)
{
	pr_info("tsc: %s%llu.%03llu MHz (calibrated against %s)\n", what,
		(unsigned long long)(hz / 1000000), (unsigned long long)(hz / 1000 % 1000), source);
}

static void set_rate(u64 hz, const char *source)
{
	tsc_hz = hz;
	tsc_per_ns = hz_to_ns_mult(hz);
	ns_mult = (1000000000ULL << 32) / hz;
	print_mhz("", hz, source);
}

void tsc_init(u64 entry, const struct boot_info *bi)
{
	u64 hz;

	entry_tsc = entry;
	boot_info = bi;
	pit_exists = pit_probe();
	if (!pit_exists) {
		pr_info("tsc: no PIT; calibrating once the ACPI tables can be read\n");
		return;
	}
	hz = pit_measure_tsc(NULL);
	if (hz)
		set_rate(hz, "PIT");
	else
		pr_warn("tsc: the PIT answered but never reached its count\n");
}

/* With tsc_compare: the TSC against every reference present, for comparing the figures. */
static void compare_references(bool have_tables)
{
	struct ref_clock r;
	const char *source;
	u64 hz;

	if (pit_exists && (hz = pit_measure_tsc(NULL)))
		print_mhz("compare: ", hz, "PIT");
	if (have_tables && hpet_ref_clock(&tables, &r) &&
	    (hz = median_of_rounds(counter_measure_tsc, &r)))
		print_mhz("compare: ", hz, r.name);
	if (have_tables && pmtimer_ref_clock(&tables, &r) &&
	    (hz = median_of_rounds(counter_measure_tsc, &r)))
		print_mhz("compare: ", hz, r.name);
	if ((hz = calibrate_cpuid(&source)))
		print_mhz("compare: ", hz, source);
}

void tsc_calibrate_late(void)
{
	struct ref_clock r;
	const char *source;
	bool have_tables;
	u64 hz;

	if (tsc_hz && !tsc_compare)
		return; /* the PIT did it */
	have_tables = acpi_read_tables(boot_info, map_low, NULL, &tables) == 0;
	if (tsc_compare)
		compare_references(have_tables);
	if (tsc_hz)
		return;
	if (have_tables && hpet_ref_clock(&tables, &r) &&
	    (hz = median_of_rounds(counter_measure_tsc, &r))) {
		set_rate(hz, r.name);
		return;
	}
	if (have_tables && pmtimer_ref_clock(&tables, &r) &&
	    (hz = median_of_rounds(counter_measure_tsc, &r))) {
		set_rate(hz, r.name);
		return;
	}
	if ((hz = calibrate_cpuid(&source))) {
		set_rate(hz, source);
		return;
	}
	pr_warn("tsc: no reference clock (no PIT, HPET, PM timer or CPUID leaf); assuming 1 GHz, "
		"times are wrong\n");
	set_rate(1000000000, "a guess");
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

u64 hz_to_ns_mult(u64 hz)
{
	const u64 g = 1000000000ULL;

	return ((hz / g) << 32) + ((hz % g) << 32) / g;
}

u64 tsc_from_clock_ns(u64 ns)
{
	return entry_tsc + (u64)(((unsigned __int128)ns * tsc_per_ns) >> 32);
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

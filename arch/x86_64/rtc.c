/*
 * The wall clock: the CMOS real-time clock (MC146818 registers at ports
 * 0x70/0x71), read whole between two updates and decoded by rtc.h.
 * CLOCK_REALTIME reads it once and runs on the TSC from there.
 */
#include <arch/cpu.h>
#include <arch/time.h>

#include "lib/spinlock.h"
#include "printk.h"
#include "rtc.h"
#include "x86.h"

#define CMOS_INDEX 0x70
#define CMOS_DATA  0x71

#define RTC_SEC	     0x00
#define RTC_MIN	     0x02
#define RTC_HOUR     0x04
#define RTC_DAY	     0x07
#define RTC_MON	     0x08
#define RTC_YEAR     0x09
#define RTC_STATUS_A 0x0a
#define RTC_STATUS_B 0x0b

#define RTC_A_UIP 0x80 /* an update is in progress: the registers are changing */

#define UIP_WAIT_NS 20000000ULL /* an update lasts under 2 ms; give up after 20 */
#define READ_TRIES  5

/* The index and data ports are one register access: nobody may come between them. */
static struct spinlock cmos_lock = SPINLOCK_INIT;

static u8 cmos_read(u8 reg)
{
	unsigned long flags = spin_lock_irqsave(&cmos_lock);
	u8 v;

	outb(CMOS_INDEX, reg);
	v = inb(CMOS_DATA);
	spin_unlock_irqrestore(&cmos_lock, flags);
	return v;
}

static void rtc_read_regs(struct rtc_regs *r)
{
	r->sec = cmos_read(RTC_SEC);
	r->min = cmos_read(RTC_MIN);
	r->hour = cmos_read(RTC_HOUR);
	r->day = cmos_read(RTC_DAY);
	r->mon = cmos_read(RTC_MON);
	r->year = cmos_read(RTC_YEAR);
	r->status_b = cmos_read(RTC_STATUS_B);
}

static bool rtc_regs_equal(const struct rtc_regs *a, const struct rtc_regs *b)
{
	return a->sec == b->sec && a->min == b->min && a->hour == b->hour && a->day == b->day &&
	       a->mon == b->mon && a->year == b->year && a->status_b == b->status_b;
}

/* Waits for no update in progress; false if the flag never clears (no RTC there). */
static bool rtc_wait_update(void)
{
	u64 start = arch_clock_ns();

	while (cmos_read(RTC_STATUS_A) & RTC_A_UIP) {
		if (arch_clock_ns() - start > UIP_WAIT_NS)
			return false;
		arch_cpu_relax();
	}
	return true;
}

u64 arch_rtc_seconds(void)
{
	struct rtc_regs a, b;
	bool stable = false;
	u64 secs;

	/*
	 * An update (or an interrupt) may come between any two reads, so read
	 * until two whole readings agree, each begun outside an update. No
	 * lock is held across the waits: interrupts stay on.
	 */
	for (int i = 0; i < READ_TRIES && !stable; i++) {
		if (!rtc_wait_update())
			break;
		rtc_read_regs(&a);
		if (!rtc_wait_update())
			break;
		rtc_read_regs(&b);
		stable = rtc_regs_equal(&a, &b);
	}
	if (!stable) {
		pr_warn("rtc: no stable reading; the wall clock starts at 1970\n");
		return 0;
	}
	secs = rtc_decode(&a);
	if (!secs)
		pr_warn("rtc: unusable date %02x-%02x-%02x %02x:%02x:%02x (status B %#x); the wall clock starts at 1970\n",
			a.year, a.mon, a.day, a.hour, a.min, a.sec, a.status_b);
	return secs;
}

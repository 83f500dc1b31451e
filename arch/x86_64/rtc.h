/*
 * The CMOS real-time clock's registers and their decoding into seconds
 * since the epoch. Pure: rtc.c reads the registers, and the host unit
 * tests feed this decoder every format (BCD or binary, 12 or 24 hours)
 * and garbage.
 */
#ifndef FULCRUM_ARCH_RTC_H
#define FULCRUM_ARCH_RTC_H

#include "lib/types.h"

/* Register B's format bits (MC146818). */
#define RTC_B_24H    0x02 /* hours run 0-23; else 1-12 with bit 7 meaning PM */
#define RTC_B_BINARY 0x04 /* values are binary; else BCD */

#define RTC_HOUR_PM 0x80

/* The raw date and time registers, as read, and register B. */
struct rtc_regs {
	u8 sec, min, hour, day, mon, year;
	u8 status_b;
};

/* A BCD byte's value, or -1 if a digit is not 0-9. */
static inline int rtc_bcd(u8 v)
{
	if ((v & 0x0f) > 9 || (v >> 4) > 9)
		return -1;
	return (v >> 4) * 10 + (v & 0x0f);
}

/* One field in binary, or -1 (bad BCD). */
static inline int rtc_field(u8 v, bool binary)
{
	return binary ? v : rtc_bcd(v);
}

static inline bool rtc_leap(int year)
{
	return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
}

static inline int rtc_days_in_month(int year, int mon)
{
	static const u8 days[12] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };

	return days[mon - 1] + (mon == 2 && rtc_leap(year));
}

/* Days from 1970-01-01 to year-mon-day (a valid date, year >= 1970). */
static inline u64 rtc_days_since_epoch(int year, int mon, int day)
{
	u64 days = 0;

	for (int y = 1970; y < year; y++)
		days += rtc_leap(y) ? 366 : 365;
	for (int m = 1; m < mon; m++)
		days += (u64)rtc_days_in_month(year, m);
	return days + (u64)(day - 1);
}

/*
 * Seconds since the epoch for r, or 0 if any field is out of range for
 * its format. The RTC keeps two year digits: 70-99 are 1970-1999 and
 * 00-69 are 2000-2069 (the century register's place is the firmware's
 * choice, so it is not read).
 */
static inline u64 rtc_decode(const struct rtc_regs *r)
{
	bool binary = r->status_b & RTC_B_BINARY;
	int sec = rtc_field(r->sec, binary), min = rtc_field(r->min, binary);
	int day = rtc_field(r->day, binary), mon = rtc_field(r->mon, binary);
	int year = rtc_field(r->year, binary);
	int hour;

	if (r->status_b & RTC_B_24H) {
		hour = rtc_field(r->hour, binary);
		if (hour < 0 || hour > 23)
			return 0;
	} else {
		/* 12-hour clock: 12 AM is midnight, 12 PM noon. */
		hour = rtc_field(r->hour & ~RTC_HOUR_PM, binary);
		if (hour < 1 || hour > 12)
			return 0;
		hour %= 12;
		if (r->hour & RTC_HOUR_PM)
			hour += 12;
	}
	if (sec < 0 || sec > 59 || min < 0 || min > 59 || year < 0 || year > 99 || mon < 1 || mon > 12)
		return 0;
	year += year < 70 ? 2000 : 1900;
	if (day < 1 || day > rtc_days_in_month(year, mon))
		return 0;
	return ((rtc_days_since_epoch(year, mon, day) * 24 + (u64)hour) * 60 + (u64)min) * 60 +
	       (u64)sec;
}

#endif

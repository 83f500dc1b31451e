/*
 * Host tests of the pure parts of time for user space: timespec checks
 * and conversions (kernel/proc/sys_time.h), struct rusage / sysinfo
 * layouts and the rusage conversion (kernel/proc/sys_info.h), and the
 * CMOS RTC decoder in every format (arch/x86_64/rtc.h).
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "lib/compiler.h"
#include "proc/sys_info.h"
#include "proc/sys_time.h"
#include "rtc.h"
#include "unit.h"

/* ---------------------------------------------------------------- timespec */

static struct k_timespec ts(s64 sec, s64 nsec)
{
	struct k_timespec t = { sec, nsec };

	return t;
}

START_TEST(test_timespec_valid)
{
	struct k_timespec t;

	t = ts(0, 0);
	ck_assert(timespec_valid(&t));
	t = ts(0, 999999999);
	ck_assert(timespec_valid(&t));
	t = ts(INT64_MAX, 999999999);
	ck_assert(timespec_valid(&t));
	t = ts(0, 1000000000);
	ck_assert(!timespec_valid(&t));
	t = ts(0, -1);
	ck_assert(!timespec_valid(&t));
	t = ts(-1, 0);
	ck_assert(!timespec_valid(&t));
	t = ts(INT64_MIN, 0);
	ck_assert(!timespec_valid(&t));
	t = ts(5, INT64_MAX);
	ck_assert(!timespec_valid(&t));
	t = ts(5, INT64_MIN);
	ck_assert(!timespec_valid(&t));
}
END_TEST

START_TEST(test_timespec_to_ns)
{
	struct k_timespec t;

	t = ts(0, 0);
	ck_assert_uint_eq(timespec_to_ns(&t), 0);
	t = ts(1, 5);
	ck_assert_uint_eq(timespec_to_ns(&t), 1000000005ULL);
	t = ts(0, 999999999);
	ck_assert_uint_eq(timespec_to_ns(&t), 999999999ULL);
	/* 9223372036 s is the last whole second below KTIME_MAX: it and anything past saturate. */
	t = ts(9223372035, 999999999);
	ck_assert_uint_eq(timespec_to_ns(&t), 9223372035999999999ULL);
	t = ts(9223372036, 0);
	ck_assert_uint_eq(timespec_to_ns(&t), KTIME_MAX);
	t = ts(INT64_MAX, 999999999);
	ck_assert_uint_eq(timespec_to_ns(&t), KTIME_MAX);
}
END_TEST

START_TEST(test_ns_to_timespec_timeval)
{
	struct k_timespec t = ns_to_timespec(0);
	struct k_timeval v;

	ck_assert(t.tv_sec == 0 && t.tv_nsec == 0);
	t = ns_to_timespec(1999999999ULL);
	ck_assert(t.tv_sec == 1 && t.tv_nsec == 999999999);
	t = ns_to_timespec(KTIME_MAX);
	ck_assert(t.tv_sec == 9223372036 && t.tv_nsec == 854775807);
	ck_assert(timespec_valid(&t));
	/* A round trip keeps every valid value below the saturation point. */
	for (u64 ns = 1; ns < KTIME_MAX / 3; ns = ns * 3 + 7) {
		t = ns_to_timespec(ns);
		ck_assert(timespec_valid(&t));
		ck_assert_uint_eq(timespec_to_ns(&t), ns);
	}
	/* Microseconds round down: never a time later than the real one. */
	v = ns_to_timeval(1999999999ULL);
	ck_assert(v.tv_sec == 1 && v.tv_usec == 999999);
	v = ns_to_timeval(999);
	ck_assert(v.tv_sec == 0 && v.tv_usec == 0);
	v = ns_to_timeval(3000001000ULL);
	ck_assert(v.tv_sec == 3 && v.tv_usec == 1);
}
END_TEST

START_TEST(test_deadlines)
{
	ck_assert_uint_eq(deadline_after(100, 50), 150);
	ck_assert_uint_eq(deadline_after(0, KTIME_MAX), KTIME_MAX);
	ck_assert_uint_eq(deadline_after(1, KTIME_MAX), KTIME_MAX);
	ck_assert_uint_eq(deadline_after(KTIME_MAX - 10, 10), KTIME_MAX);
	ck_assert_uint_eq(deadline_after(KTIME_MAX - 10, 9), KTIME_MAX - 1);
	ck_assert_uint_eq(deadline_after(KTIME_MAX, 0), KTIME_MAX);
	/* realtime = clock + offset; a time before the clock started is already past */
	ck_assert_uint_eq(realtime_to_clock(1000, 400), 600);
	ck_assert_uint_eq(realtime_to_clock(400, 400), 0);
	ck_assert_uint_eq(realtime_to_clock(1, 400), 0);
	ck_assert_uint_eq(realtime_to_clock(KTIME_MAX, 0), KTIME_MAX);
}
END_TEST

/* ---------------------------------------------------------------- rusage and sysinfo */

/* The offsets of Linux's x86-64 structures, which musl reads. */
START_TEST(test_layouts)
{
	ck_assert_uint_eq(offsetof(struct k_rusage, ru_stime), 16);
	ck_assert_uint_eq(offsetof(struct k_rusage, ru_maxrss), 32);
	ck_assert_uint_eq(offsetof(struct k_rusage, ru_minflt), 64);
	ck_assert_uint_eq(offsetof(struct k_rusage, ru_nvcsw), 128);
	ck_assert_uint_eq(offsetof(struct k_rusage, ru_nivcsw), 136);
	ck_assert_uint_eq(offsetof(struct k_sysinfo, loads), 8);
	ck_assert_uint_eq(offsetof(struct k_sysinfo, totalram), 32);
	ck_assert_uint_eq(offsetof(struct k_sysinfo, freeswap), 72);
	ck_assert_uint_eq(offsetof(struct k_sysinfo, procs), 80);
	ck_assert_uint_eq(offsetof(struct k_sysinfo, totalhigh), 88);
	ck_assert_uint_eq(offsetof(struct k_sysinfo, mem_unit), 104);
	ck_assert_uint_eq(offsetof(struct k_timespec, tv_nsec), 8);
	ck_assert_uint_eq(offsetof(struct k_timeval, tv_usec), 8);
}
END_TEST

START_TEST(test_rusage_fill)
{
	struct cpu_totals t = { .runtime_ns = 12345678901ULL, .nvcsw = 7, .nivcsw = 9 };
	struct k_rusage ru;

	memset(&ru, 0xa5, sizeof(ru));
	rusage_fill(&ru, &t, 300);
	/* all CPU time is user time; stime stays 0 */
	ck_assert(ru.ru_utime.tv_sec == 12 && ru.ru_utime.tv_usec == 345678);
	ck_assert(ru.ru_stime.tv_sec == 0 && ru.ru_stime.tv_usec == 0);
	ck_assert_int_eq(ru.ru_maxrss, 1200); /* 300 pages of 4 KiB */
	ck_assert_int_eq(ru.ru_nvcsw, 7);
	ck_assert_int_eq(ru.ru_nivcsw, 9);
	/* nothing else is left over from before */
	ck_assert(ru.ru_ixrss == 0 && ru.ru_idrss == 0 && ru.ru_isrss == 0);
	ck_assert(ru.ru_minflt == 0 && ru.ru_majflt == 0 && ru.ru_nswap == 0);
	ck_assert(ru.ru_inblock == 0 && ru.ru_oublock == 0);
	ck_assert(ru.ru_msgsnd == 0 && ru.ru_msgrcv == 0 && ru.ru_nsignals == 0);

	t = (struct cpu_totals){ 0 };
	rusage_fill(&ru, &t, 0);
	ck_assert(ru.ru_utime.tv_sec == 0 && ru.ru_utime.tv_usec == 0 && ru.ru_maxrss == 0);
}
END_TEST

/* ---------------------------------------------------------------- the RTC */

static u8 bcd(int v)
{
	return (u8)((v / 10) << 4 | v % 10);
}

/* A register set for a date, in BCD or binary, 24-hour. */
static struct rtc_regs regs(int year, int mon, int day, int hour, int min, int sec, bool binary)
{
	struct rtc_regs r;
	int y = year % 100;

	r.status_b = RTC_B_24H | (binary ? RTC_B_BINARY : 0);
	r.sec = binary ? (u8)sec : bcd(sec);
	r.min = binary ? (u8)min : bcd(min);
	r.hour = binary ? (u8)hour : bcd(hour);
	r.day = binary ? (u8)day : bcd(day);
	r.mon = binary ? (u8)mon : bcd(mon);
	r.year = binary ? (u8)y : bcd(y);
	return r;
}

START_TEST(test_rtc_known_dates)
{
	static const struct {
		int y, mo, d, h, mi, s;
		u64 epoch;
	} cases[] = {
		{ 2024, 3, 15, 13, 45, 30, 1710510330ULL },
		{ 2000, 2, 29, 0, 0, 0, 951782400ULL },
		{ 2069, 12, 31, 23, 59, 59, 3155759999ULL },
		{ 1970, 1, 1, 0, 0, 1, 1ULL },
		{ 1999, 12, 31, 12, 0, 0, 946641600ULL },
		{ 2038, 1, 19, 3, 14, 8, 2147483648ULL },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		for (int binary = 0; binary <= 1; binary++) {
			struct rtc_regs r = regs(cases[i].y, cases[i].mo, cases[i].d, cases[i].h,
						 cases[i].mi, cases[i].s, binary);

			ck_assert_msg(rtc_decode(&r) == cases[i].epoch, "case %zu %s: %llu", i,
				      binary ? "binary" : "BCD", (unsigned long long)rtc_decode(&r));
		}
	}
}
END_TEST

/* Every day from 1970 to 2069 is exactly one day after the one before. */
START_TEST(test_rtc_every_day)
{
	u64 prev = 0;
	u32 days = 0;

	for (int y = 1970; y <= 2069; y++) {
		for (int m = 1; m <= 12; m++) {
			for (int d = 1; d <= rtc_days_in_month(y, m); d++) {
				struct rtc_regs r = regs(y, m, d, 0, 0, 0, false);
				u64 t = rtc_decode(&r);

				if (days)
					ck_assert_msg(t == prev + 86400, "%d-%d-%d", y, m, d);
				else
					ck_assert_uint_eq(t, 0); /* the epoch itself: 0 */
				prev = t;
				days++;
			}
		}
	}
	ck_assert_uint_eq(days, 36525); /* 100 years with 25 leap days (2000 is one) */
}
END_TEST

START_TEST(test_rtc_12_hour)
{
	struct rtc_regs r = regs(2024, 3, 15, 0, 45, 30, false);
	u64 midnight = 1710460800ULL + 45 * 60 + 30;

	r.status_b &= (u8)~RTC_B_24H;
	r.hour = bcd(12); /* 12 AM: midnight */
	ck_assert_uint_eq(rtc_decode(&r), midnight);
	r.hour = bcd(1);
	ck_assert_uint_eq(rtc_decode(&r), midnight + 3600);
	r.hour = RTC_HOUR_PM | bcd(12); /* 12 PM: noon */
	ck_assert_uint_eq(rtc_decode(&r), midnight + 12 * 3600);
	r.hour = RTC_HOUR_PM | bcd(11);
	ck_assert_uint_eq(rtc_decode(&r), midnight + 23 * 3600);
	r.status_b |= RTC_B_BINARY;
	r.sec = 30;
	r.min = 45;
	r.day = 15;
	r.mon = 3;
	r.year = 24;
	r.hour = RTC_HOUR_PM | 1;
	ck_assert_uint_eq(rtc_decode(&r), midnight + 13 * 3600);
	/* hour 0 and 13 do not exist on a 12-hour clock */
	r.hour = 0;
	ck_assert_uint_eq(rtc_decode(&r), 0);
	r.hour = 13;
	ck_assert_uint_eq(rtc_decode(&r), 0);
	r.hour = RTC_HOUR_PM | 0;
	ck_assert_uint_eq(rtc_decode(&r), 0);
}
END_TEST

START_TEST(test_rtc_garbage)
{
	struct rtc_regs good = regs(2024, 3, 15, 13, 45, 30, false), r;

	ck_assert_uint_ne(rtc_decode(&good), 0);
	r = good;
	r.sec = 0x1a; /* not BCD */
	ck_assert_uint_eq(rtc_decode(&r), 0);
	r = good;
	r.sec = 0x60;
	ck_assert_uint_eq(rtc_decode(&r), 0);
	r = good;
	r.min = 0xff;
	ck_assert_uint_eq(rtc_decode(&r), 0);
	r = good;
	r.hour = 0x24;
	ck_assert_uint_eq(rtc_decode(&r), 0);
	r = good;
	r.mon = 0x00;
	ck_assert_uint_eq(rtc_decode(&r), 0);
	r = good;
	r.mon = 0x13;
	ck_assert_uint_eq(rtc_decode(&r), 0);
	r = good;
	r.day = 0x00;
	ck_assert_uint_eq(rtc_decode(&r), 0);
	r = good;
	r.day = 0x32;
	ck_assert_uint_eq(rtc_decode(&r), 0);
	r = good;
	r.year = 0xa0;
	ck_assert_uint_eq(rtc_decode(&r), 0);
	/* 31 April, 29 February of a common year */
	r = regs(2024, 4, 31, 0, 0, 0, false);
	ck_assert_uint_eq(rtc_decode(&r), 0);
	r = regs(2023, 2, 29, 0, 0, 0, false);
	ck_assert_uint_eq(rtc_decode(&r), 0);
	r = regs(2024, 2, 29, 0, 0, 0, false);
	ck_assert_uint_ne(rtc_decode(&r), 0);
	/* binary values past their range, and an all-ones bus (no RTC) */
	r = regs(2024, 3, 15, 13, 45, 30, true);
	r.year = 100;
	ck_assert_uint_eq(rtc_decode(&r), 0);
	memset(&r, 0xff, sizeof(r));
	ck_assert_uint_eq(rtc_decode(&r), 0);
}
END_TEST

START_TEST(test_rtc_century)
{
	struct rtc_regs r = regs(2069, 1, 1, 0, 0, 0, false);

	/* two digits: 69 is 2069, 70 is 1970 */
	ck_assert_uint_eq(rtc_decode(&r), 3124224000ULL);
	r = regs(1970, 1, 1, 0, 0, 2, false);
	ck_assert_uint_eq(rtc_decode(&r), 2);
	ck_assert(rtc_leap(2000) && rtc_leap(2024) && !rtc_leap(1900) && !rtc_leap(2023));
}
END_TEST

Suite *time_suite(void)
{
	Suite *s = suite_create("time");
	TCase *tc = tcase_create("timespec");
	TCase *rtc = tcase_create("rtc");

	tcase_add_test(tc, test_timespec_valid);
	tcase_add_test(tc, test_timespec_to_ns);
	tcase_add_test(tc, test_ns_to_timespec_timeval);
	tcase_add_test(tc, test_deadlines);
	tcase_add_test(tc, test_layouts);
	tcase_add_test(tc, test_rusage_fill);
	suite_add_tcase(s, tc);
	tcase_add_test(rtc, test_rtc_known_dates);
	tcase_add_test(rtc, test_rtc_every_day);
	tcase_add_test(rtc, test_rtc_12_hour);
	tcase_add_test(rtc, test_rtc_garbage);
	tcase_add_test(rtc, test_rtc_century);
	suite_add_tcase(s, rtc);
	return s;
}

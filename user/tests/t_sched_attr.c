/*
 * t_sched_attr: sched_setattr(2) and sched_getattr(2) for the fair
 * policies — struct sched_attr's size protocol (E2BIG and the size written
 * back), EINVAL/ESRCH/EFAULT in Linux's order, nice, policy, and
 * sched_runtime as the task's slice clamped to 0.1-100 ms (Linux 6.12 and
 * later). Runs on Linux and Fulcrum; leaves the caller as it found it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "../common/rawsys.h"
#include "../common/report.h"

#ifndef SYS_sched_setattr
#define SYS_sched_setattr 314
#define SYS_sched_getattr 315
#endif

#define ATTR_VER0 48
#define ATTR_VER1 56
#define MS	  1000000ull
#define NO_PID	  0x3ffffff0 /* above pid_max on Linux and Fulcrum */

struct attr {
	uint32_t size;
	uint32_t sched_policy;
	uint64_t sched_flags;
	int32_t sched_nice;
	uint32_t sched_priority;
	uint64_t sched_runtime;
	uint64_t sched_deadline;
	uint64_t sched_period;
	uint32_t sched_util_min;
	uint32_t sched_util_max;
};

_Static_assert(sizeof(struct attr) == ATTR_VER1, "Linux's sched_attr");

/* The struct with a zeroed tail for sizes past the kernel's. */
static union {
	struct attr a;
	unsigned char bytes[128];
} buf;

static long setattr(struct attr *a, unsigned flags)
{
	return raw3(SYS_sched_setattr, 0, a, flags);
}

static long getattr(struct attr *a, unsigned size)
{
	memset(a, 0xff, sizeof(*a));
	return raw4(SYS_sched_getattr, 0, a, size, 0);
}

/* A fair request: policy, nice, slice. */
static struct attr fair(uint32_t policy, int nice, uint64_t runtime)
{
	struct attr a = { .size = ATTR_VER0, .sched_policy = policy, .sched_nice = nice };

	a.sched_runtime = runtime;
	return a;
}

static const char *restore(void)
{
	struct attr a = fair(SCHED_OTHER, 0, 0);

	EXPECT_OK(setattr(&a, 0));
	return NULL;
}

static const char *case_getattr_self(void)
{
	struct attr a;

	EXPECT_OK(getattr(&a, ATTR_VER0));
	EXPECT_EQ(a.size, ATTR_VER0);
	EXPECT_EQ(a.sched_policy, SCHED_OTHER);
	EXPECT_EQ(a.sched_nice, 20 - raw2(SYS_getpriority, 0, 0));
	EXPECT_EQ(a.sched_priority, 0);
	EXPECT(a.sched_runtime >= MS / 10 && a.sched_runtime <= 100 * MS, "base slice %llu ns",
	       (unsigned long long)a.sched_runtime);
	/* The kernel's size when asked for more, and the rest of the caller's struct zeroed. */
	memset(&buf, 0xee, sizeof(buf));
	EXPECT_OK(raw4(SYS_sched_getattr, 0, &buf.a, sizeof(buf.bytes), 0));
	EXPECT_EQ(buf.a.size, ATTR_VER1);
	for (unsigned i = ATTR_VER1; i < sizeof(buf.bytes); i++)
		EXPECT(buf.bytes[i] == 0, "byte %u past the kernel's struct is %#x", i, buf.bytes[i]);
	return NULL;
}

static const char *case_getattr_errors(void)
{
	struct attr a;

	EXPECT_ERR(raw4(SYS_sched_getattr, 0, NULL, ATTR_VER0, 0), EINVAL);
	EXPECT_ERR(raw4(SYS_sched_getattr, -1, &a, ATTR_VER0, 0), EINVAL);
	EXPECT_ERR(raw4(SYS_sched_getattr, 0, &a, ATTR_VER0 - 1, 0), EINVAL);
	EXPECT_ERR(raw4(SYS_sched_getattr, 0, &a, 4097, 0), EINVAL);
	EXPECT_ERR(raw4(SYS_sched_getattr, 0, &a, ATTR_VER0, 1), EINVAL);
	EXPECT_ERR(raw4(SYS_sched_getattr, NO_PID, &a, ATTR_VER0, 0), ESRCH);
	EXPECT_ERR(raw4(SYS_sched_getattr, 0, BAD_PTR_LOW, ATTR_VER0, 0), EFAULT);
	return NULL;
}

/* sched_runtime is the slice: kept within 0.1-100 ms, 0 gives the base slice back. */
static const char *case_slice_clamps(void)
{
	static const struct {
		uint64_t ask, get;
	} slices[] = {
		{ 5 * MS, 5 * MS },
		{ 1, MS / 10 },
		{ 1000 * MS, 100 * MS },
		{ MS / 10, MS / 10 },
	};
	struct attr a, base;

	EXPECT_OK(getattr(&base, ATTR_VER0));
	for (unsigned i = 0; i < sizeof(slices) / sizeof(slices[0]); i++) {
		a = fair(SCHED_OTHER, 0, slices[i].ask);
		EXPECT_OK(setattr(&a, 0));
		EXPECT_OK(getattr(&a, ATTR_VER0));
		EXPECT(a.sched_runtime == slices[i].get, "asked %llu ns, got %llu",
		       (unsigned long long)slices[i].ask, (unsigned long long)a.sched_runtime);
	}
	a = fair(SCHED_OTHER, 0, 0);
	EXPECT_OK(setattr(&a, 0));
	EXPECT_OK(getattr(&a, ATTR_VER0));
	EXPECT_EQ(a.sched_runtime, base.sched_runtime);
	return NULL;
}

/* nice goes through (clamped to -20..19, as the old calls do), and so does the policy. */
static const char *case_nice_and_policy(void)
{
	struct attr a = fair(SCHED_OTHER, 5, 0);

	EXPECT_OK(setattr(&a, 0));
	EXPECT_OK(getattr(&a, ATTR_VER0));
	EXPECT_EQ(a.sched_nice, 5);
	EXPECT_EQ(raw2(SYS_getpriority, 0, 0), 20 - 5);
	a = fair(SCHED_OTHER, 100, 0);
	EXPECT_OK(setattr(&a, 0));
	EXPECT_OK(getattr(&a, ATTR_VER0));
	EXPECT_EQ(a.sched_nice, 19);
	a = fair(SCHED_BATCH, -3, 0);
	EXPECT_OK(setattr(&a, 0));
	EXPECT_OK(getattr(&a, ATTR_VER0));
	EXPECT_EQ(a.sched_policy, SCHED_BATCH);
	EXPECT_EQ(a.sched_nice, -3);
	EXPECT_EQ(raw1(SYS_sched_getscheduler, 0), SCHED_BATCH);
	return restore();
}

/* The size protocol: too small, too large with a non-zero tail, a page and more. */
static const char *case_setattr_sizes(void)
{
	memset(&buf, 0, sizeof(buf));
	buf.a = fair(SCHED_OTHER, 0, 0);
	buf.a.size = 0; /* means the first version */
	EXPECT_OK(setattr(&buf.a, 0));
	buf.a.size = ATTR_VER0 - 1;
	EXPECT_ERR(setattr(&buf.a, 0), E2BIG);
	EXPECT_EQ(buf.a.size, ATTR_VER1);
	buf.a.size = sizeof(buf.bytes); /* larger, zero tail: fine */
	EXPECT_OK(setattr(&buf.a, 0));
	buf.bytes[100] = 1;
	EXPECT_ERR(setattr(&buf.a, 0), E2BIG);
	EXPECT_EQ(buf.a.size, ATTR_VER1);
	buf.bytes[100] = 0;
	buf.a.size = 8192;
	EXPECT_ERR(setattr(&buf.a, 0), E2BIG);
	EXPECT_EQ(buf.a.size, ATTR_VER1);
	return restore();
}

static const char *case_setattr_errors(void)
{
	struct attr a = fair(SCHED_OTHER, 0, 0);

	EXPECT_ERR(raw3(SYS_sched_setattr, 0, NULL, 0), EINVAL);
	EXPECT_ERR(raw3(SYS_sched_setattr, -1, &a, 0), EINVAL);
	EXPECT_ERR(setattr(&a, 1), EINVAL);
	EXPECT_ERR(raw3(SYS_sched_setattr, 0, BAD_PTR_LOW, 0), EFAULT);
	EXPECT_ERR(raw3(SYS_sched_setattr, NO_PID, &a, 0), ESRCH);
	a.sched_policy = 7; /* no such policy */
	EXPECT_ERR(setattr(&a, 0), EINVAL);
	a.sched_policy = (uint32_t)-1;
	EXPECT_ERR(setattr(&a, 0), EINVAL);
	a = fair(SCHED_OTHER, 0, 0);
	a.sched_priority = 1; /* the fair policies take priority 0 only */
	EXPECT_ERR(setattr(&a, 0), EINVAL);
	a = fair(SCHED_OTHER, 0, 0);
	a.sched_flags = 0x80; /* no such flag */
	EXPECT_ERR(setattr(&a, 0), EINVAL);
	a = fair(SCHED_OTHER, 0, 0);
	a.sched_flags = 0x20; /* a utilisation clamp needs the second version's size */
	EXPECT_ERR(setattr(&a, 0), EINVAL);
	return restore();
}

int main(void)
{
	static const struct test_case cases[] = {
		{ "getattr_self", case_getattr_self },
		{ "getattr_errors", case_getattr_errors },
		{ "slice_clamps", case_slice_clamps },
		{ "nice_and_policy", case_nice_and_policy },
		{ "setattr_sizes", case_setattr_sizes },
		{ "setattr_errors", case_setattr_errors },
	};

	report_run_all(cases, REPORT_NCASES(cases));
	return report_done("t_sched_attr");
}

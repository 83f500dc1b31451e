/*
 * t_sched_rt: the real-time policies through the system calls, as Linux
 * answers them: the priority ranges, the argument checks (EINVAL, ESRCH,
 * EFAULT), a FIFO/RR round trip through setscheduler, setparam, getparam
 * and rr_get_interval, a fork inheriting the policy, and FIFO's rule that
 * an equal priority waits until the running task yields. Runs on Linux
 * and Fulcrum. On Linux a real-time policy needs CAP_SYS_NICE (root): a
 * host that answers the first request with EPERM runs the cases that need
 * none and notes why the others passed unchecked.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <time.h>
#include <unistd.h>

#include "../common/child.h"
#include "../common/rawsys.h"
#include "../common/report.h"

#define NO_SUCH_PID 0x3ffffff0

static int rt_denied; /* the host refuses real-time policies (no CAP_SYS_NICE) */

static long set_sched(int pid, int policy, int prio)
{
	struct sched_param sp = { .sched_priority = prio };

	return raw3(SYS_sched_setscheduler, pid, policy, &sp);
}

static long get_prio(int pid)
{
	struct sched_param sp = { .sched_priority = -1 };
	long err = raw2(SYS_sched_getparam, pid, &sp);

	return err ? err : sp.sched_priority;
}

static const char *priority_ranges(void)
{
	EXPECT_EQ(raw1(SYS_sched_get_priority_min, SCHED_FIFO), 1);
	EXPECT_EQ(raw1(SYS_sched_get_priority_max, SCHED_FIFO), 99);
	EXPECT_EQ(raw1(SYS_sched_get_priority_min, SCHED_RR), 1);
	EXPECT_EQ(raw1(SYS_sched_get_priority_max, SCHED_RR), 99);
	EXPECT_EQ(raw1(SYS_sched_get_priority_min, SCHED_OTHER), 0);
	EXPECT_EQ(raw1(SYS_sched_get_priority_max, SCHED_OTHER), 0);
	EXPECT_EQ(raw1(SYS_sched_get_priority_max, SCHED_BATCH), 0);
	EXPECT_EQ(raw1(SYS_sched_get_priority_max, SCHED_IDLE), 0);
	EXPECT_ERR(raw1(SYS_sched_get_priority_max, 42), EINVAL);
	EXPECT_ERR(raw1(SYS_sched_get_priority_min, -1), EINVAL);
	return NULL;
}

static const char *bad_arguments(void)
{
	struct timespec ts;

	EXPECT_ERR(raw3(SYS_sched_setscheduler, 0, SCHED_FIFO, NULL), EINVAL);
	EXPECT_ERR(set_sched(-1, SCHED_FIFO, 10), EINVAL);
	EXPECT_ERR(set_sched(0, SCHED_FIFO, 0), EINVAL);
	EXPECT_ERR(set_sched(0, SCHED_RR, 100), EINVAL);
	EXPECT_ERR(set_sched(0, SCHED_OTHER, 5), EINVAL);
	EXPECT_ERR(set_sched(0, 42, 0), EINVAL);
	EXPECT_ERR(set_sched(NO_SUCH_PID, SCHED_OTHER, 0), ESRCH);
	EXPECT_ERR(raw3(SYS_sched_setscheduler, 0, SCHED_FIFO, BAD_PTR_LOW), EFAULT);
	EXPECT_ERR(raw2(SYS_sched_getparam, 0, NULL), EINVAL);
	EXPECT_ERR(raw2(SYS_sched_getparam, 0, BAD_PTR_LOW), EFAULT);
	EXPECT_ERR(raw2(SYS_sched_getparam, NO_SUCH_PID, &ts), ESRCH);
	EXPECT_ERR(raw1(SYS_sched_getscheduler, -1), EINVAL);
	EXPECT_ERR(raw1(SYS_sched_getscheduler, NO_SUCH_PID), ESRCH);
	EXPECT_ERR(raw2(SYS_sched_rr_get_interval, -1, &ts), EINVAL);
	EXPECT_ERR(raw2(SYS_sched_rr_get_interval, NO_SUCH_PID, &ts), ESRCH);
	EXPECT_ERR(raw2(SYS_sched_rr_get_interval, 0, BAD_PTR_LOW), EFAULT);
	/* Still the default policy after all that. */
	EXPECT_EQ(raw1(SYS_sched_getscheduler, 0), SCHED_OTHER);
	return NULL;
}

static const char *fifo_round_trip(void)
{
	struct sched_param sp = { .sched_priority = 20 };
	struct timespec ts = { 1, 1 };
	long err = set_sched(0, SCHED_FIFO, 10);

	if (err == -EPERM) {
		rt_denied = 1;
		report_note("real-time policies refused (EPERM): no CAP_SYS_NICE here");
		return NULL;
	}
	EXPECT_OK(err);
	EXPECT_EQ(raw1(SYS_sched_getscheduler, 0), SCHED_FIFO);
	EXPECT_EQ(get_prio(0), 10);
	EXPECT_OK(raw2(SYS_sched_setparam, 0, &sp));
	EXPECT_EQ(raw1(SYS_sched_getscheduler, 0), SCHED_FIFO);
	EXPECT_EQ(get_prio(0), 20);
	EXPECT_OK(raw2(SYS_sched_rr_get_interval, 0, &ts));
	EXPECT(ts.tv_sec == 0 && ts.tv_nsec == 0, "FIFO interval %ld.%09ld, want 0",
	       (long)ts.tv_sec, ts.tv_nsec);
	sp.sched_priority = 0;
	EXPECT_ERR(raw2(SYS_sched_setparam, 0, &sp), EINVAL); /* FIFO takes 1..99 */
	EXPECT_OK(set_sched(0, SCHED_OTHER, 0));
	EXPECT_EQ(raw1(SYS_sched_getscheduler, 0), SCHED_OTHER);
	EXPECT_EQ(get_prio(0), 0);
	return NULL;
}

static const char *rr_interval(void)
{
	struct timespec ts = { 1, 1 };

	if (rt_denied)
		return NULL;
	EXPECT_OK(set_sched(0, SCHED_RR, 5));
	EXPECT_EQ(raw1(SYS_sched_getscheduler, 0), SCHED_RR);
	EXPECT_OK(raw2(SYS_sched_rr_get_interval, 0, &ts));
	EXPECT_OK(set_sched(0, SCHED_OTHER, 0));
	/* Linux's default sched_rr_timeslice_ms, and Fulcrum's. */
	EXPECT(ts.tv_sec == 0 && ts.tv_nsec == 100000000, "RR interval %ld.%09ld, want 0.1 s",
	       (long)ts.tv_sec, ts.tv_nsec);
	return NULL;
}

static int child_checks_policy(void *arg)
{
	(void)arg;
	return raw1(SYS_sched_getscheduler, 0) == SCHED_RR && get_prio(0) == 15 ? 0 : 1;
}

static const char *fork_inherits(void)
{
	int status;

	if (rt_denied)
		return NULL;
	EXPECT_OK(set_sched(0, SCHED_RR, 15));
	status = child_run(child_checks_policy, NULL);
	EXPECT_OK(set_sched(0, SCHED_OTHER, 0));
	EXPECT(status >= 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0,
	       "child under SCHED_RR 15: %s", child_describe(status));
	return NULL;
}

static int wr_fd;

static int child_writes(void *arg)
{
	(void)arg;
	raw3(SYS_write, wr_fd, "x", 1);
	return 0;
}

static long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000L + ts.tv_nsec;
}

/* Is there something to read on fd right now? */
static int readable(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return raw3(SYS_poll, &p, 1, 0) == 1;
}

/*
 * On one CPU as FIFO 10, a child (FIFO 10 too) does not run while the
 * parent spins for 50 ms, and does once the parent yields.
 */
static const char *fifo_equal_waits(void)
{
	cpu_set_t one;
	int p[2], pid, status, ran_early, cpu = sched_getcpu();
	long start;

	if (rt_denied)
		return NULL;
	CPU_ZERO(&one);
	CPU_SET(cpu < 0 ? 0 : cpu, &one);
	EXPECT_OK(raw3(SYS_sched_setaffinity, 0, sizeof(one), &one));
	EXPECT_OK(raw2(SYS_pipe2, p, 0));
	wr_fd = p[1];
	EXPECT_OK(set_sched(0, SCHED_FIFO, 10));
	pid = child_start(child_writes, NULL);
	start = now_ns();
	ran_early = 0;
	while (now_ns() - start < 50000000L && !ran_early)
		ran_early = readable(p[0]);
	raw0(SYS_sched_yield); /* the child is next in line at 10 */
	EXPECT_OK(set_sched(0, SCHED_OTHER, 0));
	status = pid > 0 ? child_wait(pid) : pid;
	EXPECT(!ran_early, "the child at the same FIFO priority ran before the parent yielded");
	EXPECT(readable(p[0]), "the child did not run after the yield");
	EXPECT(status >= 0 && WIFEXITED(status), "child: %s", child_describe(status));
	raw1(SYS_close, p[0]);
	raw1(SYS_close, p[1]);
	return NULL;
}

int main(int argc, char **argv)
{
	static const struct test_case cases[] = {
		{ "priority_ranges", priority_ranges }, { "bad_arguments", bad_arguments },
		{ "fifo_round_trip", fifo_round_trip }, { "rr_interval", rr_interval },
		{ "fork_inherits", fork_inherits },	{ "fifo_equal_waits", fifo_equal_waits },
	};

	(void)argc;
	test_self_init(argv[0], "t_sched_rt");
	report_run_all(cases, REPORT_NCASES(cases));
	return report_done("t_sched_rt");
}

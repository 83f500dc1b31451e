/*
 * t_timers: the real-time interval timer, as Linux gives it: alarm's
 * return value (seconds left, rounded), setitimer/getitimer(ITIMER_REAL)
 * reading back what was set, SIGALRM delivered once for a one-shot and
 * again and again for an interval, errors (EINVAL, EFAULT), and a fork
 * child that inherits no timer. Runs on Linux and Fulcrum.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../common/child.h"
#include "../common/rawsys.h"
#include "../common/report.h"

#define BAD_ADDR ((void *)16)

static volatile sig_atomic_t alarms;

static void on_alarm(int sig)
{
	(void)sig;
	alarms++;
}

static void catch_alarms(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sigaction(SIGALRM, &sa, NULL);
	alarms = 0;
}

static long set_real(long value_us, long interval_us, struct itimerval *old)
{
	struct itimerval v = { { interval_us / 1000000, interval_us % 1000000 },
			       { value_us / 1000000, value_us % 1000000 } };

	return raw3(SYS_setitimer, ITIMER_REAL, &v, old);
}

/* Sleeps in 1 ms steps (each may end early on SIGALRM) until n alarms came or limit_ms passed. */
static void wait_alarms(int n, int limit_ms)
{
	struct timespec ms = { 0, 1000000 };

	for (int i = 0; i < limit_ms && alarms < n; i++)
		nanosleep(&ms, NULL);
}

static const char *alarm_left(void)
{
	EXPECT_EQ(raw1(SYS_alarm, 0), 0); /* nothing armed before */
	EXPECT_EQ(raw1(SYS_alarm, 100), 0);
	/* 99.99... s left: rounds to 100 */
	EXPECT_EQ(raw1(SYS_alarm, 50), 100);
	EXPECT_EQ(raw1(SYS_alarm, 0), 50);
	EXPECT_EQ(raw1(SYS_alarm, 0), 0);
	return NULL;
}

static const char *itimer_read_back(void)
{
	struct itimerval v, old;

	EXPECT_OK(set_real(5000000, 1000000, NULL));
	EXPECT_OK(raw2(SYS_getitimer, ITIMER_REAL, &v));
	EXPECT(v.it_interval.tv_sec == 1 && v.it_interval.tv_usec == 0, "interval %ld.%06ld",
	       (long)v.it_interval.tv_sec, (long)v.it_interval.tv_usec);
	EXPECT(v.it_value.tv_sec == 4 || (v.it_value.tv_sec == 5 && v.it_value.tv_usec == 0),
	       "value %ld.%06ld, want just under 5 s", (long)v.it_value.tv_sec,
	       (long)v.it_value.tv_usec);
	/* disarming returns the old setting; afterwards everything reads 0 */
	EXPECT_OK(set_real(0, 0, &old));
	EXPECT(old.it_interval.tv_sec == 1 && old.it_value.tv_sec >= 4, "old %ld/%ld",
	       (long)old.it_interval.tv_sec, (long)old.it_value.tv_sec);
	EXPECT_OK(raw2(SYS_getitimer, ITIMER_REAL, &v));
	EXPECT(!v.it_value.tv_sec && !v.it_value.tv_usec && !v.it_interval.tv_sec &&
		       !v.it_interval.tv_usec,
	       "a disarmed timer reads %ld.%06ld", (long)v.it_value.tv_sec, (long)v.it_value.tv_usec);
	/* an interval without a value arms nothing */
	EXPECT_OK(set_real(0, 1000000, NULL));
	EXPECT_OK(raw2(SYS_getitimer, ITIMER_REAL, &v));
	EXPECT(!v.it_value.tv_sec && !v.it_value.tv_usec, "armed by an interval alone");
	return NULL;
}

static const char *itimer_one_shot(void)
{
	catch_alarms();
	EXPECT_OK(set_real(20000, 0, NULL));
	wait_alarms(1, 5000);
	EXPECT_EQ(alarms, 1);
	wait_alarms(2, 100); /* no second one */
	EXPECT_EQ(alarms, 1);
	signal(SIGALRM, SIG_DFL);
	return NULL;
}

static const char *itimer_interval(void)
{
	struct itimerval v;

	catch_alarms();
	EXPECT_OK(set_real(10000, 10000, NULL));
	wait_alarms(3, 10000);
	EXPECT_OK(set_real(0, 0, NULL));
	EXPECT(alarms >= 3, "%d alarms from a 10 ms interval timer", (int)alarms);
	EXPECT_OK(raw2(SYS_getitimer, ITIMER_REAL, &v));
	EXPECT(!v.it_value.tv_sec && !v.it_value.tv_usec, "still armed after disarming");
	signal(SIGALRM, SIG_DFL);
	return NULL;
}

static const char *itimer_errors(void)
{
	struct itimerval bad = { { 0, 0 }, { 0, 1000000 } }, v;

	EXPECT_ERR(raw3(SYS_setitimer, ITIMER_REAL, &bad, NULL), EINVAL);
	bad.it_value.tv_usec = -1;
	EXPECT_ERR(raw3(SYS_setitimer, ITIMER_REAL, &bad, NULL), EINVAL);
	bad.it_value.tv_usec = 0;
	bad.it_interval.tv_usec = 1000000;
	EXPECT_ERR(raw3(SYS_setitimer, ITIMER_REAL, &bad, NULL), EINVAL);
	bad.it_interval.tv_usec = 0;
	bad.it_value.tv_sec = -1;
	EXPECT_ERR(raw3(SYS_setitimer, ITIMER_REAL, &bad, NULL), EINVAL);
	EXPECT_ERR(raw3(SYS_setitimer, 99, &v, NULL), EINVAL);
	EXPECT_ERR(raw2(SYS_getitimer, 99, &v), EINVAL);
	EXPECT_ERR(raw3(SYS_setitimer, ITIMER_REAL, BAD_ADDR, NULL), EFAULT);
	EXPECT_ERR(raw2(SYS_getitimer, ITIMER_REAL, BAD_ADDR), EFAULT);
	return NULL;
}

static const char *fork_no_timer(void)
{
	long pid;
	int status = 0;

	EXPECT_EQ(raw1(SYS_alarm, 100), 0);
	pid = EXPECT_OK(raw0(SYS_fork));
	if (pid == 0) {
		struct itimerval v;

		raw2(SYS_getitimer, ITIMER_REAL, &v);
		raw1(SYS_exit_group, v.it_value.tv_sec || v.it_value.tv_usec ? 1 : 0);
	}
	EXPECT_OK(raw4(SYS_wait4, pid, &status, 0, 0));
	EXPECT_EQ(raw1(SYS_alarm, 0), 100);
	EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the child had a timer (status %#x)",
	       status);
	return NULL;
}

/* clang-format off */
static const struct test_case cases[] = {
	{ "alarm_left", alarm_left },
	{ "itimer_read_back", itimer_read_back },
	{ "itimer_one_shot", itimer_one_shot },
	{ "itimer_interval", itimer_interval },
	{ "itimer_errors", itimer_errors },
	{ "fork_no_timer", fork_no_timer },
};
/* clang-format on */

int main(int argc, char **argv)
{
	(void)argc;
	test_self_init(argv[0], "t_timers");
	report_run_all(cases, REPORT_NCASES(cases));
	return report_done("t_timers");
}

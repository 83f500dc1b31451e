/*
 * t_ptimers: POSIX timers through the raw system calls -- timer_create
 * with SIGEV_SIGNAL, SIGEV_THREAD_ID, SIGEV_NONE and no sigevent,
 * timer_settime (relative, TIMER_ABSTIME, intervals, disarming),
 * timer_gettime, timer_getoverrun, timer_delete, the siginfo a handler
 * gets, fork not inheriting timers, and Linux's errors. Runs on Linux and
 * Fulcrum.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../common/child.h"
#include "../common/rawsys.h"
#include "../common/report.h"

#define SIGEV_SIGNAL_	 0
#define SIGEV_NONE_	 1
#define SIGEV_THREAD_ID_ 4

struct ksigevent {
	long value;
	int signo;
	int notify;
	int tid;
	int pad[11];
};

struct its {
	struct timespec interval, value;
};

static volatile int got_sig, got_code, got_timerid, got_value, got_count;

static void on_timer(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	got_sig = sig;
	got_code = si->si_code;
	got_timerid = si->si_timerid;
	got_value = si->si_value.sival_int;
	got_count++;
}

static void catch (int sig)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_timer;
	sa.sa_flags = SA_SIGINFO;
	sigaction(sig, &sa, NULL);
	got_sig = got_code = got_timerid = got_value = got_count = 0;
}

static struct its its_ms(long value_ms, long interval_ms)
{
	struct its t = { { interval_ms / 1000, interval_ms % 1000 * 1000000 },
			 { value_ms / 1000, value_ms % 1000 * 1000000 } };

	return t;
}

/* Waits (with a 5 s bound) until the handler ran n times. */
static int wait_count(int n)
{
	for (int i = 0; i < 5000 && got_count < n; i++)
		usleep(1000);
	return got_count >= n;
}

static const char *signal_oneshot(void)
{
	struct ksigevent ev = { .value = 42, .signo = SIGUSR1, .notify = SIGEV_SIGNAL_ };
	struct its t = its_ms(10, 0), cur;
	int id = -1;

	catch (SIGUSR1);
	EXPECT_EQ(raw3(SYS_timer_create, CLOCK_MONOTONIC, &ev, &id), 0);
	EXPECT(id >= 0, "timer id %d", id);
	EXPECT_EQ(raw4(SYS_timer_settime, id, 0, &t, NULL), 0);
	EXPECT_EQ(raw2(SYS_timer_gettime, id, &cur), 0);
	EXPECT(cur.value.tv_sec == 0 && cur.value.tv_nsec > 0 && cur.value.tv_nsec <= 10000000,
	       "gettime %ld.%09ld", (long)cur.value.tv_sec, cur.value.tv_nsec);
	EXPECT(wait_count(1), "no signal within 5 s");
	EXPECT(got_sig == SIGUSR1 && got_code == SI_TIMER && got_value == 42 && got_timerid == id,
	       "sig %d code %d value %d timerid %d (id %d)", got_sig, got_code, got_value,
	       got_timerid, id);
	EXPECT_EQ(raw2(SYS_timer_gettime, id, &cur), 0);
	EXPECT(cur.value.tv_sec == 0 && cur.value.tv_nsec == 0, "after expiry: %ld ns",
	       cur.value.tv_nsec);
	usleep(20000);
	EXPECT_EQ(got_count, 1);
	EXPECT_EQ(raw1(SYS_timer_delete, id), 0);
	EXPECT_ERR(raw1(SYS_timer_delete, id), EINVAL);
	return NULL;
}

static const char *signal_interval(void)
{
	struct ksigevent ev = { .value = 7, .signo = SIGUSR2, .notify = SIGEV_SIGNAL_ };
	struct its t = its_ms(3, 3), old;
	int id = -1;

	catch (SIGUSR2);
	EXPECT_EQ(raw3(SYS_timer_create, CLOCK_MONOTONIC, &ev, &id), 0);
	EXPECT_EQ(raw4(SYS_timer_settime, id, 0, &t, NULL), 0);
	EXPECT(wait_count(3), "%d signals within 5 s, want 3", got_count);
	EXPECT(raw1(SYS_timer_getoverrun, id) >= 0, "getoverrun failed");
	t = its_ms(0, 0);
	EXPECT_EQ(raw4(SYS_timer_settime, id, 0, &t, &old), 0);
	EXPECT(old.interval.tv_sec == 0 && old.interval.tv_nsec == 3000000, "old interval %ld",
	       old.interval.tv_nsec);
	EXPECT_EQ(raw2(SYS_timer_gettime, id, &old), 0);
	EXPECT(old.value.tv_nsec == 0 && old.interval.tv_nsec == 0, "disarmed timer shows %ld/%ld",
	       old.value.tv_nsec, old.interval.tv_nsec);
	EXPECT_EQ(raw1(SYS_timer_delete, id), 0);
	return NULL;
}

static const char *thread_id_and_default(void)
{
	struct ksigevent ev = { .value = 5, .signo = SIGUSR1, .notify = SIGEV_THREAD_ID_ };
	struct its t = its_ms(5, 0);
	int id = -1;

	catch (SIGUSR1);
	ev.tid = (int)raw0(SYS_gettid);
	EXPECT_EQ(raw3(SYS_timer_create, CLOCK_MONOTONIC, &ev, &id), 0);
	EXPECT_EQ(raw4(SYS_timer_settime, id, 0, &t, NULL), 0);
	EXPECT(wait_count(1), "no SIGEV_THREAD_ID signal within 5 s");
	EXPECT(got_code == SI_TIMER && got_value == 5, "code %d value %d", got_code, got_value);
	EXPECT_EQ(raw1(SYS_timer_delete, id), 0);
	/* No sigevent: SIGALRM with the timer id as its value. */
	catch (SIGALRM);
	EXPECT_EQ(raw3(SYS_timer_create, CLOCK_REALTIME, NULL, &id), 0);
	EXPECT_EQ(raw4(SYS_timer_settime, id, 0, &t, NULL), 0);
	EXPECT(wait_count(1), "no default SIGALRM within 5 s");
	EXPECT(got_sig == SIGALRM && got_code == SI_TIMER && got_value == id,
	       "sig %d code %d value %d", got_sig, got_code, got_value);
	EXPECT_EQ(raw1(SYS_timer_delete, id), 0);
	return NULL;
}

static const char *sigev_none_abstime(void)
{
	struct ksigevent ev = { .signo = SIGUSR1, .notify = SIGEV_NONE_ };
	struct timespec now;
	struct its t, cur;
	int id = -1;

	catch (SIGUSR1);
	EXPECT_EQ(raw3(SYS_timer_create, CLOCK_REALTIME, &ev, &id), 0);
	clock_gettime(CLOCK_REALTIME, &now);
	t = its_ms(0, 0);
	t.value.tv_sec = now.tv_sec + 100;
	t.value.tv_nsec = now.tv_nsec;
	EXPECT_EQ(raw4(SYS_timer_settime, id, TIMER_ABSTIME, &t, NULL), 0);
	EXPECT_EQ(raw2(SYS_timer_gettime, id, &cur), 0);
	EXPECT(cur.value.tv_sec >= 98 && cur.value.tv_sec <= 100, "%ld s left of 100",
	       (long)cur.value.tv_sec);
	/* A deadline already past expires at once, and SIGEV_NONE sends nothing. */
	t.value.tv_sec = 1;
	EXPECT_EQ(raw4(SYS_timer_settime, id, TIMER_ABSTIME, &t, NULL), 0);
	usleep(20000);
	EXPECT_EQ(raw2(SYS_timer_gettime, id, &cur), 0);
	EXPECT(cur.value.tv_sec == 0 && cur.value.tv_nsec == 0, "past deadline: %ld ns left",
	       cur.value.tv_nsec);
	EXPECT_EQ(got_count, 0);
	EXPECT_EQ(raw1(SYS_timer_delete, id), 0);
	return NULL;
}

static const char *fork_drops_timers(void)
{
	struct ksigevent ev = { .signo = SIGUSR1, .notify = SIGEV_NONE_ };
	struct its cur;
	int id = -1, status;
	pid_t pid;

	EXPECT_EQ(raw3(SYS_timer_create, CLOCK_MONOTONIC, &ev, &id), 0);
	pid = fork();
	if (pid == 0)
		_exit(raw2(SYS_timer_gettime, id, &cur) == -EINVAL ? 0 : 1);
	EXPECT(pid > 0, "fork: %s", strerror(errno));
	status = child_wait(pid);
	EXPECT(status == 0, "the child saw the timer: %s", child_describe(status));
	EXPECT_EQ(raw2(SYS_timer_gettime, id, &cur), 0);
	EXPECT_EQ(raw1(SYS_timer_delete, id), 0);
	return NULL;
}

static const char *errors(void)
{
	struct ksigevent ev = { .signo = SIGUSR1, .notify = SIGEV_SIGNAL_ };
	struct its t = its_ms(10, 0), bad = { { 0, 0 }, { 0, 1000000000 } };
	int id = -1, id2;

	EXPECT_ERR(raw3(SYS_timer_create, 99, &ev, &id), EINVAL);
	EXPECT_ERR(raw3(SYS_timer_create, CLOCK_MONOTONIC_RAW, &ev, &id), EOPNOTSUPP);
	EXPECT_ERR(raw3(SYS_timer_create, CLOCK_MONOTONIC, BAD_PTR_LOW, &id), EFAULT);
	ev.signo = 0;
	EXPECT_ERR(raw3(SYS_timer_create, CLOCK_MONOTONIC, &ev, &id), EINVAL);
	ev.signo = 65;
	EXPECT_ERR(raw3(SYS_timer_create, CLOCK_MONOTONIC, &ev, &id), EINVAL);
	ev.signo = SIGUSR1;
	ev.notify = 7;
	EXPECT_ERR(raw3(SYS_timer_create, CLOCK_MONOTONIC, &ev, &id), EINVAL);
	ev.notify = SIGEV_THREAD_ID_;
	ev.tid = 1; /* init: another process's thread */
	EXPECT_ERR(raw3(SYS_timer_create, CLOCK_MONOTONIC, &ev, &id), EINVAL);
	ev.notify = SIGEV_SIGNAL_;
	EXPECT_EQ(raw3(SYS_timer_create, CLOCK_MONOTONIC, &ev, &id), 0);
	EXPECT_EQ(raw3(SYS_timer_create, CLOCK_MONOTONIC, &ev, &id2), 0);
	EXPECT(id != id2, "two timers share id %d", id);
	EXPECT_ERR(raw4(SYS_timer_settime, id, 0, &bad, NULL), EINVAL);
	EXPECT_ERR(raw4(SYS_timer_settime, id, 0, BAD_PTR_LOW, NULL), EFAULT);
	EXPECT_ERR(raw4(SYS_timer_settime, 12345, 0, &t, NULL), EINVAL);
	EXPECT_ERR(raw2(SYS_timer_gettime, 12345, &t), EINVAL);
	EXPECT_ERR(raw2(SYS_timer_gettime, id, BAD_PTR_LOW), EFAULT);
	EXPECT_ERR(raw1(SYS_timer_getoverrun, 12345), EINVAL);
	EXPECT_EQ(raw1(SYS_timer_getoverrun, id), 0);
	EXPECT_EQ(raw1(SYS_timer_delete, id), 0);
	EXPECT_EQ(raw1(SYS_timer_delete, id2), 0);
	EXPECT_ERR(raw1(SYS_timer_delete, id2), EINVAL);
	return NULL;
}

static const struct test_case cases[] = {
	{ "signal_oneshot", signal_oneshot },
	{ "signal_interval", signal_interval },
	{ "thread_id_and_default", thread_id_and_default },
	{ "sigev_none_abstime", sigev_none_abstime },
	{ "fork_drops_timers", fork_drops_timers },
	{ "errors", errors },
};

int main(int argc, char **argv)
{
	(void)argc;
	test_self_init(argv[0], "t_ptimers");
	report_run_all(cases, REPORT_NCASES(cases));
	return report_done("t_ptimers");
}

/*
 * t_eventfds: timers and counters read through file descriptors --
 * timerfd_create/settime/gettime (one-shot, interval, TFD_TIMER_ABSTIME
 * on CLOCK_MONOTONIC and CLOCK_REALTIME, expirations read, poll and
 * select readiness, a blocked read woken) and eventfd/eventfd2 (counter,
 * EFD_SEMAPHORE, O_NONBLOCK, poll), with Linux's results and errors.
 * Checks never rest on timing beyond "not before the deadline" and "by a
 * generous bound". Runs on Linux and Fulcrum.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "../common/child.h"
#include "../common/rawsys.h"
#include "../common/report.h"

#define TFD_TIMER_ABSTIME_ 1
#define TFD_NONBLOCK_	   O_NONBLOCK
#define TFD_CLOEXEC_	   O_CLOEXEC
#define EFD_SEMAPHORE_	   1

struct its {
	struct timespec interval, value;
};

static long long now_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static struct its its_ms(long value_ms, long interval_ms)
{
	struct its t = { { interval_ms / 1000, interval_ms % 1000 * 1000000 },
			 { value_ms / 1000, value_ms % 1000 * 1000000 } };

	return t;
}

static const char *timerfd_oneshot(void)
{
	struct its t = its_ms(20, 0), cur;
	long long start = now_ns(CLOCK_MONOTONIC), took;
	uint64_t n = 0;
	int fd = (int)EXPECT_OK(raw2(SYS_timerfd_create, CLOCK_MONOTONIC, 0));
	struct stat st;

	EXPECT_EQ(raw4(SYS_timerfd_settime, fd, 0, &t, NULL), 0);
	EXPECT_EQ(raw2(SYS_timerfd_gettime, fd, &cur), 0);
	EXPECT(cur.value.tv_sec == 0 && cur.value.tv_nsec > 0 && cur.value.tv_nsec <= 20000000,
	       "gettime: %ld.%09ld left", (long)cur.value.tv_sec, cur.value.tv_nsec);
	EXPECT(cur.interval.tv_sec == 0 && cur.interval.tv_nsec == 0, "an interval appeared");
	/* A blocking read waits for the expiry. */
	EXPECT_EQ(raw3(SYS_read, fd, &n, sizeof(n)), 8);
	took = now_ns(CLOCK_MONOTONIC) - start;
	EXPECT_EQ(n, 1);
	EXPECT(took >= 20000000, "read returned after %lld ns, before the 20 ms deadline", took);
	EXPECT_EQ(raw2(SYS_timerfd_gettime, fd, &cur), 0);
	EXPECT(cur.value.tv_sec == 0 && cur.value.tv_nsec == 0, "expired one-shot shows %ld ns",
	       cur.value.tv_nsec);
	EXPECT_EQ(raw2(SYS_fstat, fd, &st), 0);
	EXPECT_EQ(st.st_mode & S_IFMT, 0); /* an anonymous inode */
	raw1(SYS_close, fd);
	return NULL;
}

static const char *timerfd_interval(void)
{
	struct its t = its_ms(5, 5), old;
	uint64_t n = 0, total = 0;
	int fd = (int)EXPECT_OK(raw2(SYS_timerfd_create, CLOCK_MONOTONIC, TFD_CLOEXEC_));

	EXPECT_EQ(raw4(SYS_timerfd_settime, fd, 0, &t, NULL), 0);
	while (total < 4) {
		EXPECT_EQ(raw3(SYS_read, fd, &n, sizeof(n)), 8);
		EXPECT(n >= 1, "read %llu expirations", (unsigned long long)n);
		total += n;
	}
	/* A missed stretch counts every interval in it: 30 ms asleep is at least 5 more. */
	usleep(30000);
	EXPECT_EQ(raw3(SYS_read, fd, &n, sizeof(n)), 8);
	EXPECT(n >= 5, "%llu expirations after 30 ms at 5 ms", (unsigned long long)n);
	/* Disarm: settime with 0 returns the old setting. */
	t = its_ms(0, 0);
	EXPECT_EQ(raw4(SYS_timerfd_settime, fd, 0, &t, &old), 0);
	EXPECT(old.interval.tv_nsec == 5000000 && old.interval.tv_sec == 0, "old interval %ld",
	       old.interval.tv_nsec);
	EXPECT_EQ(raw3(SYS_fcntl, fd, F_GETFD, 0), FD_CLOEXEC);
	raw1(SYS_close, fd);
	return NULL;
}

static const char *timerfd_abstime(void)
{
	static const clockid_t clocks[] = { CLOCK_MONOTONIC, CLOCK_REALTIME };

	for (int i = 0; i < 2; i++) {
		long long deadline = now_ns(clocks[i]) + 15000000, after;
		struct its t = { { 0, 0 }, { deadline / 1000000000, deadline % 1000000000 } };
		int fd = (int)EXPECT_OK(raw2(SYS_timerfd_create, clocks[i], 0));
		uint64_t n = 0;

		EXPECT_EQ(raw4(SYS_timerfd_settime, fd, TFD_TIMER_ABSTIME_, &t, NULL), 0);
		EXPECT_EQ(raw3(SYS_read, fd, &n, sizeof(n)), 8);
		after = now_ns(clocks[i]);
		EXPECT(n == 1 && after >= deadline, "clock %d: %llu expirations, %lld ns early",
		       clocks[i], (unsigned long long)n, deadline - after);
		/* A deadline already past fires at once. */
		t.value.tv_sec = 1;
		t.value.tv_nsec = 0;
		EXPECT_EQ(raw4(SYS_timerfd_settime, fd, TFD_TIMER_ABSTIME_, &t, NULL), 0);
		EXPECT_EQ(raw3(SYS_read, fd, &n, sizeof(n)), 8);
		EXPECT_EQ(n, 1);
		raw1(SYS_close, fd);
	}
	return NULL;
}

static const char *timerfd_readiness(void)
{
	struct its t = its_ms(10, 0);
	struct pollfd p;
	struct timeval tv = { 5, 0 };
	fd_set rd;
	uint64_t n;
	int fd = (int)EXPECT_OK(raw2(SYS_timerfd_create, CLOCK_MONOTONIC, TFD_NONBLOCK_));

	EXPECT_ERR(raw3(SYS_read, fd, &n, sizeof(n)), EAGAIN); /* never armed */
	p.fd = fd;
	p.events = POLLIN;
	EXPECT_EQ(raw3(SYS_poll, &p, 1, 0), 0);
	EXPECT_EQ(raw4(SYS_timerfd_settime, fd, 0, &t, NULL), 0);
	EXPECT_EQ(raw3(SYS_poll, &p, 1, 5000), 1);
	EXPECT(p.revents == POLLIN, "revents %#x", p.revents);
	/* Still readable until read. */
	FD_ZERO(&rd);
	FD_SET(fd, &rd);
	EXPECT_EQ(raw5(SYS_select, fd + 1, &rd, NULL, NULL, &tv), 1);
	EXPECT(FD_ISSET(fd, &rd), "select did not mark the timerfd");
	EXPECT_EQ(raw3(SYS_read, fd, &n, sizeof(n)), 8);
	EXPECT_EQ(n, 1);
	EXPECT_ERR(raw3(SYS_read, fd, &n, sizeof(n)), EAGAIN);
	EXPECT_EQ(raw3(SYS_poll, &p, 1, 0), 0);
	/* Re-arming clears the count. */
	t = its_ms(1, 0);
	EXPECT_EQ(raw4(SYS_timerfd_settime, fd, 0, &t, NULL), 0);
	EXPECT_EQ(raw3(SYS_poll, &p, 1, 5000), 1);
	t = its_ms(1000, 0);
	EXPECT_EQ(raw4(SYS_timerfd_settime, fd, 0, &t, NULL), 0);
	EXPECT_ERR(raw3(SYS_read, fd, &n, sizeof(n)), EAGAIN);
	raw1(SYS_close, fd);
	return NULL;
}

static const char *timerfd_errors(void)
{
	struct its t = its_ms(10, 0), bad = { { 0, 0 }, { 0, 1000000000 } };
	uint64_t n;
	char small[4];
	int fd = (int)EXPECT_OK(raw2(SYS_timerfd_create, CLOCK_MONOTONIC, 0));
	int pipefd[2];

	EXPECT_ERR(raw2(SYS_timerfd_create, CLOCK_PROCESS_CPUTIME_ID, 0), EINVAL);
	EXPECT_ERR(raw2(SYS_timerfd_create, 99, 0), EINVAL);
	EXPECT_ERR(raw2(SYS_timerfd_create, CLOCK_MONOTONIC, 1), EINVAL);
	EXPECT_ERR(raw4(SYS_timerfd_settime, fd, 0x10, &t, NULL), EINVAL);
	EXPECT_ERR(raw4(SYS_timerfd_settime, fd, 0, &bad, NULL), EINVAL);
	EXPECT_ERR(raw4(SYS_timerfd_settime, fd, 0, BAD_PTR_LOW, NULL), EFAULT);
	EXPECT_ERR(raw4(SYS_timerfd_settime, 9999, 0, &t, NULL), EBADF);
	EXPECT_EQ(raw1(SYS_pipe, pipefd), 0);
	EXPECT_ERR(raw4(SYS_timerfd_settime, pipefd[0], 0, &t, NULL), EINVAL);
	EXPECT_ERR(raw2(SYS_timerfd_gettime, pipefd[0], &t), EINVAL);
	EXPECT_ERR(raw2(SYS_timerfd_gettime, fd, BAD_PTR_LOW), EFAULT);
	EXPECT_ERR(raw3(SYS_read, fd, small, sizeof(small)), EINVAL);
	EXPECT_ERR(raw3(SYS_write, fd, &n, sizeof(n)), EINVAL);
	raw1(SYS_close, pipefd[0]);
	raw1(SYS_close, pipefd[1]);
	raw1(SYS_close, fd);
	return NULL;
}

static const char *eventfd_counter(void)
{
	uint64_t v = 3, out = 0;
	int fd = (int)EXPECT_OK(raw2(SYS_eventfd2, 5, O_NONBLOCK));
	struct pollfd p = { fd, POLLIN | POLLOUT, 0 };

	EXPECT_EQ(raw3(SYS_poll, &p, 1, 0), 1);
	EXPECT(p.revents == (POLLIN | POLLOUT), "revents %#x", p.revents);
	EXPECT_EQ(raw3(SYS_write, fd, &v, sizeof(v)), 8);
	EXPECT_EQ(raw3(SYS_read, fd, &out, sizeof(out)), 8);
	EXPECT_EQ(out, 8);
	EXPECT_ERR(raw3(SYS_read, fd, &out, sizeof(out)), EAGAIN);
	EXPECT_EQ(raw3(SYS_poll, &p, 1, 0), 1);
	EXPECT(p.revents == POLLOUT, "empty: revents %#x", p.revents);
	/* Up to 2^64 - 2 fits; one more would block. */
	v = ~0ULL - 1;
	EXPECT_EQ(raw3(SYS_write, fd, &v, sizeof(v)), 8);
	v = 1;
	EXPECT_ERR(raw3(SYS_write, fd, &v, sizeof(v)), EAGAIN);
	EXPECT_EQ(raw3(SYS_poll, &p, 1, 0), 1);
	EXPECT(p.revents == POLLIN, "full: revents %#x", p.revents);
	v = ~0ULL;
	EXPECT_ERR(raw3(SYS_write, fd, &v, sizeof(v)), EINVAL);
	EXPECT_ERR(raw3(SYS_write, fd, &v, 4), EINVAL);
	EXPECT_ERR(raw3(SYS_read, fd, &out, 7), EINVAL);
	EXPECT_ERR(raw3(SYS_write, fd, BAD_PTR_LOW, 8), EFAULT);
	EXPECT_ERR(raw2(SYS_eventfd2, 0, 0x10), EINVAL);
	raw1(SYS_close, fd);
	/* eventfd (the old call): flags 0, so it blocks; 0 is not readable. */
	fd = (int)EXPECT_OK(raw1(SYS_eventfd, 0));
	EXPECT_EQ(raw3(SYS_fcntl, fd, F_GETFL, 0) & O_NONBLOCK, 0);
	p.fd = fd;
	EXPECT_EQ(raw3(SYS_poll, &p, 1, 0), 1);
	EXPECT(p.revents == POLLOUT, "eventfd(0): revents %#x", p.revents);
	raw1(SYS_close, fd);
	return NULL;
}

static const char *eventfd_semaphore(void)
{
	uint64_t out = 0;
	int fd = (int)EXPECT_OK(raw2(SYS_eventfd2, 2, EFD_SEMAPHORE_ | O_NONBLOCK | O_CLOEXEC));

	EXPECT_EQ(raw3(SYS_read, fd, &out, sizeof(out)), 8);
	EXPECT_EQ(out, 1);
	EXPECT_EQ(raw3(SYS_read, fd, &out, sizeof(out)), 8);
	EXPECT_EQ(out, 1);
	EXPECT_ERR(raw3(SYS_read, fd, &out, sizeof(out)), EAGAIN);
	EXPECT_EQ(raw3(SYS_fcntl, fd, F_GETFD, 0), FD_CLOEXEC);
	raw1(SYS_close, fd);
	return NULL;
}

/* A reader blocked on an empty eventfd is woken by another process's write. */
static const char *eventfd_blocking(void)
{
	int fd = (int)EXPECT_OK(raw2(SYS_eventfd2, 0, 0));
	uint64_t v = 7, out = 0;
	pid_t pid = fork();
	int status;

	if (pid == 0) {
		usleep(20000);
		_exit(raw3(SYS_write, fd, &v, sizeof(v)) == 8 ? 0 : 1);
	}
	EXPECT(pid > 0, "fork: %s", strerror(errno));
	EXPECT_EQ(raw3(SYS_read, fd, &out, sizeof(out)), 8);
	EXPECT_EQ(out, 7);
	status = child_wait(pid);
	EXPECT(status == 0, "the writer: %s", child_describe(status));
	raw1(SYS_close, fd);
	return NULL;
}

static int ep_wait(int ep, struct epoll_event *evs, int max, int timeout_ms)
{
	return (int)raw4(SYS_epoll_wait, ep, evs, max, timeout_ms);
}

static const char *epoll_level(void)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.u64 = 0x1234 }, out[4];
	int ep = (int)EXPECT_OK(raw1(SYS_epoll_create1, EPOLL_CLOEXEC));
	int p[2], efd;
	char c;

	EXPECT_EQ(raw3(SYS_fcntl, ep, F_GETFD, 0), FD_CLOEXEC);
	EXPECT_EQ(raw1(SYS_pipe, p), 0);
	EXPECT_EQ(raw4(SYS_epoll_ctl, ep, EPOLL_CTL_ADD, p[0], &ev), 0);
	EXPECT_EQ(ep_wait(ep, out, 4, 0), 0);
	EXPECT_EQ(raw3(SYS_write, p[1], "x", 1), 1);
	EXPECT_EQ(ep_wait(ep, out, 4, 1000), 1);
	EXPECT(out[0].events == EPOLLIN && out[0].data.u64 == 0x1234, "event %#x data %#llx",
	       out[0].events, (unsigned long long)out[0].data.u64);
	EXPECT_EQ(ep_wait(ep, out, 4, 0), 1); /* level-triggered: still there */
	EXPECT_EQ(raw3(SYS_read, p[0], &c, 1), 1);
	EXPECT_EQ(ep_wait(ep, out, 4, 0), 0);
	/* A second file, writable; maxevents bounds what one wait returns. */
	efd = (int)EXPECT_OK(raw2(SYS_eventfd2, 1, 0));
	ev.events = EPOLLIN | EPOLLOUT;
	ev.data.u64 = 77;
	EXPECT_EQ(raw4(SYS_epoll_ctl, ep, EPOLL_CTL_ADD, efd, &ev), 0);
	EXPECT_EQ(raw3(SYS_write, p[1], "y", 1), 1);
	EXPECT_EQ(ep_wait(ep, out, 4, 0), 2);
	EXPECT_EQ(ep_wait(ep, out, 1, 0), 1);
	/* MOD and DEL. */
	ev.events = EPOLLOUT;
	EXPECT_EQ(raw4(SYS_epoll_ctl, ep, EPOLL_CTL_MOD, efd, &ev), 0);
	EXPECT_EQ(raw4(SYS_epoll_ctl, ep, EPOLL_CTL_DEL, p[0], NULL), 0);
	EXPECT_EQ(ep_wait(ep, out, 4, 0), 1);
	EXPECT(out[0].events == EPOLLOUT && out[0].data.u64 == 77, "after MOD: %#x %llu",
	       out[0].events, (unsigned long long)out[0].data.u64);
	/* Hang-up is reported unasked; a closed descriptor leaves the set. */
	ev.events = EPOLLIN;
	ev.data.u64 = 5;
	EXPECT_EQ(raw4(SYS_epoll_ctl, ep, EPOLL_CTL_ADD, p[0], &ev), 0);
	EXPECT_EQ(raw4(SYS_epoll_ctl, ep, EPOLL_CTL_DEL, efd, NULL), 0);
	raw1(SYS_close, efd);
	EXPECT_EQ(raw3(SYS_read, p[0], &c, 1), 1);
	raw1(SYS_close, p[1]);
	EXPECT_EQ(ep_wait(ep, out, 4, 0), 1);
	EXPECT(out[0].events == EPOLLHUP && out[0].data.u64 == 5, "hang-up: %#x", out[0].events);
	raw1(SYS_close, p[0]);
	EXPECT_EQ(ep_wait(ep, out, 4, 0), 0);
	raw1(SYS_close, ep);
	return NULL;
}

static const char *epoll_oneshot_and_timer(void)
{
	struct its t = its_ms(10, 0);
	struct epoll_event ev = { .events = EPOLLIN | EPOLLONESHOT, .data.u64 = 9 }, out[2];
	int ep = (int)EXPECT_OK(raw1(SYS_epoll_create, 1));
	int tfd = (int)EXPECT_OK(raw2(SYS_timerfd_create, CLOCK_MONOTONIC, 0));
	long long start = now_ns(CLOCK_MONOTONIC);

	EXPECT_EQ(raw4(SYS_epoll_ctl, ep, EPOLL_CTL_ADD, tfd, &ev), 0);
	EXPECT_EQ(raw4(SYS_timerfd_settime, tfd, 0, &t, NULL), 0);
	/* A blocked wait is woken by the expiry. */
	EXPECT_EQ(raw6(SYS_epoll_pwait, ep, out, 2, 5000, NULL, 8), 1);
	EXPECT(now_ns(CLOCK_MONOTONIC) - start >= 10000000, "woke before the timer's deadline");
	EXPECT(out[0].events == EPOLLIN && out[0].data.u64 == 9, "event %#x", out[0].events);
	/* One-shot: not again until re-armed with MOD, though still readable. */
	EXPECT_EQ(ep_wait(ep, out, 2, 0), 0);
	ev.events = EPOLLIN;
	EXPECT_EQ(raw4(SYS_epoll_ctl, ep, EPOLL_CTL_MOD, tfd, &ev), 0);
	EXPECT_EQ(ep_wait(ep, out, 2, 0), 1);
	raw1(SYS_close, tfd);
	raw1(SYS_close, ep);
	return NULL;
}

static const char *epoll_errors(void)
{
	struct epoll_event ev = { .events = EPOLLIN }, out[1];
	int ep = (int)EXPECT_OK(raw1(SYS_epoll_create1, 0));
	int p[2], f;
	char path[64];

	EXPECT_EQ(raw1(SYS_pipe, p), 0);
	EXPECT_ERR(raw1(SYS_epoll_create1, 1), EINVAL);
	EXPECT_ERR(raw1(SYS_epoll_create, 0), EINVAL);
	EXPECT_ERR(raw4(SYS_epoll_ctl, ep, EPOLL_CTL_ADD, p[0], BAD_PTR_LOW), EFAULT);
	EXPECT_ERR(raw4(SYS_epoll_ctl, 9999, EPOLL_CTL_ADD, p[0], &ev), EBADF);
	EXPECT_ERR(raw4(SYS_epoll_ctl, ep, EPOLL_CTL_ADD, 9999, &ev), EBADF);
	EXPECT_ERR(raw4(SYS_epoll_ctl, p[1], EPOLL_CTL_ADD, p[0], &ev), EINVAL);
	EXPECT_ERR(raw4(SYS_epoll_ctl, ep, EPOLL_CTL_ADD, ep, &ev), EINVAL);
	EXPECT_ERR(raw4(SYS_epoll_ctl, ep, 9, p[0], &ev), EINVAL);
	EXPECT_ERR(raw4(SYS_epoll_ctl, ep, EPOLL_CTL_MOD, p[0], &ev), ENOENT);
	EXPECT_ERR(raw4(SYS_epoll_ctl, ep, EPOLL_CTL_DEL, p[0], &ev), ENOENT);
	EXPECT_EQ(raw4(SYS_epoll_ctl, ep, EPOLL_CTL_ADD, p[0], &ev), 0);
	EXPECT_ERR(raw4(SYS_epoll_ctl, ep, EPOLL_CTL_ADD, p[0], &ev), EEXIST);
	/* A regular file is always ready: epoll refuses it. */
	snprintf(path, sizeof(path), "/tmp/t_eventfds.%d", getpid());
	f = (int)EXPECT_OK(raw4(SYS_open, path, O_RDWR | O_CREAT, 0600, 0));
	raw1(SYS_unlink, path);
	EXPECT_ERR(raw4(SYS_epoll_ctl, ep, EPOLL_CTL_ADD, f, &ev), EPERM);
	raw1(SYS_close, f);
	EXPECT_ERR(ep_wait(ep, out, 0, 0), EINVAL);
	EXPECT_ERR(ep_wait(ep, BAD_PTR_KERNEL, 1, 0), EFAULT);
	EXPECT_ERR(ep_wait(p[0], out, 1, 0), EINVAL);
	EXPECT_ERR(ep_wait(9999, out, 1, 0), EBADF);
	raw1(SYS_close, p[0]);
	raw1(SYS_close, p[1]);
	raw1(SYS_close, ep);
	return NULL;
}

static const struct test_case cases[] = {
	{ "timerfd_oneshot", timerfd_oneshot },
	{ "timerfd_interval", timerfd_interval },
	{ "timerfd_abstime", timerfd_abstime },
	{ "timerfd_readiness", timerfd_readiness },
	{ "timerfd_errors", timerfd_errors },
	{ "eventfd_counter", eventfd_counter },
	{ "eventfd_semaphore", eventfd_semaphore },
	{ "eventfd_blocking", eventfd_blocking },
	{ "epoll_level", epoll_level },
	{ "epoll_oneshot_and_timer", epoll_oneshot_and_timer },
	{ "epoll_errors", epoll_errors },
};

int main(int argc, char **argv)
{
	(void)argc;
	test_self_init(argv[0], "t_eventfds");
	report_run_all(cases, REPORT_NCASES(cases));
	return report_done("t_eventfds");
}

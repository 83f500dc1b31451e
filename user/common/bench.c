/*
 * Shared pieces of the workload programs (see bench.h): they print RESULT
 * lines for tools/bench, and fail loudly whenever a result looks wrong.
 */
#include "bench.h"

#include <errno.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "child.h"

static const char *bench_name = "bench";

void bench_init(const char *name)
{
	bench_name = name;
	signal(SIGPIPE, SIG_IGN);
	setvbuf(stdout, NULL, _IOLBF, 0);
}

void bench_fail(const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fflush(stdout);
	fprintf(stderr, "%s: FAILED: %s\n", bench_name, msg);
	exit(1);
}

void bench_usage_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", bench_name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n(see %s --help)\n", bench_name);
	exit(2);
}

long bench_arg_long(const char *opt, const char *s, long min, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max)
		bench_usage_error("%s: '%s' is not an integer in %ld..%ld", opt, s, min, max);
	return v;
}

double bench_arg_double(const char *opt, const char *s, double min, double max)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !(v >= min && v <= max))
		bench_usage_error("%s: '%s' is not a number in %g..%g", opt, s, min, max);
	return v;
}

uint64_t bench_now_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_MONOTONIC, &ts))
		bench_fail("clock_gettime(CLOCK_MONOTONIC): %s", strerror(errno));
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
}

void bench_result(double value, const char *unit, const char *keys, ...)
{
	char words[256];
	va_list ap;

	if (!isfinite(value))
		bench_fail("result %s is not a finite number", unit);
	va_start(ap, keys);
	vsnprintf(words, sizeof(words), keys, ap);
	va_end(ap);
	/* Plain decimals: six significant digits, or one decimal place from 1000 up. */
	if (fabs(value) >= 1000)
		printf("RESULT name=%s %s value=%.1f unit=%s\n", bench_name, words, value, unit);
	else
		printf("RESULT name=%s %s value=%.6g unit=%s\n", bench_name, words, value, unit);
	fflush(stdout);
}

int bench_write_all(int fd, const void *buf, size_t n)
{
	const char *p = buf;

	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -errno;
		if (w == 0)
			return -EIO;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

long bench_read_all(int fd, void *buf, size_t n)
{
	char *p = buf;
	size_t got = 0;

	while (got < n) {
		ssize_t r = read(fd, p + got, n - got);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (r == 0)
			break;
		got += (size_t)r;
	}
	return (long)got;
}

/* ------------------------------------------------------------ start gate */

void bench_gate_init(struct bench_gate *g)
{
	if (pipe(g->ready) || pipe(g->go))
		bench_fail("pipe for the start gate: %s", strerror(errno));
}

void bench_gate_arrive(struct bench_gate *g, bool is_process)
{
	struct pollfd pfd = { .fd = g->go[0], .events = POLLIN };
	char byte = 'r';
	int r;

	if (is_process) {
		close(g->ready[0]);
		close(g->go[1]);
	}
	if (bench_write_all(g->ready[1], &byte, 1))
		bench_fail("start gate: cannot say ready: %s", strerror(errno));
	if (is_process)
		close(g->ready[1]);
	do
		r = poll(&pfd, 1, -1);
	while (r < 0 && errno == EINTR);
	if (r < 0)
		bench_fail("start gate: poll: %s", strerror(errno));
	if (!(pfd.revents & POLLIN)) {
		/* The parent went away before opening the gate: leave quietly. */
		_exit(1);
	}
	if (is_process)
		close(g->go[0]);
}

void bench_gate_forked(struct bench_gate *g)
{
	close(g->ready[1]);
	g->ready[1] = -1;
}

void bench_gate_wait(struct bench_gate *g, long n)
{
	char buf[256];
	long got = 0;

	while (got < n) {
		size_t want = (size_t)(n - got) < sizeof(buf) ? (size_t)(n - got) : sizeof(buf);
		ssize_t r = read(g->ready[0], buf, want);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			bench_fail("start gate: read: %s", strerror(errno));
		if (r == 0)
			bench_fail("start gate: only %ld of %ld tasks became ready (the others died)",
				   got, n);
		got += r;
	}
}

void bench_gate_open(struct bench_gate *g)
{
	char byte = 'g';

	if (bench_write_all(g->go[1], &byte, 1))
		bench_fail("start gate: cannot open: %s", strerror(errno));
}

void bench_gate_destroy(struct bench_gate *g)
{
	close(g->ready[0]);
	if (g->ready[1] >= 0)
		close(g->ready[1]);
	close(g->go[0]);
	close(g->go[1]);
}

/* ------------------------------------------------------------ tasks */

int bench_fork(int (*fn)(void *), void *arg)
{
	pid_t pid;

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0)
		bench_fail("fork: %s", strerror(errno));
	if (pid == 0) {
		int code = fn(arg);

		fflush(stdout);
		_exit(code);
	}
	return pid;
}

long bench_reap(long n, const char *what)
{
	long failed = 0;

	for (long i = 0; i < n; i++) {
		int status;
		pid_t pid;

		do
			pid = waitpid(-1, &status, 0);
		while (pid < 0 && errno == EINTR);
		if (pid < 0)
			bench_fail("waitpid: %s (%ld of %ld %s reaped)", strerror(errno), i, n, what);
		if (!WIFEXITED(status) || WEXITSTATUS(status)) {
			fprintf(stderr, "%s: %s %d: %s\n", bench_name, what, (int)pid,
				child_describe(status));
			failed++;
		}
	}
	return failed;
}

void bench_thread(pthread_t *t, void *(*fn)(void *), void *arg)
{
	pthread_attr_t attr;
	int err;

	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 * 1024);
	err = pthread_create(t, &attr, fn, arg);
	pthread_attr_destroy(&attr);
	if (err)
		bench_fail("pthread_create: %s", strerror(err));
}

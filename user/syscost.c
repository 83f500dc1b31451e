/*
 * syscost: what the basic kernel paths cost, measured from user space with
 * CLOCK_MONOTONIC, the same static binary on Fulcrum and on Linux:
 *
 *   getpid       one raw getpid system call (no libc caching)
 *   fork         fork + the child's _exit + the parent's wait4
 *   pipe         a one-byte round trip between two processes over two pipes
 *   socketpair   the same over an AF_UNIX stream socketpair
 *
 *   syscost [-n scale]     scale multiplies the default counts (1 = quick)
 *
 * One RESULT line per figure, in the workloads' form (docs/benchmarks.md),
 * so tools/bench runs it like them: `metric=` names the figure, `value=` is
 * the mean over the loop in nanoseconds. Every round trip checks the byte
 * it gets back.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void die(const char *what)
{
	fprintf(stderr, "syscost: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void result(const char *name, long n, double ns)
{
	printf("RESULT name=syscost loops=%ld metric=%s value=%.0f unit=ns\n", n, name, ns / n);
}

static void cost_getpid(long n)
{
	double t0 = now_ns();

	for (long i = 0; i < n; i++)
		syscall(SYS_getpid);
	result("getpid", n, now_ns() - t0);
}

static void cost_fork(long n)
{
	double t0 = now_ns();

	for (long i = 0; i < n; i++) {
		int status;
		pid_t pid = fork();

		if (pid < 0)
			die("fork");
		if (pid == 0)
			_exit(7);
		if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 7)
			die("wait");
	}
	result("fork_exit_wait", n, now_ns() - t0);
}

/* The child echoes each byte back, plus one; the parent checks it. */
static void round_trips(const char *name, int to_child[2], int to_parent[2], long n)
{
	double t0;
	pid_t pid = fork();

	if (pid < 0)
		die("fork");
	if (pid == 0) {
		unsigned char c;

		for (long i = 0; i < n; i++) {
			if (read(to_child[0], &c, 1) != 1)
				_exit(1);
			c++;
			if (write(to_parent[1], &c, 1) != 1)
				_exit(1);
		}
		_exit(0);
	}
	t0 = now_ns();
	for (long i = 0; i < n; i++) {
		unsigned char c = (unsigned char)i, back;

		if (write(to_child[1], &c, 1) != 1 || read(to_parent[0], &back, 1) != 1)
			die(name);
		if (back != (unsigned char)(c + 1)) {
			fprintf(stderr, "syscost: %s: got %u back for %u\n", name, back, c);
			exit(1);
		}
	}
	result(name, n, now_ns() - t0);
	waitpid(pid, NULL, 0);
}

static void cost_pipe(long n)
{
	int a[2], b[2];

	if (pipe(a) || pipe(b))
		die("pipe");
	round_trips("pipe_round_trip", a, b, n);
	close(a[0]), close(a[1]), close(b[0]), close(b[1]);
}

static void cost_socketpair(long n)
{
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
		die("socketpair");
	/* Each end both reads and writes: the parent uses sv[0], the child sv[1]. */
	round_trips("socketpair_round_trip", (int[]){ sv[1], sv[0] }, (int[]){ sv[0], sv[1] }, n);
	close(sv[0]), close(sv[1]);
}

int main(int argc, char **argv)
{
	long scale = 1;

	if (argc == 3 && strcmp(argv[1], "-n") == 0)
		scale = strtol(argv[2], NULL, 10);
	else if (argc != 1)
		scale = 0;
	if (scale <= 0) {
		fprintf(stderr, "usage: syscost [-n scale]\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	cost_getpid(20000 * scale);
	cost_fork(200 * scale);
	cost_pipe(2000 * scale);
	cost_socketpair(2000 * scale);
	return 0;
}

/*
 * t_pipe: pipes between processes — blocking reads and writes, EOF,
 * EPIPE and SIGPIPE, O_NONBLOCK and O_CLOEXEC from pipe2, PIPE_BUF
 * atomicity, poll, and a checksummed 1 MiB transfer.  Runs on Linux and
 * Fulcrum.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../common/child.h"
#include "../common/rawio.h"
#include "../common/rawsys.h"
#include "../common/report.h"

#define NSEC_PER_MSEC 1000000l

static void close2(int p[2])
{
	raw1(SYS_close, p[0]);
	raw1(SYS_close, p[1]);
}

static void set_sigpipe(void (*fn)(int))
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = fn;
	sigaction(SIGPIPE, &sa, NULL);
}

static long mono_ms(void)
{
	struct timespec ts;

	raw2(SYS_clock_gettime, CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / NSEC_PER_MSEC;
}

/* Tops up a non-blocking pipe a byte at a time until it is full; bytes written. */
static long fill_bytewise(int fd)
{
	long n = 0;

	while (n < 65536 && raw3(SYS_write, fd, "f", 1) == 1)
		n++;
	return n;
}

/* ------------------------------------------------------------ blocking across fork */

static const char *ping_pong(void)
{
	int down[2], up[2];

	EXPECT_OK(raw2(SYS_pipe2, down, 0));
	EXPECT_OK(raw2(SYS_pipe2, up, 0));
	pid_t pid = fork();
	EXPECT(pid >= 0, "fork failed");
	if (pid == 0) {
		unsigned v;
		raw1(SYS_close, down[1]);
		raw1(SYS_close, up[0]);
		while (raw_read_full(down[0], &v, sizeof(v)) == sizeof(v)) {
			v = v * 3 + 1;
			if (raw_write_all(up[1], &v, sizeof(v)))
				_exit(1);
		}
		_exit(0);
	}
	raw1(SYS_close, down[0]);
	raw1(SYS_close, up[1]);
	for (unsigned i = 0; i < 200; i++) {
		unsigned v = i;
		EXPECT_EQ(raw_write_all(down[1], &v, sizeof(v)), 0);
		EXPECT_EQ(raw_read_full(up[0], &v, sizeof(v)), sizeof(v));
		EXPECT(v == i * 3 + 1, "round %u: got %u", i, v);
	}
	raw1(SYS_close, down[1]);
	EXPECT_EXITED(child_wait(pid), 0);
	raw1(SYS_close, up[0]);
	return NULL;
}

static const char *eof_after_close(void)
{
	int p[2];
	char buf[8];

	EXPECT_OK(raw2(SYS_pipe2, p, 0));
	EXPECT_EQ(raw3(SYS_write, p[1], "tail", 4), 4);
	raw1(SYS_close, p[1]);
	/* buffered data first, then EOF, and EOF again */
	EXPECT_EQ(raw3(SYS_read, p[0], buf, sizeof(buf)), 4);
	EXPECT_EQ(raw3(SYS_read, p[0], buf, sizeof(buf)), 0);
	EXPECT_EQ(raw3(SYS_read, p[0], buf, sizeof(buf)), 0);
	raw1(SYS_close, p[0]);
	return NULL;
}

static const char *eof_needs_every_writer(void)
{
	int p[2];
	char c;

	EXPECT_OK(raw2(SYS_pipe2, p, O_NONBLOCK));
	int dup_wr = (int)EXPECT_OK(raw1(SYS_dup, p[1]));
	raw1(SYS_close, p[1]);
	/* a duplicate of the write end is still open: no EOF yet */
	EXPECT_ERR(raw3(SYS_read, p[0], &c, 1), EAGAIN);
	raw1(SYS_close, dup_wr);
	EXPECT_EQ(raw3(SYS_read, p[0], &c, 1), 0);
	raw1(SYS_close, p[0]);
	return NULL;
}

static const char *blocked_reader_eof(void)
{
	int p[2];

	EXPECT_OK(raw2(SYS_pipe2, p, 0));
	pid_t pid = fork();
	EXPECT(pid >= 0, "fork failed");
	if (pid == 0) {
		char c;
		raw1(SYS_close, p[1]);
		_exit(raw3(SYS_read, p[0], &c, 1) == 0 ? 0 : 1);
	}
	raw1(SYS_close, p[0]);
	raw2(SYS_nanosleep, TS(0, 5 * NSEC_PER_MSEC), 0);
	raw1(SYS_close, p[1]); /* the last writer goes: the sleeping reader sees EOF */
	EXPECT_EXITED(child_wait(pid), 0);
	return NULL;
}

static const char *writer_exit_eof(void)
{
	int p[2];
	char buf[16];

	EXPECT_OK(raw2(SYS_pipe2, p, 0));
	pid_t pid = fork();
	EXPECT(pid >= 0, "fork failed");
	if (pid == 0) {
		raw1(SYS_close, p[0]);
		raw3(SYS_write, p[1], "bye", 3);
		_exit(0); /* exit closes the write end */
	}
	raw1(SYS_close, p[1]);
	EXPECT_EQ(raw_read_full(p[0], buf, sizeof(buf)), 3);
	EXPECT_EXITED(child_wait(pid), 0);
	raw1(SYS_close, p[0]);
	return NULL;
}

/* ------------------------------------------------------------ EPIPE and SIGPIPE */

static const char *epipe_sigpipe_ignored(void)
{
	int p[2];

	EXPECT_OK(raw2(SYS_pipe2, p, 0));
	raw1(SYS_close, p[0]);
	set_sigpipe(SIG_IGN);
	long r = raw3(SYS_write, p[1], "x", 1);
	set_sigpipe(SIG_DFL);
	raw1(SYS_close, p[1]);
	EXPECT_ERR(r, EPIPE);
	return NULL;
}

static volatile sig_atomic_t sigpipe_count;

static void on_sigpipe(int sig)
{
	(void)sig;
	sigpipe_count++;
}

static const char *sigpipe_handler(void)
{
	int p[2];

	EXPECT_OK(raw2(SYS_pipe2, p, 0));
	raw1(SYS_close, p[0]);
	sigpipe_count = 0;
	set_sigpipe(on_sigpipe);
	long r = raw3(SYS_write, p[1], "x", 1);
	set_sigpipe(SIG_DFL);
	raw1(SYS_close, p[1]);
	EXPECT_ERR(r, EPIPE);
	EXPECT(sigpipe_count == 1, "SIGPIPE handler ran %d times", (int)sigpipe_count);
	return NULL;
}

static int write_to_widowed(void *arg)
{
	int *p = arg;

	raw1(SYS_close, p[0]);
	raw3(SYS_write, p[1], "x", 1);
	return 0; /* not reached: SIGPIPE's default action kills */
}

static const char *sigpipe_kills_by_default(void)
{
	int p[2];

	EXPECT_OK(raw2(SYS_pipe2, p, 0));
	raw1(SYS_close, p[0]);
	EXPECT_KILLED(child_run(write_to_widowed, p), SIGPIPE);
	raw1(SYS_close, p[1]);
	return NULL;
}

/* Reads a pipe whose write end stays open: only a signal ends it. */
static int read_forever(void *arg)
{
	int *p = arg;
	char c;

	raw3(SYS_read, p[0], &c, 1);
	return 3; /* not reached: SIGTERM kills */
}

/*
 * A signal sent while the reader goes to sleep must still end the read:
 * kill at once, so that over many rounds it lands in every stage of
 * entering the read (a lost wake-up there hung t_proc once in 369 runs).
 */
#define SIGNAL_ROUNDS 200

static const char *signal_while_reader_sleeps(void)
{
	for (int i = 0; i < SIGNAL_ROUNDS; i++) {
		int p[2], pid;

		EXPECT_OK(raw2(SYS_pipe2, p, 0));
		pid = child_start(read_forever, p);
		EXPECT(pid > 0, "round %d: fork: %s", i, report_errname(-pid));
		EXPECT_OK(raw2(SYS_kill, pid, SIGTERM));
		EXPECT_KILLED(child_wait(pid), SIGTERM);
		raw1(SYS_close, p[0]);
		raw1(SYS_close, p[1]);
	}
	return NULL;
}

static const char *blocked_writer_epipe(void)
{
	int p[2];
	static char chunk[16384];

	EXPECT_OK(raw2(SYS_pipe2, p, 0));
	pid_t pid = fork();
	EXPECT(pid >= 0, "fork failed");
	if (pid == 0) {
		raw1(SYS_close, p[0]);
		set_sigpipe(SIG_IGN);
		/* fills the pipe and blocks; the reader's close must wake it with EPIPE */
		for (int i = 0; i < 1000; i++) {
			long n = raw3(SYS_write, p[1], chunk, sizeof(chunk));
			if (n == -EPIPE)
				_exit(0);
			if (n < 0)
				_exit(2);
		}
		_exit(1);
	}
	raw1(SYS_close, p[1]);
	char buf[100];
	EXPECT_EQ(raw_read_full(p[0], buf, sizeof(buf)), sizeof(buf));
	raw2(SYS_nanosleep, TS(0, 5 * NSEC_PER_MSEC), 0);
	raw1(SYS_close, p[0]);
	EXPECT_EXITED(child_wait(pid), 0);
	return NULL;
}

/* ------------------------------------------------------------ pipe2 flags */

static const char *nonblock_eagain(void)
{
	int p[2];
	char c;
	static char chunk[4096];

	EXPECT_OK(raw2(SYS_pipe2, p, O_NONBLOCK));
	EXPECT_ERR(raw3(SYS_read, p[0], &c, 1), EAGAIN);
	long total = 0;
	for (int i = 0; i < 1024; i++) {
		long n = raw3(SYS_write, p[1], chunk, sizeof(chunk));
		if (n == -EAGAIN)
			break;
		EXPECT(n > 0, "write = %s", report_ret(n));
		total += n;
	}
	EXPECT(total >= PIPE_BUF && total < 1024 * (long)sizeof(chunk),
	       "capacity %ld bytes: never EAGAIN or below PIPE_BUF", total);
	total += fill_bytewise(p[1]);
	/* full: even one byte would block */
	EXPECT_ERR(raw3(SYS_write, p[1], "x", 1), EAGAIN);
	/* reading makes room again */
	EXPECT_EQ(raw3(SYS_read, p[0], chunk, sizeof(chunk)), sizeof(chunk));
	EXPECT_EQ(raw3(SYS_write, p[1], "x", 1), 1);
	report_note("nonblock_eagain: pipe capacity %ld bytes", total);
	close2(p);
	return NULL;
}

static const char *pipe2_cloexec(void)
{
	int a[2], b[2];

	EXPECT_OK(raw2(SYS_pipe2, a, O_CLOEXEC));
	EXPECT_OK(raw2(SYS_pipe2, b, 0));
	int status = fdprobe_run(a[0], b[0]);
	EXPECT(status >= 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0,
	       "after execve: %s (1: O_CLOEXEC end stayed open, 2: plain end closed)",
	       child_describe(status));
	status = fdprobe_run(a[1], b[1]);
	EXPECT(status >= 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0,
	       "write ends after execve: %s", child_describe(status));
	close2(a);
	close2(b);
	return NULL;
}

static const char *pipe2_errors(void)
{
	int p[2];

	EXPECT_ERR(raw2(SYS_pipe2, p, 0x40000000), EINVAL);
	EXPECT_ERR(raw2(SYS_pipe2, BAD_PTR_LOW, 0), EFAULT);
	EXPECT_ERR(raw1(SYS_pipe, BAD_PTR_KERNEL), EFAULT);
	return NULL;
}

/* ------------------------------------------------------------ atomic writes */

#define REC_SIZE    512 /* <= PIPE_BUF: each write lands whole */
#define REC_WRITERS 4
#define REC_COUNT   100

static int record_writer(int fd, int id)
{
	unsigned char rec[REC_SIZE];

	for (int seq = 0; seq < REC_COUNT; seq++) {
		memset(rec, id, sizeof(rec));
		rec[1] = (unsigned char)seq;
		if (raw3(SYS_write, fd, rec, sizeof(rec)) != REC_SIZE)
			return 1;
	}
	return 0;
}

static const char *pipe_buf_atomic(void)
{
	int p[2];
	pid_t pids[REC_WRITERS];
	int next_seq[REC_WRITERS + 1] = { 0 };

	EXPECT_OK(raw2(SYS_pipe2, p, 0));
	for (int w = 0; w < REC_WRITERS; w++) {
		pids[w] = fork();
		EXPECT(pids[w] >= 0, "fork failed");
		if (pids[w] == 0) {
			raw1(SYS_close, p[0]);
			_exit(record_writer(p[1], w + 1));
		}
	}
	raw1(SYS_close, p[1]);
	unsigned char rec[REC_SIZE];
	int records = 0;
	long n;
	while ((n = raw_read_full(p[0], rec, sizeof(rec))) == REC_SIZE) {
		int id = rec[0];
		EXPECT(id >= 1 && id <= REC_WRITERS, "record %d: writer id %d", records, id);
		for (int i = 2; i < REC_SIZE; i++)
			EXPECT(rec[i] == id, "record %d from writer %d interleaved at byte %d",
			       records, id, i);
		/* one writer's records arrive in the order it wrote them */
		EXPECT(rec[1] == next_seq[id], "writer %d: record %d out of order (want %d)", id,
		       rec[1], next_seq[id]);
		next_seq[id]++;
		records++;
	}
	EXPECT_EQ(n, 0);
	EXPECT_EQ(records, REC_WRITERS * REC_COUNT);
	for (int w = 0; w < REC_WRITERS; w++)
		EXPECT_EXITED(child_wait(pids[w]), 0);
	raw1(SYS_close, p[0]);
	return NULL;
}

/* ------------------------------------------------------------ poll */

static int poll1(int fd, short events, int timeout)
{
	struct pollfd pfd = { fd, events, 0 };
	long r = raw3(SYS_poll, &pfd, 1, timeout);

	return r < 0 ? (int)r : (r == 0 ? 0 : pfd.revents);
}

static const char *poll_in_out(void)
{
	int p[2];
	char c;

	EXPECT_OK(raw2(SYS_pipe2, p, 0));
	EXPECT_EQ(poll1(p[0], POLLIN, 0), 0);
	EXPECT_EQ(poll1(p[1], POLLOUT, 0), POLLOUT);
	EXPECT_EQ(raw3(SYS_write, p[1], "z", 1), 1);
	EXPECT_EQ(poll1(p[0], POLLIN, 0), POLLIN);
	EXPECT_EQ(poll1(p[0], POLLIN, -1), POLLIN);
	EXPECT_EQ(raw3(SYS_read, p[0], &c, 1), 1);
	EXPECT_EQ(poll1(p[0], POLLIN, 0), 0);
	/* both ends in one call */
	struct pollfd two[2] = { { p[0], POLLIN, 0 }, { p[1], POLLOUT, 0 } };
	EXPECT_EQ(raw3(SYS_poll, two, 2, 0), 1);
	EXPECT(two[0].revents == 0 && two[1].revents == POLLOUT, "revents %#x %#x", two[0].revents,
	       two[1].revents);
	close2(p);
	return NULL;
}

static const char *poll_full_pipe(void)
{
	int p[2];
	static char chunk[4096];

	EXPECT_OK(raw2(SYS_pipe2, p, O_NONBLOCK));
	for (int i = 0; i < 1024 && raw3(SYS_write, p[1], chunk, sizeof(chunk)) > 0; i++)
		;
	fill_bytewise(p[1]);
	EXPECT_EQ(poll1(p[1], POLLOUT, 0), 0);
	EXPECT_EQ(poll1(p[1], POLLOUT, 10), 0);
	EXPECT_EQ(raw3(SYS_read, p[0], chunk, sizeof(chunk)), sizeof(chunk));
	EXPECT_EQ(poll1(p[1], POLLOUT, 0), POLLOUT);
	close2(p);
	return NULL;
}

static const char *poll_hup(void)
{
	int p[2];
	char c;

	EXPECT_OK(raw2(SYS_pipe2, p, 0));
	EXPECT_EQ(raw3(SYS_write, p[1], "h", 1), 1);
	raw1(SYS_close, p[1]);
	/* data still buffered: readable and hung up */
	EXPECT_EQ(poll1(p[0], POLLIN, 0), POLLIN | POLLHUP);
	EXPECT_EQ(raw3(SYS_read, p[0], &c, 1), 1);
	EXPECT_EQ(poll1(p[0], POLLIN, 0), POLLHUP);
	raw1(SYS_close, p[0]);

	/* a write end whose readers are gone reports an error */
	EXPECT_OK(raw2(SYS_pipe2, p, 0));
	raw1(SYS_close, p[0]);
	EXPECT_EQ(poll1(p[1], POLLOUT, 0), POLLOUT | POLLERR);
	raw1(SYS_close, p[1]);
	return NULL;
}

static const char *poll_timeout(void)
{
	int p[2];

	EXPECT_OK(raw2(SYS_pipe2, p, 0));
	long t0 = mono_ms();
	EXPECT_EQ(poll1(p[0], POLLIN, 20), 0);
	long waited = mono_ms() - t0;
	/* a timeout never ends early */
	EXPECT(waited >= 19, "poll(20 ms) returned after %ld ms", waited);
	EXPECT_EQ(raw3(SYS_poll, 0, 0, 5), 0); /* no descriptors: just sleeps */
	close2(p);
	return NULL;
}

static const char *poll_wakes_on_write(void)
{
	int p[2];

	EXPECT_OK(raw2(SYS_pipe2, p, 0));
	pid_t pid = fork();
	EXPECT(pid >= 0, "fork failed");
	if (pid == 0) {
		raw2(SYS_nanosleep, TS(0, 10 * NSEC_PER_MSEC), 0);
		raw3(SYS_write, p[1], "w", 1);
		_exit(0);
	}
	EXPECT_EQ(poll1(p[0], POLLIN, -1), POLLIN);
	EXPECT_EXITED(child_wait(pid), 0);
	close2(p);
	return NULL;
}

static const char *poll_bad_fds(void)
{
	int p[2];

	EXPECT_OK(raw2(SYS_pipe2, p, 0));
	raw3(SYS_write, p[1], "a", 1);
	struct pollfd fds[3] = { { 999, POLLIN, 0 }, { -1, POLLIN, 0x7 }, { p[0], POLLIN, 0 } };
	/* a closed fd is reported as POLLNVAL and counts; a negative fd is skipped */
	EXPECT_EQ(raw3(SYS_poll, fds, 3, 0), 2);
	EXPECT(fds[0].revents == POLLNVAL, "closed fd revents %#x", fds[0].revents);
	EXPECT(fds[1].revents == 0, "fd -1 revents %#x", fds[1].revents);
	EXPECT(fds[2].revents == POLLIN, "pipe revents %#x", fds[2].revents);
	EXPECT_ERR(raw3(SYS_poll, BAD_PTR_LOW, 1, 0), EFAULT);
	close2(p);
	return NULL;
}

/* ------------------------------------------------------------ bulk */

#define BULK_BYTES (1 << 20)

/* A deterministic byte stream: an LCG's high bytes. */
static unsigned char stream_byte(uint32_t *state)
{
	*state = *state * 1103515245u + 12345u;
	return (unsigned char)(*state >> 24);
}

static uint32_t mix(uint32_t sum, unsigned char b)
{
	return (sum ^ b) * 16777619u;
}

static const char *bulk_1mib(void)
{
	int p[2];
	uint32_t want = 2166136261u, got = 2166136261u, state = 1;

	for (long i = 0; i < BULK_BYTES; i++)
		want = mix(want, stream_byte(&state));
	EXPECT_OK(raw2(SYS_pipe2, p, 0));
	pid_t pid = fork();
	EXPECT(pid >= 0, "fork failed");
	if (pid == 0) {
		static unsigned char buf[7919]; /* odd sizes: chunks straddle pages */
		uint32_t s = 1;
		raw1(SYS_close, p[0]);
		for (long sent = 0; sent < BULK_BYTES;) {
			long n = BULK_BYTES - sent < (long)sizeof(buf) ? BULK_BYTES - sent :
									 (long)sizeof(buf);
			for (long i = 0; i < n; i++)
				buf[i] = stream_byte(&s);
			if (raw_write_all(p[1], buf, (size_t)n))
				_exit(1);
			sent += n;
		}
		_exit(0);
	}
	raw1(SYS_close, p[1]);
	static unsigned char buf[5003];
	long total = 0, n;
	while ((n = raw3(SYS_read, p[0], buf, sizeof(buf))) > 0) {
		for (long i = 0; i < n; i++)
			got = mix(got, buf[i]);
		total += n;
	}
	raw1(SYS_close, p[0]);
	EXPECT_EQ(n, 0);
	EXPECT_EQ(total, BULK_BYTES);
	EXPECT(got == want, "checksum %#x, want %#x", got, want);
	EXPECT_EXITED(child_wait(pid), 0);
	return NULL;
}

static const struct test_case cases[] = {
	{ "ping_pong", ping_pong },
	{ "eof_after_close", eof_after_close },
	{ "eof_needs_every_writer", eof_needs_every_writer },
	{ "blocked_reader_eof", blocked_reader_eof },
	{ "writer_exit_eof", writer_exit_eof },
	{ "epipe_sigpipe_ignored", epipe_sigpipe_ignored },
	{ "sigpipe_handler", sigpipe_handler },
	{ "sigpipe_kills_by_default", sigpipe_kills_by_default },
	{ "blocked_writer_epipe", blocked_writer_epipe },
	{ "signal_while_reader_sleeps", signal_while_reader_sleeps },
	{ "nonblock_eagain", nonblock_eagain },
	{ "pipe2_cloexec", pipe2_cloexec },
	{ "pipe2_errors", pipe2_errors },
	{ "pipe_buf_atomic", pipe_buf_atomic },
	{ "poll_in_out", poll_in_out },
	{ "poll_full_pipe", poll_full_pipe },
	{ "poll_hup", poll_hup },
	{ "poll_timeout", poll_timeout },
	{ "poll_wakes_on_write", poll_wakes_on_write },
	{ "poll_bad_fds", poll_bad_fds },
	{ "bulk_1mib", bulk_1mib },
};

int main(int argc, char **argv)
{
	int probe = fdprobe_main(argc, argv);

	if (probe >= 0)
		return probe;
	test_self_init(argv[0], "t_pipe");
	report_run_all(cases, REPORT_NCASES(cases));
	return report_done("t_pipe");
}

/*
 * t_socket: AF_UNIX SOCK_STREAM socketpairs — both directions, send/recv
 * and read/write, MSG_DONTWAIT, shutdown, EOF and EPIPE, poll, flag and
 * argument errors, a checksummed bulk transfer and a hackbench-style
 * exchange between processes with every byte counted.  Runs on Linux and
 * Fulcrum.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "../common/child.h"
#include "../common/rawio.h"
#include "../common/rawsys.h"
#include "../common/report.h"

#define NSEC_PER_MSEC 1000000l

/* send/recv are sendto/recvfrom without an address on x86-64. */
#define SEND(fd, buf, len, flags) raw6(SYS_sendto, fd, buf, len, flags, 0, 0)
#define RECV(fd, buf, len, flags) raw6(SYS_recvfrom, fd, buf, len, flags, 0, 0)

#define MAKE_PAIR(sv) EXPECT_OK(raw4(SYS_socketpair, AF_UNIX, SOCK_STREAM, 0, (sv)))

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

static int poll1(int fd, short events, int timeout)
{
	struct pollfd pfd = { fd, events, 0 };
	long r = raw3(SYS_poll, &pfd, 1, timeout);

	return r < 0 ? (int)r : (r == 0 ? 0 : pfd.revents);
}

/* ------------------------------------------------------------ basics */

static const char *both_directions(void)
{
	int sv[2];
	char buf[16];

	MAKE_PAIR(sv);
	EXPECT_EQ(raw3(SYS_write, sv[0], "left", 4), 4);
	EXPECT_EQ(raw3(SYS_write, sv[1], "right", 5), 5);
	EXPECT_EQ(raw3(SYS_read, sv[1], buf, sizeof(buf)), 4);
	EXPECT(memcmp(buf, "left", 4) == 0, "sv[1] read \"%.4s\"", buf);
	EXPECT_EQ(raw3(SYS_read, sv[0], buf, sizeof(buf)), 5);
	EXPECT(memcmp(buf, "right", 5) == 0, "sv[0] read \"%.5s\"", buf);
	close2(sv);
	return NULL;
}

static const char *send_recv(void)
{
	int sv[2];
	char buf[32];

	MAKE_PAIR(sv);
	EXPECT_EQ(SEND(sv[0], "hello ", 6, 0), 6);
	EXPECT_EQ(SEND(sv[0], "world", 5, 0), 5);
	/* a stream: the two sends may come back as one */
	EXPECT_EQ(raw_read_full(sv[1], buf, 11), 11);
	EXPECT(memcmp(buf, "hello world", 11) == 0, "got \"%.11s\"", buf);
	EXPECT_EQ(SEND(sv[1], "x", 1, 0), 1);
	EXPECT_EQ(RECV(sv[0], buf, sizeof(buf), 0), 1);
	EXPECT_EQ(SEND(sv[1], "", 0, 0), 0);
	close2(sv);
	return NULL;
}

static const char *recv_dontwait_eagain(void)
{
	int sv[2];
	char buf[8];

	MAKE_PAIR(sv);
	EXPECT_ERR(RECV(sv[0], buf, sizeof(buf), MSG_DONTWAIT), EAGAIN);
	EXPECT_ERR(RECV(sv[1], buf, sizeof(buf), MSG_DONTWAIT), EAGAIN);
	EXPECT_EQ(SEND(sv[1], "a", 1, 0), 1);
	EXPECT_EQ(RECV(sv[0], buf, sizeof(buf), MSG_DONTWAIT), 1);
	close2(sv);
	return NULL;
}

static const char *send_dontwait_full(void)
{
	int sv[2];
	static char chunk[1024];
	long total = 0;

	MAKE_PAIR(sv);
	for (int i = 0; i < 100000; i++) {
		long n = SEND(sv[0], chunk, sizeof(chunk), MSG_DONTWAIT);
		if (n == -EAGAIN)
			break;
		EXPECT(n > 0, "send = %s", report_ret(n));
		total += n;
	}
	EXPECT(total > 0 && total < 100000l * (long)sizeof(chunk), "never EAGAIN (%ld bytes)", total);
	EXPECT_EQ(poll1(sv[0], POLLOUT, 0), 0);
	/* the peer drains it all: room again */
	long drained = 0, n;
	while ((n = RECV(sv[1], chunk, sizeof(chunk), MSG_DONTWAIT)) > 0)
		drained += n;
	EXPECT_ERR(n, EAGAIN);
	EXPECT_EQ(drained, total);
	EXPECT_EQ(poll1(sv[0], POLLOUT, 0), POLLOUT);
	EXPECT_EQ(SEND(sv[0], chunk, 1, MSG_DONTWAIT), 1);
	report_note("send_dontwait_full: %ld bytes queued before EAGAIN", total);
	close2(sv);
	return NULL;
}

static const char *ping_pong(void)
{
	int sv[2];

	MAKE_PAIR(sv);
	pid_t pid = fork();
	EXPECT(pid >= 0, "fork failed");
	if (pid == 0) {
		unsigned v;
		raw1(SYS_close, sv[0]);
		while (raw_read_full(sv[1], &v, sizeof(v)) == sizeof(v)) {
			v = v * 5 + 2;
			if (SEND(sv[1], &v, sizeof(v), 0) != sizeof(v))
				_exit(1);
		}
		_exit(0);
	}
	raw1(SYS_close, sv[1]);
	for (unsigned i = 0; i < 200; i++) {
		unsigned v = i;
		EXPECT_EQ(SEND(sv[0], &v, sizeof(v), 0), sizeof(v));
		EXPECT_EQ(raw_read_full(sv[0], &v, sizeof(v)), sizeof(v));
		EXPECT(v == i * 5 + 2, "round %u: got %u", i, v);
	}
	raw1(SYS_close, sv[0]);
	EXPECT_EXITED(child_wait(pid), 0);
	return NULL;
}

/* ------------------------------------------------------------ shutdown, close, EPIPE */

static const char *shutdown_wr(void)
{
	int sv[2];
	char buf[8];

	MAKE_PAIR(sv);
	EXPECT_EQ(SEND(sv[0], "last", 4, 0), 4);
	EXPECT_EQ(raw2(SYS_shutdown, sv[0], SHUT_WR), 0);
	/* the peer reads what was sent, then EOF */
	EXPECT_EQ(raw_read_full(sv[1], buf, 4), 4);
	EXPECT_EQ(RECV(sv[1], buf, sizeof(buf), 0), 0);
	EXPECT_EQ(poll1(sv[1], POLLIN, 0), POLLIN);
	/* the other direction still works */
	EXPECT_EQ(SEND(sv[1], "back", 4, 0), 4);
	EXPECT_EQ(raw_read_full(sv[0], buf, 4), 4);
	/* and writing to a shut-down direction is EPIPE */
	EXPECT_ERR(SEND(sv[0], "x", 1, MSG_NOSIGNAL), EPIPE);
	close2(sv);
	return NULL;
}

static const char *shutdown_rd(void)
{
	int sv[2];
	char buf[8];

	MAKE_PAIR(sv);
	EXPECT_EQ(raw2(SYS_shutdown, sv[0], SHUT_RD), 0);
	EXPECT_EQ(RECV(sv[0], buf, sizeof(buf), 0), 0);
	EXPECT_ERR(SEND(sv[1], "x", 1, MSG_NOSIGNAL), EPIPE);
	EXPECT_EQ(SEND(sv[0], "y", 1, 0), 1);
	EXPECT_EQ(RECV(sv[1], buf, sizeof(buf), 0), 1);
	EXPECT_EQ(raw2(SYS_shutdown, sv[1], SHUT_RDWR), 0);
	EXPECT_EQ(RECV(sv[1], buf, sizeof(buf), 0), 0);
	close2(sv);
	return NULL;
}

static const char *close_eof_epipe(void)
{
	int sv[2];
	char buf[8];

	MAKE_PAIR(sv);
	EXPECT_EQ(SEND(sv[1], "bye", 3, 0), 3);
	raw1(SYS_close, sv[1]);
	EXPECT_EQ(raw_read_full(sv[0], buf, 3), 3);
	EXPECT_EQ(RECV(sv[0], buf, sizeof(buf), 0), 0);
	EXPECT_EQ(raw3(SYS_read, sv[0], buf, sizeof(buf)), 0);
	EXPECT_ERR(SEND(sv[0], "x", 1, MSG_NOSIGNAL), EPIPE);
	set_sigpipe(SIG_IGN);
	long r = raw3(SYS_write, sv[0], "x", 1);
	set_sigpipe(SIG_DFL);
	EXPECT_ERR(r, EPIPE);
	raw1(SYS_close, sv[0]);
	return NULL;
}

static int send_to_closed(void *arg)
{
	int fd = *(int *)arg;

	SEND(fd, "x", 1, 0);
	return 0; /* not reached: SIGPIPE kills */
}

static const char *sigpipe_kills_by_default(void)
{
	int sv[2];

	MAKE_PAIR(sv);
	raw1(SYS_close, sv[1]);
	EXPECT_KILLED(child_run(send_to_closed, &sv[0]), SIGPIPE);
	raw1(SYS_close, sv[0]);
	return NULL;
}

static const char *blocked_recv_wakes_on_close(void)
{
	int sv[2];

	MAKE_PAIR(sv);
	pid_t pid = fork();
	EXPECT(pid >= 0, "fork failed");
	if (pid == 0) {
		char c;
		raw1(SYS_close, sv[0]);
		_exit(RECV(sv[1], &c, 1, 0) == 0 ? 0 : 1);
	}
	raw1(SYS_close, sv[1]);
	raw2(SYS_nanosleep, TS(0, 5 * NSEC_PER_MSEC), 0);
	raw1(SYS_close, sv[0]);
	EXPECT_EXITED(child_wait(pid), 0);
	return NULL;
}

/* ------------------------------------------------------------ poll */

static const char *poll_socket(void)
{
	int sv[2];
	char c;

	MAKE_PAIR(sv);
	EXPECT_EQ(poll1(sv[0], POLLIN, 0), 0);
	EXPECT_EQ(poll1(sv[0], POLLOUT, 0), POLLOUT);
	EXPECT_EQ(SEND(sv[1], "p", 1, 0), 1);
	EXPECT_EQ(poll1(sv[0], POLLIN, 0), POLLIN);
	EXPECT_EQ(poll1(sv[0], POLLIN | POLLOUT, -1), POLLIN | POLLOUT);
	EXPECT_EQ(RECV(sv[0], &c, 1, 0), 1);
	EXPECT_EQ(poll1(sv[0], POLLIN, 5), 0);
	raw1(SYS_close, sv[1]);
	/* peer gone: readable (EOF) and hung up */
	EXPECT_EQ(poll1(sv[0], POLLIN, 0), POLLIN | POLLHUP);
	raw1(SYS_close, sv[0]);
	return NULL;
}

static const char *poll_wakes_on_send(void)
{
	int sv[2];

	MAKE_PAIR(sv);
	pid_t pid = fork();
	EXPECT(pid >= 0, "fork failed");
	if (pid == 0) {
		raw2(SYS_nanosleep, TS(0, 10 * NSEC_PER_MSEC), 0);
		SEND(sv[1], "w", 1, 0);
		_exit(0);
	}
	EXPECT_EQ(poll1(sv[0], POLLIN, -1), POLLIN);
	EXPECT_EXITED(child_wait(pid), 0);
	close2(sv);
	return NULL;
}

/* ------------------------------------------------------------ flags and errors */

static const char *socketpair_errors(void)
{
	int sv[2];

	EXPECT_ERR(raw4(SYS_socketpair, 200, SOCK_STREAM, 0, sv), EAFNOSUPPORT);
	EXPECT_ERR(raw4(SYS_socketpair, AF_UNIX, 42, 0, sv), EINVAL);
	EXPECT_ERR(raw4(SYS_socketpair, AF_UNIX, SOCK_STREAM | 0x40000, 0, sv), EINVAL);
	EXPECT_ERR(raw4(SYS_socketpair, AF_UNIX, SOCK_STREAM, 5, sv), EPROTONOSUPPORT);
	EXPECT_ERR(raw4(SYS_socketpair, AF_UNIX, SOCK_STREAM, 0, BAD_PTR_LOW), EFAULT);
	EXPECT_ERR(raw4(SYS_socketpair, AF_UNIX, SOCK_STREAM, 0, BAD_PTR_KERNEL), EFAULT);
	return NULL;
}

static const char *socket_op_errors(void)
{
	int sv[2], p[2];
	char buf[4];

	MAKE_PAIR(sv);
	EXPECT_OK(raw2(SYS_pipe2, p, 0));
	EXPECT_ERR(SEND(p[1], "x", 1, 0), ENOTSOCK);
	EXPECT_ERR(RECV(p[0], buf, 1, 0), ENOTSOCK);
	EXPECT_ERR(raw2(SYS_shutdown, p[0], SHUT_RD), ENOTSOCK);
	EXPECT_ERR(SEND(999, "x", 1, 0), EBADF);
	EXPECT_ERR(RECV(999, buf, 1, 0), EBADF);
	EXPECT_ERR(raw2(SYS_shutdown, 999, SHUT_RD), EBADF);
	EXPECT_ERR(raw2(SYS_shutdown, sv[0], 5), EINVAL);
	EXPECT_ERR(SEND(sv[0], BAD_PTR_LOW, 4, 0), EFAULT);
	EXPECT_ERR(SEND(sv[0], BAD_PTR_KERNEL, 4, 0), EFAULT);
	EXPECT_EQ(SEND(sv[1], "abc", 3, 0), 3);
	EXPECT_ERR(RECV(sv[0], BAD_PTR_LOW, 3, 0), EFAULT);
	EXPECT_EQ(RECV(sv[0], buf, sizeof(buf), 0), 3);
	EXPECT_ERR(raw3(SYS_lseek, sv[0], 0, SEEK_SET), ESPIPE);
	close2(sv);
	close2(p);
	return NULL;
}

static const char *sock_nonblock(void)
{
	int sv[2];
	char c;

	EXPECT_OK(raw4(SYS_socketpair, AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv));
	EXPECT_ERR(raw3(SYS_read, sv[0], &c, 1), EAGAIN);
	EXPECT_ERR(RECV(sv[1], &c, 1, 0), EAGAIN);
	close2(sv);
	return NULL;
}

static const char *sock_cloexec(void)
{
	int a[2], b[2];

	EXPECT_OK(raw4(SYS_socketpair, AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, a));
	MAKE_PAIR(b);
	int status = fdprobe_run(a[0], b[0]);
	EXPECT(status >= 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0,
	       "after execve: %s (1: SOCK_CLOEXEC fd stayed open, 2: plain fd closed)",
	       child_describe(status));
	close2(a);
	close2(b);
	return NULL;
}

/* ------------------------------------------------------------ bulk */

#define BULK_BYTES (1 << 20)

static unsigned char stream_byte(uint32_t *state)
{
	*state = *state * 1103515245u + 12345u;
	return (unsigned char)(*state >> 24);
}

static uint32_t mix(uint32_t sum, unsigned char b)
{
	return (sum ^ b) * 16777619u;
}

/* Sends BULK_BYTES of stream seed to fd in odd-sized pieces. */
static int send_stream(int fd, uint32_t seed)
{
	static unsigned char buf[6007];

	for (long sent = 0; sent < BULK_BYTES;) {
		long n = BULK_BYTES - sent < (long)sizeof(buf) ? BULK_BYTES - sent :
								 (long)sizeof(buf);
		for (long i = 0; i < n; i++)
			buf[i] = stream_byte(&seed);
		if (raw_write_all(fd, buf, (size_t)n))
			return 1;
		sent += n;
	}
	return 0;
}

/* Receives until EOF; returns the byte count and the checksum in *sum. */
static long recv_stream(int fd, uint32_t *sum)
{
	static unsigned char buf[4099];
	long total = 0, n;

	*sum = 2166136261u;
	while ((n = RECV(fd, buf, sizeof(buf), 0)) > 0) {
		for (long i = 0; i < n; i++)
			*sum = mix(*sum, buf[i]);
		total += n;
	}
	return n < 0 ? n : total;
}

static uint32_t stream_sum(uint32_t seed)
{
	uint32_t sum = 2166136261u;

	for (long i = 0; i < BULK_BYTES; i++)
		sum = mix(sum, stream_byte(&seed));
	return sum;
}

static const char *bulk_both_ways(void)
{
	int sv[2];
	uint32_t sum;

	MAKE_PAIR(sv);
	pid_t pid = fork();
	EXPECT(pid >= 0, "fork failed");
	if (pid == 0) {
		/* receive the parent's stream, then send one back */
		raw1(SYS_close, sv[0]);
		uint32_t s;
		if (recv_stream(sv[1], &s) != BULK_BYTES || s != stream_sum(7))
			_exit(1);
		_exit(send_stream(sv[1], 99) ? 2 : 0);
	}
	raw1(SYS_close, sv[1]);
	EXPECT_EQ(send_stream(sv[0], 7), 0);
	EXPECT_EQ(raw2(SYS_shutdown, sv[0], SHUT_WR), 0);
	long got = recv_stream(sv[0], &sum);
	raw1(SYS_close, sv[0]);
	EXPECT_EQ(got, BULK_BYTES);
	EXPECT(sum == stream_sum(99), "checksum of the returned stream differs");
	EXPECT_EXITED(child_wait(pid), 0);
	return NULL;
}

/* ------------------------------------------------------------ hackbench */

/*
 * As hackbench's default mode: per group, every sender writes LOOPS
 * messages to every receiver's socket; each receiver counts what it gets.
 * Message bytes carry the sender's id, so a receiver checks both the byte
 * count and the byte sum, whatever the interleaving.
 */
#define HB_GROUPS 2
#define HB_FDS	  5 /* senders and receivers per group */
#define HB_LOOPS  50
#define HB_MSG	  100

static int hb_sender(int id, const int *wr_fds)
{
	unsigned char msg[HB_MSG];

	memset(msg, id, sizeof(msg));
	for (int l = 0; l < HB_LOOPS; l++)
		for (int r = 0; r < HB_FDS; r++)
			if (raw_write_all(wr_fds[r], msg, sizeof(msg)))
				return 1;
	return 0;
}

static int hb_receiver(int fd)
{
	static unsigned char buf[HB_MSG];
	long want_bytes = (long)HB_FDS * HB_LOOPS * HB_MSG, got = 0, sum = 0, want_sum = 0;

	for (int s = 1; s <= HB_FDS; s++)
		want_sum += (long)s * HB_LOOPS * HB_MSG;
	while (got < want_bytes) {
		long n = raw3(SYS_read, fd, buf, sizeof(buf));
		if (n == -EINTR)
			continue;
		if (n <= 0)
			return 1;
		for (long i = 0; i < n; i++)
			sum += buf[i];
		got += n;
	}
	return sum == want_sum ? 0 : 2;
}

static const char *hackbench(void)
{
	pid_t pids[HB_GROUPS * HB_FDS * 2];
	int np = 0;

	for (int g = 0; g < HB_GROUPS; g++) {
		int rd[HB_FDS], wr[HB_FDS];
		for (int r = 0; r < HB_FDS; r++) {
			int sv[2];
			MAKE_PAIR(sv);
			rd[r] = sv[0];
			wr[r] = sv[1];
		}
		for (int r = 0; r < HB_FDS; r++) {
			pid_t pid = fork();
			EXPECT(pid >= 0, "fork receiver: %s", report_errname(errno));
			if (pid == 0) {
				for (int k = 0; k < HB_FDS; k++)
					raw1(SYS_close, wr[k]);
				_exit(hb_receiver(rd[r]));
			}
			pids[np++] = pid;
		}
		for (int s = 0; s < HB_FDS; s++) {
			pid_t pid = fork();
			EXPECT(pid >= 0, "fork sender: %s", report_errname(errno));
			if (pid == 0) {
				for (int k = 0; k < HB_FDS; k++)
					raw1(SYS_close, rd[k]);
				_exit(hb_sender(s + 1, wr));
			}
			pids[np++] = pid;
		}
		for (int r = 0; r < HB_FDS; r++) {
			raw1(SYS_close, rd[r]);
			raw1(SYS_close, wr[r]);
		}
	}
	int bad = 0;
	char first[96] = "";
	for (int i = 0; i < np; i++) {
		int status = child_wait(pids[i]);
		if (!(status >= 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
			if (!bad++)
				snprintf(first, sizeof(first), "%s %d: %s",
					 (i % (2 * HB_FDS)) < HB_FDS ? "receiver" : "sender", i,
					 child_describe(status));
		}
	}
	EXPECT(bad == 0, "%d of %d processes failed; first: %s", bad, np, first);
	report_note("hackbench: %d groups x %d senders x %d receivers x %d loops of %d bytes",
		    HB_GROUPS, HB_FDS, HB_FDS, HB_LOOPS, HB_MSG);
	return NULL;
}

static const struct test_case cases[] = {
	{ "both_directions", both_directions },
	{ "send_recv", send_recv },
	{ "recv_dontwait_eagain", recv_dontwait_eagain },
	{ "send_dontwait_full", send_dontwait_full },
	{ "ping_pong", ping_pong },
	{ "shutdown_wr", shutdown_wr },
	{ "shutdown_rd", shutdown_rd },
	{ "close_eof_epipe", close_eof_epipe },
	{ "sigpipe_kills_by_default", sigpipe_kills_by_default },
	{ "blocked_recv_wakes_on_close", blocked_recv_wakes_on_close },
	{ "poll_socket", poll_socket },
	{ "poll_wakes_on_send", poll_wakes_on_send },
	{ "socketpair_errors", socketpair_errors },
	{ "socket_op_errors", socket_op_errors },
	{ "sock_nonblock", sock_nonblock },
	{ "sock_cloexec", sock_cloexec },
	{ "bulk_both_ways", bulk_both_ways },
	{ "hackbench", hackbench },
};

int main(int argc, char **argv)
{
	int probe = fdprobe_main(argc, argv);

	if (probe >= 0)
		return probe;
	test_self_init(argv[0], "t_socket");
	report_run_all(cases, REPORT_NCASES(cases));
	return report_done("t_socket");
}

/*
 * netrr: netperf's TCP_RR in miniature (seed 003).  A client process sends
 * a request of S bytes over a connected AF_UNIX stream socket pair, the
 * server process answers with S bytes, and the client sends the next one
 * only when the answer is in: one transaction in flight, so the figure,
 * transactions per second, is the round trip's cost -- two sync wake-ups,
 * each from the CPU the other side last ran on.  With -b pinned the client
 * runs on CPU A and the server on CPU B (-P A,B, default 0,1), as netperf
 * -T pins both ends; unpinned, placement decides where they run.
 *
 * Every answer is checked: it carries the request's sequence number and a
 * checksum of its bytes, which the client verifies, and the server's count
 * of transactions must equal the client's.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "bench.h"
#include "wlreport.h"

#define SIZE_MAX_BYTES 65536

static long transactions = 10000;
static long size = 1; /* netperf's default request and response size */
static bool pinned;
static long pin_client, pin_server = 1;
static bool inject_error; /* for tests: the server spoils one answer */

static int sv[2];     /* [0] the client's end, [1] the server's */
static int counts[2]; /* the server reports its count here */

struct header {
	uint64_t seq;
	uint64_t sum;
};

/* The bytes of request seq, and what the server answers: each byte plus one. */
static void fill(unsigned char *buf, uint64_t seq)
{
	for (long i = 0; i < size; i++)
		buf[i] = (unsigned char)(seq * 31 + (uint64_t)i);
}

static uint64_t checksum(const unsigned char *buf)
{
	uint64_t h = 1469598103934665603ull;

	for (long i = 0; i < size; i++)
		h = (h ^ buf[i]) * 1099511628211ull;
	return h;
}

static void pin(long cpu, const char *who)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET((int)cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		bench_fail("%s: cannot pin to CPU %ld: %s", who, cpu, strerror(errno));
}

static int server(void *unused)
{
	unsigned char *buf = malloc((size_t)size);
	struct header h;
	uint64_t served = 0;

	(void)unused;
	close(sv[0]);
	close(counts[0]);
	if (!buf)
		bench_fail("server: out of memory");
	if (pinned)
		pin(pin_server, "server");
	for (;;) {
		long got = bench_read_all(sv[1], &h, sizeof(h));
		int err;

		if (got == 0)
			break;
		if (got != sizeof(h))
			bench_fail("server: torn request header (%ld)", got);
		got = bench_read_all(sv[1], buf, (size_t)size);
		if (got != size)
			bench_fail("server: torn request (%ld of %ld bytes)", got, size);
		for (long i = 0; i < size; i++)
			buf[i]++;
		h.sum = checksum(buf);
		if (inject_error && h.seq == 5)
			h.sum ^= 1;
		err = bench_write_all(sv[1], &h, sizeof(h));
		if (!err)
			err = bench_write_all(sv[1], buf, (size_t)size);
		if (err)
			bench_fail("server: write: %s", strerror(-err));
		served++;
	}
	if (bench_write_all(counts[1], &served, sizeof(served)))
		bench_fail("server: cannot report its count");
	return 0;
}

static void usage(void)
{
	printf("usage: netrr [-n|--transactions N] [-s|--size S] [-b|--binding unpinned|pinned]\n"
	       "             [-P|--pin A,B]\n"
	       "\n"
	       "netperf TCP_RR over an AF_UNIX socket pair: a client and a server process\n"
	       "exchange N requests and responses (default 10000) of S bytes (default 1),\n"
	       "one at a time.  Pinned, the client runs on CPU A and the server on CPU B\n"
	       "(default 0,1).  Prints transactions per second and a RESULT line; every\n"
	       "answer is checked (--inject-error spoils one on purpose).\n");
}

static void parse_pin(const char *s)
{
	char *comma = strchr(s, ',');
	char a[24];

	if (!comma || (size_t)(comma - s) >= sizeof(a))
		bench_usage_error("--pin takes A,B (two CPU numbers), not '%s'", s);
	memcpy(a, s, (size_t)(comma - s));
	a[comma - s] = '\0';
	pin_client = bench_arg_long("--pin", a, 0, CPU_SETSIZE - 1);
	pin_server = bench_arg_long("--pin", comma + 1, 0, CPU_SETSIZE - 1);
}

static void parse_args(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "transactions", required_argument, NULL, 'n' },
		{ "size", required_argument, NULL, 's' },
		{ "binding", required_argument, NULL, 'b' },
		{ "pin", required_argument, NULL, 'P' },
		{ "help", no_argument, NULL, 'h' },
		{ "inject-error", no_argument, NULL, 'E' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "n:s:b:P:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'n':
			transactions = bench_arg_long("--transactions", optarg, 1, 100000000);
			break;
		case 's':
			size = bench_arg_long("--size", optarg, 1, SIZE_MAX_BYTES);
			break;
		case 'b':
			if (!strcmp(optarg, "pinned"))
				pinned = true;
			else if (!strcmp(optarg, "unpinned"))
				pinned = false;
			else
				bench_usage_error("--binding is pinned or unpinned, not '%s'",
						  optarg);
			break;
		case 'P':
			parse_pin(optarg);
			break;
		case 'E':
			inject_error = true;
			break;
		case 'h':
			usage();
			exit(0);
		default:
			bench_usage_error("unknown option");
		}
	}
	if (optind < argc)
		bench_usage_error("unexpected argument '%s'", argv[optind]);
}

int main(int argc, char **argv)
{
	unsigned char *req, *want;
	uint64_t start, stop, served = 0;
	double real;
	long failed;

	bench_init("netrr");
	parse_args(argc, argv);
	req = malloc((size_t)size);
	want = malloc((size_t)size);
	if (!req || !want)
		bench_fail("out of memory");
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) || pipe(counts))
		bench_fail("socketpair/pipe: %s", strerror(errno));
	if (pinned)
		printf("netrr: %ld transactions of %ld bytes each way, client on CPU %ld, server on "
		       "CPU %ld\n",
		       transactions, size, pin_client, pin_server);
	else
		printf("netrr: %ld transactions of %ld bytes each way, unpinned\n", transactions,
		       size);
	bench_fork(server, NULL);
	close(sv[1]);
	close(counts[1]);
	if (pinned)
		pin(pin_client, "client");

	start = bench_now_ns();
	for (uint64_t seq = 0; seq < (uint64_t)transactions; seq++) {
		struct header h = { .seq = seq };
		long got;
		int err;

		fill(req, seq);
		err = bench_write_all(sv[0], &h, sizeof(h));
		if (!err)
			err = bench_write_all(sv[0], req, (size_t)size);
		if (err)
			bench_fail("client: write: %s", strerror(-err));
		got = bench_read_all(sv[0], &h, sizeof(h));
		if (got == sizeof(h))
			got = bench_read_all(sv[0], req, (size_t)size) == size ? (long)sizeof(h) : -1;
		if (got != sizeof(h))
			bench_fail("client: transaction %llu: torn or missing answer",
				   (unsigned long long)seq);
		fill(want, seq);
		for (long i = 0; i < size; i++)
			want[i]++;
		if (h.seq != seq || h.sum != checksum(want) || memcmp(req, want, (size_t)size))
			bench_fail("client: transaction %llu: wrong answer (seq %llu)",
				   (unsigned long long)seq, (unsigned long long)h.seq);
	}
	stop = bench_now_ns();
	close(sv[0]);
	if (bench_read_all(counts[0], &served, sizeof(served)) != sizeof(served))
		bench_fail("the server reported no count");
	failed = bench_reap(1, "server");
	if (failed)
		bench_fail("the server failed (see above)");
	if (served != (uint64_t)transactions)
		bench_fail("the server served %llu of %ld transactions", (unsigned long long)served,
			   transactions);

	real = (double)(stop - start) / NSEC_PER_SEC;
	netrr_report(&(struct netrr_figures){ .pinned = pinned,
					      .transactions = transactions,
					      .size = size,
					      .secs = real },
		     bench_result);
	return 0;
}

/*
 * tps: a client/server transaction rate in the manner of pgbench and
 * tbench.  C client processes each hold a connection (an AF_UNIX stream
 * socket pair) to one of S server processes (one server per client by
 * default, as a database forks a backend per connection; fewer servers
 * each poll() several connections).  A transaction is one request and its
 * answer; a server does a fixed, deterministic amount of work for each.
 * Prints pgbench's summary (transactions processed, latency average, tps)
 * and RESULT lines.
 *
 * Every answer is checked: it must name the right client and sequence
 * number and carry the right result (the parent computes the results for
 * the 64 possible arguments before forking), and the servers' count of
 * transactions served must equal the clients' count of answers received.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "bench.h"
#include "wlreport.h"

#define NARGS	    64	/* distinct request arguments; their answers are known in advance */
#define CLIENTS_MAX 400 /* two descriptors each in the parent, under the limit of 1024 */

static long clients = 4;
static long servers;		 /* 0: one per client */
static long transactions = 5000; /* per client, when no -T */
static double duration_s;	 /* -T: run for this long instead */
static long work = 2000;
static bool inject_error; /* for tests: server 0 answers one request wrong */

static uint64_t args[NARGS], answers[NARGS];

struct request {
	uint32_t client;
	uint32_t arg; /* index into args[] */
	uint64_t seq;
};

struct reply {
	uint32_t client;
	uint32_t pad;
	uint64_t seq;
	uint64_t result;
};

/* What each task tells the parent at its end. */
struct report {
	uint32_t is_server;
	uint32_t id;
	uint64_t count;
};

static int (*conn)[2]; /* per client: [0] its end, [1] the server's end */
static int reports[2];
static struct bench_gate gate;

/* The server's work for one request: a fixed xorshift chain from the argument. */
static uint64_t do_work(uint64_t x)
{
	for (long i = 0; i < work; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
	}
	return x;
}

static void send_report(bool is_server, long id, uint64_t count)
{
	struct report r = { .is_server = is_server, .id = (uint32_t)id, .count = count };
	int err = bench_write_all(reports[1], &r, sizeof(r));

	if (err)
		bench_fail("%s %ld: report: %s", is_server ? "server" : "client", id, strerror(-err));
}

/* In a forked task: close every connection end except those kept (client c's own, or server s's).
 */
static void close_others(bool is_server, long id)
{
	for (long c = 0; c < clients; c++) {
		if (is_server || c != id)
			close(conn[c][0]);
		if (!is_server || c % servers != id)
			close(conn[c][1]);
	}
	close(reports[0]);
}

/* ------------------------------------------------------------ server */

static int server(void *arg)
{
	long id = (long)arg, n = 0;
	struct pollfd *pfd = calloc((size_t)clients, sizeof(*pfd));
	long *who = calloc((size_t)clients, sizeof(*who));
	uint64_t *next = calloc((size_t)clients, sizeof(*next));
	uint64_t served = 0;

	if (!pfd || !who || !next)
		bench_fail("out of memory");
	close_others(true, id);
	for (long c = id; c < clients; c += servers) {
		pfd[n] = (struct pollfd){ .fd = conn[c][1], .events = POLLIN };
		who[n++] = c;
	}
	bench_gate_arrive(&gate, true);
	while (n > 0) {
		int r = poll(pfd, (nfds_t)n, -1);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			bench_fail("server %ld: poll: %s", id, strerror(errno));
		for (long k = n - 1; k >= 0; k--) {
			struct request req;
			struct reply rep;
			long c = who[k], got;
			int err;

			if (!pfd[k].revents)
				continue;
			got = bench_read_all(pfd[k].fd, &req, sizeof(req));
			if (got < 0)
				bench_fail("server %ld: read from client %ld: %s", id, c,
					   strerror((int)-got));
			if (got == 0) {
				/* The client is done: forget its connection. */
				close(pfd[k].fd);
				pfd[k] = pfd[--n];
				who[k] = who[n];
				continue;
			}
			if (got != sizeof(req))
				bench_fail("server %ld: torn request from client %ld (%ld bytes)",
					   id, c, got);
			if (req.client != c || req.seq != next[c] || req.arg >= NARGS)
				bench_fail("server %ld: from client %ld's connection got request "
					   "%llu of "
					   "client %u (argument %u), expected request %llu",
					   id, c, (unsigned long long)req.seq, req.client, req.arg,
					   (unsigned long long)next[c]);
			next[c]++;
			rep = (struct reply){ .client = req.client,
					      .seq = req.seq,
					      .result = do_work(args[req.arg]) };
			if (inject_error && id == 0 && req.seq == 2)
				rep.result ^= 1;
			err = bench_write_all(pfd[k].fd, &rep, sizeof(rep));
			if (err)
				bench_fail("server %ld: write to client %ld: %s", id, c,
					   strerror(-err));
			served++;
		}
	}
	send_report(true, id, served);
	return 0;
}

/* ------------------------------------------------------------ client */

static int client(void *arg)
{
	long id = (long)arg;
	int fd = conn[id][0];
	uint64_t seq, deadline = 0;

	close_others(false, id);
	bench_gate_arrive(&gate, true);
	if (duration_s > 0)
		deadline = bench_now_ns() + (uint64_t)(duration_s * NSEC_PER_SEC);
	for (seq = 0;; seq++) {
		struct request req = { .client = (uint32_t)id, .seq = seq };
		struct reply rep;
		long got;
		int err;

		if (duration_s > 0 ? bench_now_ns() >= deadline : seq >= (uint64_t)transactions)
			break;
		req.arg = (uint32_t)((id * 7 + (long)seq) % NARGS);
		err = bench_write_all(fd, &req, sizeof(req));
		if (err)
			bench_fail("client %ld: write: %s", id, strerror(-err));
		got = bench_read_all(fd, &rep, sizeof(rep));
		if (got < 0)
			bench_fail("client %ld: read: %s", id, strerror((int)-got));
		if (got != sizeof(rep))
			bench_fail("client %ld: transaction %llu: %s", id, (unsigned long long)seq,
				   got ? "torn answer" : "the server hung up");
		if (rep.client != id || rep.seq != seq)
			bench_fail("client %ld: transaction %llu got the answer to client %u's "
				   "transaction %llu",
				   id, (unsigned long long)seq, rep.client,
				   (unsigned long long)rep.seq);
		if (rep.result != answers[req.arg])
			bench_fail("client %ld: transaction %llu: result 0x%016llx, expected "
				   "0x%016llx",
				   id, (unsigned long long)seq, (unsigned long long)rep.result,
				   (unsigned long long)answers[req.arg]);
	}
	close(fd);
	send_report(false, id, seq);
	return 0;
}

/* ------------------------------------------------------------ main */

static void usage(void)
{
	printf("usage: tps [-c|--client C] [-s|--servers S] [-t|--transactions N | -T|--time "
	       "SECONDS]\n"
	       "           [-w|--work LOOPS]\n"
	       "\n"
	       "C client processes (default 4, at most %d) each run N transactions (default\n"
	       "5000) or run for SECONDS against S server processes (default: one per\n"
	       "client); a transaction is a request over a socket pair and its answer, for\n"
	       "which a server does LOOPS steps of work (default 2000).  Prints pgbench's\n"
	       "summary and RESULT lines; every answer is checked (--inject-error makes a\n"
	       "server answer one wrong).\n",
	       CLIENTS_MAX);
}

static void parse_args(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "client", required_argument, NULL, 'c' },
		{ "servers", required_argument, NULL, 's' },
		{ "transactions", required_argument, NULL, 't' },
		{ "time", required_argument, NULL, 'T' },
		{ "work", required_argument, NULL, 'w' },
		{ "help", no_argument, NULL, 'h' },
		{ "inject-error", no_argument, NULL, 'E' },
		{ NULL, 0, NULL, 0 },
	};
	bool have_t = false;
	int c;

	while ((c = getopt_long(argc, argv, "c:s:t:T:w:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'c':
			clients = bench_arg_long("--client", optarg, 1, CLIENTS_MAX);
			break;
		case 's':
			servers = bench_arg_long("--servers", optarg, 1, CLIENTS_MAX);
			break;
		case 't':
			transactions = bench_arg_long("--transactions", optarg, 1, 1000000000);
			have_t = true;
			break;
		case 'T':
			duration_s = bench_arg_double("--time", optarg, 0.001, 1e6);
			break;
		case 'w':
			work = bench_arg_long("--work", optarg, 0, 1000000000);
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
	if (have_t && duration_s > 0)
		bench_usage_error("-t and -T exclude each other");
	if (!servers)
		servers = clients;
	if (servers > clients)
		bench_usage_error("%ld servers for %ld clients: some would have no client", servers,
				  clients);
}

int main(int argc, char **argv)
{
	uint64_t start, stop, by_clients = 0, by_servers = 0, x = 0x7a11ce;
	long nreports = 0, failed;
	struct report r;
	double secs;

	bench_init("tps");
	parse_args(argc, argv);
	for (int i = 0; i < NARGS; i++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		args[i] = x | 1;
		answers[i] = do_work(args[i]);
	}

	conn = calloc((size_t)clients, sizeof(*conn));
	if (!conn)
		bench_fail("out of memory");
	for (long c = 0; c < clients; c++)
		if (socketpair(AF_UNIX, SOCK_STREAM, 0, conn[c]))
			bench_fail("socketpair: %s", strerror(errno));
	if (pipe(reports))
		bench_fail("pipe: %s", strerror(errno));
	bench_gate_init(&gate);
	for (long s = 0; s < servers; s++)
		bench_fork(server, (void *)s);
	for (long c = 0; c < clients; c++)
		bench_fork(client, (void *)c);
	for (long c = 0; c < clients; c++) {
		close(conn[c][0]);
		close(conn[c][1]);
	}
	close(reports[1]);
	bench_gate_forked(&gate);
	bench_gate_wait(&gate, clients + servers);
	start = bench_now_ns();
	bench_gate_open(&gate);

	/* Reports arrive as tasks end; end of file once all are gone. */
	for (;;) {
		long got = bench_read_all(reports[0], &r, sizeof(r));

		if (got < 0)
			bench_fail("read: %s", strerror((int)-got));
		if (got == 0)
			break;
		if (got != sizeof(r))
			bench_fail("a torn report (%ld bytes)", got);
		if (r.is_server)
			by_servers += r.count;
		else
			by_clients += r.count;
		nreports++;
	}
	stop = bench_now_ns();
	failed = bench_reap(clients + servers, "task");
	bench_gate_destroy(&gate);
	if (failed)
		bench_fail("%ld of %ld tasks failed (see above)", failed, clients + servers);
	if (nreports != clients + servers)
		bench_fail("%ld of %ld tasks reported", nreports, clients + servers);
	if (by_clients != by_servers)
		bench_fail("clients got %llu answers, servers sent %llu",
			   (unsigned long long)by_clients, (unsigned long long)by_servers);
	if (duration_s <= 0 && by_clients != (uint64_t)(clients * transactions))
		bench_fail("%llu transactions done, %ld expected", (unsigned long long)by_clients,
			   clients * transactions);
	if (!by_clients)
		bench_fail("no transaction completed");

	secs = (double)(stop - start) / NSEC_PER_SEC;
	tps_report(&(struct tps_figures){ .clients = clients,
					  .servers = servers,
					  .work = work,
					  .transactions = transactions,
					  .duration_s = duration_s,
					  .processed = by_clients,
					  .secs = secs },
		   bench_result);
	return 0;
}

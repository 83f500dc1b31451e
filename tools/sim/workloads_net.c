/*
 * The request/response workloads: user/tps.c, wakelat.c, jbb.c and
 * netrr.c with their names, options and RESULT lines (printed by
 * user/common/wlreport.c, the same code the guest programs use), played
 * as CPU bursts by the engine.
 *
 *   tps      C clients, S servers (one per client by default): a client
 *            writes a request and sleeps for the answer; a server reads
 *            the requests of its connections in the order they came, does
 *            the request's work and writes the answer. Socket wake-ups
 *            are sync, as sk_data_ready's are.
 *   wakelat  M message threads wake W workers each per round (futex: not
 *            sync; -p, a pipe: sync); a worker records the time from the
 *            wake-up to its first instant on a CPU, works and answers; the
 *            last answer wakes the message thread.
 *   jbb      W warehouses run N transactions each and post every one to
 *            a partner, woken by futex (not sync) when it sleeps; the
 *            partner audits what was posted.
 *   netrr    a client and a server pass one request and one answer at a
 *            time over a socket pair (sync wake-ups), pinned or not.
 *
 * A guest's "work" is a count of xorshift steps; here each step costs
 * --step-ns of CPU time. A system call that moves a message costs
 * --write-ns or --read-ns, as in hackbench. Each workload may declare the
 * working set of its tasks (--working-set SIZE) on the sim task, for the
 * cost model to read; without one nothing in the engine looks at it.
 *
 * Each checks what the guest checks: every request answered, in order,
 * by the right server; every wake-up measured; every transaction audited.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"
#include "wlreport.h"

/*
 * One xorshift step (three shifts and three xors, a dependent chain) of
 * the guests' work loops: 2.0 ns of CPU time per step measured on this
 * project's 2-core AMD EPYC host (a 2x10^8-step loop at -O2, process CPU
 * time, 2026-12-02). Under QEMU the guest's step takes what TCG makes of it.
 */
#define STEP_NS_DEFAULT 2.0

static double step_ns = STEP_NS_DEFAULT;
static u64 write_ns = 1000, read_ns = 1000;
static unsigned long working_set;

static const struct sim_action block = { SIM_BLOCK, 0 };
static const struct sim_action leave = { SIM_EXIT, 0 };

static struct sim_action run_for(u64 ns)
{
	return (struct sim_action){ SIM_RUN, ns };
}

static u64 work_ns(long steps)
{
	return (u64)((double)steps * step_ns + 0.5);
}

/* "22M", "7484M", "15G", "4096": a size in bytes (k, M, G: powers of 1024). */
static unsigned long parse_size(const char *opt, const char *s)
{
	char *end;
	double v = strtod(s, &end);
	double scale = 1;

	if (end != s && *end && !end[1]) {
		switch (*end) {
		case 'k':
		case 'K':
			scale = 1024.0;
			break;
		case 'm':
		case 'M':
			scale = 1024.0 * 1024;
			break;
		case 'g':
		case 'G':
			scale = 1024.0 * 1024 * 1024;
			break;
		default:
			scale = 0;
		}
		end++;
	}
	if (end == s || *end || !scale || !(v >= 0) || v * scale > 1e15)
		sim_usage_error("%s: '%s' is not a size (bytes, or a number with k, M or G)", opt, s);
	return (unsigned long)(v * scale);
}

/* The simulator's own options, shared by the four workloads: getopt codes above 255. */
enum { OPT_STEP = 256, OPT_WRITE, OPT_READ, OPT_WSET };

#define SIM_NET_LONGOPTS                                              \
	{ "step-ns", required_argument, NULL, OPT_STEP },             \
		{ "write-ns", required_argument, NULL, OPT_WRITE },   \
		{ "read-ns", required_argument, NULL, OPT_READ },     \
		{ "working-set", required_argument, NULL, OPT_WSET }, \
	{                                                             \
		"help", no_argument, NULL, 'h'                        \
	}

/* Takes one of the shared options; false if c is none of them. */
static bool common_option(int c)
{
	char *end;

	switch (c) {
	case OPT_STEP:
		step_ns = strtod(optarg, &end);
		if (end == optarg || *end || !(step_ns >= 0 && step_ns <= 1e6))
			sim_usage_error("--step-ns: '%s' is not a number in 0..1000000", optarg);
		return true;
	case OPT_WRITE:
		write_ns = (u64)sim_arg_long("--write-ns", optarg, 0, 1000000000);
		return true;
	case OPT_READ:
		read_ns = (u64)sim_arg_long("--read-ns", optarg, 0, 1000000000);
		return true;
	case OPT_WSET:
		working_set = parse_size("--working-set", optarg);
		return true;
	}
	return false;
}

#define COMMON_USAGE                                                                     \
	"In the simulator a step of work costs --step-ns NS of CPU time (default 2.0,\n" \
	"measured on this project's host), a write --write-ns and a read --read-ns\n"    \
	"(default 1000 each); --working-set SIZE declares each task's working set\n"     \
	"(bytes, or k/M/G) for the cost model.\n"

static struct sim_task *spawn(const struct sim_workload_ops *ops, u32 id, const char *name,
			      const struct cpumask *allowed)
{
	struct sim_task *st = sim_task_spawn(ops, id, name, 0, allowed);

	if (working_set) /* else the --ws-kb default every task gets */
		st->ws_bytes = working_set;
	return st;
}

static void wake_if(struct sim_task *st, bool *waiting, bool sync)
{
	if (*waiting) {
		*waiting = false;
		sim_task_wake(st, sync);
	}
}

/* ---------------------------------------------------------------- tps */

static long tps_clients = 4, tps_servers, tps_transactions = 5000, tps_work = 2000;
static double tps_duration_s;

struct tps_client {
	struct sim_task *st;
	u64 seq;	 /* the transaction in flight, or the next one */
	bool posted;	 /* request seq is written */
	bool answered;	 /* the server's answer to seq is in */
	bool waiting;	 /* asleep in read() for it */
	bool closed;	 /* done: the server sees end of file */
	int step;	 /* 0: starting, 1: writing the request or waiting, 2: reading the answer */
	u64 deadline;	 /* -T: the end, from the client's first run */
	u64 got;	 /* answers received and checked */
	u64 next_served; /* the server's expected next sequence number from this client */
};

struct tps_server {
	struct sim_task *st;
	u32 *queue; /* clients whose request is in, first come first served */
	u32 head, len, cap;
	u32 open;     /* its connections not yet closed */
	bool waiting; /* asleep in poll() */
	bool busy;    /* serving queue[head] */
	u64 served;
};

static struct tps_client *tps_c;
static struct tps_server *tps_s;

static void tps_post(struct tps_server *s, u32 client)
{
	if (s->len == s->cap)
		sim_fail("server queue overflow"); /* cannot happen: one request per client */
	s->queue[(s->head + s->len++) % s->cap] = client;
}

static u64 tps_first(struct sim_task *st)
{
	return 0;
}

/* The client's next step after an answer (or at its start): the next request, or close. */
static struct sim_action tps_next(struct tps_client *c, struct tps_server *s)
{
	if (c->seq == 0 && tps_duration_s > 0)
		c->deadline = sim_now + (u64)(tps_duration_s * 1e9);
	if (tps_duration_s > 0 ? sim_now >= c->deadline : c->seq >= (u64)tps_transactions) {
		c->closed = true;
		s->open--;
		wake_if(s->st, &s->waiting, false);
		return leave;
	}
	c->step = 1;
	c->answered = false;
	c->posted = false;
	return run_for(write_ns);
}

/* A client: write a request, sleep until its answer is in, read it, again. */
static struct sim_action tps_client_done(struct sim_task *st)
{
	struct tps_client *c = &tps_c[st->id];
	struct tps_server *s = &tps_s[st->id % tps_servers];

	switch (c->step) {
	case 0:
		return tps_next(c, s);
	case 1:
		if (!c->posted) {
			/* The write's effect, at the end of its burst; then read() sleeps. */
			c->posted = true;
			tps_post(s, st->id);
			wake_if(s->st, &s->waiting, true);
		}
		if (!c->answered) {
			c->waiting = true;
			return block;
		}
		c->step = 2;
		return run_for(read_ns);
	default:
		c->got++;
		c->seq++;
		return tps_next(c, s);
	}
}

/* A server: take the oldest request in, work on it, answer; poll when there is none. */
static struct sim_action tps_server_done(struct sim_task *st)
{
	struct tps_server *s = &tps_s[st->id - tps_clients];

	if (s->busy) {
		u32 id = s->queue[s->head];
		struct tps_client *c = &tps_c[id];

		s->head = (s->head + 1) % s->cap;
		s->len--;
		s->busy = false;
		if (c->next_served != c->seq || c->answered)
			sim_fail("server %u: request %llu of client %u, expected %llu",
				 st->id - (u32)tps_clients, (unsigned long long)c->seq, id,
				 (unsigned long long)c->next_served);
		c->next_served++;
		c->answered = true;
		s->served++;
		wake_if(c->st, &c->waiting, true);
	}
	if (s->len) {
		s->busy = true;
		return run_for(read_ns + work_ns(tps_work) + write_ns);
	}
	if (!s->open)
		return leave;
	s->waiting = true;
	return block;
}

static const struct sim_workload_ops tps_client_ops = {
	.first_burst = tps_first,
	.burst_done = tps_client_done,
};

static const struct sim_workload_ops tps_server_ops = {
	.first_burst = tps_first,
	.burst_done = tps_server_done,
};

int sim_tps_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "client", required_argument, NULL, 'c' },
		{ "servers", required_argument, NULL, 's' },
		{ "transactions", required_argument, NULL, 't' },
		{ "time", required_argument, NULL, 'T' },
		{ "work", required_argument, NULL, 'w' },
		SIM_NET_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	u64 by_clients = 0, by_servers = 0, last = SIM_START_NS;
	struct tps_figures fig;
	bool have_t = false;
	char keys[128];
	char *end;
	int c;

	while ((c = getopt_long(argc, argv, "c:s:t:T:w:h", longopts, NULL)) != -1) {
		if (common_option(c))
			continue;
		switch (c) {
		case 'c':
			tps_clients = sim_arg_long("--client", optarg, 1, 100000);
			break;
		case 's':
			tps_servers = sim_arg_long("--servers", optarg, 1, 100000);
			break;
		case 't':
			tps_transactions = sim_arg_long("--transactions", optarg, 1, 1000000000);
			have_t = true;
			break;
		case 'T':
			tps_duration_s = strtod(optarg, &end);
			if (end == optarg || *end ||
			    !(tps_duration_s >= 0.001 && tps_duration_s <= 1e6))
				sim_usage_error("--time: '%s' is not a number in 0.001..1e+06",
						optarg);
			break;
		case 'w':
			tps_work = sim_arg_long("--work", optarg, 0, 1000000000);
			break;
		case 'h':
			printf("usage: tps [-c|--client C] [-s|--servers S] [-t|--transactions N | "
			       "-T|--time SECONDS]\n"
			       "           [-w|--work LOOPS] [--step-ns NS] [--write-ns NS] "
			       "[--read-ns NS]\n"
			       "           [--working-set SIZE]\n"
			       "\n"
			       "C clients (default 4) each run N transactions (default 5000) or run\n"
			       "for SECONDS against S servers (default: one per client); a transaction\n"
			       "is a request and its answer, for which a server does LOOPS steps of\n"
			       "work (default 2000). The working set is the servers' (the database).\n" COMMON_USAGE
			       "Prints pgbench's summary and RESULT lines; fails unless every request\n"
			       "was answered, in order, by its own server.\n");
			return 0;
		default:
			sim_usage_error("unknown option");
		}
	}
	if (optind < argc)
		sim_usage_error("unexpected argument '%s'", argv[optind]);
	if (have_t && tps_duration_s > 0)
		sim_usage_error("-t and -T exclude each other");
	if (!tps_servers)
		tps_servers = tps_clients;
	if (tps_servers > tps_clients)
		sim_usage_error("%ld servers for %ld clients: some would have no client",
				tps_servers, tps_clients);
	tps_c = calloc((size_t)tps_clients, sizeof(*tps_c));
	tps_s = calloc((size_t)tps_servers, sizeof(*tps_s));
	if (!tps_c || !tps_s)
		sim_fail("out of memory");
	printf("tps: %ld clients, %ld servers, work %ld steps of %.3f ns, working set %lu bytes "
	       "(simulated)\n",
	       tps_clients, tps_servers, tps_work, step_ns, working_set);
	fflush(stdout);
	/* The guest forks the servers first, then the clients. */
	for (long i = 0; i < tps_servers; i++) {
		struct tps_server *s = &tps_s[i];
		char name[32];

		s->cap = (u32)((tps_clients + tps_servers - 1 - i) / tps_servers);
		s->open = s->cap;
		s->queue = calloc(s->cap, sizeof(*s->queue));
		if (!s->queue)
			sim_fail("out of memory");
		snprintf(name, sizeof(name), "tps/server%ld", i);
		s->st = spawn(&tps_server_ops, (u32)(tps_clients + i), name, NULL);
	}
	for (long i = 0; i < tps_clients; i++) {
		char name[32];

		snprintf(name, sizeof(name), "tps/client%ld", i);
		/* The working set is the servers': a client holds only its request. */
		tps_c[i].st = sim_task_spawn(&tps_client_ops, (u32)i, name, 0, NULL);
	}
	if (!sim_engine_run(0))
		sim_fail("the simulated time limit passed before every client finished");
	for (long i = 0; i < tps_clients; i++) {
		struct tps_client *cl = &tps_c[i];

		if (!cl->st->exited || (tps_duration_s <= 0 && cl->got != (u64)tps_transactions))
			sim_fail("client %ld got %llu of %ld answers", i,
				 (unsigned long long)cl->got, tps_transactions);
		if (cl->next_served != cl->got)
			sim_fail("client %ld: %llu answers for %llu requests served", i,
				 (unsigned long long)cl->got, (unsigned long long)cl->next_served);
		by_clients += cl->got;
		if (cl->st->exit_ns > last)
			last = cl->st->exit_ns;
	}
	for (long i = 0; i < tps_servers; i++) {
		if (!tps_s[i].st->exited || tps_s[i].len)
			sim_fail("server %ld did not finish (%u requests left)", i, tps_s[i].len);
		by_servers += tps_s[i].served;
		if (tps_s[i].st->exit_ns > last)
			last = tps_s[i].st->exit_ns;
	}
	if (by_clients != by_servers)
		sim_fail("clients got %llu answers, servers sent %llu",
			 (unsigned long long)by_clients, (unsigned long long)by_servers);
	if (!by_clients)
		sim_fail("no transaction completed");
	fig = (struct tps_figures){ .clients = tps_clients,
				    .servers = tps_servers,
				    .work = tps_work,
				    .transactions = tps_transactions,
				    .duration_s = tps_duration_s,
				    .processed = by_clients,
				    .secs = (double)(last - SIM_START_NS) / 1e9 };
	tps_report(&fig, sim_bench_result);
	tps_params(keys, sizeof(keys), &fig);
	sim_report_sched("tps", keys, fig.secs);
	for (long i = 0; i < tps_servers; i++)
		free(tps_s[i].queue);
	free(tps_c);
	free(tps_s);
	return 0;
}

/* ---------------------------------------------------------------- wakelat */

static long wl_msgs = 2, wl_workers = 4, wl_requests = 5000, wl_work = 1000;
static double wl_runtime_s;
static bool wl_pipes;

#define ROUND_STOP UINT32_MAX /* "no more requests", as the guest's */

struct wl_worker {
	struct sim_task *st;
	u32 round;   /* the latest request's round (1, 2, ...), ROUND_STOP at the end */
	u32 last;    /* the last round it answered */
	u64 stamp;   /* when the message thread sent round */
	bool asleep; /* waiting for a request */
	bool busy;   /* working on round */
	long answered;
};

struct wl_messenger {
	struct sim_task *st;
	struct wl_worker *workers;
	u32 round, pending, done;
	u32 sent;    /* requests of this round sent */
	bool asleep; /* waiting for the round's last answer */
	u64 deadline;
	long rounds; /* rounds every worker answered */
};

static struct wl_messenger *wl_m;
static u64 *wl_hist, wl_total, wl_max;

static u64 wl_first(struct sim_task *st)
{
	return 0;
}

static struct wl_worker *wl_worker_of(struct sim_task *st)
{
	return &wl_m[st->id / (u32)(wl_workers + 1)].workers[st->id % (u32)(wl_workers + 1) - 1];
}

/* The request (or the stop) to worker w: take the time, publish, wake. */
static void wl_send(struct wl_worker *w, u32 round)
{
	w->stamp = sim_now;
	w->round = round;
	wake_if(w->st, &w->asleep, wl_pipes);
}

/*
 * A message thread: each send is a system call of --write-ns; after the
 * round's last it sleeps until the last worker's answer, then starts the
 * next round, or stops every worker and exits.
 */
static struct sim_action wl_messenger_done(struct sim_task *st)
{
	struct wl_messenger *m = &wl_m[st->id / (u32)(wl_workers + 1)];

	if (m->round == 0) { /* the first run: the gate has opened */
		m->deadline = sim_now + (u64)(wl_runtime_s * 1e9);
		m->round = 1;
		m->pending = (u32)wl_workers;
		return run_for(write_ns);
	}
	if (m->sent < (u32)wl_workers) {
		wl_send(&m->workers[m->sent++], m->round);
		if (m->sent < (u32)wl_workers)
			return run_for(write_ns);
	}
	if (m->done != m->round) {
		m->asleep = true;
		return block;
	}
	m->rounds = m->round;
	if (wl_runtime_s > 0 ? sim_now >= m->deadline : (long)m->round + 1 > wl_requests) {
		for (long i = 0; i < wl_workers; i++)
			wl_send(&m->workers[i], ROUND_STOP);
		return leave;
	}
	m->round++;
	m->sent = 0;
	m->pending = (u32)wl_workers;
	return run_for(write_ns);
}

/*
 * A worker: once on a CPU after a request's wake-up, it records the time
 * since the send, works, and answers; the round's last answer wakes the
 * message thread (futex, or a pipe write).
 */
static struct sim_action wl_worker_done(struct sim_task *st)
{
	struct wl_worker *w = wl_worker_of(st);
	struct wl_messenger *m = &wl_m[st->id / (u32)(wl_workers + 1)];

	if (w->busy) {
		w->busy = false;
		w->answered++;
		w->last = w->round;
		if (--m->pending == 0) {
			m->done = w->round;
			wake_if(m->st, &m->asleep, wl_pipes);
		}
	}
	if (w->round == w->last) {
		w->asleep = true;
		return block;
	}
	if (w->round == ROUND_STOP)
		return leave;
	if (w->round != w->last + 1)
		sim_fail("message thread %u worker %u: got request %u after %u",
			 st->id / (u32)(wl_workers + 1), st->id % (u32)(wl_workers + 1) - 1,
			 w->round, w->last);
	wl_hist[lat_hist_index(sim_now - w->stamp)]++;
	wl_total++;
	if (sim_now - w->stamp > wl_max)
		wl_max = sim_now - w->stamp;
	w->busy = true;
	return run_for(work_ns(wl_work));
}

static const struct sim_workload_ops wl_messenger_ops = {
	.first_burst = wl_first,
	.burst_done = wl_messenger_done,
};

static const struct sim_workload_ops wl_worker_ops = {
	.first_burst = wl_first,
	.burst_done = wl_worker_done,
};

int sim_wakelat_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "message-threads", required_argument, NULL, 'm' },
		{ "threads", required_argument, NULL, 't' },
		{ "runtime", required_argument, NULL, 'r' },
		{ "requests", required_argument, NULL, 'n' },
		{ "work", required_argument, NULL, 'w' },
		{ "pipe", no_argument, NULL, 'p' },
		SIM_NET_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	struct wakelat_figures fig;
	u64 last = SIM_START_NS;
	long answered = 0;
	bool have_n = false;
	char keys[128], *end;
	int c;

	while ((c = getopt_long(argc, argv, "m:t:r:n:w:ph", longopts, NULL)) != -1) {
		if (common_option(c))
			continue;
		switch (c) {
		case 'm':
			wl_msgs = sim_arg_long("--message-threads", optarg, 1, 1000);
			break;
		case 't':
			wl_workers = sim_arg_long("--threads", optarg, 1, 1000);
			break;
		case 'r':
			wl_runtime_s = strtod(optarg, &end);
			if (end == optarg || *end || !(wl_runtime_s >= 0.001 && wl_runtime_s <= 1e6))
				sim_usage_error("--runtime: '%s' is not a number in 0.001..1e+06",
						optarg);
			break;
		case 'n':
			wl_requests = sim_arg_long("--requests", optarg, 1, 1000000000);
			have_n = true;
			break;
		case 'w':
			wl_work = sim_arg_long("--work", optarg, 0, 1000000000);
			break;
		case 'p':
			wl_pipes = true;
			break;
		case 'h':
			printf("usage: wakelat [-m|--message-threads M] [-t|--threads W]\n"
			       "               [-r|--runtime SECONDS | -n|--requests N] [-w|--work "
			       "LOOPS] [-p|--pipe]\n"
			       "               [--step-ns NS] [--write-ns NS] [--read-ns NS] "
			       "[--working-set SIZE]\n"
			       "\n"
			       "M message threads (default 2) each wake their W workers (default 4)\n"
			       "with one request each per round, N rounds (default 5000) or for\n"
			       "SECONDS; a worker records the time from the send to its first instant\n"
			       "on a CPU, does LOOPS steps of work (default 1000) and answers. Futex\n"
			       "wake-ups, or pipes (sync wake-ups) with -p. The working set is the\n"
			       "workers'.\n" COMMON_USAGE
			       "Prints the p50/p90/p99/p99.9/max wake-up latency (usec) and requests\n"
			       "per second, and RESULT lines; fails unless every request was answered\n"
			       "in order and every wake-up measured.\n");
			return 0;
		default:
			sim_usage_error("unknown option");
		}
	}
	if (optind < argc)
		sim_usage_error("unexpected argument '%s'", argv[optind]);
	if (have_n && wl_runtime_s > 0)
		sim_usage_error("-r and -n exclude each other");
	wl_m = calloc((size_t)wl_msgs, sizeof(*wl_m));
	wl_hist = calloc(LAT_HIST_SIZE, sizeof(*wl_hist));
	if (!wl_m || !wl_hist)
		sim_fail("out of memory");
	printf("wakelat: %ld message threads x %ld workers, %s wake-ups, work %ld steps of %.3f "
	       "ns (simulated)\n",
	       wl_msgs, wl_workers, wl_pipes ? "pipe (sync)" : "futex", wl_work, step_ns);
	fflush(stdout);
	/* The guest creates each message thread's workers, then the message thread. */
	for (long k = 0; k < wl_msgs; k++) {
		struct wl_messenger *m = &wl_m[k];
		u32 base = (u32)(k * (wl_workers + 1));
		char name[64];

		m->workers = calloc((size_t)wl_workers, sizeof(*m->workers));
		if (!m->workers)
			sim_fail("out of memory");
		for (long i = 0; i < wl_workers; i++) {
			snprintf(name, sizeof(name), "wakelat/w%ld.%ld", k, i);
			m->workers[i].st = spawn(&wl_worker_ops, base + 1 + (u32)i, name, NULL);
		}
		snprintf(name, sizeof(name), "wakelat/m%ld", k);
		m->st = sim_task_spawn(&wl_messenger_ops, base, name, 0, NULL);
	}
	if (!sim_engine_run(0))
		sim_fail("the simulated time limit passed before every request was answered");
	for (long k = 0; k < wl_msgs; k++) {
		struct wl_messenger *m = &wl_m[k];

		if (!m->st->exited)
			sim_fail("message thread %ld did not finish", k);
		if (m->st->exit_ns > last)
			last = m->st->exit_ns;
		for (long i = 0; i < wl_workers; i++) {
			struct wl_worker *w = &m->workers[i];

			if (!w->st->exited || w->answered != m->rounds)
				sim_fail("message thread %ld worker %ld answered %ld of %ld requests",
					 k, i, w->answered, m->rounds);
			answered += w->answered;
		}
	}
	if (wl_total != (u64)answered || !answered)
		sim_fail("%llu latencies recorded for %ld answered requests",
			 (unsigned long long)wl_total, answered);
	fig = (struct wakelat_figures){ .msg_threads = wl_msgs,
					.workers = wl_workers,
					.work = wl_work,
					.requests = wl_requests,
					.runtime_s = wl_runtime_s,
					.pipes = wl_pipes,
					.hist = wl_hist,
					.total = wl_total,
					.max_ns = wl_max,
					.answered = answered,
					.secs = (double)(last - SIM_START_NS) / 1e9 };
	wakelat_report(&fig, sim_bench_result);
	wakelat_params(keys, sizeof(keys), &fig);
	sim_report_sched("wakelat", keys, fig.secs);
	for (long k = 0; k < wl_msgs; k++)
		free(wl_m[k].workers);
	free(wl_m);
	free(wl_hist);
	return 0;
}

/* ---------------------------------------------------------------- jbb */

static long jbb_warehouses = 2, jbb_transactions = 2000, jbb_work = 20000, jbb_audit = 5000;

struct jbb_wh {
	struct sim_task *wh, *partner;
	u64 posted, audited;
	bool closed;
	bool partner_asleep; /* on the futex: the next post wakes it */
	bool joining;	     /* the warehouse waits in pthread_join for its partner */
	bool auditing;	     /* the partner is in an audit burst */
	u64 wakeups;	     /* futex wake-ups the warehouse made (as the guest counts them) */
};

static struct jbb_wh *jbb;

static u64 jbb_first(struct sim_task *st)
{
	return 0;
}

/* A warehouse (even id): N transactions, each posted to the partner; then the close and join. */
static struct sim_action jbb_wh_done(struct sim_task *st)
{
	struct jbb_wh *h = &jbb[st->id / 2];

	if (st->counter > 0 && !h->closed) {
		/* Transaction counter is done: post it, wake the partner if it sleeps. */
		h->posted = st->counter;
		if (h->partner_asleep) {
			h->wakeups++;
			wake_if(h->partner, &h->partner_asleep, false);
		}
	}
	if (st->counter < (u64)jbb_transactions) {
		st->counter++;
		return run_for(work_ns(jbb_work));
	}
	if (!h->closed) {
		/* The close, and the last wake-up the guest makes unconditionally. */
		h->closed = true;
		h->wakeups++;
		wake_if(h->partner, &h->partner_asleep, false);
	}
	if (!h->partner->exited) {
		h->joining = true;
		return block;
	}
	return leave;
}

/* A partner (odd id): audits what is posted, sleeps when caught up, exits after the close. */
static struct sim_action jbb_partner_done(struct sim_task *st)
{
	struct jbb_wh *h = &jbb[st->id / 2];

	if (h->auditing) {
		h->auditing = false;
		h->audited++;
	}
	if (h->audited < h->posted) {
		h->auditing = true;
		return run_for(work_ns(jbb_audit));
	}
	if (h->closed) {
		wake_if(h->wh, &h->joining, false);
		return leave;
	}
	h->partner_asleep = true;
	return block;
}

static const struct sim_workload_ops jbb_wh_ops = {
	.first_burst = jbb_first,
	.burst_done = jbb_wh_done,
};

static const struct sim_workload_ops jbb_partner_ops = {
	.first_burst = jbb_first,
	.burst_done = jbb_partner_done,
};

int sim_jbb_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "warehouses", required_argument, NULL, 'w' },
		{ "transactions", required_argument, NULL, 'n' },
		{ "work", required_argument, NULL, 'k' },
		{ "audit", required_argument, NULL, 'a' },
		SIM_NET_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	u64 last = SIM_START_NS, wakeups = 0;
	struct jbb_figures fig;
	char keys[96];
	int c;

	while ((c = getopt_long(argc, argv, "w:n:k:a:h", longopts, NULL)) != -1) {
		if (common_option(c))
			continue;
		switch (c) {
		case 'w':
			jbb_warehouses = sim_arg_long("--warehouses", optarg, 1, 100000);
			break;
		case 'n':
			jbb_transactions = sim_arg_long("--transactions", optarg, 1, 100000000);
			break;
		case 'k':
			jbb_work = sim_arg_long("--work", optarg, 1, 100000000);
			break;
		case 'a':
			jbb_audit = sim_arg_long("--audit", optarg, 1, 100000000);
			break;
		case 'h':
			printf("usage: jbb [-w|--warehouses W] [-n|--transactions N] [-k|--work K]\n"
			       "           [-a|--audit A] [--step-ns NS] [--working-set SIZE]\n"
			       "\n"
			       "A specjbb-like load: W warehouse tasks (default 2) each run N\n"
			       "transactions (default 2000) of K steps (default 20000), posting each to\n"
			       "a partner that audits it in A steps (default 5000); a partner that has\n"
			       "caught up sleeps and is woken (futex: not sync) by the next post. The\n"
			       "working set is every task's.\n" COMMON_USAGE
			       "Prints the throughput and RESULT lines; fails unless every partner\n"
			       "audited exactly what its warehouse posted.\n");
			return 0;
		default:
			sim_usage_error("unknown option");
		}
	}
	if (optind < argc)
		sim_usage_error("unexpected argument '%s'", argv[optind]);
	jbb = calloc((size_t)jbb_warehouses, sizeof(*jbb));
	if (!jbb)
		sim_fail("out of memory");
	printf("jbb: %ld warehouses x %ld transactions of %ld steps, audits of %ld steps, %.3f ns "
	       "a step (simulated)\n",
	       jbb_warehouses, jbb_transactions, jbb_work, jbb_audit, step_ns);
	fflush(stdout);
	/* The guest starts each warehouse, which starts its partner. */
	for (long i = 0; i < jbb_warehouses; i++) {
		char name[32];

		snprintf(name, sizeof(name), "jbb/wh%ld", i);
		jbb[i].wh = spawn(&jbb_wh_ops, (u32)(2 * i), name, NULL);
		snprintf(name, sizeof(name), "jbb/partner%ld", i);
		jbb[i].partner = spawn(&jbb_partner_ops, (u32)(2 * i + 1), name, NULL);
	}
	if (!sim_engine_run(0))
		sim_fail("the simulated time limit passed before every warehouse finished");
	for (long i = 0; i < jbb_warehouses; i++) {
		struct jbb_wh *h = &jbb[i];

		if (!h->wh->exited || !h->partner->exited || h->posted != (u64)jbb_transactions ||
		    h->audited != (u64)jbb_transactions)
			sim_fail("warehouse %ld posted %llu and its partner audited %llu of %ld "
				 "transactions",
				 i, (unsigned long long)h->posted, (unsigned long long)h->audited,
				 jbb_transactions);
		wakeups += h->wakeups;
		if (h->wh->exit_ns > last)
			last = h->wh->exit_ns;
	}
	fig = (struct jbb_figures){ .warehouses = jbb_warehouses,
				    .transactions = jbb_transactions,
				    .wakeups = wakeups,
				    .secs = (double)(last - SIM_START_NS) / 1e9 };
	jbb_report(&fig, sim_bench_result);
	snprintf(keys, sizeof(keys), "warehouses=%ld transactions=%ld", jbb_warehouses,
		 jbb_transactions);
	sim_report_sched("jbb", keys, fig.secs);
	free(jbb);
	return 0;
}

/* ---------------------------------------------------------------- netrr */

static long nr_transactions = 10000, nr_size = 1, nr_pin_client, nr_pin_server = 1;
static bool nr_pinned;

/* The request in flight and the answer: one of each at most, as netperf's TCP_RR. */
static struct {
	struct sim_task *client, *server;
	u64 seq;	 /* the client's transaction */
	bool request_in; /* the server has a request to read */
	bool answer_in;	 /* the client has an answer to read */
	bool client_asleep, server_asleep, closed;
	int step; /* the client's: 0 start, 1 writing or waiting, 2 reading */
	u64 served, start, stop;
} nr;

static u64 nr_first(struct sim_task *st)
{
	return 0;
}

/* The client: write a request, sleep for the answer, read it; N times. */
static struct sim_action nr_client_done(struct sim_task *st)
{
	switch (nr.step) {
	case 0:
		nr.start = sim_now;
		nr.step = 1;
		return run_for(write_ns);
	case 1:
		if (!nr.request_in && !nr.answer_in) {
			nr.request_in = true;
			wake_if(nr.server, &nr.server_asleep, true);
		}
		if (!nr.answer_in) {
			nr.client_asleep = true;
			return block;
		}
		nr.step = 2;
		return run_for(read_ns);
	default:
		nr.answer_in = false;
		if (++nr.seq == (u64)nr_transactions) {
			nr.stop = sim_now;
			nr.closed = true;
			wake_if(nr.server, &nr.server_asleep, false);
			return leave;
		}
		nr.step = 1;
		return run_for(write_ns);
	}
}

/* The server: read a request and write its answer (one burst), or sleep; ends at the close. */
static struct sim_action nr_server_done(struct sim_task *st)
{
	if (st->counter) {
		st->counter = 0;
		nr.served++;
		nr.answer_in = true;
		wake_if(nr.client, &nr.client_asleep, true);
	}
	if (nr.request_in) {
		nr.request_in = false;
		st->counter = 1;
		return run_for(read_ns + write_ns);
	}
	if (nr.closed)
		return leave;
	nr.server_asleep = true;
	return block;
}

static const struct sim_workload_ops nr_client_ops = {
	.first_burst = nr_first,
	.burst_done = nr_client_done,
};

static const struct sim_workload_ops nr_server_ops = {
	.first_burst = nr_first,
	.burst_done = nr_server_done,
};

int sim_netrr_main(int argc, char **argv, u32 nr_cpus)
{
	static const struct option longopts[] = {
		{ "transactions", required_argument, NULL, 'n' },
		{ "size", required_argument, NULL, 's' },
		{ "binding", required_argument, NULL, 'b' },
		{ "pin", required_argument, NULL, 'P' },
		SIM_NET_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	struct cpumask cmask, smask;
	struct netrr_figures fig;
	char keys[96], *comma;
	int c;

	while ((c = getopt_long(argc, argv, "n:s:b:P:h", longopts, NULL)) != -1) {
		if (common_option(c))
			continue;
		switch (c) {
		case 'n':
			nr_transactions = sim_arg_long("--transactions", optarg, 1, 100000000);
			break;
		case 's':
			nr_size = sim_arg_long("--size", optarg, 1, 65536);
			break;
		case 'b':
			if (!strcmp(optarg, "pinned"))
				nr_pinned = true;
			else if (!strcmp(optarg, "unpinned"))
				nr_pinned = false;
			else
				sim_usage_error("--binding is pinned or unpinned, not '%s'", optarg);
			break;
		case 'P':
			comma = strchr(optarg, ',');
			if (!comma)
				sim_usage_error("--pin takes A,B (two CPU numbers), not '%s'",
						optarg);
			*comma = '\0';
			nr_pin_client = sim_arg_long("--pin", optarg, 0, (long)nr_cpus - 1);
			nr_pin_server = sim_arg_long("--pin", comma + 1, 0, (long)nr_cpus - 1);
			break;
		case 'h':
			printf("usage: netrr [-n|--transactions N] [-s|--size S] [-b|--binding "
			       "unpinned|pinned]\n"
			       "             [-P|--pin A,B] [--write-ns NS] [--read-ns NS] "
			       "[--working-set SIZE]\n"
			       "\n"
			       "netperf TCP_RR over a socket pair: a client and a server exchange N\n"
			       "requests and answers (default 10000) of S bytes (default 1), one at a\n"
			       "time, with sync wake-ups. Pinned, the client runs on CPU A and the\n"
			       "server on CPU B (default 0,1) from their start.\n" COMMON_USAGE
			       "Prints transactions per second and a RESULT line; fails unless the\n"
			       "server answered every request.\n");
			return 0;
		default:
			sim_usage_error("unknown option");
		}
	}
	if (optind < argc)
		sim_usage_error("unexpected argument '%s'", argv[optind]);
	if (nr_pinned && (nr_pin_client >= (long)nr_cpus || nr_pin_server >= (long)nr_cpus))
		sim_usage_error("--pin: the machine has %u CPUs", nr_cpus);
	cpumask_clear(&cmask);
	cpumask_clear(&smask);
	cpumask_set_cpu((u32)nr_pin_client, &cmask);
	cpumask_set_cpu((u32)nr_pin_server, &smask);
	if (nr_pinned)
		printf("netrr: %ld transactions of %ld bytes each way, client on CPU %ld, server on "
		       "CPU %ld\n",
		       nr_transactions, nr_size, nr_pin_client, nr_pin_server);
	else
		printf("netrr: %ld transactions of %ld bytes each way, unpinned\n", nr_transactions,
		       nr_size);
	fflush(stdout);
	/* The guest's client forks the server, then both pin themselves: here, from the start. */
	nr.client = spawn(&nr_client_ops, 0, "netrr", nr_pinned ? &cmask : NULL);
	nr.server = spawn(&nr_server_ops, 1, "netrr/server", nr_pinned ? &smask : NULL);
	if (!sim_engine_run(0))
		sim_fail("the simulated time limit passed before the transactions ended");
	if (!nr.client->exited || !nr.server->exited || nr.seq != (u64)nr_transactions ||
	    nr.served != (u64)nr_transactions)
		sim_fail("the server served %llu and the client got %llu of %ld transactions",
			 (unsigned long long)nr.served, (unsigned long long)nr.seq, nr_transactions);
	fig = (struct netrr_figures){ .pinned = nr_pinned,
				      .transactions = nr_transactions,
				      .size = nr_size,
				      .secs = (double)(nr.stop - nr.start) / 1e9 };
	netrr_report(&fig, sim_bench_result);
	snprintf(keys, sizeof(keys), "binding=%s transactions=%ld size=%ld",
		 nr_pinned ? "pinned" : "unpinned", nr_transactions, nr_size);
	sim_report_sched("netrr", keys, fig.secs);
	return 0;
}

/*
 * wakelat: wake-up latency in the manner of schbench (Chris Mason's
 * scheduler benchmark), same -m/-t/-r options.  M message threads each
 * own W worker threads.  A message thread sends a round of requests, one
 * to each of its workers: it takes the time, publishes it to the worker
 * and wakes it (futex by default, a pipe write with -p); the worker,
 * once running, reads the clock again, records the difference as its
 * wake-up latency, does a fixed amount of work and answers; the last
 * worker to answer wakes the message thread for the next round.
 *
 * Prints the p50/p90/p99/p99.9/max latency in usec and the requests per
 * second, and RESULT lines for each.  Checks: every worker answers every
 * request of its message thread, in order, and no latency is negative.
 * Latencies are binned with 128 bins per power of two (under 1% error,
 * user/common/wlreport.c, shared with the simulator); the maximum is exact.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "bench.h"
#include "wlreport.h"

#define FUTEX_WAIT	   0
#define FUTEX_WAKE	   1
#define FUTEX_PRIVATE_FLAG 128

#define ROUND_STOP UINT32_MAX /* "no more requests" */

static long msg_threads = 2;
static long workers_per_msg = 4;
static long requests = 5000; /* rounds per message thread, when no -r */
static double runtime_s;     /* -r: run for this long instead */
static long work_loops = 1000;
static bool use_pipes;
static bool inject_error; /* for tests: one worker records a negative latency */

struct messenger;

struct worker {
	uint32_t round;	   /* futex word: the latest request's round number (1, 2, ...) */
	uint64_t stamp_ns; /* the message thread's clock when it sent that request */
	int req_pipe[2];   /* -p: requests arrive here, carrying round and stamp */
	struct messenger *m;
	long index;
	long answered;
	long negative; /* latencies below zero: a clock that goes backwards across CPUs */
	uint64_t max_ns;
	uint64_t *hist;
	uint64_t sink; /* the work's result, so it cannot be optimised away */
	pthread_t thread;
} __attribute__((aligned(64)));

struct messenger {
	uint32_t pending; /* workers yet to answer the current round */
	uint32_t done;	  /* futex word: the last round every worker has answered */
	int done_pipe[2]; /* -p: the last worker of a round writes the round number here */
	long rounds;	  /* rounds sent */
	long index;
	struct worker *workers;
	pthread_t thread;
} __attribute__((aligned(64)));

struct request {
	uint32_t round;
	uint32_t pad;
	uint64_t stamp_ns;
};

static struct bench_gate gate;
static uint64_t start_ns;

static long futex(uint32_t *word, int op, uint32_t val)
{
	return syscall(SYS_futex, word, op | FUTEX_PRIVATE_FLAG, val, NULL, NULL, 0);
}

static void put(int fd, const void *buf, size_t n, const char *what)
{
	int err = bench_write_all(fd, buf, n);

	if (err)
		bench_fail("%s: write: %s", what, strerror(-err));
}

static void get(int fd, void *buf, size_t n, const char *what)
{
	long got = bench_read_all(fd, buf, n);

	if (got < 0)
		bench_fail("%s: read: %s", what, strerror((int)-got));
	if ((size_t)got != n)
		bench_fail("%s: unexpected end of file", what);
}

/* ------------------------------------------------------------ worker */

/* Blocks until the message thread sends a request after round `last`; returns its round. */
static uint32_t wait_request(struct worker *w, uint32_t last, uint64_t *stamp)
{
	uint32_t round;

	if (use_pipes) {
		struct request req;

		get(w->req_pipe[0], &req, sizeof(req), "worker");
		*stamp = req.stamp_ns;
		return req.round;
	}
	while ((round = __atomic_load_n(&w->round, __ATOMIC_ACQUIRE)) == last) {
		long r = futex(&w->round, FUTEX_WAIT, last);

		if (r < 0 && errno != EAGAIN && errno != EINTR)
			bench_fail("worker: futex wait: %s", strerror(errno));
	}
	*stamp = w->stamp_ns;
	return round;
}

static void answer(struct worker *w, uint32_t round)
{
	struct messenger *m = w->m;

	if (__atomic_sub_fetch(&m->pending, 1, __ATOMIC_ACQ_REL) != 0)
		return;
	/* The last answer of the round wakes the message thread. */
	if (use_pipes) {
		put(m->done_pipe[1], &round, sizeof(round), "worker");
		return;
	}
	__atomic_store_n(&m->done, round, __ATOMIC_RELEASE);
	if (futex(&m->done, FUTEX_WAKE, 1) < 0)
		bench_fail("worker: futex wake: %s", strerror(errno));
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	uint32_t last = 0;

	bench_gate_arrive(&gate, false);
	for (;;) {
		uint64_t stamp, now, x;
		uint32_t round = wait_request(w, last, &stamp);

		now = bench_now_ns();
		if (round == ROUND_STOP)
			break;
		if (round != last + 1)
			bench_fail("message thread %ld worker %ld: got request %u after %u",
				   w->m->index, w->index, round, last);
		if (inject_error && w->index == 0 && round == 1)
			stamp = now + 1;
		if (now < stamp) {
			w->negative++;
		} else {
			w->hist[lat_hist_index(now - stamp)]++;
			if (now - stamp > w->max_ns)
				w->max_ns = now - stamp;
		}
		/* The request's work: a fixed xorshift chain. */
		x = stamp | 1;
		for (long i = 0; i < work_loops; i++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
		}
		w->sink += x;
		w->answered++;
		last = round;
		answer(w, round);
	}
	return NULL;
}

/* ------------------------------------------------------------ message thread */

static void send_request(struct worker *w, uint32_t round)
{
	if (use_pipes) {
		struct request req = { .round = round, .stamp_ns = bench_now_ns() };

		put(w->req_pipe[1], &req, sizeof(req), "message thread");
		return;
	}
	w->stamp_ns = bench_now_ns();
	__atomic_store_n(&w->round, round, __ATOMIC_RELEASE);
	if (futex(&w->round, FUTEX_WAKE, 1) < 0)
		bench_fail("message thread: futex wake: %s", strerror(errno));
}

static void wait_round(struct messenger *m, uint32_t round)
{
	uint32_t done;

	if (use_pipes) {
		get(m->done_pipe[0], &done, sizeof(done), "message thread");
		if (done != round)
			bench_fail("message thread: round %u reported done during round %u", done,
				   round);
		return;
	}
	while ((done = __atomic_load_n(&m->done, __ATOMIC_ACQUIRE)) != round) {
		long r = futex(&m->done, FUTEX_WAIT, done);

		if (r < 0 && errno != EAGAIN && errno != EINTR)
			bench_fail("message thread: futex wait: %s", strerror(errno));
	}
}

static void *messenger_main(void *arg)
{
	struct messenger *m = arg;
	uint64_t deadline;

	bench_gate_arrive(&gate, false);
	deadline = bench_now_ns() + (uint64_t)(runtime_s * NSEC_PER_SEC);
	for (uint32_t round = 1;; round++) {
		if (runtime_s > 0 ? bench_now_ns() >= deadline : (long)round > requests)
			break;
		__atomic_store_n(&m->pending, (uint32_t)workers_per_msg, __ATOMIC_RELEASE);
		for (long i = 0; i < workers_per_msg; i++)
			send_request(&m->workers[i], round);
		wait_round(m, round);
		m->rounds = round;
	}
	for (long i = 0; i < workers_per_msg; i++)
		send_request(&m->workers[i], ROUND_STOP);
	return NULL;
}

/* ------------------------------------------------------------ report */

static void usage(void)
{
	printf("usage: wakelat [-m|--message-threads M] [-t|--threads W]\n"
	       "               [-r|--runtime SECONDS | -n|--requests N] [-w|--work LOOPS] "
	       "[-p|--pipe]\n"
	       "\n"
	       "M message threads (default 2) each wake their W workers (default 4) with one\n"
	       "request each per round, N rounds (default 5000) or for SECONDS; a worker\n"
	       "records the time from the waker's clock reading to its own, does LOOPS\n"
	       "steps of work (default 1000) and answers.  Futex wake-ups, or pipes with -p.\n"
	       "Prints the p50/p90/p99/p99.9/max wake-up latency (usec) and requests per\n"
	       "second, and RESULT lines.  Fails if a request goes unanswered or out of\n"
	       "order, or a latency is negative (--inject-error fakes one).\n");
}

static void parse_args(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "message-threads", required_argument, NULL, 'm' },
		{ "threads", required_argument, NULL, 't' },
		{ "runtime", required_argument, NULL, 'r' },
		{ "requests", required_argument, NULL, 'n' },
		{ "work", required_argument, NULL, 'w' },
		{ "pipe", no_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ "inject-error", no_argument, NULL, 'E' },
		{ NULL, 0, NULL, 0 },
	};
	bool have_n = false;
	int c;

	while ((c = getopt_long(argc, argv, "m:t:r:n:w:ph", longopts, NULL)) != -1) {
		switch (c) {
		case 'm':
			msg_threads = bench_arg_long("--message-threads", optarg, 1, 1000);
			break;
		case 't':
			workers_per_msg = bench_arg_long("--threads", optarg, 1, 1000);
			break;
		case 'r':
			runtime_s = bench_arg_double("--runtime", optarg, 0.001, 1e6);
			break;
		case 'n':
			requests = bench_arg_long("--requests", optarg, 1, 1000000000);
			have_n = true;
			break;
		case 'w':
			work_loops = bench_arg_long("--work", optarg, 0, 1000000000);
			break;
		case 'p':
			use_pipes = true;
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
	if (have_n && runtime_s > 0)
		bench_usage_error("-r and -n exclude each other");
}

int main(int argc, char **argv)
{
	struct messenger *msgs;
	uint64_t *hist, total = 0, max_ns = 0, stop_ns;
	long negative = 0, answered = 0;
	double secs;

	bench_init("wakelat");
	parse_args(argc, argv);

	msgs = aligned_alloc(64, sizeof(*msgs) * (size_t)msg_threads);
	hist = calloc(LAT_HIST_SIZE, sizeof(*hist));
	if (!msgs || !hist)
		bench_fail("out of memory");
	memset(msgs, 0, sizeof(*msgs) * (size_t)msg_threads);
	bench_gate_init(&gate);
	for (long k = 0; k < msg_threads; k++) {
		struct messenger *m = &msgs[k];

		m->index = k;
		m->workers = aligned_alloc(64, sizeof(struct worker) * (size_t)workers_per_msg);
		if (!m->workers)
			bench_fail("out of memory");
		memset(m->workers, 0, sizeof(struct worker) * (size_t)workers_per_msg);
		if (use_pipes && pipe(m->done_pipe))
			bench_fail("pipe: %s", strerror(errno));
		for (long i = 0; i < workers_per_msg; i++) {
			struct worker *w = &m->workers[i];

			w->m = m;
			w->index = i;
			w->hist = calloc(LAT_HIST_SIZE, sizeof(*w->hist));
			if (!w->hist)
				bench_fail("out of memory");
			if (use_pipes && pipe(w->req_pipe))
				bench_fail("pipe: %s", strerror(errno));
			bench_thread(&w->thread, worker_main, w);
		}
		bench_thread(&m->thread, messenger_main, m);
	}
	bench_gate_wait(&gate, msg_threads * (workers_per_msg + 1));
	start_ns = bench_now_ns();
	bench_gate_open(&gate);
	for (long k = 0; k < msg_threads; k++)
		pthread_join(msgs[k].thread, NULL);
	stop_ns = bench_now_ns();

	for (long k = 0; k < msg_threads; k++) {
		struct messenger *m = &msgs[k];

		for (long i = 0; i < workers_per_msg; i++) {
			struct worker *w = &m->workers[i];

			pthread_join(w->thread, NULL);
			if (w->answered != m->rounds)
				bench_fail("message thread %ld worker %ld answered %ld of %ld "
					   "requests",
					   k, i, w->answered, m->rounds);
			for (int b = 0; b < LAT_HIST_SIZE; b++) {
				hist[b] += w->hist[b];
				total += w->hist[b];
			}
			if (w->max_ns > max_ns)
				max_ns = w->max_ns;
			negative += w->negative;
			answered += w->answered;
		}
	}
	if (negative)
		bench_fail("%ld of %ld wake-up latencies were negative (the clock went backwards "
			   "between CPUs?)",
			   negative, answered);
	if (total != (uint64_t)answered || !answered)
		bench_fail("%llu latencies recorded for %ld answered requests",
			   (unsigned long long)total, answered);

	secs = (double)(stop_ns - start_ns) / NSEC_PER_SEC;
	wakelat_report(&(struct wakelat_figures){ .msg_threads = msg_threads,
						  .workers = workers_per_msg,
						  .work = work_loops,
						  .requests = requests,
						  .runtime_s = runtime_s,
						  .pipes = use_pipes,
						  .hist = hist,
						  .total = total,
						  .max_ns = max_ns,
						  .answered = answered,
						  .secs = secs },
		       bench_result);
	return 0;
}

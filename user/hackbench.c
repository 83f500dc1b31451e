/*
 * hackbench: the scheduler messaging benchmark of Rusty Russell's
 * hackbench (rt-tests, LTP, "perf bench sched messaging"), same command
 * line.  G groups of N senders and N receivers; each sender writes L
 * messages to every receiver of its group over AF_UNIX stream socket pairs
 * (or pipes with -p); tasks are processes (or threads with -T).  All tasks
 * wait at a start gate; the clock runs from the gate's opening until the
 * last task has ended.  Prints "Time: S.SSS" and a RESULT line.
 *
 * Unlike the original, every receiver checks what it gets: each message
 * carries its group, sender and sequence number and a body pattern built
 * from them, so a receiver knows it got exactly L messages of the right
 * size, in order, from each of its group's N senders, and then end of file.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "bench.h"

#define DATASIZE_MIN 8 /* room for the header */
#define DATASIZE_MAX \
	4096 /* PIPE_BUF: a write this small reaches a reader whole, pipe or socket   \
			   */

struct config {
	long groups;
	long fds; /* senders and receivers per group */
	long loops;
	long datasize;
	bool pipes;
	bool threads;
	bool inject_error; /* for tests: one message goes out corrupted */
};

static struct config cfg = { .groups = 10, .fds = 20, .loops = 100, .datasize = 100 };

struct msg_header {
	uint16_t group;
	uint16_t sender;
	uint32_t seq;
};

/* One task's part: its group and index, and the descriptors it uses. */
struct task {
	long group;
	long index;
	int rx;	       /* receivers: the read end of their own pair */
	const int *tx; /* senders: the write ends of their group's N pairs */
};

static struct bench_gate gate;

static uint8_t body_byte(const struct msg_header *h, long i)
{
	return (uint8_t)(h->group * 3 + h->sender * 7 + h->seq * 13 + (uint32_t)i);
}

static void fill_message(uint8_t *buf, const struct msg_header *h)
{
	memcpy(buf, h, sizeof(*h));
	for (long i = sizeof(*h); i < cfg.datasize; i++)
		buf[i] = body_byte(h, i);
}

static void sender(const struct task *t)
{
	uint8_t buf[DATASIZE_MAX];
	struct msg_header h = { .group = (uint16_t)t->group, .sender = (uint16_t)t->index };

	for (long seq = 0; seq < cfg.loops; seq++) {
		h.seq = (uint32_t)seq;
		fill_message(buf, &h);
		for (long r = 0; r < cfg.fds; r++) {
			int err;

			if (cfg.inject_error && !t->group && !t->index && seq == cfg.loops - 1 &&
			    r == cfg.fds - 1)
				buf[cfg.datasize - 1] ^= 0x5a; /* the body's last byte, or the seq's top byte */
			err = bench_write_all(t->tx[r], buf, (size_t)cfg.datasize);

			if (err)
				bench_fail("group %ld sender %ld: write to receiver %ld, message "
					   "%ld: %s",
					   t->group, t->index, r, seq, strerror(-err));
		}
	}
}

/* Checks one message against what sender h->sender must send next. */
static void check_message(const struct task *t, const uint8_t *buf, uint32_t *next, long n)
{
	struct msg_header h;

	memcpy(&h, buf, sizeof(h));
	if (h.group != t->group || h.sender >= cfg.fds)
		bench_fail("group %ld receiver %ld: message %ld claims group %u sender %u",
			   t->group, t->index, n, h.group, h.sender);
	if (h.seq != next[h.sender])
		bench_fail("group %ld receiver %ld: from sender %u got message %u, expected %u "
			   "(lost, repeated or reordered)",
			   t->group, t->index, h.sender, h.seq, next[h.sender]);
	for (long i = sizeof(h); i < cfg.datasize; i++)
		if (buf[i] != body_byte(&h, i))
			bench_fail("group %ld receiver %ld: message %u of sender %u: byte %ld is "
				   "0x%02x, "
				   "expected 0x%02x (torn or corrupted message)",
				   t->group, t->index, h.seq, h.sender, i, buf[i], body_byte(&h, i));
	next[h.sender]++;
}

static void receiver(const struct task *t)
{
	uint8_t buf[DATASIZE_MAX];
	uint32_t *next = calloc((size_t)cfg.fds, sizeof(*next));
	long want = cfg.loops * cfg.fds;
	ssize_t r;

	if (!next)
		bench_fail("out of memory");
	for (long n = 0; n < want; n++) {
		long got = bench_read_all(t->rx, buf, (size_t)cfg.datasize);

		if (got < 0)
			bench_fail("group %ld receiver %ld: read: %s", t->group, t->index,
				   strerror((int)-got));
		if (got < cfg.datasize)
			bench_fail("group %ld receiver %ld: end of file after %ld of %ld messages "
				   "(%ld bytes of a partial one)",
				   t->group, t->index, n, want, got);
		check_message(t, buf, next, n);
	}
	/* Every sender has now sent everything: the only thing left is end of file. */
	do
		r = read(t->rx, buf, sizeof(buf));
	while (r < 0 && errno == EINTR);
	if (r != 0)
		bench_fail("group %ld receiver %ld: %s after all %ld messages", t->group, t->index,
			   r < 0 ? strerror(errno) : "more data", want);
	free(next);
}

/* ------------------------------------------------------------ processes */

static int *group_fds; /* process mode: the current group's pairs, [2 * i] rx, [2 * i + 1] tx */

/* In a forked task: close the group's descriptors this task does not use. */
static void close_others(const struct task *t, bool is_receiver)
{
	for (long i = 0; i < cfg.fds; i++) {
		if (!is_receiver || i != t->index)
			close(group_fds[2 * i]);
		if (is_receiver)
			close(group_fds[2 * i + 1]);
	}
}

static int receiver_process(void *arg)
{
	const struct task *t = arg;

	close_others(t, true);
	bench_gate_arrive(&gate, true);
	receiver(t);
	return 0;
}

static int sender_process(void *arg)
{
	const struct task *t = arg;

	close_others(t, false);
	bench_gate_arrive(&gate, true);
	sender(t);
	return 0;
}

static void make_pair(int fds[2])
{
	int err = cfg.pipes ? pipe(fds) : socketpair(AF_UNIX, SOCK_STREAM, 0, fds);

	if (err)
		bench_fail("%s: %s", cfg.pipes ? "pipe" : "socketpair", strerror(errno));
}

/* Forks every group's tasks, one group at a time; the parent keeps no pair open. */
static void start_processes(void)
{
	int *tx = malloc(sizeof(int) * (size_t)cfg.fds);

	group_fds = malloc(sizeof(int) * 2 * (size_t)cfg.fds);
	if (!tx || !group_fds)
		bench_fail("out of memory");
	for (long g = 0; g < cfg.groups; g++) {
		for (long i = 0; i < cfg.fds; i++) {
			make_pair(&group_fds[2 * i]);
			tx[i] = group_fds[2 * i + 1];
		}
		for (long i = 0; i < cfg.fds; i++) {
			struct task t = { .group = g, .index = i, .rx = group_fds[2 * i] };

			bench_fork(receiver_process, &t);
		}
		for (long i = 0; i < cfg.fds; i++) {
			struct task t = { .group = g, .index = i, .rx = -1, .tx = tx };

			bench_fork(sender_process, &t);
		}
		for (long i = 0; i < 2 * cfg.fds; i++)
			close(group_fds[i]);
	}
	bench_gate_forked(&gate);
	free(tx);
	free(group_fds);
}

/* ------------------------------------------------------------ threads */

static struct task *tasks; /* thread mode: receivers [0, G*N), senders [G*N, 2*G*N) */
static pthread_t *threads;
static int *all_fds; /* thread mode: every pair, [2 * k] rx, [2 * k + 1] tx, k = g * N + i */
static int *all_tx;  /* the write ends alone, N per group */

static void *receiver_thread(void *arg)
{
	bench_gate_arrive(&gate, false);
	receiver(arg);
	return NULL;
}

static void *sender_thread(void *arg)
{
	bench_gate_arrive(&gate, false);
	sender(arg);
	return NULL;
}

static void start_threads(void)
{
	long n = cfg.groups * cfg.fds;

	tasks = calloc(2 * (size_t)n, sizeof(*tasks));
	threads = calloc(2 * (size_t)n, sizeof(*threads));
	all_fds = malloc(sizeof(int) * 2 * (size_t)n);
	all_tx = malloc(sizeof(int) * (size_t)n);
	if (!tasks || !threads || !all_fds || !all_tx)
		bench_fail("out of memory");
	for (long k = 0; k < n; k++) {
		make_pair(&all_fds[2 * k]);
		all_tx[k] = all_fds[2 * k + 1];
	}
	for (long k = 0; k < n; k++) {
		long g = k / cfg.fds, i = k % cfg.fds;

		tasks[k] = (struct task){ .group = g, .index = i, .rx = all_fds[2 * k] };
		tasks[n + k] = (struct task){
			.group = g, .index = i, .rx = -1, .tx = &all_tx[g * cfg.fds]
		};
	}
	for (long k = 0; k < n; k++)
		bench_thread(&threads[k], receiver_thread, &tasks[k]);
	for (long k = 0; k < n; k++)
		bench_thread(&threads[n + k], sender_thread, &tasks[n + k]);
}

/* Joins the senders, closes the write ends (the receivers then see end of file), joins the
 * receivers. */
static void join_threads(void)
{
	long n = cfg.groups * cfg.fds;

	for (long k = n; k < 2 * n; k++)
		pthread_join(threads[k], NULL);
	for (long k = 0; k < n; k++)
		close(all_tx[k]);
	for (long k = 0; k < n; k++)
		pthread_join(threads[k], NULL);
	for (long k = 0; k < n; k++)
		close(all_fds[2 * k]);
}

/* ------------------------------------------------------------ command line */

static void usage(void)
{
	printf("usage: hackbench [-p|--pipe] [-T|--threads | -P|--process] [-g|--groups G]\n"
	       "                 [-l|--loops L] [-f|--fds N] [-s|--datasize BYTES]\n"
	       "       hackbench [-pipe] G [process|thread] [L]\n"
	       "\n"
	       "G groups (default 10) of N senders and N receivers (default 20); each sender\n"
	       "sends L messages (default 100) of BYTES bytes (default 100, %d..%d) to every\n"
	       "receiver of its group, over socket pairs or pipes (-p), from processes or\n"
	       "threads (-T).  Prints \"Time: seconds\" and a RESULT line; every message is\n"
	       "checked, and any loss or corruption fails the run (exit status 1);\n"
	       "--inject-error corrupts one message on purpose, to show that it does.\n",
	       DATASIZE_MIN, DATASIZE_MAX);
}

static void parse_args(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "pipe", no_argument, NULL, 'p' },
		{ "threads", no_argument, NULL, 'T' },
		{ "process", no_argument, NULL, 'P' },
		{ "groups", required_argument, NULL, 'g' },
		{ "loops", required_argument, NULL, 'l' },
		{ "fds", required_argument, NULL, 'f' },
		{ "datasize", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ "inject-error", no_argument, NULL, 'E' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	/* The original's spelling of the pipe option. */
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "-pipe"))
			argv[i] = "--pipe";
	while ((c = getopt_long(argc, argv, "pTPg:l:f:s:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'p':
			cfg.pipes = true;
			break;
		case 'T':
			cfg.threads = true;
			break;
		case 'P':
			cfg.threads = false;
			break;
		case 'g':
			cfg.groups = bench_arg_long("--groups", optarg, 1, 10000);
			break;
		case 'l':
			cfg.loops = bench_arg_long("--loops", optarg, 1, 100000000);
			break;
		case 'f':
			cfg.fds = bench_arg_long("--fds", optarg, 1, 1000);
			break;
		case 's':
			cfg.datasize = bench_arg_long("--datasize", optarg, DATASIZE_MIN,
						      DATASIZE_MAX);
			break;
		case 'E':
			cfg.inject_error = true;
			break;
		case 'h':
			usage();
			exit(0);
		default:
			bench_usage_error("unknown option");
		}
	}
	/* The original's positional form: G [process|thread] [L]. */
	if (optind < argc)
		cfg.groups = bench_arg_long("groups", argv[optind++], 1, 10000);
	if (optind < argc) {
		if (!strcmp(argv[optind], "process"))
			cfg.threads = false;
		else if (!strcmp(argv[optind], "thread"))
			cfg.threads = true;
		else
			bench_usage_error("'%s': expected 'process' or 'thread'", argv[optind]);
		optind++;
	}
	if (optind < argc)
		cfg.loops = bench_arg_long("loops", argv[optind++], 1, 100000000);
	if (optind < argc)
		bench_usage_error("unexpected argument '%s'", argv[optind]);
}

int main(int argc, char **argv)
{
	long tasks_total, failed = 0;
	uint64_t start, stop;
	double secs;

	bench_init("hackbench");
	parse_args(argc, argv);
	tasks_total = 2 * cfg.groups * cfg.fds;
	printf("Running in %s mode with %ld groups using %ld file descriptors each (== %ld "
	       "tasks)\n",
	       cfg.threads ? "threaded" : "process", cfg.groups, 2 * cfg.fds, tasks_total);
	printf("Each sender will pass %ld messages of %ld bytes\n", cfg.loops, cfg.datasize);

	bench_gate_init(&gate);
	if (cfg.threads)
		start_threads();
	else
		start_processes();
	bench_gate_wait(&gate, tasks_total);
	start = bench_now_ns();
	bench_gate_open(&gate);
	if (cfg.threads)
		join_threads();
	else
		failed = bench_reap(tasks_total, "task");
	stop = bench_now_ns();
	bench_gate_destroy(&gate);
	if (failed)
		bench_fail("%ld of %ld tasks failed (see above)", failed, tasks_total);

	secs = (double)(stop - start) / NSEC_PER_SEC;
	printf("Time: %.3f\n", secs);
	bench_result(secs, "s",
		     "groups=%ld fds=%ld loops=%ld datasize=%ld ipc=%s mode=%s metric=time",
		     cfg.groups, cfg.fds, cfg.loops, cfg.datasize, cfg.pipes ? "pipe" : "socket",
		     cfg.threads ? "thread" : "process");
	return 0;
}

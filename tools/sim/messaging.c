/*
 * The messaging workloads: user/hackbench.c and user/pipebench.c with
 * their options and RESULT lines, over channels that behave like the
 * kernel's AF_UNIX socket pairs and pipes where the scheduler can see it:
 * a bounded buffer, a reader that sleeps on an empty one and is woken
 * (sync, as sk_data_ready and pipe_write do) by the next write, writers
 * that sleep on a full one and are all woken when the reader has made
 * room (kernel/ipc/socket.c: a quarter of the send buffer; pipe.c: a whole
 * page freed).
 *
 * Each read and write costs the task CPU time (--write-ns, --read-ns: the
 * simulator's own options, round numbers rather than measured costs; the
 * cost model is for a later session). A write's effect happens at the end
 * of its burst; a task that has to wait sleeps there and, once woken,
 * retries at no further cost.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"

/* kernel/ipc/socket.h, socket.c and pipe.h: the figures that bound a channel. */
#define UNIX_SNDBUF	212992
#define SKB_CACHE_LINE	64
#define SKB_SHINFO_SIZE 320
#define SKB_HEAD_SIZE	256
#define PIPE_BUFFERS	16
#define PIPE_PAGE_SIZE	4096

struct chan {
	u32 queued, cap;
	u32 wake_at; /* blocked writers are woken once queued is down to this */
	struct sim_task *reader;
	bool reader_waiting;
	struct sim_task **writers; /* blocked, in the order they blocked */
	u32 nr_writers, writers_cap;
	u64 sent, received;
};

static u64 write_ns = 1000, read_ns = 1000;

/* Working sets (KiB) under --cost (--ws-kb): round figures, a few buffers' worth, not measured. */
#define HACKBENCH_WS_KB 16
#define PIPEBENCH_WS_KB 8

/* What the kernel charges a socket message against the send buffer (unix_skb_truesize). */
static u32 skb_truesize(u32 len)
{
	u32 data = ((len + SKB_CACHE_LINE - 1) & ~(u32)(SKB_CACHE_LINE - 1)) + SKB_SHINFO_SIZE;
	u32 k = 512;

	while (k < data)
		k *= 2;
	return k + SKB_HEAD_SIZE;
}

/*
 * A socket takes messages while its charge is under the send buffer and
 * wakes writers when the charge is down to a quarter of it; a pipe holds
 * PIPE_BUFFERS pages of whole messages and wakes writers when a page is
 * free again.
 */
static void chan_init(struct chan *c, bool pipe, u32 size)
{
	memset(c, 0, sizeof(*c));
	if (pipe) {
		u32 per_page = PIPE_PAGE_SIZE / size;

		c->cap = PIPE_BUFFERS * per_page;
		c->wake_at = c->cap - per_page;
	} else {
		u32 ts = skb_truesize(size);

		c->cap = (UNIX_SNDBUF + ts - 1) / ts;
		c->wake_at = UNIX_SNDBUF / (4 * ts);
	}
}

/* st writes one message: false if it must sleep for room (it is then queued to be woken). */
static bool chan_send(struct chan *c, struct sim_task *st)
{
	if (c->queued >= c->cap) {
		if (c->nr_writers == c->writers_cap) {
			c->writers_cap = c->writers_cap ? 2 * c->writers_cap : 8;
			c->writers = realloc(c->writers, c->writers_cap * sizeof(*c->writers));
			if (!c->writers)
				sim_fail("out of memory");
		}
		c->writers[c->nr_writers++] = st;
		return false;
	}
	c->queued++;
	c->sent++;
	if (c->reader_waiting) {
		c->reader_waiting = false;
		sim_task_wake(c->reader, true);
	}
	return true;
}

/* st reads one message: false if the channel is empty (st sleeps until the next write). */
static bool chan_recv(struct chan *c, struct sim_task *st)
{
	if (c->queued == 0) {
		c->reader = st;
		c->reader_waiting = true;
		return false;
	}
	c->queued--;
	c->received++;
	if (c->nr_writers && c->queued <= c->wake_at) {
		u32 n = c->nr_writers;

		c->nr_writers = 0;
		for (u32 i = 0; i < n; i++)
			sim_task_wake(c->writers[i], true);
	}
	return true;
}

static struct sim_action run_for(u64 ns)
{
	return (struct sim_action){ SIM_RUN, ns };
}

static const struct sim_action block = { SIM_BLOCK, 0 };
static const struct sim_action leave = { SIM_EXIT, 0 };

static u64 parse_ns(const char *opt, const char *s)
{
	return (u64)sim_arg_long(opt, s, 0, 1000000000);
}

/* ---------------------------------------------------------------- hackbench */

static long hb_groups = 10, hb_fds = 20, hb_loops = 100, hb_size = 100;
static struct chan *hb_chans; /* one per receiver: group * fds + index */
static u32 hb_per_task;	      /* messages each task sends or receives: fds * loops */

/* Task ids: per group, its fds receivers, then its fds senders (the guest's fork order). */
static bool hb_sender(const struct sim_task *st)
{
	return st->id % (2 * hb_fds) >= (u32)hb_fds;
}

static u32 hb_group(const struct sim_task *st)
{
	return st->id / (u32)(2 * hb_fds);
}

static u64 hb_first(struct sim_task *st)
{
	return hb_sender(st) ? write_ns : read_ns;
}

/* A sender writes loops rounds of one message to each receiver of its group, in turn. */
static struct sim_action hb_done(struct sim_task *st)
{
	u32 g = hb_group(st);

	if (hb_sender(st)) {
		struct chan *c = &hb_chans[g * hb_fds + st->counter % (u64)hb_fds];

		if (!chan_send(c, st))
			return block;
		return ++st->counter == hb_per_task ? leave : run_for(write_ns);
	}
	if (!chan_recv(&hb_chans[g * hb_fds + st->id % (u32)(2 * hb_fds)], st))
		return block;
	return ++st->counter == hb_per_task ? leave : run_for(read_ns);
}

static const struct sim_workload_ops hb_ops = {
	.first_burst = hb_first,
	.burst_done = hb_done,
};

static void hb_usage(void)
{
	printf("usage: hackbench [-p|--pipe] [-T|--threads | -P|--process] [-g|--groups G]\n"
	       "                 [-l|--loops L] [-f|--fds N] [-s|--datasize BYTES]\n"
	       "                 [--write-ns NS] [--read-ns NS] [--ws-kb KB]\n"
	       "\n"
	       "G groups (default 10) of N senders and N receivers (default 20); each sender\n"
	       "sends L messages (default 100) of BYTES bytes (default 100, 8..4096) to every\n"
	       "receiver of its group, over socket pairs or pipes (-p). In the simulator each\n"
	       "write and read costs NS of CPU time (default 1000 each) and -T changes only\n"
	       "the mode printed. Prints \"Time: seconds\" and a RESULT line; fails unless\n"
	       "every receiver got all N x L messages. --ws-kb: each task's working set\n"
	       "under --cost (default %d).\n",
	       HACKBENCH_WS_KB);
}

int sim_hackbench_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "pipe", no_argument, NULL, 'p' },
		{ "threads", no_argument, NULL, 'T' },
		{ "process", no_argument, NULL, 'P' },
		{ "groups", required_argument, NULL, 'g' },
		{ "loops", required_argument, NULL, 'l' },
		{ "fds", required_argument, NULL, 'f' },
		{ "datasize", required_argument, NULL, 's' },
		{ "write-ns", required_argument, NULL, 'W' },
		{ "read-ns", required_argument, NULL, 'R' },
		{ "ws-kb", required_argument, NULL, 'w' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool pipes = false, threads = false;
	struct sim_task **ts;
	u64 last = SIM_START_NS;
	long total;
	double secs;
	char keys[160];
	int c;

	sim_ws_bytes = HACKBENCH_WS_KB * 1024;
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "-pipe"))
			argv[i] = "--pipe";
	while ((c = getopt_long(argc, argv, "pTPg:l:f:s:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'p':
			pipes = true;
			break;
		case 'T':
			threads = true;
			break;
		case 'P':
			threads = false;
			break;
		case 'g':
			hb_groups = sim_arg_long("--groups", optarg, 1, 10000);
			break;
		case 'l':
			hb_loops = sim_arg_long("--loops", optarg, 1, 100000000);
			break;
		case 'f':
			hb_fds = sim_arg_long("--fds", optarg, 1, 1000);
			break;
		case 's':
			hb_size = sim_arg_long("--datasize", optarg, 8, 4096);
			break;
		case 'W':
			write_ns = parse_ns("--write-ns", optarg);
			break;
		case 'R':
			read_ns = parse_ns("--read-ns", optarg);
			break;
		case 'w':
			sim_ws_bytes = (u64)sim_arg_long("--ws-kb", optarg, 0, 1 << 24) * 1024;
			break;
		case 'h':
			hb_usage();
			return 0;
		default:
			sim_usage_error("unknown option");
		}
	}
	if (optind < argc)
		hb_groups = sim_arg_long("groups", argv[optind++], 1, 10000);
	if (optind < argc) {
		if (!strcmp(argv[optind], "process"))
			threads = false;
		else if (!strcmp(argv[optind], "thread"))
			threads = true;
		else
			sim_usage_error("'%s': expected 'process' or 'thread'", argv[optind]);
		optind++;
	}
	if (optind < argc)
		hb_loops = sim_arg_long("loops", argv[optind++], 1, 100000000);
	if (optind < argc)
		sim_usage_error("unexpected argument '%s'", argv[optind]);
	if ((u64)hb_fds * (u64)hb_loops > 0xffffffffu)
		sim_usage_error("--fds x --loops is more messages per task than the simulator counts");

	total = 2 * hb_groups * hb_fds;
	hb_per_task = (u32)(hb_fds * hb_loops);
	printf("Running in %s mode with %ld groups using %ld file descriptors each (== %ld "
	       "tasks)\n",
	       threads ? "threaded" : "process", hb_groups, 2 * hb_fds, total);
	printf("Each sender will pass %ld messages of %ld bytes\n", hb_loops, hb_size);
	fflush(stdout);
	hb_chans = calloc((size_t)(hb_groups * hb_fds), sizeof(*hb_chans));
	ts = calloc((size_t)total, sizeof(*ts));
	if (!hb_chans || !ts)
		sim_fail("out of memory");
	for (long i = 0; i < hb_groups * hb_fds; i++)
		chan_init(&hb_chans[i], pipes, (u32)hb_size);
	for (long i = 0; i < total; i++) {
		char name[32];

		snprintf(name, sizeof(name), "hackbench/%ld", i);
		ts[i] = sim_task_spawn(&hb_ops, (u32)i, name, 0, NULL);
	}
	if (!sim_engine_run(0))
		sim_fail("the simulated time limit passed before every task finished");
	for (long i = 0; i < total; i++) {
		if (!ts[i]->exited || ts[i]->counter != hb_per_task)
			sim_fail("task %ld %s %llu of %u messages", i,
				 hb_sender(ts[i]) ? "sent" : "received",
				 (unsigned long long)ts[i]->counter, hb_per_task);
		if (ts[i]->exit_ns > last)
			last = ts[i]->exit_ns;
	}
	for (long i = 0; i < hb_groups * hb_fds; i++)
		if (hb_chans[i].received != (u64)hb_per_task || hb_chans[i].queued)
			sim_fail("receiver channel %ld: %llu of %u messages read, %u left", i,
				 (unsigned long long)hb_chans[i].received, hb_per_task,
				 hb_chans[i].queued);
	secs = (double)(last - SIM_START_NS) / 1e9;
	printf("Time: %.3f\n", secs);
	snprintf(keys, sizeof(keys), "groups=%ld fds=%ld loops=%ld datasize=%ld ipc=%s mode=%s",
		 hb_groups, hb_fds, hb_loops, hb_size, pipes ? "pipe" : "socket",
		 threads ? "thread" : "process");
	sim_result("hackbench", secs, "s", "%s metric=time", keys);
	sim_report_sched("hackbench", keys, secs);
	for (long i = 0; i < hb_groups * hb_fds; i++)
		free(hb_chans[i].writers);
	free(hb_chans);
	free(ts);
	return 0;
}

/* ---------------------------------------------------------------- pipebench */

static long pb_loops = 100000;
static struct chan ping, pong; /* starter -> echoer, echoer -> starter */
static u32 pb_phase[2];	       /* per task: the step it is at */
static u64 pb_start, pb_stop;

enum { PB_STARTER, PB_ECHOER };

static u64 pb_first(struct sim_task *st)
{
	return st->id == PB_STARTER ? read_ns : write_ns;
}

/*
 * The starter reads the echoer's ready token (the clock starts), then
 * loops times writes a token to ping and reads the answer from pong. The
 * echoer writes the ready token, then loops times reads ping and answers.
 */
static struct sim_action pb_done(struct sim_task *st)
{
	u32 *phase = &pb_phase[st->id];

	if (st->id == PB_STARTER) {
		switch (*phase) {
		case 0:
			if (!chan_recv(&pong, st))
				return block;
			pb_start = sim_now;
			*phase = 1;
			return run_for(write_ns);
		case 1:
			if (!chan_send(&ping, st))
				return block;
			*phase = 2;
			return run_for(read_ns);
		default:
			if (!chan_recv(&pong, st))
				return block;
			if ((long)++st->counter == pb_loops) {
				pb_stop = sim_now;
				return leave;
			}
			*phase = 1;
			return run_for(write_ns);
		}
	}
	switch (*phase) {
	case 0:
	case 2:
		if (!chan_send(&pong, st))
			return block;
		if (*phase == 2 && (long)++st->counter == pb_loops)
			return leave;
		*phase = 1;
		return run_for(read_ns);
	default:
		if (!chan_recv(&ping, st))
			return block;
		*phase = 2;
		return run_for(write_ns);
	}
}

static const struct sim_workload_ops pb_ops = {
	.first_burst = pb_first,
	.burst_done = pb_done,
};

int sim_pipebench_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "loops", required_argument, NULL, 'l' },
		{ "threaded", no_argument, NULL, 'T' },
		{ "write-ns", required_argument, NULL, 'W' },
		{ "read-ns", required_argument, NULL, 'R' },
		{ "ws-kb", required_argument, NULL, 'w' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct sim_task *ts[2];
	const char *mode = "process";
	double secs, usecs;
	char keys[64];
	int c;

	sim_ws_bytes = PIPEBENCH_WS_KB * 1024;
	while ((c = getopt_long(argc, argv, "l:Th", longopts, NULL)) != -1) {
		switch (c) {
		case 'l':
			pb_loops = sim_arg_long("--loops", optarg, 1, 1000000000);
			break;
		case 'T':
			mode = "thread";
			break;
		case 'W':
			write_ns = parse_ns("--write-ns", optarg);
			break;
		case 'R':
			read_ns = parse_ns("--read-ns", optarg);
			break;
		case 'w':
			sim_ws_bytes = (u64)sim_arg_long("--ws-kb", optarg, 0, 1 << 24) * 1024;
			break;
		case 'h':
			printf("usage: pipebench [-l|--loops N] [-T|--threaded] [--write-ns NS] "
			       "[--read-ns NS] [--ws-kb KB]\n"
			       "\n"
			       "Two tasks pass a token back and forth N times (default 100000) over\n"
			       "two pipes, as \"perf bench sched pipe\"; each write and read costs NS\n"
			       "of CPU time (default 1000). Prints the total time, usecs/op and\n"
			       "ops/sec, and RESULT lines; fails unless every token came back.\n"
			       "--ws-kb: each task's working set under --cost (default %d).\n",
			       PIPEBENCH_WS_KB);
			return 0;
		default:
			sim_usage_error("unknown option");
		}
	}
	if (optind < argc)
		sim_usage_error("unexpected argument '%s'", argv[optind]);
	chan_init(&ping, true, 8);
	chan_init(&pong, true, 8);
	printf("# Running 'sched/pipe' benchmark:\n");
	fflush(stdout);
	ts[PB_STARTER] = sim_task_spawn(&pb_ops, PB_STARTER, "pipebench", 0, NULL);
	ts[PB_ECHOER] = sim_task_spawn(&pb_ops, PB_ECHOER, "pipebench/echo", 0, NULL);
	if (!sim_engine_run(0))
		sim_fail("the simulated time limit passed before the round trips ended");
	for (int i = 0; i < 2; i++)
		if (!ts[i]->exited || (long)ts[i]->counter != pb_loops)
			sim_fail("%s did %llu of %ld round trips", ts[i]->t->comm,
				 (unsigned long long)ts[i]->counter, pb_loops);
	if (ping.received != (u64)pb_loops || pong.received != (u64)pb_loops + 1)
		sim_fail("tokens lost: %llu pings and %llu pongs read",
			 (unsigned long long)ping.received, (unsigned long long)pong.received);
	secs = (double)(pb_stop - pb_start) / 1e9;
	usecs = (double)(pb_stop - pb_start) / 1e3 / (double)pb_loops;
	printf("# Executed %ld pipe operations between two %s\n\n", pb_loops,
	       strcmp(mode, "thread") ? "processes" : "threads");
	printf("%14s: %.3f [sec]\n\n", "Total time", secs);
	printf("  %14.6f usecs/op\n", usecs);
	printf("  %14.0f ops/sec\n", (double)pb_loops / secs);
	snprintf(keys, sizeof(keys), "mode=%s loops=%ld", mode, pb_loops);
	sim_result("pipebench", secs, "s", "%s metric=total_time", keys);
	sim_result("pipebench", usecs, "usec", "%s metric=usecs_per_op", keys);
	sim_result("pipebench", (double)pb_loops / secs, "ops/s", "%s metric=ops_per_sec", keys);
	sim_report_sched("pipebench", keys, secs);
	free(ping.writers);
	free(pong.writers);
	return 0;
}

/*
 * pipebench: "perf bench sched pipe" — two tasks pass a token back and
 * forth over two pipes, N round trips, so each one sleeps and wakes the
 * other N times: the cost of a wake-up plus a context switch, and where
 * the scheduler puts the wakee.  Processes by default, threads with -T.
 * Prints perf's figures (total time, usecs/op, ops/sec) and RESULT lines.
 *
 * The token is the round-trip number: the echoing side checks that it
 * gets 0, 1, 2, ... and answers with its complement, which the starting
 * side checks; any other value, a short read or end of file fails the run.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"

static long loops = 100000;
static bool threaded;
static bool inject_error; /* for tests: the echoing side answers one token wrong */

static int ping[2]; /* starter -> echoer */
static int pong[2]; /* echoer -> starter */

static void send_token(int fd, uint64_t token, const char *who)
{
	int err = bench_write_all(fd, &token, sizeof(token));

	if (err)
		bench_fail("%s: write: %s", who, strerror(-err));
}

static uint64_t receive_token(int fd, const char *who, long loop)
{
	uint64_t token;
	long got = bench_read_all(fd, &token, sizeof(token));

	if (got < 0)
		bench_fail("%s: read: %s", who, strerror((int)-got));
	if (got != sizeof(token))
		bench_fail("%s: end of file at round trip %ld of %ld", who, loop, loops);
	return token;
}

/* The other task: says it is ready, then echoes every token. */
static int echoer(void *unused)
{
	(void)unused;
	if (!threaded) {
		/* Hold only our own ends, so either side sees end of file if the other dies. */
		close(ping[1]);
		close(pong[0]);
	}
	send_token(pong[1], 0, "echoer");
	for (long i = 0; i < loops; i++) {
		uint64_t token = receive_token(ping[0], "echoer", i);

		if (token != (uint64_t)i)
			bench_fail("echoer: round trip %ld brought token %llu", i,
				   (unsigned long long)token);
		if (inject_error && i == loops / 2)
			token++;
		send_token(pong[1], ~token, "echoer");
	}
	return 0;
}

static void *echoer_thread(void *unused)
{
	echoer(unused);
	return NULL;
}

static void usage(void)
{
	printf("usage: pipebench [-l|--loops N] [-T|--threaded]\n"
	       "\n"
	       "Two processes (threads with -T) pass a token back and forth N times\n"
	       "(default 100000) over two pipes, as \"perf bench sched pipe\".  Prints the\n"
	       "total time, usecs/op and ops/sec, and RESULT lines; every token is\n"
	       "checked (--inject-error answers one wrong on purpose).\n");
}

static void parse_args(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "loops", required_argument, NULL, 'l' },
		{ "threaded", no_argument, NULL, 'T' },
		{ "help", no_argument, NULL, 'h' },
		{ "inject-error", no_argument, NULL, 'E' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "l:Th", longopts, NULL)) != -1) {
		switch (c) {
		case 'l':
			loops = bench_arg_long("--loops", optarg, 1, 1000000000);
			break;
		case 'T':
			threaded = true;
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
	const char *mode;
	uint64_t start, stop;
	pthread_t thread;
	double secs, usecs_per_op;

	bench_init("pipebench");
	parse_args(argc, argv);
	mode = threaded ? "thread" : "process";
	if (pipe(ping) || pipe(pong))
		bench_fail("pipe: %s", strerror(errno));
	printf("# Running 'sched/pipe' benchmark:\n");

	if (threaded) {
		bench_thread(&thread, echoer_thread, NULL);
	} else {
		bench_fork(echoer, NULL);
		close(ping[0]);
		close(pong[1]);
	}
	/* The echoer's first token says it runs: start the clock after it. */
	if (receive_token(pong[0], "starter", 0) != 0)
		bench_fail("starter: bad ready token");

	start = bench_now_ns();
	for (long i = 0; i < loops; i++) {
		uint64_t token;

		send_token(ping[1], (uint64_t)i, "starter");
		token = receive_token(pong[0], "starter", i);
		if (token != ~(uint64_t)i)
			bench_fail("starter: round trip %ld came back with 0x%llx, expected 0x%llx",
				   i, (unsigned long long)token, (unsigned long long)~(uint64_t)i);
	}
	if (threaded) {
		pthread_join(thread, NULL);
	} else if (bench_reap(1, "echoer")) {
		bench_fail("the echoing process failed");
	}
	stop = bench_now_ns();

	secs = (double)(stop - start) / NSEC_PER_SEC;
	usecs_per_op = (double)(stop - start) / NSEC_PER_USEC / (double)loops;
	printf("# Executed %ld pipe operations between two %s\n\n", loops,
	       threaded ? "threads" : "processes");
	printf("%14s: %.3f [sec]\n\n", "Total time", secs);
	printf("  %14.6f usecs/op\n", usecs_per_op);
	printf("  %14.0f ops/sec\n", (double)loops / secs);
	bench_result(secs, "s", "mode=%s loops=%ld metric=total_time", mode, loops);
	bench_result(usecs_per_op, "usec", "mode=%s loops=%ld metric=usecs_per_op", mode, loops);
	bench_result((double)loops / secs, "ops/s", "mode=%s loops=%ld metric=ops_per_sec", mode,
		     loops);
	return 0;
}

/*
 * sleeplat: timer wake-up latency in the manner of rt-tests' cyclictest.
 * T threads each wake every I microseconds, L times: a clock_nanosleep
 * to an absolute CLOCK_MONOTONIC deadline, then the clock read again; the
 * latency is how late it woke. Prints each thread's min/avg/max in usec
 * and RESULT lines for the average and the maximum over all threads.
 * Checks: every sleep returns 0 and never wakes before its deadline.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"

static long nr_threads = 4;
static long interval_us = 1000;
static long loops = 1000;

struct sleeper {
	pthread_t thread;
	uint64_t min, max, sum;
};

static uint64_t ts_ns(const struct timespec *t)
{
	return (uint64_t)t->tv_sec * NSEC_PER_SEC + (uint64_t)t->tv_nsec;
}

static void *sleeper_main(void *arg)
{
	struct sleeper *s = arg;
	struct timespec next, now;
	int err;

	s->min = UINT64_MAX;
	clock_gettime(CLOCK_MONOTONIC, &next);
	for (long i = 0; i < loops; i++) {
		uint64_t lat;

		next.tv_nsec += interval_us * 1000;
		while (next.tv_nsec >= (long)NSEC_PER_SEC) {
			next.tv_nsec -= NSEC_PER_SEC;
			next.tv_sec++;
		}
		err = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
		if (err)
			bench_fail("clock_nanosleep: %s", strerror(err));
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (ts_ns(&now) < ts_ns(&next))
			bench_fail("woke %llu ns before the deadline",
				   (unsigned long long)(ts_ns(&next) - ts_ns(&now)));
		lat = ts_ns(&now) - ts_ns(&next);
		s->sum += lat;
		if (lat < s->min)
			s->min = lat;
		if (lat > s->max)
			s->max = lat;
	}
	return NULL;
}

static void usage(void)
{
	printf("usage: sleeplat [-t THREADS] [-i INTERVAL_US] [-l LOOPS]\n"
	       "  -t  sleeping threads (default 4)\n"
	       "  -i  wake-up interval in microseconds (default 1000)\n"
	       "  -l  wake-ups per thread (default 1000)\n");
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = { { "help", no_argument, NULL, 'h' }, { 0 } };
	struct sleeper *s;
	uint64_t sum = 0, max = 0;
	int c;

	bench_init("sleeplat");
	while ((c = getopt_long(argc, argv, "t:i:l:h", longopts, NULL)) != -1) {
		switch (c) {
		case 't':
			nr_threads = bench_arg_long("-t", optarg, 1, 256);
			break;
		case 'i':
			interval_us = bench_arg_long("-i", optarg, 1, 10000000);
			break;
		case 'l':
			loops = bench_arg_long("-l", optarg, 1, 100000000);
			break;
		case 'h':
			usage();
			return 0;
		default:
			bench_usage_error("unknown option");
		}
	}
	if (optind != argc)
		bench_usage_error("unexpected argument '%s'", argv[optind]);
	s = calloc((size_t)nr_threads, sizeof(*s));
	if (!s)
		bench_fail("out of memory");
	for (long i = 0; i < nr_threads; i++)
		bench_thread(&s[i].thread, sleeper_main, &s[i]);
	for (long i = 0; i < nr_threads; i++) {
		pthread_join(s[i].thread, NULL);
		printf("T:%2ld I:%ld C:%ld Min:%8.1f Avg:%8.1f Max:%8.1f (usec)\n", i, interval_us,
		       loops, (double)s[i].min / 1000.0, (double)s[i].sum / (double)loops / 1000.0,
		       (double)s[i].max / 1000.0);
		sum += s[i].sum;
		if (s[i].max > max)
			max = s[i].max;
	}
	bench_result((double)sum / (double)(loops * nr_threads) / 1000.0, "us",
		     "threads=%ld interval_us=%ld loops=%ld metric=avg", nr_threads, interval_us,
		     loops);
	bench_result((double)max / 1000.0, "us", "threads=%ld interval_us=%ld loops=%ld metric=max",
		     nr_threads, interval_us, loops);
	free(s);
	return 0;
}

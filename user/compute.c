/*
 * compute: aim7's "compute" load, reduced to its essence — T processes
 * each run the same fixed, deterministic, CPU-bound job J times; the
 * figure is jobs per minute for T tasks (the LKML aim7 tables sweep T).
 * The job mixes what aim7's compute workfile mixes: integer and floating
 * point arithmetic, a sort, a sieve and a small matrix product, folded
 * into one 64-bit checksum.
 *
 * The parent runs the job once before the clock starts; every child
 * compares every one of its jobs' checksums with the parent's and sends
 * its last one back, so a task whose registers (integer, SSE) were
 * corrupted by a context switch or a migration fails the run loudly.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "bench.h"

#define SORT_N		     8192
#define SIEVE_N		     50000
#define PRIMES_BELOW_SIEVE_N 5133 /* pi(50000): a check of the sieve itself */
#define MATRIX_N	     40
#define INT_ROUNDS	     400000
#define FLOAT_TERMS	     250000

static long tasks = 4;
static long jobs = 10;
static bool inject_error; /* for tests: one task's job goes wrong */

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
	return h;
}

static uint64_t double_bits(double d)
{
	uint64_t u;

	memcpy(&u, &d, sizeof(u));
	return u;
}

/* xorshift64: the job's only source of "random" numbers, seeded the same every time. */
static uint64_t next_rand(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* aim7's add/mul/div_long and _int: a chain no compiler can fold. */
static uint64_t integer_part(uint64_t seed)
{
	uint64_t a = seed | 1, b = 0x1234567, c = 7;
	uint32_t i32 = (uint32_t)seed;

	for (long i = 0; i < INT_ROUNDS; i++) {
		a = a * 6364136223846793005ull + 1442695040888963407ull;
		b += a >> 17;
		c ^= b / ((a >> 40) | 1);
		i32 = i32 * 1103515245u + 12345u + (uint32_t)(c % 97);
	}
	return mix(mix(a, b), mix(c, i32));
}

/* aim7's series_1 and add/mul/div_double: a Taylor series and a harmonic-like sum. */
static uint64_t float_part(void)
{
	double x = 0.5, term = 1, sum = 1, h = 0;
	float f = 0.0f;

	for (long n = 1; n <= FLOAT_TERMS; n++) {
		term = term * x / (double)n;
		sum += term;
		h += 1.0 / ((double)n * (double)n + 0.5);
		f += 1.0f / (float)(n % 1000 + 1);
	}
	return mix(mix(double_bits(sum), double_bits(h)), double_bits((double)f));
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/* aim7's array_rtns: sort, check the order, fold. */
static uint64_t sort_part(uint64_t seed)
{
	static uint32_t v[SORT_N];
	uint64_t s = seed | 1, h = 0;

	for (long i = 0; i < SORT_N; i++)
		v[i] = (uint32_t)next_rand(&s);
	qsort(v, SORT_N, sizeof(v[0]), cmp_u32);
	for (long i = 0; i < SORT_N; i++) {
		if (i && v[i - 1] > v[i])
			bench_fail("job: sort left element %ld out of order", i);
		h = mix(h, v[i]);
	}
	return h;
}

/* The sieve of Eratosthenes; the number of primes is known. */
static uint64_t sieve_part(void)
{
	static uint8_t composite[SIEVE_N];
	uint64_t h = 0;
	long count = 0;

	memset(composite, 0, sizeof(composite));
	for (long i = 2; i < SIEVE_N; i++) {
		if (composite[i])
			continue;
		count++;
		h = mix(h, (uint64_t)i);
		for (long j = i * i; j < SIEVE_N; j += i)
			composite[j] = 1;
	}
	if (count != PRIMES_BELOW_SIEVE_N)
		bench_fail("job: the sieve found %ld primes below %d, not %d", count, SIEVE_N,
			   PRIMES_BELOW_SIEVE_N);
	return h;
}

/* aim7's matrix_rtns: a small double matrix product. */
static uint64_t matrix_part(uint64_t seed)
{
	static double a[MATRIX_N][MATRIX_N], b[MATRIX_N][MATRIX_N], c[MATRIX_N][MATRIX_N];
	uint64_t s = seed | 1, h = 0;

	for (int i = 0; i < MATRIX_N; i++)
		for (int j = 0; j < MATRIX_N; j++) {
			a[i][j] = (double)(next_rand(&s) % 1000) / 7.0;
			b[i][j] = (double)(next_rand(&s) % 1000) / 13.0;
		}
	for (int i = 0; i < MATRIX_N; i++)
		for (int j = 0; j < MATRIX_N; j++) {
			double t = 0;

			for (int k = 0; k < MATRIX_N; k++)
				t += a[i][k] * b[k][j];
			c[i][j] = t;
		}
	for (int i = 0; i < MATRIX_N; i++)
		h = mix(h, double_bits(c[i][i]) ^ double_bits(c[i][MATRIX_N - 1 - i]));
	return h;
}

/* One job: the same checksum every time it runs, anywhere. */
static uint64_t run_job(void)
{
	uint64_t seed = 0x5eed0fa1cu, h = 0;

	h = mix(h, integer_part(seed));
	h = mix(h, float_part());
	h = mix(h, sort_part(seed));
	h = mix(h, sieve_part());
	h = mix(h, matrix_part(seed));
	return h;
}

/* ------------------------------------------------------------ tasks */

static struct bench_gate gate;
static int results[2]; /* tasks -> parent: one checksum each */
static uint64_t reference;

static int task(void *arg)
{
	long id = (long)arg;
	uint64_t sum = 0;
	int err;

	close(results[0]);
	bench_gate_arrive(&gate, true);
	for (long j = 0; j < jobs; j++) {
		sum = run_job();
		if (inject_error && id == tasks - 1 && j == jobs - 1)
			sum ^= 1;
		if (sum != reference)
			bench_fail("task %ld: job %ld of %ld gave checksum 0x%016llx, expected "
				   "0x%016llx",
				   id, j + 1, jobs, (unsigned long long)sum,
				   (unsigned long long)reference);
	}
	err = bench_write_all(results[1], &sum, sizeof(sum));
	if (err)
		bench_fail("task %ld: write: %s", id, strerror(-err));
	return 0;
}

static void usage(void)
{
	printf("usage: compute [-t|--tasks T] [-j|--jobs J]\n"
	       "\n"
	       "T processes (default 4) each run the same fixed CPU-bound job J times\n"
	       "(default 10): integer and floating point arithmetic, a sort, a sieve, a\n"
	       "matrix product.  Prints jobs/min for T tasks as aim7 does, and a RESULT\n"
	       "line.  Every job's checksum must equal the parent's, computed before the\n"
	       "clock starts (--inject-error spoils one on purpose).\n");
}

static void parse_args(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "tasks", required_argument, NULL, 't' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ "inject-error", no_argument, NULL, 'E' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "t:j:h", longopts, NULL)) != -1) {
		switch (c) {
		case 't':
			tasks = bench_arg_long("--tasks", optarg, 1, 10000);
			break;
		case 'j':
			jobs = bench_arg_long("--jobs", optarg, 1, 1000000);
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
	struct rusage ru;
	uint64_t start, stop, sum;
	double real, cpu, jpm;
	long got = 0, failed;

	bench_init("compute");
	parse_args(argc, argv);
	reference = run_job();
	printf("compute: %ld tasks x %ld jobs, job checksum 0x%016llx\n", tasks, jobs,
	       (unsigned long long)reference);

	bench_gate_init(&gate);
	if (pipe(results))
		bench_fail("pipe: %s", strerror(errno));
	for (long i = 0; i < tasks; i++)
		bench_fork(task, (void *)i);
	bench_gate_forked(&gate);
	close(results[1]);
	bench_gate_wait(&gate, tasks);
	start = bench_now_ns();
	bench_gate_open(&gate);

	/* Each task's checksum, until every task has closed the pipe. */
	for (;;) {
		long r = bench_read_all(results[0], &sum, sizeof(sum));

		if (r < 0)
			bench_fail("read: %s", strerror((int)-r));
		if (r == 0)
			break;
		if (r != sizeof(sum))
			bench_fail("a task's checksum arrived torn (%ld bytes)", r);
		if (sum != reference)
			bench_fail("a task reported checksum 0x%016llx, expected 0x%016llx",
				   (unsigned long long)sum, (unsigned long long)reference);
		got++;
	}
	failed = bench_reap(tasks, "task");
	stop = bench_now_ns();
	bench_gate_destroy(&gate);
	if (failed)
		bench_fail("%ld of %ld tasks failed (see above)", failed, tasks);
	if (got != tasks)
		bench_fail("%ld of %ld tasks reported a checksum", got, tasks);

	real = (double)(stop - start) / NSEC_PER_SEC;
	if (getrusage(RUSAGE_CHILDREN, &ru))
		bench_fail("getrusage: %s", strerror(errno));
	cpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
	      (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
	jpm = (double)(tasks * jobs) * 60.0 / real;
	printf("%8s %12s %10s %10s %14s\n", "Tasks", "Jobs/Min", "Real", "CPU", "Jobs/sec/task");
	printf("%8ld %12.2f %10.3f %10.3f %14.4f\n", tasks, jpm, real, cpu, (double)jobs / real);
	bench_result(jpm, "jobs/min", "tasks=%ld jobs=%ld metric=jobs_per_min", tasks, jobs);
	return 0;
}

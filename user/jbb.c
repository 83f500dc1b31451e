/*
 * jbb: a specjbb-like load (seed 003).  W warehouse threads each run N
 * CPU-bound transactions; after each one a warehouse posts it to its own
 * partner thread (a JVM's helper: an auditor) and wakes the partner with
 * a futex if it sleeps, without waiting for it.  The partner audits every
 * posted transaction (a shorter CPU-bound step) and sleeps when it has
 * caught up.  The figure is throughput: transactions of all warehouses
 * per second, from the start gate until every warehouse and partner is
 * done, as specjbb reports business operations per second per warehouse
 * count.
 *
 * The wake-ups are futex wake-ups (not sync), from a CPU that is often
 * the partner's last one: the case Suresh Siddha's prev_cpu == this_cpu
 * check is about.  A partner left on its busy warehouse's CPU takes time
 * from it; one sent to an idle CPU runs beside it.
 *
 * Every result is checked: the parent computes the answers and audits of
 * the 64 possible transactions before the clock starts, each warehouse
 * compares each transaction's result with them, each partner each audit,
 * and every partner must have audited exactly what its warehouse posted.
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

#define NARGS	       64
#define WAREHOUSES_MAX 256

static long warehouses = 2;
static long transactions = 2000; /* per warehouse */
static long work = 20000;	 /* chain steps per transaction */
static long audit_work = 5000;	 /* chain steps per audit */
static bool inject_error;	 /* for tests: partner 0 gets one audit wrong */

static uint64_t args[NARGS], answers[NARGS], audits[NARGS];

/* One warehouse and its partner; each on its own cache lines. */
struct warehouse {
	uint32_t events;   /* futex word: bumped by every post and by the close */
	uint32_t posted;   /* transactions posted so far */
	uint32_t sleeping; /* the partner is (about to be) asleep on events */
	uint32_t closed;   /* the warehouse has posted its last transaction */
	uint32_t wakeups;  /* futex wake-ups the warehouse made */
	uint64_t audited;  /* what the partner audited */
	long id;
	bool failed;
	char why[120];
} __attribute__((aligned(64)));

static struct warehouse *wh;
static struct bench_gate gate;

static long futex(uint32_t *word, int op, uint32_t val)
{
	return syscall(SYS_futex, word, op | FUTEX_PRIVATE_FLAG, val, NULL, NULL, 0);
}

/* A fixed xorshift chain of n steps from x: work no compiler can fold. */
static uint64_t chain(uint64_t x, long n)
{
	for (long i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
	}
	return x;
}

/* Transaction seq of warehouse w uses argument (w * 5 + seq) % NARGS. */
static unsigned int arg_of(long w, uint64_t seq)
{
	return (unsigned int)(((uint64_t)w * 5 + seq) % NARGS);
}

static void *partner(void *arg)
{
	struct warehouse *h = arg;
	uint64_t seq = 0;

	for (;;) {
		uint32_t ev = __atomic_load_n(&h->events, __ATOMIC_SEQ_CST);
		uint32_t posted = __atomic_load_n(&h->posted, __ATOMIC_ACQUIRE);

		for (; seq < posted; seq++) {
			unsigned int a = arg_of(h->id, seq);
			uint64_t got = chain(answers[a], audit_work);

			if (inject_error && h->id == 0 && seq == 3)
				got ^= 1;
			if (got != audits[a] && !h->failed) {
				snprintf(h->why, sizeof(h->why),
					 "partner %ld: audit of transaction %llu is wrong", h->id,
					 (unsigned long long)seq);
				h->failed = true;
			}
		}
		/* The close comes after the last post: once it is seen, posted is final. */
		if (__atomic_load_n(&h->closed, __ATOMIC_ACQUIRE) &&
		    seq == __atomic_load_n(&h->posted, __ATOMIC_ACQUIRE))
			break;
		__atomic_store_n(&h->sleeping, 1, __ATOMIC_SEQ_CST);
		/* A post or the close after ev was read changes events: FUTEX_WAIT returns at once. */
		if (futex(&h->events, FUTEX_WAIT, ev) < 0 && errno != EAGAIN && errno != EINTR)
			bench_fail("partner %ld: futex wait: %s", h->id, strerror(errno));
		__atomic_store_n(&h->sleeping, 0, __ATOMIC_SEQ_CST);
	}
	h->audited = seq;
	return NULL;
}

/* Wakes the partner if it sleeps or is about to (after events was bumped). */
static void wake_partner(struct warehouse *h)
{
	if (!__atomic_exchange_n(&h->sleeping, 0, __ATOMIC_SEQ_CST))
		return;
	h->wakeups++;
	if (futex(&h->events, FUTEX_WAKE, 1) < 0)
		bench_fail("warehouse %ld: futex wake: %s", h->id, strerror(errno));
}

static void *warehouse(void *arg)
{
	struct warehouse *h = arg;
	pthread_t helper;

	bench_thread(&helper, partner, h);
	bench_gate_arrive(&gate, false);
	for (long seq = 0; seq < transactions; seq++) {
		unsigned int a = arg_of(h->id, (uint64_t)seq);

		if (chain(args[a], work) != answers[a] && !h->failed) {
			snprintf(h->why, sizeof(h->why), "warehouse %ld: transaction %ld is wrong",
				 h->id, seq);
			h->failed = true;
		}
		__atomic_store_n(&h->posted, (uint32_t)(seq + 1), __ATOMIC_SEQ_CST);
		__atomic_add_fetch(&h->events, 1, __ATOMIC_SEQ_CST);
		wake_partner(h);
	}
	__atomic_store_n(&h->closed, 1, __ATOMIC_SEQ_CST);
	__atomic_add_fetch(&h->events, 1, __ATOMIC_SEQ_CST);
	__atomic_store_n(&h->sleeping, 1, __ATOMIC_SEQ_CST); /* the last wake-up, unconditionally */
	wake_partner(h);
	pthread_join(helper, NULL);
	return NULL;
}

static void usage(void)
{
	printf("usage: jbb [-w|--warehouses W] [-n|--transactions N] [-k|--work K]\n"
	       "           [-a|--audit A]\n"
	       "\n"
	       "A specjbb-like load: W warehouse threads (default 2) each run N CPU-bound\n"
	       "transactions (default 2000) of K steps (default 20000), posting each to a\n"
	       "partner thread that audits it in A steps (default 5000); a partner that has\n"
	       "caught up sleeps on a futex and is woken by the next post.  Prints the\n"
	       "throughput (transactions per second, all warehouses) and RESULT lines.\n"
	       "Every result and audit is checked (--inject-error spoils one on purpose).\n");
}

static void parse_args(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "warehouses", required_argument, NULL, 'w' },
		{ "transactions", required_argument, NULL, 'n' },
		{ "work", required_argument, NULL, 'k' },
		{ "audit", required_argument, NULL, 'a' },
		{ "help", no_argument, NULL, 'h' },
		{ "inject-error", no_argument, NULL, 'E' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "w:n:k:a:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'w':
			warehouses = bench_arg_long("--warehouses", optarg, 1, WAREHOUSES_MAX);
			break;
		case 'n':
			transactions = bench_arg_long("--transactions", optarg, 1, 100000000);
			break;
		case 'k':
			work = bench_arg_long("--work", optarg, 1, 100000000);
			break;
		case 'a':
			audit_work = bench_arg_long("--audit", optarg, 1, 100000000);
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
	pthread_t *threads;
	uint64_t start, stop, wakeups = 0;
	double real;
	long bad = 0;

	bench_init("jbb");
	parse_args(argc, argv);
	for (long i = 0; i < NARGS; i++) {
		args[i] = 0x9e3779b97f4a7c15ull * (uint64_t)(i + 1);
		answers[i] = chain(args[i], work);
		audits[i] = chain(answers[i], audit_work);
	}
	printf("jbb: %ld warehouses x %ld transactions of %ld steps, audits of %ld steps\n",
	       warehouses, transactions, work, audit_work);

	wh = aligned_alloc(64, sizeof(*wh) * (size_t)warehouses);
	threads = calloc((size_t)warehouses, sizeof(*threads));
	if (!wh || !threads)
		bench_fail("out of memory");
	memset(wh, 0, sizeof(*wh) * (size_t)warehouses);
	bench_gate_init(&gate);
	for (long i = 0; i < warehouses; i++) {
		wh[i].id = i;
		bench_thread(&threads[i], warehouse, &wh[i]);
	}
	bench_gate_wait(&gate, warehouses);
	start = bench_now_ns();
	bench_gate_open(&gate);
	for (long i = 0; i < warehouses; i++)
		pthread_join(threads[i], NULL);
	stop = bench_now_ns();
	bench_gate_destroy(&gate);

	for (long i = 0; i < warehouses; i++) {
		if (wh[i].failed) {
			fprintf(stderr, "jbb: %s\n", wh[i].why);
			bad++;
		} else if (wh[i].audited != (uint64_t)transactions) {
			fprintf(stderr, "jbb: partner %ld audited %llu of %ld transactions\n", i,
				(unsigned long long)wh[i].audited, transactions);
			bad++;
		}
		wakeups += wh[i].wakeups;
	}
	if (bad)
		bench_fail("%ld of %ld warehouses went wrong (see above)", bad, warehouses);

	real = (double)(stop - start) / NSEC_PER_SEC;
	jbb_report(&(struct jbb_figures){ .warehouses = warehouses,
					  .transactions = transactions,
					  .wakeups = wakeups,
					  .secs = real },
		   bench_result);
	return 0;
}

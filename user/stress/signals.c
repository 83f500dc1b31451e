/*
 * stress signals [BYTES [ROUNDS]]: every CPU hammers pipes, socketpairs
 * and futexes while signals fly between the threads. One channel per CPU
 * (a pipe, a socketpair or a futex word, in turn), its producer pinned to
 * that CPU and its consumer to the next one:
 *   - a pipe or socketpair carries BYTES bytes (default 256 KiB) of a known
 *     pattern in writes and reads of changing sizes; the consumer checks
 *     every byte and the total, through EINTR and short counts;
 *   - a futex word plays ROUNDS rounds (default 1,000) of ping-pong, each
 *     side sleeping in FUTEX_WAIT until the other's FUTEX_WAKE: a lost
 *     wake-up stops the channel, which the watchdog here reports after
 *     WATCHDOG_S seconds without progress; and the waiters FUTEX_WAKE says
 *     it woke must equal the waits that returned 0 (woken), as on Linux: a
 *     wake counted for a waiter that returned EINTR instead is one lost.
 * Every thread sends a signal every few operations: tgkill of a random
 * thread with SIGUSR1 (SA_RESTART), SIGUSR2 or SIGRTMIN (no SA_RESTART,
 * so blocked calls fail with EINTR), or kill of the process with
 * SIGRTMIN+1. At the end every signal sent must have been handled at least
 * once and never more often than sent (standard signals coalesce, and
 * Fulcrum's real-time ones do too), nothing may stay pending, and every
 * kernel count is back.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "stress.h"

#define MAX_CHANNELS 64
#define NSIGS	     4
#define SEND_EVERY   8 /* operations between a thread's signals */
#define WATCHDOG_S   60
#define CHUNK_MAX    8192

/* Linux's futex operations (musl ships no <linux/futex.h>). */
#define FUTEX_WAIT_PRIVATE (0 | 128)
#define FUTEX_WAKE_PRIVATE (1 | 128)

enum kind { PIPE, SOCKET, FUTEX };

static const char *const kind_name[] = { "pipe", "socketpair", "futex" };

struct member {
	pthread_t thread;
	int index; /* in members[] */
	int cpu;
	int chan;
	int producer;
	volatile pid_t tid;
	long received[NSIGS]; /* handled (only this thread writes) */
	long sent_to[NSIGS];  /* sent to it by tgkill (atomic) */
	int pending_after;    /* a signal still pending at the end */
	unsigned long rng;
} __attribute__((aligned(64)));

struct channel {
	enum kind kind;
	int fd[2];	/* [0] reads, [1] writes */
	int word;	/* the futex */
	long progress;	/* bytes read or rounds played (atomic) */
	long bad_bytes; /* bytes that were not the pattern */
	long eintr;	/* calls that failed with EINTR */
	long woken;	/* FUTEX_WAITs that returned 0: a wake-up (atomic) */
	long wakes;	/* waiters FUTEX_WAKE said it woke (atomic) */
};

static struct member members[2 * MAX_CHANNELS];
static struct channel channels[MAX_CHANNELS];
static int nchannels, nmembers, sigs[NSIGS];
static long bytes_per_stream, rounds;
static long proc_sent; /* SIGRTMIN+1 by kill (atomic) */
static int finished, settled;
static __thread struct member *self;
static sigset_t member_mask; /* the mask main started with */

static unsigned long next_rand(struct member *m)
{
	m->rng = m->rng * 6364136223846793005ul + 1442695040888963407ul;
	return m->rng >> 33;
}

static void on_signal(int sig)
{
	for (int s = 0; s < NSIGS; s++)
		if (sig == sigs[s] && self)
			self->received[s]++;
}

static unsigned char pattern(int chan, long offset)
{
	return (unsigned char)(offset * 131 + chan * 7 + (offset >> 12));
}

/* Every SEND_EVERY calls: a signal to a random thread, or to the process. */
static void maybe_send(struct member *m, long op)
{
	int s;

	if (op % SEND_EVERY)
		return;
	s = (int)(next_rand(m) % NSIGS);
	if (s == NSIGS - 1) {
		if (kill(getpid(), sigs[s]) == 0)
			__atomic_add_fetch(&proc_sent, 1, __ATOMIC_RELAXED);
		return;
	}
	struct member *t = &members[next_rand(m) % (unsigned long)nmembers];

	if (t->tid && syscall(SYS_tgkill, getpid(), t->tid, sigs[s]) == 0)
		__atomic_add_fetch(&t->sent_to[s], 1, __ATOMIC_RELAXED);
}

static void stream_producer(struct member *m, struct channel *c)
{
	unsigned char buf[CHUNK_MAX];
	long off = 0;

	for (long op = 1; off < bytes_per_stream; op++) {
		long want = 1 + (long)(next_rand(m) % CHUNK_MAX), n;

		if (want > bytes_per_stream - off)
			want = bytes_per_stream - off;
		for (long i = 0; i < want; i++)
			buf[i] = pattern(m->chan, off + i);
		n = write(c->fd[1], buf, (size_t)want);
		if (n < 0 && errno == EINTR)
			__atomic_add_fetch(&c->eintr, 1, __ATOMIC_RELAXED);
		else if (n < 0)
			break;
		else
			off += n; /* a short count: the rest goes next time */
		maybe_send(m, op);
	}
	close(c->fd[1]); /* the consumer's EOF */
}

static void stream_consumer(struct member *m, struct channel *c)
{
	unsigned char buf[CHUNK_MAX];
	long off = 0;

	for (long op = 1;; op++) {
		long want = 1 + (long)(next_rand(m) % CHUNK_MAX);
		long n = read(c->fd[0], buf, (size_t)want);

		if (n < 0 && errno == EINTR) {
			__atomic_add_fetch(&c->eintr, 1, __ATOMIC_RELAXED);
		} else if (n <= 0) {
			break;
		} else {
			for (long i = 0; i < n; i++)
				c->bad_bytes += buf[i] != pattern(m->chan, off + i);
			off += n;
			__atomic_store_n(&c->progress, off, __ATOMIC_RELEASE);
		}
		maybe_send(m, op);
	}
	close(c->fd[0]);
}

static long futex(int *word, int op, int val)
{
	return syscall(SYS_futex, word, op, val, NULL, NULL, 0);
}

/* Sleeps while *word == val; EINTR and spurious wake-ups just look again. */
static void wait_while(struct channel *c, int val)
{
	while (__atomic_load_n(&c->word, __ATOMIC_ACQUIRE) == val) {
		long got = futex(&c->word, FUTEX_WAIT_PRIVATE, val);

		if (got == 0)
			__atomic_add_fetch(&c->woken, 1, __ATOMIC_RELAXED);
		else if (errno == EINTR)
			__atomic_add_fetch(&c->eintr, 1, __ATOMIC_RELAXED);
	}
}

/*
 * Round r: the producer turns the word from 2r - 2 to 2r - 1, the consumer
 * from 2r - 1 to 2r; each sleeps while the word still holds its own last
 * value.
 */
static void futex_side(struct member *m, struct channel *c)
{
	for (long r = 1; r <= rounds; r++) {
		int mine = (int)(m->producer ? 2 * r - 1 : 2 * r);

		wait_while(c, mine - 2);
		if (__atomic_load_n(&c->word, __ATOMIC_ACQUIRE) != mine - 1) {
			c->bad_bytes++; /* the word moved on without us: cannot happen */
			return;
		}
		__atomic_store_n(&c->word, mine, __ATOMIC_RELEASE);
		long woke = futex(&c->word, FUTEX_WAKE_PRIVATE, 1);

		if (woke > 0)
			__atomic_add_fetch(&c->wakes, woke, __ATOMIC_RELAXED);
		if (!m->producer)
			__atomic_store_n(&c->progress, r, __ATOMIC_RELEASE);
		maybe_send(m, r);
	}
}

static void *member_main(void *arg)
{
	struct member *m = arg;
	struct channel *c = &channels[m->chan];
	sigset_t pending;

	self = m;
	m->tid = (pid_t)syscall(SYS_gettid);
	stress_pin(m->cpu);
	pthread_sigmask(SIG_SETMASK, &member_mask, NULL); /* main keeps them blocked */
	if (c->kind == FUTEX)
		futex_side(m, c);
	else if (m->producer)
		stream_producer(m, c);
	else
		stream_consumer(m, c);
	/* Nobody sends once everyone is done; what was sent is handled by the next call. */
	__atomic_add_fetch(&finished, 1, __ATOMIC_ACQ_REL);
	while (__atomic_load_n(&finished, __ATOMIC_ACQUIRE) < nmembers)
		sched_yield();
	sched_yield();
	sigemptyset(&pending);
	sigpending(&pending);
	for (int s = 0; s < NSIGS; s++)
		m->pending_after |= sigismember(&pending, sigs[s]);
	__atomic_add_fetch(&settled, 1, __ATOMIC_ACQ_REL);
	return NULL;
}

static long channel_goal(const struct channel *c)
{
	return c->kind == FUTEX ? rounds : bytes_per_stream;
}

/* Until every thread is done; 0, or -1 when no channel moved for WATCHDOG_S seconds. */
static int watch(void)
{
	long last[MAX_CHANNELS] = { 0 };
	int still = 0;

	while (__atomic_load_n(&finished, __ATOMIC_ACQUIRE) < nmembers) {
		int moved = 0;

		sleep_ms(1000);
		for (int i = 0; i < nchannels; i++) {
			long p = __atomic_load_n(&channels[i].progress, __ATOMIC_ACQUIRE);

			moved |= p != last[i];
			last[i] = p;
		}
		still = moved ? 0 : still + 1;
		if (still < WATCHDOG_S)
			continue;
		for (int i = 0; i < nchannels; i++)
			printf("stress signals: channel %d (%s): %ld of %ld, futex word %d\n", i,
			       kind_name[channels[i].kind], last[i], channel_goal(&channels[i]),
			       channels[i].word);
		return -1;
	}
	return 0;
}

/* The handlers, once: SA_RESTART for SIGUSR1 and SIGRTMIN+1 only. */
static int setup_signals(void)
{
	struct sigaction sa = { 0 };

	sigs[0] = SIGUSR1;
	sigs[1] = SIGUSR2;
	sigs[2] = SIGRTMIN;
	sigs[3] = SIGRTMIN + 1;
	sa.sa_handler = on_signal;
	for (int s = 0; s < NSIGS; s++) {
		sa.sa_flags = s == 0 || s == 3 ? SA_RESTART : 0;
		if (sigaction(sigs[s], &sa, NULL))
			return probe_fail("signals", "sigaction: %s", strerror(errno));
	}
	return 0;
}

/* The channels and their members. */
static int setup(long ncpu)
{
	nchannels = (int)(ncpu < MAX_CHANNELS ? ncpu : MAX_CHANNELS);
	if (nchannels < 2)
		nchannels = 2;
	for (int i = 0; i < nchannels; i++) {
		struct channel *c = &channels[i];

		c->kind = (enum kind)(i % 3);
		if (c->kind == PIPE && pipe(c->fd))
			return -1;
		if (c->kind == SOCKET && socketpair(AF_UNIX, SOCK_STREAM, 0, c->fd))
			return -1;
		for (int side = 0; side < 2; side++) {
			struct member *m = &members[nmembers];

			m->index = nmembers++;
			m->chan = i;
			m->producer = side == 0;
			m->cpu = (int)((i + side) % ncpu);
			m->rng = (unsigned long)m->index * 2654435761u + 1;
		}
	}
	return 0;
}

/* One run of every channel from a clean slate; 0, or 1 after a FAIL line. */
static int run_once(long ncpu, int quiet)
{
	long sent = 0, handled = 0, eintr = 0, bad = 0, wakes = 0, woken = 0;
	int err = 0, started = 0, fail = 0;

	memset(members, 0, sizeof(members));
	memset(channels, 0, sizeof(channels));
	nmembers = nchannels = finished = settled = 0;
	proc_sent = 0;
	if (setup(ncpu))
		return probe_fail("signals", "setup: %s", strerror(errno));
	/* Signals sent to the process go to the members, which count them, never to main. */
	sigset_t block;

	sigemptyset(&block);
	for (int s = 0; s < NSIGS; s++)
		sigaddset(&block, sigs[s]);
	pthread_sigmask(SIG_BLOCK, &block, &member_mask);
	if (!quiet)
		printf("stress signals: %d channels on %ld CPUs, %d threads: %ld bytes a stream, "
		       "%ld futex rounds\n",
		       nchannels, ncpu, nmembers, bytes_per_stream, rounds);
	for (; started < nmembers && !err; started++)
		err = pthread_create(&members[started].thread, NULL, member_main, &members[started]);
	if (err)
		return probe_fail("signals", "pthread_create: %s", strerror(err));
	if (watch())
		return probe_fail("signals", "no channel moved for %d s: a lost wake-up", WATCHDOG_S);
	for (int i = 0; i < nmembers; i++)
		pthread_join(members[i].thread, NULL);
	pthread_sigmask(SIG_SETMASK, &member_mask, NULL);
	for (int i = 0; i < nchannels; i++) {
		struct channel *c = &channels[i];

		eintr += c->eintr;
		bad += c->bad_bytes;
		wakes += c->wakes;
		woken += c->woken;
		/* Each waiter a wake took off the queue must have returned 0 from its wait. */
		if (c->kind == FUTEX && c->wakes != c->woken) {
			printf("stress signals: channel %d (futex): FUTEX_WAKE woke %ld waiters, %ld "
			       "FUTEX_WAITs returned woken\n",
			       i, c->wakes, c->woken);
			fail = 1;
		}
		if (c->progress != channel_goal(c) || c->bad_bytes) {
			printf("stress signals: channel %d (%s): %ld of %ld, %ld bad\n", i,
			       kind_name[c->kind], c->progress, channel_goal(c), c->bad_bytes);
			fail = 1;
		}
	}
	long proc_handled = 0;

	for (int i = 0; i < nmembers; i++) {
		struct member *m = &members[i];

		proc_handled += m->received[NSIGS - 1];
		for (int s = 0; s < NSIGS - 1; s++) {
			sent += m->sent_to[s];
			handled += m->received[s];
			if ((m->sent_to[s] && !m->received[s]) || m->received[s] > m->sent_to[s]) {
				printf("stress signals: thread %d: signal %d sent %ld times, handled %ld\n",
				       i, sigs[s], m->sent_to[s], m->received[s]);
				fail = 1;
			}
		}
		if (m->pending_after) {
			printf("stress signals: thread %d: a signal still pending at the end\n", i);
			fail = 1;
		}
	}
	if ((proc_sent && !proc_handled) || proc_handled > proc_sent) {
		printf("stress signals: SIGRTMIN+1 to the process sent %ld times, handled %ld\n",
		       proc_sent, proc_handled);
		fail = 1;
	}
	if (!quiet || fail)
		printf("stress signals: %ld signals by tgkill (%ld handled) and %ld by kill (%ld handled); "
		       "%ld calls ended in EINTR; %ld bad bytes; futex: %ld woken by FUTEX_WAKE, %ld "
		       "waits woken\n",
		       sent, handled, proc_sent, proc_handled, eintr, bad, wakes, woken);
	return fail ? probe_fail("signals", "a byte, a round or a signal went missing") : 0;
}

int probe_signals(int argc, char **argv)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	long bytes = argc > 1 ? strtol(argv[1], NULL, 10) : 256 * 1024;
	long n = argc > 2 ? strtol(argv[2], NULL, 10) : 1000;
	static struct objects before; /* not on the stack the probe counts */

	if (bytes <= 0 || n <= 0)
		return probe_fail("signals", "usage: stress signals [BYTES [ROUNDS]]");
	/* A small run first, so that what it keeps for good (stacks, stdio) is in "before". */
	bytes_per_stream = 4096;
	rounds = 20;
	if (setup_signals() || run_once(ncpu, 1))
		return 1;
	sleep_ms(20);
	if (objects_take(&before))
		return probe_fail("signals", "cannot read %s", OBJECTS_PATH);
	printf("stress signals: free pages %lld before\n", objects_get(&before, "free_pages"));
	bytes_per_stream = bytes;
	rounds = n;
	if (run_once(ncpu, 0))
		return 1;
	if (!objects_back("signals", &before))
		return probe_fail("signals", "counts not back");
	printf("stress signals: PASS: every byte, every futex round and every signal arrived; "
	       "counts back\n");
	return 0;
}

/*
 * stress tlb [ROUNDS]: munmap and madvise(MADV_DONTNEED) while writer
 * threads on every other CPU store into the same pages: the TLB
 * shoot-down. Each round maps a region, lets every writer store into all
 * of it (so each CPU holds translations for it), then takes the pages
 * away. At once a frame filler, another process, maps FILL_PAGES pages
 * (four times the region: the freed frames are among the first the
 * allocator hands out) and fills them with a pattern; the writers go on
 * storing until each has either faulted (munmap) or made 4 x PAGES stores
 * after the filler was full. A CPU that kept a stale translation writes
 * into a frame the filler now owns, so:
 *   - a byte of the filler's pages that is not the pattern;
 *   - a writer's store that succeeds although it read "gone" before it
 *     (after munmap returned, every store into the region must fault);
 *   - after MADV_DONTNEED, a region word that is neither 0 nor a writer's
 *     value of this round.
 * After munmap each writer must get SIGSEGV at an address in the region;
 * its handler jumps back to the writer's loop. Every count is back at the
 * end (the pages are given back once all writers have left them).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "stress.h"

#define PAGE	      4096
#define PAGES	      16
#define FILL_PAGES    (4 * PAGES)
#define MAX_WRITERS   63
#define PATTERN	      0x5a
#define WAIT_MS	      20000 /* a writer that never faults or never checks in */
#define MODE_MUNMAP   0
#define MODE_DONTNEED 1

struct writer {
	pthread_t thread;
	int cpu;
	sigjmp_buf jump;
	long seen_round; /* the round it has stored into every page of (atomic) */
	long done_round; /* the round whose stores after the filler was full it has made (atomic) */
	long faults;	 /* SIGSEGVs inside the region */
	long bad_faults; /* SIGSEGVs anywhere else */
	long late;	 /* stores that landed after it read "gone" */
} __attribute__((aligned(64)));

static struct writer writers[MAX_WRITERS];
static int nwriters;
static char *volatile region;  /* this round's pages */
static volatile long round_no; /* the round writers are to store into; -1: stop */
static volatile int gone;      /* set once this round's munmap/madvise has returned */
static volatile int filled;    /* set once the filler holds the round's fresh frames */
static volatile int mode;
static __thread struct writer *self;

static void on_segv(int sig, siginfo_t *si, void *uc)
{
	char *a = si->si_addr, *r = region;

	(void)sig;
	(void)uc;
	if (self && r && a >= r && a < r + PAGES * PAGE)
		self->faults++;
	else if (self)
		self->bad_faults++;
	if (!self)
		_exit(98); /* the main thread faulted: the probe itself is broken */
	siglongjmp(self->jump, 1);
}

static void *writer_main(void *arg)
{
	struct writer *w = arg;
	long r;

	self = w;
	stress_pin(w->cpu);
	sigsetjmp(w->jump, 1);
	for (;;) {
		/* Wait for a round this writer has not stored into yet. */
		while ((r = __atomic_load_n(&round_no, __ATOMIC_ACQUIRE)) ==
		       __atomic_load_n(&w->seen_round, __ATOMIC_RELAXED))
			sched_yield();
		if (r < 0)
			return NULL;
		char *p = region;
		long after = 0, v = (long)w->cpu << 32 | (unsigned long)r;

		/* Store into every page until the pages go (munmap) or the round ends. */
		for (unsigned long i = 0;; i++) {
			int was_gone = __atomic_load_n(&gone, __ATOMIC_ACQUIRE);
			int was_filled = __atomic_load_n(&filled, __ATOMIC_ACQUIRE);
			long *slot = (long *)(p + (i % PAGES) * PAGE) + w->cpu;

			*(volatile long *)slot = v;
			if (was_gone && mode == MODE_MUNMAP)
				w->late++; /* the store should have faulted */
			if (i + 1 == PAGES)
				__atomic_store_n(&w->seen_round, r, __ATOMIC_RELEASE);
			if (was_filled && ++after > 4 * PAGES) {
				/* Stored on while the filler held the frames: enough. */
				__atomic_store_n(&w->done_round, r, __ATOMIC_RELEASE);
				break;
			}
			if (__atomic_load_n(&round_no, __ATOMIC_ACQUIRE) != r)
				break;
		}
	}
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The value at offset field of every writer passes ok(value, arg), within WAIT_MS; 0 or -1. */
static int wait_writers(size_t field, int (*ok)(long v, long arg), const long *arg)
{
	for (long start = now_ms(); now_ms() - start < WAIT_MS; sched_yield()) {
		int all = 1;

		for (int k = 0; k < nwriters && all; k++)
			all = ok(__atomic_load_n((long *)((char *)&writers[k] + field),
						 __ATOMIC_ACQUIRE),
				 arg ? arg[k] : 0);
		if (all)
			return 0;
	}
	return -1;
}

static int is_round(long v, long r)
{
	return v == r;
}

static int beyond(long v, long before)
{
	return v > before;
}

/*
 * The frame filler, a child process: on 'f' it maps FILL_PAGES pages and
 * fills them with the pattern, answers 'k'; on 'c' it counts the bytes
 * that are not the pattern, unmaps them and answers with the count; on
 * 'q' or end of file it exits.
 */
static int filler_cmd = -1, filler_ans = -1, filler_pid = -1;

static void filler_main(int cmd, int ans)
{
	char *fill = NULL, c;

	stress_pin(0);
	while (read(cmd, &c, 1) == 1 && c != 'q') {
		long bad = 0;

		if (c == 'f') {
			fill = mmap(NULL, FILL_PAGES * PAGE, PROT_READ | PROT_WRITE,
				    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			if (fill == MAP_FAILED)
				_exit(97);
			memset(fill, PATTERN, FILL_PAGES * PAGE);
			if (write(ans, "k", 1) != 1)
				_exit(97);
			continue;
		}
		for (long i = 0; fill && i < FILL_PAGES * PAGE; i++)
			bad += fill[i] != PATTERN;
		if (fill)
			munmap(fill, FILL_PAGES * PAGE);
		fill = NULL;
		if (write(ans, &bad, sizeof(bad)) != sizeof(bad))
			_exit(97);
	}
	_exit(0);
}

static int filler_start(void)
{
	int cmd[2], ans[2];

	if (pipe(cmd) || pipe(ans))
		return -1;
	filler_pid = fork();
	if (filler_pid < 0)
		return -1;
	if (filler_pid == 0) {
		close(cmd[1]);
		close(ans[0]);
		filler_main(cmd[0], ans[1]);
	}
	close(cmd[0]);
	close(ans[1]);
	filler_cmd = cmd[1];
	filler_ans = ans[0];
	return 0;
}

/* Sends c; reads n bytes of answer into out. 0, or -1 if the filler is gone. */
static int filler_ask(char c, void *out, size_t n)
{
	size_t got = 0;

	if (write(filler_cmd, &c, 1) != 1)
		return -1;
	while (got < n) {
		ssize_t k = read(filler_ans, (char *)out + got, n - got);

		if (k <= 0)
			return -1;
		got += (size_t)k;
	}
	return 0;
}

/* One round; 0, or 1 after a FAIL line. */
static int one_round(long r, long *damaged)
{
	long faults_before[MAX_WRITERS], rs[MAX_WRITERS], bad;
	char *p, ok;

	p = mmap(NULL, PAGES * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return probe_fail("tlb", "round %ld: mmap: %s", r, strerror(errno));
	for (int k = 0; k < nwriters; k++) {
		faults_before[k] = writers[k].faults;
		rs[k] = r;
	}
	region = p;
	gone = 0;
	filled = 0;
	__atomic_store_n(&round_no, r, __ATOMIC_RELEASE);
	if (wait_writers(offsetof(struct writer, seen_round), is_round, rs))
		return probe_fail("tlb", "round %ld: a writer never stored into the region", r);
	if (mode == MODE_MUNMAP ? munmap(p, PAGES * PAGE) : madvise(p, PAGES * PAGE, MADV_DONTNEED))
		return probe_fail("tlb", "round %ld: %s: %s", r,
				  mode == MODE_MUNMAP ? "munmap" : "madvise", strerror(errno));
	__atomic_store_n(&gone, 1, __ATOMIC_RELEASE);
	/* The freed frames, most likely, to another process, while the writers still run. */
	if (filler_ask('f', &ok, 1))
		return probe_fail("tlb", "round %ld: the frame filler died", r);
	__atomic_store_n(&filled, 1, __ATOMIC_RELEASE);
	/* Each writer faults (munmap, if the shoot-down reached it) or stores on a while. */
	for (long start = now_ms();; sched_yield()) {
		int all = 1;

		for (int k = 0; k < nwriters && all; k++)
			all = __atomic_load_n(&writers[k].done_round, __ATOMIC_ACQUIRE) == r ||
			      (mode == MODE_MUNMAP &&
			       beyond(__atomic_load_n(&writers[k].faults, __ATOMIC_ACQUIRE),
				      faults_before[k]));
		if (all)
			break;
		if (now_ms() - start > WAIT_MS)
			return probe_fail("tlb",
					  "round %ld: a writer neither faulted nor stored on", r);
	}
	if (filler_ask('c', &bad, sizeof(bad)))
		return probe_fail("tlb", "round %ld: the frame filler died", r);
	*damaged += bad;
	/* After MADV_DONTNEED the stores made new pages: each reads 0 or a writer's value. */
	for (long i = 0; mode == MODE_DONTNEED && i < PAGES * PAGE / 8; i++) {
		long v = ((long *)p)[i];

		*damaged += v && (unsigned long)(v & 0xffffffff) != (unsigned long)r;
	}
	if (mode == MODE_DONTNEED)
		munmap(p, PAGES * PAGE); /* every writer waits for the next round now */
	return 0;
}

static int run_mode(int m, long rounds, long *first_round, const char *name, int quiet)
{
	long damaged = 0, late = 0, bad = 0, faults = 0;

	mode = m;
	for (long i = 0; i < rounds; i++) {
		long r = (*first_round)++;

		if (one_round(r, &damaged))
			return 1;
	}
	for (int k = 0; k < nwriters; k++) {
		late += writers[k].late;
		bad += writers[k].bad_faults;
		faults += writers[k].faults;
		writers[k].late = writers[k].bad_faults = writers[k].faults = 0;
	}
	if (!quiet || late || bad || damaged)
		printf("stress tlb: %s: %ld rounds x %d pages, %d writers, %d pages filled by another "
		       "process: %ld SIGSEGVs in the region, %ld elsewhere, %ld stores after the pages "
		       "went, %ld bytes damaged\n",
		       name, rounds, PAGES, nwriters, FILL_PAGES, faults, bad, late, damaged);
	if (late || bad || damaged)
		return probe_fail("tlb", "%s: a stale translation was used", name);
	return 0;
}

/* Writers on CPUs 1..n-1, rounds of each mode, writers joined; 0, or 1 after a FAIL line. */
static int session(long ncpu, long rounds, long *next, int quiet)
{
	int err = 0, started = 0;

	__atomic_store_n(&round_no, *next - 1, __ATOMIC_RELEASE);
	for (int k = 0; k < nwriters && !err; k++, started++) {
		writers[k].cpu = ncpu > 1 ? k + 1 : 0;
		writers[k].seen_round = writers[k].done_round = *next - 1;
		err = pthread_create(&writers[k].thread, NULL, writer_main, &writers[k]);
	}
	if (err) {
		started--;
		probe_fail("tlb", "pthread_create: %s", strerror(err));
	} else {
		err = run_mode(MODE_MUNMAP, rounds, next, "munmap", quiet) ||
		      run_mode(MODE_DONTNEED, rounds, next, "MADV_DONTNEED", quiet);
	}
	__atomic_store_n(&round_no, -1, __ATOMIC_RELEASE);
	for (int k = 0; k < started; k++)
		pthread_join(writers[k].thread, NULL);
	return err ? 1 : 0;
}

int probe_tlb(int argc, char **argv)
{
	long rounds = argc > 1 ? strtol(argv[1], NULL, 10) : 100, next = 1;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	struct sigaction sa = { 0 };
	static struct objects before; /* not on the stack the probe counts */

	if (rounds <= 0)
		return probe_fail("tlb", "usage: stress tlb [ROUNDS]");
	nwriters = ncpu > 1 ? (int)(ncpu - 1 < MAX_WRITERS ? ncpu - 1 : MAX_WRITERS) : 1;
	sa.sa_sigaction = on_segv;
	sa.sa_flags = SA_SIGINFO | SA_NODEFER;
	sigaction(SIGSEGV, &sa, NULL);
	stress_pin(0);
	if (filler_start())
		return probe_fail("tlb", "frame filler: %s", strerror(errno));
	/* A short session first, so that what it leaves for good (stack, heap) is in "before". */
	if (session(ncpu, 2, &next, 1))
		return 1;
	sleep_ms(20);
	if (objects_take(&before))
		return probe_fail("tlb", "cannot read %s", OBJECTS_PATH);
	printf("stress tlb: %ld CPUs, %d writers, %ld rounds of munmap then of MADV_DONTNEED; "
	       "free pages %lld\n",
	       ncpu, nwriters, rounds, objects_get(&before, "free_pages"));
	if (session(ncpu, rounds, &next, 0))
		return 1;
	if (!objects_back("tlb", &before))
		return probe_fail("tlb", "counts not back");
	filler_ask('q', NULL, 0);
	waitpid(filler_pid, NULL, 0);
	printf("stress tlb: PASS: no store after munmap or MADV_DONTNEED reached a freed page; "
	       "counts back\n");
	return 0;
}

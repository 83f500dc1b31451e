/*
 * Shared pieces of the workload programs (user/hackbench.c, pipebench.c,
 * compute.c, wakelat.c, tps.c): strict argument parsing, the monotonic
 * clock, RESULT lines for the host harness, loud failure, whole reads and
 * writes, a start gate for many tasks, and reaping children.
 */
#ifndef USER_COMMON_BENCH_H
#define USER_COMMON_BENCH_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdnoreturn.h>

#define NSEC_PER_SEC  1000000000ull
#define NSEC_PER_USEC 1000ull

/*
 * Names the program in messages and RESULT lines; call first in main.
 * Also ignores SIGPIPE, so a write to a dead peer fails with EPIPE and is
 * reported, instead of killing the writer silently.
 */
void bench_init(const char *name);

/* "<name>: FAILED: <message>" on stderr, then exit(1) (the whole process). */
noreturn void bench_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* "<name>: <message>" and a hint to see --help, then exit(2): a bad command line. */
noreturn void bench_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The whole string as an integer in [min, max], else a usage error naming opt. */
long bench_arg_long(const char *opt, const char *s, long min, long max);

/* The whole string as a number in [min, max], else a usage error naming opt. */
double bench_arg_double(const char *opt, const char *s, double min, double max);

/* CLOCK_MONOTONIC in nanoseconds. */
uint64_t bench_now_ns(void);

/*
 * Prints "RESULT name=<name> <keys> value=<value> unit=<unit>" and flushes.
 * keys is a printf format for the "key=value ..." words (no spaces inside
 * a value).
 */
void bench_result(double value, const char *unit, const char *keys, ...)
	__attribute__((format(printf, 3, 4)));

/* write()s all n bytes, retrying on EINTR and short writes: 0, or -errno. */
int bench_write_all(int fd, const void *buf, size_t n);

/* read()s until n bytes or end of file: the count read (< n at EOF), or -errno. */
long bench_read_all(int fd, void *buf, size_t n);

/*
 * The start gate, as hackbench's "ready" handshake: every task says it is
 * ready on one pipe and then waits (poll) until the other pipe becomes
 * readable; the parent waits for all of them, starts its clock and opens
 * the gate with one byte, which wakes every task at once.  Works for
 * processes (the pipes are inherited) and threads alike.
 */
struct bench_gate {
	int ready[2];
	int go[2];
};

void bench_gate_init(struct bench_gate *g);
/*
 * Task side: announce readiness, then block until the gate opens.  A forked
 * task (is_process) also closes its copy of the ready pipe's write end, so
 * that the parent sees end of file instead of waiting forever when a task
 * dies before arriving; if the parent dies before opening the gate, the
 * task exits with status 1.
 */
void bench_gate_arrive(struct bench_gate *g, bool is_process);
/* Parent side, after forking every task: drop the parent's copy of the ready pipe's write end. */
void bench_gate_forked(struct bench_gate *g);
/* Parent side: wait until n tasks have arrived; fails loudly if fewer ever can. */
void bench_gate_wait(struct bench_gate *g, long n);
/* Parent side: let every waiting task go. */
void bench_gate_open(struct bench_gate *g);
/* Closes the gate's pipes (parent, after the run). */
void bench_gate_destroy(struct bench_gate *g);

/* fork()s a child that runs fn(arg) and _exit()s with its result; fails loudly on error. */
int bench_fork(int (*fn)(void *), void *arg);

/*
 * Waits for n children (any order).  Each one that did not exit with 0 is
 * named on stderr as "<what> <pid>: exit 1" / "killed by SIGSEGV".
 * Returns how many failed.
 */
long bench_reap(long n, const char *what);

/* pthread_create with a modest stack (64 KiB), failing loudly on error. */
void bench_thread(pthread_t *t, void *(*fn)(void *), void *arg);

#endif

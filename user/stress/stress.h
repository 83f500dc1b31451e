/*
 * stress: the exhaustion probes of issue 12, one subcommand each (main.c
 * lists them). Each prints "stress <probe>: ..." lines, the kernel's
 * counts before and after (/proc/fulcrum/objects), and a last line
 * "stress <probe>: PASS" or "stress <probe>: FAIL: why"; the exit status
 * is 0 only on PASS. Fulcrum-only: Linux has no /proc/fulcrum/objects,
 * and the probes would exhaust the host.
 */
#ifndef USER_STRESS_H
#define USER_STRESS_H

#include "objects.h"

/*
 * Waits (up to about 5 s, for tasks that go after their last switch and
 * orphans init reaps) until every count reads as in before; prints
 * "stress <probe>: <name> before -> after" for each count, and returns 1 if
 * all match, else 0.
 */
int objects_back(const char *probe, const struct objects *before);

/* Fails the probe: prints the FAIL line, returns 1 (the exit status). */
int probe_fail(const char *probe, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Sleeps ms milliseconds. */
void sleep_ms(long ms);

/* Pins the calling thread to one CPU (sched_setaffinity of thread 0: itself). */
void stress_pin(int cpu);

int probe_procs(int argc, char **argv);
int probe_threads(int argc, char **argv);
int probe_forkbomb(int argc, char **argv);
int probe_oom(int argc, char **argv);
int probe_oom_copy(int argc, char **argv);
int probe_populate(int argc, char **argv);
int probe_tlb(int argc, char **argv);
int probe_stack(int argc, char **argv);
int probe_signals(int argc, char **argv);

#endif

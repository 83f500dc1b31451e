/*
 * fuzz: the supervisor. Forks the workers (one per CPU by default), tells
 * each the others' pids, sends every worker the tick signal each 10 ms so
 * that no blocking call blocks for good, and judges how each one ended.
 *
 *   fuzz --seed S --calls N [--workers W]     W workers, N calls each
 *   fuzz --seed S --worker K --calls N        replay worker K alone
 *        [--keep 0-99,200] [--trace]          only these calls; print each
 *   fuzz --fault-storm MS                     (a test) children faulting on every CPU
 *   fuzz ... --slow-start MS                  (a test) the last worker starts MS ms late
 *
 * Prints "fuzz: seed S ..." first, a line per worker, then
 * "fuzz: PASS ..." or "fuzz: FAIL ..." with the command that replays each
 * failed worker; exits 0 or 1 (2 for bad usage). Never run it on your own
 * machine's Linux: it sends signals and makes every call there is.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../common/rawio.h"
#include "../common/rawsys.h"
#include "fuzz.h"

static void usage(void)
{
	fprintf(stderr, "usage: fuzz --seed S --calls N [--workers W] [--worker K] [--keep RANGES] "
			"[--trace] [--slow-start MS]\n");
	exit(2);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int online_cpus(int *cpus)
{
	cpu_set_t set;
	int n = 0;

	if (sched_getaffinity(0, sizeof(set), &set))
		return 0;
	for (int i = 0; i < CPU_SETSIZE && n < FUZZ_MAX_WORKERS; i++)
		if (CPU_ISSET(i, &set))
			cpus[n++] = i;
	return n;
}

static const char *describe(int status, char *buf, size_t size)
{
	if (WIFSIGNALED(status))
		snprintf(buf, size, "killed by signal %d", WTERMSIG(status));
	else if (WEXITSTATUS(status) == FUZZ_EXIT_FAULT)
		snprintf(buf, size, "a fault of its own (its last calls above)");
	else if (WEXITSTATUS(status) == FUZZ_EXIT_STUCK)
		snprintf(buf, size, "a child outlived SIGKILL");
	else
		snprintf(buf, size, "exit status %d", WEXITSTATUS(status));
	return buf;
}

/*
 * --fault-storm MS: a process per CPU forks children that fault at once,
 * over and over, so every CPU prints "user fault" lines; after MS ms this
 * program exits and leaves them running, so init ends the run while the
 * kernel is printing on every CPU (the boot test finish-during-printk).
 */
static int *volatile storm_target = (int *)8; /* below every mapping */

static int fault_storm(long ms, const int *cpus, int ncpus)
{
	struct timespec wait = { ms / 1000, ms % 1000 * 1000000 };

	for (int k = 0; k < ncpus; k++) {
		if (fork() == 0) {
			cpu_set_t set;

			CPU_ZERO(&set);
			CPU_SET(cpus[k], &set);
			sched_setaffinity(0, sizeof(set), &set);
			for (;;) {
				pid_t pid = fork();

				if (pid == 0)
					*storm_target = 0;
				if (pid > 0)
					waitpid(pid, NULL, 0);
			}
		}
	}
	nanosleep(&wait, NULL);
	printf("fuzz: fault storm on %d CPUs for %ld ms; leaving it running\n", ncpus, ms);
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long long seed = 0;
	long calls = 10000, workers = 0, only = -1, storm = -1, slow = 0;
	const char *keep = NULL;
	int trace = 0, have_seed = 0, cpus[FUZZ_MAX_WORKERS], ncpus, pids[FUZZ_MAX_WORKERS];
	int status[FUZZ_MAX_WORKERS], live, failed = 0, barrier[2], ready[2];
	char byte;
	struct timespec tick = { 0, 10 * 1000 * 1000 };
	double t0;

	if (argc < 2) /* a generated execve of this program ends here */
		usage();
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "--trace")) {
			trace = 1;
			continue;
		}
		if (!v)
			usage();
		i++;
		if (!strcmp(a, "--seed"))
			seed = strtoull(v, NULL, 0), have_seed = 1;
		else if (!strcmp(a, "--calls"))
			calls = strtol(v, NULL, 0);
		else if (!strcmp(a, "--workers"))
			workers = strtol(v, NULL, 0);
		else if (!strcmp(a, "--worker"))
			only = strtol(v, NULL, 0);
		else if (!strcmp(a, "--keep"))
			keep = v;
		else if (!strcmp(a, "--fault-storm"))
			storm = strtol(v, NULL, 0);
		else if (!strcmp(a, "--slow-start"))
			slow = strtol(v, NULL, 0);
		else
			usage();
	}
	ncpus = online_cpus(cpus);
	if (!ncpus)
		ncpus = 1, cpus[0] = 0;
	if (storm >= 0)
		return fault_storm(storm, cpus, ncpus);
	if (!workers)
		workers = ncpus;
	if (calls < 0 || calls > 0x7fffffff || workers < 1 || workers > FUZZ_MAX_WORKERS ||
	    only >= FUZZ_MAX_WORKERS)
		usage();
	if (!have_seed)
		seed = (unsigned long long)(now() * 1e6);
	if (only >= 0)
		printf("fuzz: seed %#llx, replaying worker %ld alone, %ld calls%s\n", seed, only,
		       calls, keep ? ", only some" : "");
	else
		printf("fuzz: seed %#llx, %ld workers on %d CPUs, %ld calls each (replay worker K: "
		       "fuzz --seed %#llx --worker K --calls %ld)\n",
		       seed, workers, ncpus, calls, seed, calls);
	fflush(stdout);
	if (only >= 0)
		workers = 1;
	if (pipe(barrier) || pipe(ready))
		return 1;
	/* Ticks before a worker has its handlers are dropped, not fatal. */
	signal(FUZZ_TICK_SIG, SIG_IGN);
	t0 = now();
	for (int k = 0; k < workers; k++) {
		pids[k] = fork();
		if (pids[k] == 0) {
			struct fuzz_env env;

			memset(&env, 0, sizeof(env));
			env.worker = only >= 0 ? (int)only : k;
			env.nworkers = (int)workers;
			env.cpu = cpus[env.worker % ncpus];
			close(barrier[1]);
			close(ready[0]);
			if (slow > 0 && k == workers - 1) { /* a vCPU the host has not run yet */
				struct timespec late = { slow / 1000, slow % 1000 * 1000000 };

				nanosleep(&late, NULL);
			}
			worker_install_handlers();
			raw_write_all(ready[1], "r", 1);
			close(ready[1]);
			if (raw_read_full(barrier[0], env.peers, workers * sizeof(int)) !=
			    (long)(workers * sizeof(int)))
				_exit(3);
			close(barrier[0]);
			_exit(worker_main(seed, &env, (uint32_t)calls, keep, trace));
		}
		if (pids[k] < 0) {
			perror("fuzz: fork");
			return 1;
		}
	}
	close(barrier[0]);
	/*
	 * No worker learns the pids before every worker has its handlers:
	 * a peer's signal to one the scheduler has not run yet would kill it
	 * (seen on 2s16 and x2apic under TCG on a loaded host).
	 */
	close(ready[1]);
	for (int k = 0; k < workers && raw_read_full(ready[0], &byte, 1) == 1; k++)
		;
	close(ready[0]);
	for (int k = 0; k < workers; k++)
		raw_write_all(barrier[1], pids, workers * sizeof(int));
	close(barrier[1]);
	for (live = (int)workers; live > 0;) {
		int st, pid;

		nanosleep(&tick, NULL);
		for (int k = 0; k < workers; k++)
			if (pids[k])
				kill(pids[k], FUZZ_TICK_SIG);
		while ((pid = waitpid(-1, &st, WNOHANG)) > 0) {
			for (int k = 0; k < workers; k++) {
				if (pids[k] == pid) {
					status[k] = st;
					pids[k] = 0;
					live--;
				}
			}
		}
	}
	t0 = now() - t0;
	for (int k = 0; k < workers; k++) {
		char why[80];
		int w = only >= 0 ? (int)only : k;

		if (WIFEXITED(status[k]) && WEXITSTATUS(status[k]) == 0)
			continue;
		failed++;
		printf("fuzz: FAIL worker %d: %s; replay: fuzz --seed %#llx --worker %d --calls %ld "
		       "--trace\n",
		       w, describe(status[k], why, sizeof(why)), seed, w, calls);
	}
	printf("fuzz: %s seed %#llx: %ld calls by %ld workers in %.3f s (%.0f calls/s), %d "
	       "failed\n",
	       failed ? "FAIL" : "PASS", seed, calls * workers, workers, t0,
	       t0 > 0 ? calls * workers / t0 : 0.0, failed);
	return failed ? 1 : 0;
}

/*
 * stress forkbomb [LIMIT]: a fork bomb on every CPU at once. With LIMIT,
 * RLIMIT_NPROC is set to it first; without, the kernel's default (its
 * thread limit, sized by memory) stands. One worker per CPU forks until
 * fork fails, and so does every child, so the tree grows from all CPUs at
 * the same time. Every process says when it is born ('B') and how its
 * forking ended ('E' EAGAIN, 'M' ENOMEM, 'X' anything else) down a pipe,
 * then waits for the release. When every process has stopped, the
 * kernel's thread count must be exactly the limit (reached, never
 * overshot), every stop must be EAGAIN, and the kernel must still answer
 * (a fork fails with EAGAIN at once, /proc reads). Then the release:
 * every process reaps its own children and exits, and every count in
 * /proc/fulcrum/objects must come back.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "stress.h"

static int born_w, release_r, go_r;

static void say(char c)
{
	while (write(born_w, &c, 1) < 0 && errno == EINTR)
		;
}

/* Forks until it fails, then waits for the release, reaps its children and exits. */
static void __attribute__((noreturn)) bomber(void)
{
	char c;

	while (read(go_r, &c, 1) < 0 && errno == EINTR)
		; /* every worker starts together, once all are forked */
	close(go_r);
	for (;;) {
		pid_t pid = fork();

		if (pid == 0) {
			say('B');
			continue; /* the child bombs too */
		}
		if (pid < 0) {
			say(errno == EAGAIN ? 'E' : errno == ENOMEM ? 'M' : 'X');
			break;
		}
	}
	while (read(release_r, &c, 1) < 0 && errno == EINTR)
		;
	while (wait(NULL) > 0 || errno == EINTR)
		;
	_exit(0);
}

/* One bomb with the caller's RLIMIT_NPROC; fills *threads with the count at its height. */
static int bomb(long workers, long *threads, long *stops, long *eagain, long *procs)
{
	int born_p[2], rel_p[2], go_p[2];
	long born = 0, stopped = 0, other = 0;
	struct objects o;
	char buf[512];

	if (pipe(born_p) || pipe(rel_p) || pipe(go_p))
		return -1;
	born_w = born_p[1];
	release_r = rel_p[0];
	go_r = go_p[0];
	*eagain = 0;
	for (long i = 0; i < workers; i++) {
		pid_t pid = fork();

		if (pid == 0) {
			close(born_p[0]);
			close(rel_p[1]);
			close(go_p[1]);
			bomber();
		}
		if (pid < 0) {
			printf("stress forkbomb: forking worker %ld: %s\n", i + 1, strerror(errno));
			return -1;
		}
	}
	close(born_p[1]);
	close(rel_p[0]);
	close(go_p[0]);
	close(go_p[1]);
	while (stopped < born + workers) {
		ssize_t got = read(born_p[0], buf, sizeof(buf));

		if (got <= 0)
			break;
		for (ssize_t i = 0; i < got; i++) {
			born += buf[i] == 'B';
			stopped += buf[i] != 'B';
			*eagain += buf[i] == 'E';
			other += buf[i] == 'X';
		}
	}
	/* Everyone is stopped and waiting: the count now is the bomb's height. */
	if (objects_take(&o))
		return -1;
	*threads = objects_get(&o, "threads");
	*procs = born + workers;
	*stops = stopped;
	{
		pid_t pid = fork(); /* the kernel still answers, and says no at once */

		if (pid == 0)
			_exit(0);
		if (pid > 0) {
			waitpid(pid, NULL, 0);
			printf("stress forkbomb: a fork at the height succeeded\n");
			*eagain = -1;
		}
	}
	close(rel_p[1]);
	while (wait(NULL) > 0 || errno == EINTR)
		;
	close(born_p[0]);
	if (other)
		printf("stress forkbomb: %ld forks failed with neither EAGAIN nor ENOMEM\n", other);
	return other ? -1 : 0;
}

int probe_forkbomb(int argc, char **argv)
{
	long limit = argc > 1 ? strtol(argv[1], NULL, 10) : 0,
	     workers = sysconf(_SC_NPROCESSORS_ONLN);
	long threads, stops, eagain, procs;
	struct rlimit rl;
	static struct objects before; /* not on the stack the probe counts */

	if (workers < 1)
		workers = 1;
	if (getrlimit(RLIMIT_NPROC, &rl) == 0)
		printf("stress forkbomb: RLIMIT_NPROC at start: %lld (max %lld)\n",
		       (long long)rl.rlim_cur, (long long)rl.rlim_max);
	if (limit > 0) {
		rl.rlim_cur = rl.rlim_max = (rlim_t)limit;
		if (setrlimit(RLIMIT_NPROC, &rl))
			return probe_fail("forkbomb", "setrlimit(RLIMIT_NPROC, %ld): %s", limit,
					  strerror(errno));
	}
	if (getrlimit(RLIMIT_NPROC, &rl))
		return probe_fail("forkbomb", "getrlimit: %s", strerror(errno));
	if (rl.rlim_cur == RLIM_INFINITY)
		return probe_fail("forkbomb", "RLIMIT_NPROC is unlimited: nothing would stop a bomb");
	limit = (long)rl.rlim_cur;
	/* A warm-up bomb of the same shape, so caches are in their steady state before counting. */
	if (bomb(workers, &threads, &stops, &eagain, &procs))
		return probe_fail("forkbomb", "warm-up bomb failed");
	sleep_ms(50);
	if (objects_take(&before))
		return 1;
	printf("stress forkbomb: RLIMIT_NPROC %ld, %ld workers; before: threads %lld, free_pages %lld\n",
	       limit, workers, objects_get(&before, "threads"), objects_get(&before, "free_pages"));
	if (bomb(workers, &threads, &stops, &eagain, &procs))
		return probe_fail("forkbomb", "bomb failed");
	printf("stress forkbomb: height: %ld bomb processes, %ld threads in all (limit %ld); "
	       "%ld of %ld stops EAGAIN\n",
	       procs, threads, limit, eagain, stops);
	if (!objects_back("forkbomb", &before))
		return probe_fail("forkbomb", "counts are not back");
	if (threads != limit)
		return probe_fail("forkbomb", "%ld threads at the height, the limit is %ld",
				  threads, limit);
	if (eagain != stops)
		return probe_fail("forkbomb", "only %ld of %ld stops were EAGAIN", eagain, stops);
	printf("stress forkbomb: PASS: ended in EAGAIN at exactly %ld threads; counts back\n", limit);
	return 0;
}

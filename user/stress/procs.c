/*
 * stress procs [N]: aim7's shape. N processes (default 2,560) are forked
 * one after another; each says it is alive (a byte down a pipe), spins
 * through a fixed amount of arithmetic and then waits for the release (the
 * pipe's write end closing). Once all N have said so, all of them are
 * alive at once: the kernel's process count is read, the release given and
 * every child reaped, each with exit status 0.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "stress.h"

#define SPIN 200000

static volatile unsigned long sink;

static int child(int born_fd, int release_fd)
{
	unsigned long x = (unsigned long)getpid();
	char c = 'B';

	if (write(born_fd, &c, 1) != 1)
		return 3;
	for (long i = 0; i < SPIN; i++)
		x = x * 6364136223846793005UL + 1442695040888963407UL;
	sink = x;
	while (read(release_fd, &c, 1) < 0 && errno == EINTR)
		;
	return 0;
}

/*
 * Forks n children, waits until all are alive, reads the counts into
 * *peak, releases and reaps them. Returns how many were born, reaped and
 * exited 0 (-1 if setting up failed); *bad says something went wrong.
 */
static long run(long n, struct objects *peak, long *reaped, int *bad)
{
	long born = 0;
	int born_p[2], rel_p[2];
	char buf[256];

	*reaped = 0;
	*bad = 0;
	if (pipe(born_p) || pipe(rel_p))
		return -1;
	for (long i = 0; i < n; i++) {
		pid_t pid = fork();

		if (pid < 0) {
			printf("stress procs: fork %ld of %ld: %s\n", i + 1, n, strerror(errno));
			n = i;
			*bad = 1;
			break;
		}
		if (pid == 0) {
			close(born_p[0]);
			close(rel_p[1]);
			_exit(child(born_p[1], rel_p[0]));
		}
	}
	close(born_p[1]);
	close(rel_p[0]);
	while (born < n) {
		ssize_t got = read(born_p[0], buf, sizeof(buf));

		if (got <= 0)
			break;
		born += got;
	}
	if (objects_take(peak))
		*bad = 1;
	close(rel_p[1]);
	for (;;) {
		int status;
		pid_t pid = wait(&status);

		if (pid < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		(*reaped)++;
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			*bad = 1;
	}
	close(born_p[0]);
	return born;
}

int probe_procs(int argc, char **argv)
{
	long n = argc > 1 ? strtol(argv[1], NULL, 10) : 2560, born, reaped;
	static struct objects before, peak; /* not on the stack the probe counts */
	int bad;

	if (n <= 0)
		return probe_fail("procs", "bad count");
	/* A small warm-up run of the same shape: the pipes, the parent's own pages. */
	if (run(8, &peak, &reaped, &bad) != 8 || bad)
		return probe_fail("procs", "warm-up run failed");
	sleep_ms(50);
	if (objects_take(&before))
		return 1;
	printf("stress procs: forking %ld processes; free_pages %lld\n", n,
	       objects_get(&before, "free_pages"));
	born = run(n, &peak, &reaped, &bad);
	printf("stress procs: %ld of %ld alive at once: processes %lld, threads %lld, free_pages %lld\n",
	       born, n, objects_get(&peak, "processes"), objects_get(&peak, "threads"),
	       objects_get(&peak, "free_pages"));
	printf("stress procs: %ld reaped\n", reaped);
	if (!objects_back("procs", &before))
		return probe_fail("procs", "counts are not back");
	if (bad || born != n || reaped != n ||
	    objects_get(&peak, "processes") < objects_get(&before, "processes") + n)
		return probe_fail("procs",
				  "%ld asked for, %ld alive at once, %ld reaped (some failed)", n,
				  born, reaped);
	printf("stress procs: PASS: %ld processes alive at once, all reaped\n", n);
	return 0;
}

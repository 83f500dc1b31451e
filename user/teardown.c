/*
 * teardown: runs N fork/exec/exit/wait cycles (default 10,000) and checks
 * that the kernel is left as it was: every count in /proc/fulcrum/objects
 * (free pages, heap objects, processes, tasks, address spaces, files...)
 * reads the same after the cycles as before them. A short warm-up comes
 * first, so that caches that keep a spare (the heap's empty slabs) are in
 * their steady state when the first snapshot is taken.
 *
 *   teardown [cycles]        prints one line per count and a verdict; exit 0 if all match
 *   teardown --child         (what each cycle execs: exits 0 at once)
 *
 * Fulcrum-only: Linux has no /proc/fulcrum/objects.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "objects.h"

#define WARMUP 100

static int cycles(const char *self, long n)
{
	for (long i = 0; i < n; i++) {
		int status;
		pid_t pid = fork();

		if (pid < 0) {
			fprintf(stderr, "teardown: fork %ld: %s\n", i, strerror(errno));
			return -1;
		}
		if (pid == 0) {
			execl(self, self, "--child", (char *)NULL);
			_exit(127);
		}
		if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status)) {
			fprintf(stderr, "teardown: cycle %ld: child status %#x\n", i, status);
			return -1;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct objects before, after;
	struct timespec pause = { 0, 10 * 1000 * 1000 };
	long n = argc > 1 ? strtol(argv[1], NULL, 10) : 10000;
	const char *self = "/bin/teardown";
	int ok;

	if (argc > 1 && strcmp(argv[1], "--child") == 0)
		return 0;
	if (n <= 0) {
		fprintf(stderr, "usage: teardown [cycles]\n");
		return 2;
	}
	/* The warm-up also runs every path this program takes later (its own pages count too). */
	if (cycles(self, WARMUP) || nanosleep(&pause, NULL) || objects_take(&after) ||
	    objects_take(&before))
		return 1;
	if (cycles(self, n))
		return 1;
	/* The last child's task goes after its final switch: give it a moment. */
	ok = objects_settle(&before, &after, 100, 10);
	if (ok < 0)
		return 1;
	objects_print("teardown:", &before, &after);
	printf("teardown: %ld fork/exec/exit/wait cycles: %s\n", n,
	       ok ? "every count back to where it started" : "FAILED: counts differ");
	return ok ? 0 : 1;
}

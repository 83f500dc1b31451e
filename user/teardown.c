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
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define OBJECTS	   "/proc/fulcrum/objects"
#define MAX_COUNTS 32
#define WARMUP	   100

struct snapshot {
	int n;
	char name[MAX_COUNTS][32];
	long long value[MAX_COUNTS];
};

static int take(struct snapshot *s)
{
	char buf[4096], *line, *save;
	int fd = open(OBJECTS, O_RDONLY), len;

	if (fd < 0) {
		fprintf(stderr, "teardown: %s: %s\n", OBJECTS, strerror(errno));
		return -1;
	}
	len = (int)read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (len <= 0)
		return -1;
	buf[len] = '\0';
	s->n = 0;
	for (line = strtok_r(buf, "\n", &save); line && s->n < MAX_COUNTS;
	     line = strtok_r(NULL, "\n", &save)) {
		if (sscanf(line, "%31s %lld", s->name[s->n], &s->value[s->n]) == 2)
			s->n++;
	}
	return s->n ? 0 : -1;
}

static int same(const struct snapshot *a, const struct snapshot *b)
{
	if (a->n != b->n)
		return 0;
	for (int i = 0; i < a->n; i++)
		if (strcmp(a->name[i], b->name[i]) || a->value[i] != b->value[i])
			return 0;
	return 1;
}

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
	struct snapshot before, after;
	struct timespec pause = { 0, 10 * 1000 * 1000 };
	long n = argc > 1 ? strtol(argv[1], NULL, 10) : 10000;
	const char *self = "/bin/teardown";
	int tries = 0, ok;

	if (argc > 1 && strcmp(argv[1], "--child") == 0)
		return 0;
	if (n <= 0) {
		fprintf(stderr, "usage: teardown [cycles]\n");
		return 2;
	}
	/* The warm-up also runs every path this program takes later (its own pages count too). */
	if (cycles(self, WARMUP) || nanosleep(&pause, NULL) || take(&after) || take(&before))
		return 1;
	if (cycles(self, n))
		return 1;
	/* The last child's task goes after its final switch: give it a moment. */
	do {
		nanosleep(&pause, NULL);
		if (take(&after))
			return 1;
		ok = same(&before, &after);
	} while (!ok && ++tries < 100);
	for (int i = 0; i < before.n; i++)
		printf("teardown: %-16s %10lld -> %10lld%s\n", before.name[i], before.value[i],
		       i < after.n ? after.value[i] : -1,
		       i < after.n && after.value[i] == before.value[i] ? "" : "   DIFFERS");
	printf("teardown: %ld fork/exec/exit/wait cycles: %s\n", n,
	       ok ? "every count back to where it started" : "FAILED: counts differ");
	return ok ? 0 : 1;
}

/*
 * stress oom: memory runs out while a small bystander keeps touching a
 * fresh page every 5 ms. Two hogs take 200 and 150 MiB and hold them; a
 * third maps 240 MiB and touches it all, which cannot fit beside them.
 * The OOM killer must pick the largest (the 200 MiB hog) and only it: the
 * third hog gets its memory once the first has died, the 150 MiB hog and
 * the bystander live on, and after everything exits every count is back.
 *
 * stress oom-copy: the same, but the third hog's pages are first touched
 * by the kernel: it preads a file over and over into its untouched 240 MiB,
 * so the page that cannot be had is wanted by a copy to user memory, not by
 * a user fault. The copy must call the OOM killer and wait as a fault does
 * (the 200 MiB hog dies), not fail with EFAULT or a short count.
 *
 * stress populate: with the same two hogs holding 350 MiB, a 240 MiB
 * mmap(MAP_POPULATE) in a child must fail with ENOMEM, killing nobody,
 * while a 1 MiB one still succeeds.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "stress.h"

#define MiB  (1024L * 1024)
#define PAGE 4096L

/* The file a reading hog preads: in the initrd, so reading it costs no memory. */
#define READ_SOURCE "/bin/stress"

struct hog {
	pid_t pid;
	long mib;
	bool by_read; /* its memory filled by pread (the kernel's copies), not by its stores */
	int ready_r;  /* one byte once its memory is all touched */
};

static int release_p[2] = { -1, -1 };

/*
 * Fills [p, p + len) with copies of READ_SOURCE, one pread each, and checks
 * them against a first copy read into the heap before: 0, or the exit
 * status that says what went wrong (printed).
 */
static int fill_by_read(char *p, long len)
{
	struct stat st;
	char *want;
	int fd = open(READ_SOURCE, O_RDONLY);

	if (fd < 0 || fstat(fd, &st) || st.st_size <= 0 || !(want = malloc((size_t)st.st_size)) ||
	    pread(fd, want, (size_t)st.st_size, 0) != st.st_size)
		return 4;
	for (long off = 0; off < len; off += st.st_size) {
		size_t n = (size_t)(len - off < st.st_size ? len - off : st.st_size);
		ssize_t got = pread(fd, p + off, n, 0);

		if (got != (ssize_t)n) {
			printf("stress oom-copy: pread of %zu bytes into fresh memory at +%ld MiB: %zd (%s)\n",
			       n, off / MiB, got, got < 0 ? strerror(errno) : "short");
			return 5;
		}
		if (memcmp(p + off, want, n)) {
			printf("stress oom-copy: the bytes read at +%ld MiB differ from the file\n",
			       off / MiB);
			return 6;
		}
	}
	free(want);
	close(fd);
	return 0;
}

/* The child's side: map and fill mib MiB, say so, hold it until the release. */
static void __attribute__((noreturn)) hog_main(long mib, bool by_read, int ready_w)
{
	char *p = mmap(NULL, (size_t)(mib * MiB), PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char c = 'R';
	int err;

	if (p == MAP_FAILED)
		_exit(2);
	if (by_read && (err = fill_by_read(p, mib * MiB)))
		_exit(err);
	for (long off = 0; !by_read && off < mib * MiB; off += PAGE)
		p[off] = 1;
	if (write(ready_w, &c, 1) != 1)
		_exit(3);
	while (read(release_p[0], &c, 1) < 0 && errno == EINTR)
		;
	_exit(0);
}

static int hog_start(struct hog *h, long mib, bool by_read)
{
	int p[2];

	if (pipe(p))
		return -1;
	h->mib = mib;
	h->by_read = by_read;
	h->pid = fork();
	if (h->pid == 0) {
		close(p[0]);
		close(release_p[1]);
		hog_main(mib, by_read, p[1]);
	}
	close(p[1]);
	h->ready_r = p[0];
	return h->pid < 0 ? -1 : 0;
}

/* 1 once the hog says its memory is touched, 0 if it died first or timeout_ms passed. */
static int hog_ready(struct hog *h, int timeout_ms)
{
	struct pollfd pfd = { .fd = h->ready_r, .events = POLLIN };
	char c;

	if (poll(&pfd, 1, timeout_ms) != 1)
		return 0;
	return read(h->ready_r, &c, 1) == 1;
}

/* The bystander: a fresh page every 5 ms until the release; writes its count of touches. */
static void __attribute__((noreturn)) bystander_main(int result_w)
{
	char *area = mmap(NULL, 64 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
			  0);
	struct pollfd pfd = { .fd = release_p[0], .events = POLLIN };
	long touches = 0;

	if (area == MAP_FAILED)
		_exit(2);
	while (poll(&pfd, 1, 5) == 0) {
		char *page = area + (touches % 64) * PAGE;

		madvise(page, PAGE, MADV_DONTNEED); /* so the touch needs a new page each time */
		page[0] = (char)touches;
		touches++;
	}
	if (write(result_w, &touches, sizeof(touches)) != sizeof(touches))
		_exit(3);
	_exit(0);
}

/* Waits up to timeout_ms for pid to end: its status, or -1 if it is still alive. */
static int wait_end(pid_t pid, int timeout_ms)
{
	int status;

	for (int waited = 0; waited <= timeout_ms; waited += 10) {
		pid_t got = waitpid(pid, &status, WNOHANG);

		if (got == pid)
			return status;
		if (got < 0 && errno != EINTR)
			return -2;
		sleep_ms(10);
	}
	return -1;
}

static const char *describe(int status)
{
	static char buf[64];

	if (status == -1)
		return "still alive";
	if (WIFSIGNALED(status))
		snprintf(buf, sizeof(buf), "killed by signal %d", WTERMSIG(status));
	else
		snprintf(buf, sizeof(buf), "exit %d", WEXITSTATUS(status));
	return buf;
}

static void show_now(const char *probe, const char *when);

static int setup(const char *probe, struct objects *before)
{
	pid_t pid;

	show_now(probe, "warm-up");
	pid = fork(); /* a warm-up fork, so the pipes and our own pages settle first */

	if (pid == 0)
		_exit(0);
	if (pid < 0 || waitpid(pid, NULL, 0) != pid)
		return probe_fail(probe, "warm-up fork failed");
	sleep_ms(20);
	if (objects_take(before))
		return 1;
	if (pipe(release_p))
		return probe_fail(probe, "pipe: %s", strerror(errno));
	printf("stress %s: before: free_pages %lld (%lld MiB), user_frames %lld\n", probe,
	       objects_get(before, "free_pages"), objects_get(before, "free_pages") * PAGE / MiB,
	       objects_get(before, "user_frames"));
	return 0;
}

static void show_now(const char *probe, const char *when)
{
	struct objects o;

	if (objects_take(&o) == 0)
		printf("stress %s: %s: free_pages %lld (%lld MiB), user_frames %lld, processes %lld\n",
		       probe, when, objects_get(&o, "free_pages"),
		       objects_get(&o, "free_pages") * PAGE / MiB, objects_get(&o, "user_frames"),
		       objects_get(&o, "processes"));
}

/* The oom probes: the third hog fills its memory with stores or, with by_read, by pread. */
static int oom_run(const char *probe, bool by_read)
{
	struct hog h[3];
	static struct objects before; /* not on the stack the probe counts */
	int result_p[2], st[3], by_status, fails = 0;
	bool largest_lived;
	long touches = 0;
	pid_t by;

	if (setup(probe, &before) || pipe(result_p))
		return 1;
	by = fork();
	if (by == 0) {
		close(result_p[0]);
		close(release_p[1]);
		bystander_main(result_p[1]);
	}
	close(result_p[1]);
	if (by < 0 || hog_start(&h[0], 200, false) || !hog_ready(&h[0], 120000) ||
	    hog_start(&h[1], 150, false) || !hog_ready(&h[1], 120000))
		return probe_fail(probe, "the first two hogs did not get their memory");
	show_now(probe, "two hogs holding 350 MiB");
	if (hog_start(&h[2], 240, by_read))
		return probe_fail(probe, "fork: %s", strerror(errno));
	printf("stress %s: hogs: pid %d %ld MiB, pid %d %ld MiB, pid %d %ld MiB%s; bystander pid %d\n",
	       probe, h[0].pid, h[0].mib, h[1].pid, h[1].mib, h[2].pid, h[2].mib,
	       by_read ? " by pread" : "", by);
	if (!hog_ready(&h[2], 300000))
		fails++;
	st[0] = wait_end(h[0].pid, 10000);
	st[1] = wait_end(h[1].pid, 0);
	st[2] = wait_end(h[2].pid, 0);
	by_status = wait_end(by, 0);
	printf("stress %s: after the third hog: %d MiB hog %s, %d MiB hog %s, %d MiB hog %s, "
	       "bystander %s\n",
	       probe, (int)h[0].mib, describe(st[0]), (int)h[1].mib, describe(st[1]), (int)h[2].mib,
	       fails ? "did not finish" : describe(st[2]), describe(by_status));
	show_now(probe, "the largest gone, the third hog holding 240 MiB");
	close(release_p[1]);
	largest_lived = st[0] == -1; /* the release ends it: wait for it too */
	for (int i = 0; i < 2; i++)
		if (st[i] == -1)
			st[i] = wait_end(h[i].pid, 60000);
	if (st[2] == -1)
		st[2] = wait_end(h[2].pid, 60000);
	if (by_status == -1) {
		if (read(result_p[0], &touches, sizeof(touches)) != sizeof(touches))
			touches = -1;
		by_status = wait_end(by, 60000);
	}
	printf("stress %s: bystander: %ld fresh pages touched, %s\n", probe, touches,
	       describe(by_status));
	close(result_p[0]);
	close(release_p[0]);
	for (int i = 0; i < 3; i++)
		close(h[i].ready_r);
	if (!objects_back(probe, &before))
		return probe_fail(probe, "counts are not back");
	if (fails || largest_lived || !WIFSIGNALED(st[0]) || WTERMSIG(st[0]) != SIGKILL)
		return probe_fail(probe, "the largest hog was not the one killed");
	if (st[1] < 0 || !WIFEXITED(st[1]) || WEXITSTATUS(st[1]) || st[2] < 0 ||
	    !WIFEXITED(st[2]) || WEXITSTATUS(st[2]))
		return probe_fail(probe, "another hog died too");
	if (by_status < 0 || !WIFEXITED(by_status) || WEXITSTATUS(by_status) || touches <= 0)
		return probe_fail(probe, "the bystander did not live through it");
	printf("stress %s: PASS: the largest (pid %d, %ld MiB) killed, the others and the bystander "
	       "lived%s; counts back\n",
	       probe, h[0].pid, h[0].mib, by_read ? ", every pread whole" : "");
	return 0;
}

int probe_oom(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return oom_run("oom", false);
}

int probe_oom_copy(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return oom_run("oom-copy", true);
}

/* In a child: a populate that cannot be had must fail with ENOMEM; a small one must work. */
static int populate_child(void)
{
	void *big = mmap(NULL, (size_t)(240 * MiB), PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	void *small;

	if (big != MAP_FAILED)
		return 3; /* it said yes to memory it could not have */
	if (errno != ENOMEM)
		return 4;
	small = mmap(NULL, (size_t)MiB, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (small == MAP_FAILED)
		return 5;
	((char *)small)[MiB - 1] = 1;
	return 0;
}

int probe_populate(int argc, char **argv)
{
	struct hog h[2];
	static struct objects before; /* not on the stack the probe counts */
	int st, hog_st[2];
	pid_t pid;

	(void)argc;
	(void)argv;
	if (setup("populate", &before))
		return 1;
	if (hog_start(&h[0], 200, false) || !hog_ready(&h[0], 120000) ||
	    hog_start(&h[1], 150, false) || !hog_ready(&h[1], 120000))
		return probe_fail("populate", "the hogs did not get their memory");
	show_now("populate", "two hogs holding 350 MiB");
	pid = fork();
	if (pid == 0)
		_exit(populate_child());
	st = pid > 0 ? wait_end(pid, 120000) : -2;
	hog_st[0] = wait_end(h[0].pid, 0);
	hog_st[1] = wait_end(h[1].pid, 0);
	printf("stress populate: 240 MiB MAP_POPULATE child: %s (0: ENOMEM, then 1 MiB worked; "
	       "3: it succeeded); hogs %s, %s\n",
	       describe(st), describe(hog_st[0]),
	       hog_st[1] == -1 ? "still alive" : describe(hog_st[1]));
	close(release_p[1]);
	for (int i = 0; i < 2; i++) {
		if (hog_st[i] == -1)
			hog_st[i] = wait_end(h[i].pid, 60000);
		close(h[i].ready_r);
	}
	close(release_p[0]);
	if (!objects_back("populate", &before))
		return probe_fail("populate", "counts are not back");
	if (st < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
		return probe_fail("populate", "the MAP_POPULATE child: %s", describe(st));
	for (int i = 0; i < 2; i++)
		if (hog_st[i] < 0 || !WIFEXITED(hog_st[i]) || WEXITSTATUS(hog_st[i]))
			return probe_fail("populate", "a hog: %s", describe(hog_st[i]));
	printf("stress populate: PASS: MAP_POPULATE beyond free memory failed with ENOMEM, nobody "
	       "killed; counts back\n");
	return 0;
}

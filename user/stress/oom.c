/*
 * stress oom: memory runs out while a small bystander keeps touching a
 * fresh page every 5 ms. Two hogs take 200 and 150 MiB and hold them; a
 * third maps 240 MiB and touches it all, which cannot fit beside them.
 * The OOM killer must pick the largest (the 200 MiB hog) and only it: the
 * third hog gets its memory once the first has died, the 150 MiB hog and
 * the bystander live on, and after everything exits every count is back.
 *
 * stress populate: with the same two hogs holding 350 MiB, a 240 MiB
 * mmap(MAP_POPULATE) in a child must fail with ENOMEM, killing nobody,
 * while a 1 MiB one still succeeds.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "stress.h"

#define MiB  (1024L * 1024)
#define PAGE 4096L

struct hog {
	pid_t pid;
	long mib;
	int ready_r; /* one byte once its memory is all touched */
};

static int release_p[2] = { -1, -1 };

/* The child's side: map and touch mib MiB, say so, hold it until the release. */
static void __attribute__((noreturn)) hog_main(long mib, int ready_w)
{
	char *p = mmap(NULL, (size_t)(mib * MiB), PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char c = 'R';

	if (p == MAP_FAILED)
		_exit(2);
	for (long off = 0; off < mib * MiB; off += PAGE)
		p[off] = 1;
	if (write(ready_w, &c, 1) != 1)
		_exit(3);
	while (read(release_p[0], &c, 1) < 0 && errno == EINTR)
		;
	_exit(0);
}

static int hog_start(struct hog *h, long mib)
{
	int p[2];

	if (pipe(p))
		return -1;
	h->mib = mib;
	h->pid = fork();
	if (h->pid == 0) {
		close(p[0]);
		close(release_p[1]);
		hog_main(mib, p[1]);
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

/* Our own stack as deep as the probe goes later, so its pages are there before counting. */
static void __attribute__((noinline)) touch_stack(void)
{
	volatile char buf[64 * 1024];

	for (size_t i = 0; i < sizeof(buf); i += PAGE)
		buf[i] = 0;
}

static int setup(const char *probe, struct objects *before)
{
	pid_t pid;

	touch_stack();
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

int probe_oom(int argc, char **argv)
{
	struct hog h[3];
	struct objects before;
	int result_p[2], st[3], by_status, fails = 0;
	long touches = 0;
	pid_t by;

	(void)argc;
	(void)argv;
	if (setup("oom", &before) || pipe(result_p))
		return 1;
	by = fork();
	if (by == 0) {
		close(result_p[0]);
		close(release_p[1]);
		bystander_main(result_p[1]);
	}
	close(result_p[1]);
	if (by < 0 || hog_start(&h[0], 200) || !hog_ready(&h[0], 120000) || hog_start(&h[1], 150) ||
	    !hog_ready(&h[1], 120000))
		return probe_fail("oom", "the first two hogs did not get their memory");
	show_now("oom", "two hogs holding 350 MiB");
	if (hog_start(&h[2], 240))
		return probe_fail("oom", "fork: %s", strerror(errno));
	printf("stress oom: hogs: pid %d %ld MiB, pid %d %ld MiB, pid %d %ld MiB; bystander pid %d\n",
	       h[0].pid, h[0].mib, h[1].pid, h[1].mib, h[2].pid, h[2].mib, by);
	if (!hog_ready(&h[2], 300000))
		fails++;
	st[0] = wait_end(h[0].pid, 10000);
	st[1] = wait_end(h[1].pid, 0);
	st[2] = wait_end(h[2].pid, 0);
	by_status = wait_end(by, 0);
	printf("stress oom: after the third hog: %d MiB hog %s, %d MiB hog %s, %d MiB hog %s, "
	       "bystander %s\n",
	       (int)h[0].mib, describe(st[0]), (int)h[1].mib, describe(st[1]), (int)h[2].mib,
	       fails ? "did not finish" : describe(st[2]), describe(by_status));
	show_now("oom", "the largest gone, the third hog holding 240 MiB");
	close(release_p[1]);
	if (st[1] == -1)
		st[1] = wait_end(h[1].pid, 60000);
	if (st[2] == -1)
		st[2] = wait_end(h[2].pid, 60000);
	if (by_status == -1) {
		if (read(result_p[0], &touches, sizeof(touches)) != sizeof(touches))
			touches = -1;
		by_status = wait_end(by, 60000);
	}
	printf("stress oom: bystander: %ld fresh pages touched, %s\n", touches, describe(by_status));
	close(result_p[0]);
	close(release_p[0]);
	for (int i = 0; i < 3; i++)
		close(h[i].ready_r);
	if (!objects_back("oom", &before))
		return probe_fail("oom", "counts are not back");
	if (fails || st[0] == -1 || !WIFSIGNALED(st[0]) || WTERMSIG(st[0]) != SIGKILL)
		return probe_fail("oom", "the largest hog was not the one killed");
	if (st[1] < 0 || !WIFEXITED(st[1]) || WEXITSTATUS(st[1]) || st[2] < 0 ||
	    !WIFEXITED(st[2]) || WEXITSTATUS(st[2]))
		return probe_fail("oom", "another hog died too");
	if (by_status < 0 || !WIFEXITED(by_status) || WEXITSTATUS(by_status) || touches <= 0)
		return probe_fail("oom", "the bystander did not live through it");
	printf("stress oom: PASS: the largest (pid %d, %ld MiB) killed, the others and the bystander "
	       "lived; counts back\n",
	       h[0].pid, h[0].mib);
	return 0;
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
	struct objects before;
	int st, hog_st[2];
	pid_t pid;

	(void)argc;
	(void)argv;
	if (setup("populate", &before))
		return 1;
	if (hog_start(&h[0], 200) || !hog_ready(&h[0], 120000) || hog_start(&h[1], 150) ||
	    !hog_ready(&h[1], 120000))
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

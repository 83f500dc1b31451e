/*
 * t_rlimits: resource limits set with setrlimit/prlimit64 and enforced as
 * Linux does: RLIMIT_NOFILE (-EMFILE from open and dup, -EBADF from dup2,
 * -EINVAL from F_DUPFD and poll past it), RLIMIT_AS (-ENOMEM from mmap, a
 * refused brk), RLIMIT_STACK (the stack an execve'd program gets), each
 * inherited across fork; bad arguments as Linux. Every case changes its
 * limits in a child. Runs on Linux and Fulcrum.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../common/child.h"
#include "../common/rawsys.h"
#include "../common/report.h"

#define MiB (1024L * 1024)

struct k_rlimit {
	unsigned long cur, max;
};

static long set_limit(int resource, unsigned long cur, unsigned long max)
{
	struct k_rlimit r = { cur, max };

	return raw4(SYS_prlimit64, 0, resource, &r, 0);
}

/* A child case: 0 if it held, else the line number of the first check that did not. */
#define CHECK(cond)                      \
	do {                             \
		if (!(cond))             \
			return __LINE__; \
	} while (0)

static const char *run_child(int (*fn)(void *))
{
	int status = child_run(fn, NULL);

	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return NULL;
	if (WIFEXITED(status))
		return report_why("the check at line %d failed", WEXITSTATUS(status));
	return report_why("child: %s", child_describe(status));
}

static int nofile_grandchild(void *arg)
{
	struct k_rlimit r;

	(void)arg;
	CHECK(raw4(SYS_prlimit64, 0, RLIMIT_NOFILE, 0, &r) == 0);
	CHECK(r.cur == 10 && r.max == 20);
	CHECK(raw2(SYS_open, "/", O_RDONLY) == 9); /* 3..8 came with the fork */
	CHECK(raw2(SYS_open, "/", O_RDONLY) == -EMFILE);
	return 0;
}

static int nofile_child(void *arg)
{
	struct pollfd pfd[11];
	long fd = 0;
	int status;

	(void)arg;
	for (int i = 3; i < 64; i++)
		raw1(SYS_close, i);
	CHECK(set_limit(RLIMIT_NOFILE, 10, 20) == 0);
	for (int i = 3; i < 10; i++) {
		fd = raw2(SYS_open, "/", O_RDONLY);
		CHECK(fd == i);
	}
	CHECK(raw2(SYS_open, "/", O_RDONLY) == -EMFILE);
	CHECK(raw1(SYS_dup, 0) == -EMFILE);
	CHECK(raw2(SYS_dup2, 0, 10) == -EBADF);
	CHECK(raw3(SYS_dup3, 0, 12, 0) == -EBADF);
	CHECK(raw3(SYS_fcntl, 0, F_DUPFD, 10) == -EINVAL);
	CHECK(raw3(SYS_fcntl, 0, F_DUPFD, 5) == -EMFILE);
	for (int i = 0; i < 11; i++)
		pfd[i] = (struct pollfd){ .fd = -1 };
	CHECK(raw3(SYS_poll, pfd, 11, 0) == -EINVAL);
	CHECK(raw3(SYS_poll, pfd, 10, 0) == 0);
	raw1(SYS_close, 9);
	CHECK(raw2(SYS_dup2, 0, 9) == 9);
	raw1(SYS_close, 9);
	status = child_run(nofile_grandchild, NULL); /* fork keeps the limit */
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	/* A lower limit than the open descriptors: they stay, new ones fail. */
	CHECK(set_limit(RLIMIT_NOFILE, 5, 20) == 0);
	CHECK(raw1(SYS_close, 8) == 0);
	CHECK(raw2(SYS_open, "/", O_RDONLY) == -EMFILE);
	/* Raising back, up to the hard limit (root may raise that too). */
	CHECK(set_limit(RLIMIT_NOFILE, 20, 20) == 0);
	CHECK(raw2(SYS_open, "/", O_RDONLY) == 8);
	return 0;
}

static const char *nofile(void)
{
	return run_child(nofile_child);
}

static int as_child(void *arg)
{
	struct k_rlimit r;
	long p, brk0;

	(void)arg;
	CHECK(set_limit(RLIMIT_AS, 64 * MiB, 128 * MiB) == 0);
	CHECK(raw4(SYS_prlimit64, 0, RLIMIT_AS, 0, &r) == 0);
	CHECK(r.cur == 64 * MiB && r.max == 128 * MiB);
	CHECK(raw6(SYS_mmap, 0, 100 * MiB, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) == -ENOMEM);
	CHECK(raw6(SYS_mmap, 0, 100 * MiB, PROT_READ, MAP_SHARED | MAP_ANONYMOUS, -1, 0) == -ENOMEM);
	p = raw6(SYS_mmap, 0, 4 * MiB, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(p > 0);
	CHECK(raw2(SYS_munmap, p, 4 * MiB) == 0);
	brk0 = raw1(SYS_brk, 0);
	CHECK(raw1(SYS_brk, brk0 + 100 * MiB) == brk0); /* refused: the old break */
	/* Raised again: the same mapping fits. */
	CHECK(set_limit(RLIMIT_AS, 128 * MiB, 128 * MiB) == 0);
	p = raw6(SYS_mmap, 0, 100 * MiB, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(p > 0);
	return 0;
}

static const char *address_space(void)
{
	return run_child(as_child);
}

/*
 * RLIMIT_AS bounds new mappings only: lowered below what is already
 * mapped (and resident), the pages of an existing mapping are still made
 * on first touch, by the program and by a kernel copy (read into it).
 */
static int as_below_child(void *arg)
{
	int fds[2];
	char *m = (char *)raw6(SYS_mmap, 0, 1 * MiB, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	(void)arg;
	CHECK((long)m > 0);
	CHECK(set_limit(RLIMIT_AS, 64 * 1024, ~0UL) == 0);
	CHECK((long)raw6(SYS_mmap, 0, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) == -ENOMEM);
	for (long off = 0; off < MiB / 2; off += 4096)
		m[off] = 1;
	CHECK(raw1(SYS_pipe, fds) == 0);
	CHECK(raw3(SYS_write, fds[1], "abc", 3) == 3);
	CHECK(raw3(SYS_read, fds[0], m + MiB / 2 + 100, 3) == 3);
	CHECK(!memcmp(m + MiB / 2 + 100, "abc", 3));
	return 0;
}

static const char *as_below_mapped(void)
{
	return run_child(as_below_child);
}

/* --stack-probe KIB: uses KIB KiB of stack, 4 KiB per frame, then exits 0. */
static int probe(int kib)
{
	volatile char frame[4096];

	frame[0] = (char)kib;
	frame[4095] = 1;
	return kib <= 4 ? frame[4095] - 1 : probe(kib - 4) + frame[4095] - 1;
}

static int stack_exec(int kib)
{
	char self[256], arg[16];
	char *argv[] = { self, "--stack-probe", arg, NULL };
	int pid = fork(), status;

	if (pid == 0) {
		snprintf(self, sizeof(self), "%s", test_self());
		snprintf(arg, sizeof(arg), "%d", kib);
		execv(self, argv);
		_exit(126);
	}
	if (pid < 0)
		return -1;
	status = child_wait(pid);
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	return WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV ? SIGSEGV : -2;
}

static int stack_child(void *arg)
{
	struct k_rlimit r;

	(void)arg;
	CHECK(stack_exec(1024) == 0); /* the default stack holds a megabyte */
	CHECK(set_limit(RLIMIT_STACK, 256 * 1024, ~0UL) == 0);
	CHECK(raw4(SYS_prlimit64, 0, RLIMIT_STACK, 0, &r) == 0);
	CHECK(r.cur == 256 * 1024 && r.max == ~0UL);
	CHECK(stack_exec(128) == 0);
	CHECK(stack_exec(1024) == SIGSEGV);
	return 0;
}

static const char *stack(void)
{
	return run_child(stack_child);
}

static const char *bad_arguments(void)
{
	struct k_rlimit r = { 10, 5 };

	EXPECT_ERR(raw4(SYS_prlimit64, 0, RLIMIT_NOFILE, &r, 0), EINVAL);
	EXPECT_ERR(raw4(SYS_prlimit64, 0, 99, 0, &r), EINVAL);
	EXPECT_ERR(raw4(SYS_prlimit64, -1, RLIMIT_NOFILE, 0, &r), ESRCH);
	EXPECT_ERR(raw4(SYS_prlimit64, 0, RLIMIT_NOFILE, (void *)8, 0), EFAULT);
	EXPECT_ERR(raw4(SYS_prlimit64, 0, RLIMIT_NOFILE, 0, (void *)8), EFAULT);
	EXPECT_ERR(raw2(SYS_setrlimit, RLIMIT_AS, &r), EINVAL);
	return NULL;
}

static const struct test_case cases[] = {
	{ "nofile", nofile },
	{ "address_space", address_space },
	{ "as_below_mapped", as_below_mapped },
	{ "stack", stack },
	{ "bad_arguments", bad_arguments },
};

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "--stack-probe"))
		return probe(atoi(argv[2]));
	test_self_init(argv[0], "t_rlimits");
	report_run_all(cases, REPORT_NCASES(cases));
	return report_done("t_rlimits");
}

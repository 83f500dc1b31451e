/*
 * t_userland: the system calls busybox's applets needed that Fulcrum
 * lacked -- readlink/readlinkat (with /proc/self and /proc/self/exe),
 * prctl (name, parent-death signal, timer slack, no_new_privs), getrandom,
 * getgroups/setgroups, sendfile, statfs/fstatfs and syslog -- with their results and errors as Linux
 * gives them. Runs on Linux and Fulcrum.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../common/child.h"
#include "../common/rawsys.h"
#include "../common/report.h"

#define AT_FDCWD_ (-100)

#define PR_SET_PDEATHSIG_    1
#define PR_GET_PDEATHSIG_    2
#define PR_SET_NAME_	     15
#define PR_GET_NAME_	     16
#define PR_SET_TIMERSLACK_   29
#define PR_GET_TIMERSLACK_   30
#define PR_SET_NO_NEW_PRIVS_ 38
#define PR_GET_NO_NEW_PRIVS_ 39

#define GRND_NONBLOCK_ 1
#define GRND_RANDOM_   2
#define GRND_INSECURE_ 4

static const char *readlink_self(void)
{
	char buf[32], want[32];
	long n = EXPECT_OK(raw3(SYS_readlink, "/proc/self", buf, sizeof(buf)));

	snprintf(want, sizeof(want), "%d", getpid());
	EXPECT(n == (long)strlen(want) && !memcmp(buf, want, (size_t)n),
	       "/proc/self -> %.*s, want %s", (int)n, buf, want);
	return NULL;
}

static const char *readlink_exe(void)
{
	char buf[4096];
	long n = EXPECT_OK(raw3(SYS_readlink, "/proc/self/exe", buf, sizeof(buf) - 1));
	size_t tail = strlen("/t_userland");

	buf[n] = '\0';
	EXPECT(buf[0] == '/', "/proc/self/exe -> %s: not absolute", buf);
	EXPECT((size_t)n > tail && !strcmp(buf + n - tail, "/t_userland"),
	       "/proc/self/exe -> %s, want .../t_userland", buf);
	/* The same through readlinkat, and cut short by a small buffer (no NUL written). */
	EXPECT_EQ(raw4(SYS_readlinkat, AT_FDCWD_, "/proc/self/exe", buf, 1), 1);
	EXPECT(buf[0] == '/' && buf[1] != '\0', "readlinkat with 1 byte wrote %.2s", buf);
	return NULL;
}

static const char *readlink_errors(void)
{
	char buf[64];

	EXPECT_ERR(raw3(SYS_readlink, "/proc/self", buf, 0), EINVAL);
	EXPECT_ERR(raw3(SYS_readlink, "/proc/self", buf, -1), EINVAL);
	EXPECT_ERR(raw3(SYS_readlink, "/", buf, sizeof(buf)), EINVAL);
	EXPECT_ERR(raw3(SYS_readlink, "/proc/self/stat", buf, sizeof(buf)), EINVAL);
	EXPECT_ERR(raw3(SYS_readlink, "/no/such/link", buf, sizeof(buf)), ENOENT);
	EXPECT_ERR(raw3(SYS_readlink, "", buf, sizeof(buf)), ENOENT);
	EXPECT_ERR(raw3(SYS_readlink, BAD_PTR_LOW, buf, sizeof(buf)), EFAULT);
	EXPECT_ERR(raw3(SYS_readlink, "/proc/self", BAD_PTR_LOW, sizeof(buf)), EFAULT);
	EXPECT_ERR(raw4(SYS_readlinkat, 9999, "x", buf, sizeof(buf)), EBADF);
	return NULL;
}

static const char *prctl_name(void)
{
	char name[32] = { 0 }, comm[64] = { 0 }, old[16];
	FILE *f;

	EXPECT_OK(raw2(SYS_prctl, PR_GET_NAME_, old));
	EXPECT_OK(raw2(SYS_prctl, PR_SET_NAME_, "abcdefghijklmnopqrstu"));
	EXPECT_OK(raw2(SYS_prctl, PR_GET_NAME_, name));
	EXPECT(!strcmp(name, "abcdefghijklmno"), "PR_GET_NAME = %s, want the first 15 bytes", name);
	f = fopen("/proc/self/comm", "r");
	EXPECT(f, "/proc/self/comm: %s", strerror(errno));
	EXPECT(fgets(comm, sizeof(comm), f), "/proc/self/comm is empty");
	fclose(f);
	EXPECT(!strcmp(comm, "abcdefghijklmno\n"), "/proc/self/comm = %s", comm);
	EXPECT_ERR(raw2(SYS_prctl, PR_SET_NAME_, BAD_PTR_LOW), EFAULT);
	EXPECT_ERR(raw2(SYS_prctl, PR_GET_NAME_, BAD_PTR_LOW), EFAULT);
	EXPECT_OK(raw2(SYS_prctl, PR_SET_NAME_, old));
	return NULL;
}

static const char *prctl_options(void)
{
	int sig = -1;

	EXPECT_ERR(raw2(SYS_prctl, PR_SET_PDEATHSIG_, 65), EINVAL);
	EXPECT_OK(raw2(SYS_prctl, PR_SET_PDEATHSIG_, SIGUSR1));
	EXPECT_OK(raw2(SYS_prctl, PR_GET_PDEATHSIG_, &sig));
	EXPECT_EQ(sig, SIGUSR1);
	EXPECT_ERR(raw2(SYS_prctl, PR_GET_PDEATHSIG_, BAD_PTR_LOW), EFAULT);
	EXPECT_OK(raw2(SYS_prctl, PR_SET_PDEATHSIG_, 0));
	EXPECT_OK(raw2(SYS_prctl, PR_GET_PDEATHSIG_, &sig));
	EXPECT_EQ(sig, 0);
	EXPECT_EQ(raw1(SYS_prctl, PR_GET_TIMERSLACK_), 50000);
	EXPECT_OK(raw2(SYS_prctl, PR_SET_TIMERSLACK_, 1000));
	EXPECT_EQ(raw1(SYS_prctl, PR_GET_TIMERSLACK_), 1000);
	EXPECT_OK(raw2(SYS_prctl, PR_SET_TIMERSLACK_, 0)); /* back to the default */
	EXPECT_EQ(raw1(SYS_prctl, PR_GET_TIMERSLACK_), 50000);
	EXPECT_ERR(raw2(SYS_prctl, 0x7fff1234, 0), EINVAL);
	return NULL;
}

/* In a child: no_new_privs is sticky, so the test process keeps its own. */
static int nnp_child(void *arg)
{
	(void)arg;
	if (raw5(SYS_prctl, PR_GET_NO_NEW_PRIVS_, 0, 0, 0, 0) != 0)
		return 1;
	if (raw5(SYS_prctl, PR_SET_NO_NEW_PRIVS_, 2, 0, 0, 0) != -EINVAL)
		return 2;
	if (raw5(SYS_prctl, PR_SET_NO_NEW_PRIVS_, 1, 1, 0, 0) != -EINVAL)
		return 3;
	if (raw5(SYS_prctl, PR_SET_NO_NEW_PRIVS_, 1, 0, 0, 0) != 0)
		return 4;
	if (raw5(SYS_prctl, PR_GET_NO_NEW_PRIVS_, 0, 0, 0, 0) != 1)
		return 5;
	if (raw5(SYS_prctl, PR_GET_NO_NEW_PRIVS_, 1, 0, 0, 0) != -EINVAL)
		return 6;
	return 0;
}

static const char *prctl_no_new_privs(void)
{
	int st = child_run(nnp_child, NULL);

	EXPECT(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child: %s", child_describe(st));
	return NULL;
}

/*
 * The middle process starts a grandchild that asks for SIGKILL when its
 * parent dies, then exits: the grandchild dies of it, which the test sees
 * as EOF on a pipe only the grandchild holds open.
 */
static int pdeath_middle(void *arg)
{
	int *fds = arg, ready[2];
	char c;

	if (pipe(ready))
		return 1;
	if (fork() == 0) {
		close(fds[0]);
		close(ready[0]);
		if (raw2(SYS_prctl, PR_SET_PDEATHSIG_, SIGKILL))
			_exit(1);
		close(ready[1]);
		for (;;)
			pause();
	}
	close(fds[1]);
	close(ready[1]);
	return read(ready[0], &c, 1) == 0 ? 0 : 2; /* EOF: the grandchild is set up */
}

static const char *prctl_pdeathsig_sent(void)
{
	int fds[2], st;
	struct pollfd pfd;
	char c;

	EXPECT_OK(raw2(SYS_pipe2, fds, 0));
	st = child_run(pdeath_middle, fds);
	close(fds[1]);
	EXPECT(WIFEXITED(st) && WEXITSTATUS(st) == 0, "middle: %s", child_describe(st));
	pfd = (struct pollfd){ .fd = fds[0], .events = POLLIN };
	EXPECT(poll(&pfd, 1, 20000) == 1, "the grandchild outlived its parent");
	EXPECT(read(fds[0], &c, 1) == 0, "the pipe did not reach EOF");
	close(fds[0]);
	return NULL;
}

static const char *getrandom_calls(void)
{
	unsigned char buf[300];
	int nonzero = 0;

	memset(buf, 0, sizeof(buf));
	EXPECT_EQ(raw3(SYS_getrandom, buf, sizeof(buf), 0), sizeof(buf));
	for (size_t i = 0; i < sizeof(buf); i++)
		nonzero += buf[i] != 0;
	EXPECT(nonzero > 200, "only %d of 300 random bytes are non-zero", nonzero);
	EXPECT_EQ(raw3(SYS_getrandom, buf, 5, GRND_NONBLOCK_), 5);
	EXPECT_EQ(raw3(SYS_getrandom, buf, 7, GRND_RANDOM_ | GRND_NONBLOCK_), 7);
	EXPECT_EQ(raw3(SYS_getrandom, buf, 3, GRND_INSECURE_), 3);
	EXPECT_EQ(raw3(SYS_getrandom, buf, 0, 0), 0);
	EXPECT_ERR(raw3(SYS_getrandom, buf, 8, 8), EINVAL);
	EXPECT_ERR(raw3(SYS_getrandom, buf, 8, GRND_RANDOM_ | GRND_INSECURE_), EINVAL);
	EXPECT_ERR(raw3(SYS_getrandom, BAD_PTR_LOW, 8, 0), EFAULT);
	return NULL;
}

static const char *groups_calls(void)
{
	unsigned int old[64], set[3] = { 30, 10, 20 }, got[4] = { 0 };
	long n = EXPECT_OK(raw2(SYS_getgroups, 0, NULL));

	EXPECT(n <= 64, "%ld groups to begin with", n);
	EXPECT_EQ(raw2(SYS_getgroups, 64, old), n);
	EXPECT_ERR(raw2(SYS_getgroups, -1, old), EINVAL);
	EXPECT_OK(raw2(SYS_setgroups, 3, set));
	EXPECT_EQ(raw2(SYS_getgroups, 0, NULL), 3);
	EXPECT_ERR(raw2(SYS_getgroups, 2, got), EINVAL);
	EXPECT_ERR(raw2(SYS_getgroups, 3, BAD_PTR_LOW), EFAULT);
	EXPECT_EQ(raw2(SYS_getgroups, 4, got), 3);
	EXPECT(got[0] == 10 && got[1] == 20 && got[2] == 30, "getgroups = %u %u %u, want 10 20 30",
	       got[0], got[1], got[2]);
	EXPECT_ERR(raw2(SYS_setgroups, -1, set), EINVAL);
	EXPECT_ERR(raw2(SYS_setgroups, 65537, set), EINVAL);
	EXPECT_ERR(raw2(SYS_setgroups, 1, BAD_PTR_LOW), EFAULT);
	EXPECT_OK(raw2(SYS_setgroups, 0, NULL));
	EXPECT_EQ(raw2(SYS_getgroups, 0, NULL), 0);
	EXPECT_OK(raw2(SYS_setgroups, n, old));
	return NULL;
}

/* Reads exactly n bytes from fd (a pipe): 0, or -1. */
static int read_all(int fd, char *buf, size_t n)
{
	while (n) {
		ssize_t got = read(fd, buf, n);

		if (got <= 0)
			return -1;
		buf += got;
		n -= (size_t)got;
	}
	return 0;
}

static const char *sendfile_copies(void)
{
	char want[100], got[100];
	long off = 0;
	int p[2], fd = (int)EXPECT_OK(raw2(SYS_open, "/proc/self/exe", O_RDONLY));

	EXPECT_OK(raw2(SYS_pipe2, p, 0));
	EXPECT_EQ(raw4(SYS_pread64, fd, want, sizeof(want), 0), sizeof(want));
	/* With an offset: read there, the offset moves, the file's own does not. */
	EXPECT_EQ(raw4(SYS_sendfile, p[1], fd, &off, sizeof(want)), sizeof(want));
	EXPECT_EQ(off, sizeof(want));
	EXPECT_EQ(raw3(SYS_lseek, fd, 0, SEEK_CUR), 0);
	EXPECT(!read_all(p[0], got, sizeof(got)) && !memcmp(got, want, sizeof(want)),
	       "the pipe did not get the file's first 100 bytes");
	/* Without: from the file's offset, which moves. */
	EXPECT_EQ(raw4(SYS_sendfile, p[1], fd, NULL, 16), 16);
	EXPECT_EQ(raw3(SYS_lseek, fd, 0, SEEK_CUR), 16);
	EXPECT(!read_all(p[0], got, 16) && !memcmp(got, want, 16), "the second copy differs");
	EXPECT_EQ(raw4(SYS_sendfile, p[1], fd, NULL, 0), 0);
	raw1(SYS_close, p[0]);
	raw1(SYS_close, p[1]);
	raw1(SYS_close, fd);
	return NULL;
}

static const char *sendfile_errors(void)
{
	long off = -1;
	int p[2], fd = (int)EXPECT_OK(raw2(SYS_open, "/proc/self/exe", O_RDONLY));
	int app = (int)EXPECT_OK(raw2(SYS_open, "/dev/null", O_WRONLY | O_APPEND));

	EXPECT_OK(raw2(SYS_pipe2, p, 0));
	EXPECT_ERR(raw4(SYS_sendfile, p[1], 9999, NULL, 10), EBADF);
	EXPECT_ERR(raw4(SYS_sendfile, 9999, fd, NULL, 10), EBADF);
	EXPECT_ERR(raw4(SYS_sendfile, p[0], p[1], NULL, 10), EBADF); /* in: not readable */
	EXPECT_ERR(raw4(SYS_sendfile, fd, fd, NULL, 10), EBADF);     /* out: not writable */
	EXPECT_ERR(raw4(SYS_sendfile, p[1], fd, &off, 10), EINVAL);
	EXPECT_ERR(raw4(SYS_sendfile, p[1], fd, BAD_PTR_LOW, 10), EFAULT);
	EXPECT_ERR(raw4(SYS_sendfile, app, fd, NULL, 10), EINVAL);
	off = 0;
	EXPECT_ERR(raw4(SYS_sendfile, p[1], p[0], &off, 10), ESPIPE);
	raw1(SYS_close, p[0]);
	raw1(SYS_close, p[1]);
	raw1(SYS_close, fd);
	raw1(SYS_close, app);
	return NULL;
}

static const char *statfs_calls(void)
{
	struct statfs sf;
	int fd, p[2];

	EXPECT_OK(raw2(SYS_statfs, "/proc/self", &sf));
	EXPECT(sf.f_type == 0x9fa0, "statfs(/proc).f_type = %#lx, want PROC_SUPER_MAGIC",
	       (long)sf.f_type);
	fd = (int)EXPECT_OK(raw2(SYS_open, "/proc/self/status", O_RDONLY));
	EXPECT_OK(raw2(SYS_fstatfs, fd, &sf));
	EXPECT(sf.f_type == 0x9fa0, "fstatfs(/proc/self/status).f_type = %#lx", (long)sf.f_type);
	raw1(SYS_close, fd);
	EXPECT_OK(raw2(SYS_pipe2, p, 0));
	EXPECT_OK(raw2(SYS_fstatfs, p[0], &sf));
	EXPECT(sf.f_type == 0x50495045, "fstatfs(pipe).f_type = %#lx, want PIPEFS_MAGIC",
	       (long)sf.f_type);
	raw1(SYS_close, p[0]);
	raw1(SYS_close, p[1]);
	EXPECT_ERR(raw2(SYS_statfs, "/no/such/dir", &sf), ENOENT);
	EXPECT_ERR(raw2(SYS_statfs, BAD_PTR_LOW, &sf), EFAULT);
	EXPECT_ERR(raw2(SYS_statfs, "/proc", BAD_PTR_LOW), EFAULT);
	EXPECT_ERR(raw2(SYS_fstatfs, 9999, &sf), EBADF);
	EXPECT_ERR(raw2(SYS_fstatfs, 0, BAD_PTR_LOW), EFAULT);
	return NULL;
}

/* syslog as dmesg calls it: the buffer's size, then the whole log. */
static const char *syslog_calls(void)
{
	static char buf[4096];
	long size = EXPECT_OK(raw3(SYS_syslog, 10, NULL, 0));
	long got;

	EXPECT(size >= 4096, "SIZE_BUFFER = %ld", size);
	got = EXPECT_OK(raw3(SYS_syslog, 3, buf, sizeof(buf)));
	EXPECT(got <= (long)sizeof(buf), "READ_ALL returned %ld of %zu bytes", got, sizeof(buf));
	EXPECT_EQ(raw3(SYS_syslog, 3, buf, 0), 0);
	EXPECT_ERR(raw3(SYS_syslog, 3, buf, -1), EINVAL);
	EXPECT_ERR(raw3(SYS_syslog, 3, NULL, 10), EINVAL);
	EXPECT_ERR(raw3(SYS_syslog, 99, NULL, 0), EINVAL);
	return NULL;
}

static const struct test_case cases[] = {
	{ "readlink_proc_self", readlink_self },
	{ "readlink_proc_self_exe", readlink_exe },
	{ "readlink_errors", readlink_errors },
	{ "prctl_name", prctl_name },
	{ "prctl_options", prctl_options },
	{ "prctl_no_new_privs", prctl_no_new_privs },
	{ "prctl_pdeathsig_sent", prctl_pdeathsig_sent },
	{ "getrandom", getrandom_calls },
	{ "getgroups_setgroups", groups_calls },
	{ "sendfile_copies", sendfile_copies },
	{ "sendfile_errors", sendfile_errors },
	{ "statfs_fstatfs", statfs_calls },
	{ "syslog", syslog_calls },
};

int main(int argc, char **argv)
{
	(void)argc;
	test_self_init(argv[0], "t_userland");
	report_run_all(cases, REPORT_NCASES(cases));
	return report_done("t_userland");
}

/*
 * t_misc: calls real programs make on the way to their work that need
 * little of the kernel -- mlock, mlock2, munlock, mlockall, munlockall
 * (accepted: nothing is paged out) and fsync, fdatasync, sync, syncfs
 * (nothing to write back) -- with Linux's results and errors. Runs on
 * Linux and Fulcrum.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../common/child.h"
#include "../common/rawsys.h"
#include "../common/report.h"

#define MCL_CURRENT_ 1
#define MCL_FUTURE_  2
#define MCL_ONFAULT_ 4

static const char *mlock_calls(void)
{
	char *p = mmap(NULL, 2 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	EXPECT(p != MAP_FAILED, "mmap: %s", strerror(errno));
	EXPECT_EQ(raw2(SYS_mlock, p + 100, 10), 0); /* start is aligned down */
	EXPECT_EQ(raw2(SYS_mlock, p, 2 * 4096), 0);
	EXPECT_EQ(raw2(SYS_mlock, p, 0), 0);
	EXPECT_EQ(raw3(SYS_mlock2, p, 4096, 1), 0); /* MLOCK_ONFAULT */
	EXPECT_ERR(raw3(SYS_mlock2, p, 4096, 2), EINVAL);
	EXPECT_EQ(raw2(SYS_munlock, p, 2 * 4096), 0);
	EXPECT_EQ(munmap(p + 4096, 4096), 0);
	EXPECT_ERR(raw2(SYS_mlock, p, 2 * 4096), ENOMEM); /* a hole in the range */
	EXPECT_ERR(raw2(SYS_munlock, p, 2 * 4096), ENOMEM);
	EXPECT_EQ(munmap(p, 4096), 0);
	return NULL;
}

static const char *mlockall_calls(void)
{
	EXPECT_ERR(raw1(SYS_mlockall, 0), EINVAL);
	EXPECT_ERR(raw1(SYS_mlockall, MCL_ONFAULT_), EINVAL);
	EXPECT_ERR(raw1(SYS_mlockall, 8), EINVAL);
	EXPECT_EQ(raw1(SYS_mlockall, MCL_CURRENT_ | MCL_FUTURE_), 0);
	EXPECT_EQ(raw0(SYS_munlockall), 0);
	EXPECT_EQ(raw1(SYS_mlockall, MCL_CURRENT_ | MCL_ONFAULT_), 0);
	EXPECT_EQ(raw0(SYS_munlockall), 0);
	return NULL;
}

static const char *fsync_calls(void)
{
	char path[64];
	int fd, p[2];

	snprintf(path, sizeof(path), "/tmp/t_misc.%d", getpid());
	fd = (int)EXPECT_OK(raw4(SYS_open, path, O_RDWR | O_CREAT, 0600, 0));
	EXPECT_EQ(raw3(SYS_write, fd, "data", 4), 4);
	EXPECT_EQ(raw1(SYS_fsync, fd), 0);
	EXPECT_EQ(raw1(SYS_fdatasync, fd), 0);
	EXPECT_EQ(raw1(SYS_syncfs, fd), 0);
	raw1(SYS_close, fd);
	raw1(SYS_unlink, path);
	EXPECT_EQ(raw1(SYS_pipe, p), 0);
	EXPECT_ERR(raw1(SYS_fsync, p[0]), EINVAL);
	EXPECT_ERR(raw1(SYS_fdatasync, p[1]), EINVAL);
	raw1(SYS_close, p[0]);
	raw1(SYS_close, p[1]);
	EXPECT_ERR(raw1(SYS_fsync, 9999), EBADF);
	EXPECT_ERR(raw1(SYS_syncfs, 9999), EBADF);
	EXPECT_EQ(raw0(SYS_sync), 0);
	return NULL;
}

static const struct test_case cases[] = {
	{ "mlock", mlock_calls },
	{ "mlockall", mlockall_calls },
	{ "fsync", fsync_calls },
};

int main(int argc, char **argv)
{
	(void)argc;
	test_self_init(argv[0], "t_misc");
	report_run_all(cases, REPORT_NCASES(cases));
	return report_done("t_misc");
}

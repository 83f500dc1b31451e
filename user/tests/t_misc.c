/*
 * t_misc: calls real programs make on the way to their work that need
 * little of the kernel -- mlock, mlock2, munlock, mlockall, munlockall
 * (accepted: nothing is paged out) and fsync, fdatasync, sync, syncfs
 * (nothing to write back), rt_sigtimedwait and clone3 -- with Linux's results
 * and errors. Runs on
 * Linux and Fulcrum.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
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

static volatile int handled;

static void count_handler(int sig)
{
	(void)sig;
	handled++;
}

static long long mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static const char *sigtimedwait_calls(void)
{
	unsigned long set = 1UL << (SIGUSR1 - 1), other = 1UL << (SIGUSR2 - 1);
	struct timespec zero = { 0, 0 }, ms20 = { 0, 20000000 }, bad = { 0, 1000000000 };
	struct timespec five = { 5, 0 };
	sigset_t block;
	siginfo_t si;
	long long start;
	pid_t pid;
	int status;

	signal(SIGUSR1, count_handler);
	handled = 0;
	sigemptyset(&block);
	sigaddset(&block, SIGUSR1);
	sigaddset(&block, SIGUSR2);
	sigprocmask(SIG_BLOCK, &block, NULL);
	/* Pending already: taken at once, with its siginfo, and no handler runs. */
	kill(getpid(), SIGUSR1);
	memset(&si, 0, sizeof(si));
	EXPECT_EQ(raw4(SYS_rt_sigtimedwait, &set, &si, NULL, 8), SIGUSR1);
	EXPECT(si.si_signo == SIGUSR1 && si.si_code == SI_USER && si.si_pid == getpid(),
	       "signo %d code %d pid %d", si.si_signo, si.si_code, si.si_pid);
	EXPECT_EQ(handled, 0);
	/* Nothing pending: a zero timeout and a short one are EAGAIN, the latter not early. */
	EXPECT_ERR(raw4(SYS_rt_sigtimedwait, &set, &si, &zero, 8), EAGAIN);
	start = mono_ns();
	EXPECT_ERR(raw4(SYS_rt_sigtimedwait, &set, NULL, &ms20, 8), EAGAIN);
	EXPECT(mono_ns() - start >= 20000000, "timed out after %lld ns", mono_ns() - start);
	/* A signal outside the set stays pending. */
	kill(getpid(), SIGUSR2);
	EXPECT_ERR(raw4(SYS_rt_sigtimedwait, &set, NULL, &zero, 8), EAGAIN);
	EXPECT_EQ(raw4(SYS_rt_sigtimedwait, &other, NULL, &zero, 8), SIGUSR2);
	/* Woken by another process's kill. */
	pid = fork();
	if (pid == 0) {
		usleep(20000);
		_exit(kill(getppid(), SIGUSR1) ? 1 : 0);
	}
	EXPECT(pid > 0, "fork: %s", strerror(errno));
	EXPECT_EQ(raw4(SYS_rt_sigtimedwait, &set, &si, &five, 8), SIGUSR1);
	EXPECT_EQ(si.si_pid, pid);
	status = child_wait(pid);
	EXPECT(status == 0, "the sender: %s", child_describe(status));
	/* Errors. */
	EXPECT_ERR(raw4(SYS_rt_sigtimedwait, &set, NULL, &zero, 4), EINVAL);
	EXPECT_ERR(raw4(SYS_rt_sigtimedwait, BAD_PTR_LOW, NULL, &zero, 8), EFAULT);
	EXPECT_ERR(raw4(SYS_rt_sigtimedwait, &set, NULL, &bad, 8), EINVAL);
	EXPECT_ERR(raw4(SYS_rt_sigtimedwait, &set, NULL, BAD_PTR_LOW, 8), EFAULT);
	kill(getpid(), SIGUSR1);
	EXPECT_ERR(raw4(SYS_rt_sigtimedwait, &set, BAD_PTR_LOW, NULL, 8), EFAULT);
	sigprocmask(SIG_UNBLOCK, &block, NULL);
	EXPECT_EQ(handled, 0);
	signal(SIGUSR1, SIG_DFL);
	return NULL;
}

/* clone3 (Linux 5.3+): a fork through it, and Linux's errors on bad arguments. */
struct clone_args_ {
	unsigned long long flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls;
	unsigned long long set_tid, set_tid_size, cgroup;
};

static const char *clone3_calls(void)
{
	struct clone_args_ a = { .exit_signal = SIGCHLD };
	unsigned char big[128] = { 0 };
	int tid = 0;
	long pid;

	a.flags = 0x00100000; /* CLONE_PARENT_SETTID */
	a.parent_tid = (unsigned long)&tid;
	pid = raw2(SYS_clone3, &a, 64);
	if (pid == 0)
		raw1(SYS_exit_group, 7);
	EXPECT(pid > 0, "clone3 = %s", report_ret(pid));
	EXPECT_EQ(tid, pid);
	EXPECT_EQ(child_wait((int)pid) >> 8, 7);
	a = (struct clone_args_){ .exit_signal = SIGCHLD };
	EXPECT_ERR(raw2(SYS_clone3, &a, 63), EINVAL);
	EXPECT_ERR(raw2(SYS_clone3, &a, 8192), E2BIG);
	EXPECT_ERR(raw2(SYS_clone3, (void *)8, 64), EFAULT);
	big[120] = 1; /* a field this kernel does not know, not zero */
	memcpy(big, &a, sizeof(a));
	EXPECT_ERR(raw2(SYS_clone3, big, sizeof(big)), E2BIG);
	a.exit_signal = 0x100;
	EXPECT_ERR(raw2(SYS_clone3, &a, 64), EINVAL);
	a = (struct clone_args_){ .flags = SIGCHLD };
	EXPECT_ERR(raw2(SYS_clone3, &a, 64), EINVAL); /* CSIGNAL bits belong in exit_signal */
	a = (struct clone_args_){ .flags = 0x00010000 | 0x00000800 | 0x00000100,
				  .exit_signal = SIGCHLD }; /* a thread with an exit signal */
	EXPECT_ERR(raw2(SYS_clone3, &a, 64), EINVAL);
	a = (struct clone_args_){ .exit_signal = SIGCHLD, .stack_size = 4096 };
	EXPECT_ERR(raw2(SYS_clone3, &a, 64), EINVAL); /* a size without a stack */
	a = (struct clone_args_){ .exit_signal = SIGCHLD, .flags = 1ULL << 40 };
	EXPECT_ERR(raw2(SYS_clone3, &a, 64), EINVAL);
	return NULL;
}

static const struct test_case cases[] = {
	{ "mlock", mlock_calls },   { "mlockall", mlockall_calls },
	{ "fsync", fsync_calls },   { "rt_sigtimedwait", sigtimedwait_calls },
	{ "clone3", clone3_calls },
};

int main(int argc, char **argv)
{
	(void)argc;
	test_self_init(argv[0], "t_misc");
	report_run_all(cases, REPORT_NCASES(cases));
	return report_done("t_misc");
}

/*
 * Process helpers shared by the user test programs (see child.h).
 */
#include "child.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rawsys.h"

extern char **environ;

static char self_path[256];

int child_start(int (*fn)(void *), void *arg)
{
	pid_t pid = fork();

	if (pid < 0)
		return -errno;
	if (pid == 0)
		_exit(fn(arg));
	return pid;
}

int child_run(int (*fn)(void *), void *arg)
{
	int pid = child_start(fn, arg);

	return pid < 0 ? pid : child_wait(pid);
}

int child_wait(int pid)
{
	int status;
	long r;

	do
		r = raw4(SYS_wait4, pid, &status, 0, 0);
	while (r == -EINTR);
	return r < 0 ? (int)r : status;
}

static const char *const signames[] = {
	[SIGHUP] = "SIGHUP",   [SIGINT] = "SIGINT",   [SIGQUIT] = "SIGQUIT", [SIGILL] = "SIGILL",
	[SIGTRAP] = "SIGTRAP", [SIGABRT] = "SIGABRT", [SIGBUS] = "SIGBUS",   [SIGFPE] = "SIGFPE",
	[SIGKILL] = "SIGKILL", [SIGUSR1] = "SIGUSR1", [SIGSEGV] = "SIGSEGV", [SIGUSR2] = "SIGUSR2",
	[SIGPIPE] = "SIGPIPE", [SIGALRM] = "SIGALRM", [SIGTERM] = "SIGTERM", [SIGCHLD] = "SIGCHLD",
};

const char *child_signame(int sig)
{
	static char buf[16];

	if (sig > 0 && sig < (int)(sizeof(signames) / sizeof(signames[0])) && signames[sig])
		return signames[sig];
	snprintf(buf, sizeof(buf), "signal %d", sig);
	return buf;
}

const char *child_describe(int status)
{
	static char buf[64];

	if (status < 0)
		snprintf(buf, sizeof(buf), "fork/wait failed: %s", report_ret(status));
	else if (WIFEXITED(status))
		snprintf(buf, sizeof(buf), "exit %d", WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		snprintf(buf, sizeof(buf), "killed by %s", child_signame(WTERMSIG(status)));
	else
		snprintf(buf, sizeof(buf), "status 0x%x", status);
	return buf;
}

void test_self_init(const char *argv0, const char *name)
{
	if (argv0 && strchr(argv0, '/'))
		snprintf(self_path, sizeof(self_path), "%s", argv0);
	else
		snprintf(self_path, sizeof(self_path), "/tests/%s", name);
}

const char *test_self(void)
{
	return self_path;
}

void test_sibling(char *buf, size_t size, const char *name)
{
	const char *slash = strrchr(self_path, '/');
	int dirlen = slash ? (int)(slash - self_path) : 0;

	snprintf(buf, size, "%.*s/%s", dirlen, self_path, name);
}

int fdprobe_run(int closed_fd, int open_fd)
{
	char a[16], b[16];
	char *argv[] = { self_path, "--fd-probe", a, b, NULL };
	pid_t pid;

	snprintf(a, sizeof(a), "%d", closed_fd);
	snprintf(b, sizeof(b), "%d", open_fd);
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		execve(self_path, argv, environ);
		_exit(127);
	}
	return child_wait(pid);
}

int fdprobe_main(int argc, char **argv)
{
	struct stat st;
	int bad = 0;

	if (argc != 4 || strcmp(argv[1], "--fd-probe") != 0)
		return -1;
	if (raw2(SYS_fstat, atoi(argv[2]), &st) != -EBADF)
		bad |= 1;
	if (raw2(SYS_fstat, atoi(argv[3]), &st) != 0)
		bad |= 2;
	return bad;
}

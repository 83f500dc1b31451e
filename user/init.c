/*
 * init: Fulcrum's first process (/init, pid 1), a static musl program. It
 * runs the program named on the kernel command line, or the shell, and
 * powers the machine off when that ends.
 *
 * The kernel runs it as argv = { "/init", INIT, ARGS... }:
 *   INIT  the value of init= on the kernel command line with its quotes
 *         removed (init="/bin/hackbench 10" gives "/bin/hackbench 10");
 *         absent, or "", when there was no init=;
 *   ARGS  the words after a bare "--" on the kernel command line, one per
 *         argv entry.
 *
 * With INIT: INIT is split at spaces and tabs (no quoting inside it) into a
 * program and its first arguments, ARGS are appended, and the program runs
 * (fork + execve) with the environment PATH=/bin:/tests HOME=/ TERM=vt100 and
 * init's descriptors 0-2. A program name without '/' is looked up in /bin,
 * then /tests. If execve fails, the child prints
 *     init: <program>: <ERRNO> (<error text>)      e.g. ENOENT
 * and exits with status 127. When the program has ended init prints one of
 *     init: <program> exited with status N
 *     init: <program> killed by signal S (<SIGNAME>)
 * then "init: powering off", and powers off.
 *
 * Without INIT: init prints a one-line banner and /etc/motd if there is one,
 * runs /bin/sh on the console, and when the shell exits prints the same
 * status line and powers off. ARGS without INIT are ignored, with a warning.
 *
 * As pid 1, init adopts every orphaned process: it waits for any child, not
 * just its own, so orphans never stay zombies. It powers off with
 * reboot(LINUX_REBOOT_CMD_POWER_OFF); if that fails it says so and idles,
 * still reaping, since pid 1 must never exit. Run as any other pid (a test
 * on Linux), it exits with the program's status (128 + S for a signal)
 * instead of powering off, so it can never switch a host off.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

/* reboot(2)'s magic numbers and command, from Linux's <linux/reboot.h>. */
#define REBOOT_MAGIC1	     0xfee1deadu
#define REBOOT_MAGIC2	     672274793u
#define REBOOT_CMD_POWER_OFF 0x4321fedcu

#define MAX_ARGS 64
#define SHELL	 "/bin/sh"
#define MOTD	 "/etc/motd"

static char *const child_env[] = { "PATH=/bin:/tests", "HOME=/", "TERM=vt100", NULL };
static const char *const search_dirs[] = { "/bin", "/tests" };

static const struct {
	int err;
	const char *name;
} errno_names[] = {
	{ EPERM, "EPERM" },
	{ ENOENT, "ENOENT" },
	{ EIO, "EIO" },
	{ E2BIG, "E2BIG" },
	{ ENOEXEC, "ENOEXEC" },
	{ EBADF, "EBADF" },
	{ EAGAIN, "EAGAIN" },
	{ ENOMEM, "ENOMEM" },
	{ EACCES, "EACCES" },
	{ EFAULT, "EFAULT" },
	{ ENOTDIR, "ENOTDIR" },
	{ EISDIR, "EISDIR" },
	{ EINVAL, "EINVAL" },
	{ ENFILE, "ENFILE" },
	{ EMFILE, "EMFILE" },
	{ ETXTBSY, "ETXTBSY" },
	{ ENAMETOOLONG, "ENAMETOOLONG" },
	{ ENOSYS, "ENOSYS" },
	{ ELOOP, "ELOOP" },
	{ ELIBBAD, "ELIBBAD" },
};

static const char *const signal_names[] = {
	[1] = "SIGHUP", "SIGINT",    "SIGQUIT", "SIGILL",  "SIGTRAP",	"SIGABRT", "SIGBUS",
	"SIGFPE",	"SIGKILL",   "SIGUSR1", "SIGSEGV", "SIGUSR2",	"SIGPIPE", "SIGALRM",
	"SIGTERM",	"SIGSTKFLT", "SIGCHLD", "SIGCONT", "SIGSTOP",	"SIGTSTP", "SIGTTIN",
	"SIGTTOU",	"SIGURG",    "SIGXCPU", "SIGXFSZ", "SIGVTALRM", "SIGPROF", "SIGWINCH",
	"SIGIO",	"SIGPWR",    "SIGSYS",
};

static const char *errno_name(int err)
{
	static char other[24];

	for (size_t i = 0; i < sizeof(errno_names) / sizeof(errno_names[0]); i++) {
		if (errno_names[i].err == err)
			return errno_names[i].name;
	}
	snprintf(other, sizeof(other), "errno %d", err);
	return other;
}

static const char *signal_name(int sig)
{
	if (sig > 0 && sig < (int)(sizeof(signal_names) / sizeof(signal_names[0])))
		return signal_names[sig];
	return sig >= 34 && sig <= 64 ? "SIGRT" : "unknown";
}

/* Makes sure descriptors 0-2 exist, on the console, in case the kernel
 * started init without them. */
static void open_console(void)
{
	struct stat st;
	int fd = -1;

	for (int i = 0; i < 3; i++) {
		if (fstat(i, &st) == 0 || errno != EBADF)
			continue;
		if (fd < 0)
			fd = open("/dev/console", O_RDWR | O_NOCTTY);
		if (fd < 0)
			return; /* nowhere to write: carry on silently */
		if (fd != i)
			dup2(fd, i);
	}
	if (fd > 2)
		close(fd);
}

/* In the child: execve argv[0], searching /bin and /tests for a bare name. */
static void __attribute__((noreturn)) exec_program(char **argv)
{
	const char *prog = argv[0];
	char path[256];
	int err = ENOENT;

	if (strchr(prog, '/')) {
		execve(prog, argv, child_env);
		err = errno;
	} else {
		for (size_t i = 0; i < sizeof(search_dirs) / sizeof(search_dirs[0]); i++) {
			if (snprintf(path, sizeof(path), "%s/%s", search_dirs[i], prog) >=
			    (int)sizeof(path)) {
				err = ENAMETOOLONG;
				continue;
			}
			execve(path, argv, child_env);
			if (errno != ENOENT)
				err = errno; /* there, but it would not run */
		}
	}
	fprintf(stderr, "init: %s: %s (%s)\n", prog, errno_name(err), strerror(err));
	_exit(127);
}

/*
 * Runs argv to its end and prints how it ended. Meanwhile reaps every other
 * child that ends: orphans re-parented to pid 1. Returns the status as a
 * shell would give it (the exit code, or 128 + the signal).
 */
static int run(char **argv)
{
	pid_t pid, got;
	int ws;

	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		printf("init: fork: %s (%s)\n", errno_name(errno), strerror(errno));
		return 126;
	}
	if (pid == 0)
		exec_program(argv);
	do {
		got = waitpid(-1, &ws, 0);
		if (got < 0 && errno != EINTR) {
			printf("init: wait: %s (%s)\n", errno_name(errno), strerror(errno));
			return 126;
		}
	} while (got != pid);
	if (WIFSIGNALED(ws)) {
		printf("init: %s killed by signal %d (%s)\n", argv[0], WTERMSIG(ws),
		       signal_name(WTERMSIG(ws)));
		return 128 + WTERMSIG(ws);
	}
	printf("init: %s exited with status %d\n", argv[0], WEXITSTATUS(ws));
	return WEXITSTATUS(ws);
}

static void __attribute__((noreturn)) power_off(int status)
{
	fflush(NULL);
	if (getpid() != 1)
		exit(status); /* not the machine's init: never switch a host off */
	printf("init: powering off\n");
	fflush(NULL);
	syscall(SYS_reboot, REBOOT_MAGIC1, REBOOT_MAGIC2, REBOOT_CMD_POWER_OFF, NULL);
	printf("init: reboot: %s (%s); halted\n", errno_name(errno), strerror(errno));
	fflush(NULL);
	for (;;) {
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
		sleep(1);
	}
}

static void banner(void)
{
	struct utsname u;
	char buf[512];
	ssize_t n;
	int fd;

	if (uname(&u) < 0) {
		strcpy(u.sysname, "Fulcrum");
		u.release[0] = '\0';
	}
	printf("init: %s %s: starting " SHELL " ('help' lists its commands, 'exit' powers off)\n",
	       u.sysname, u.release);
	fflush(stdout);
	fd = open(MOTD, O_RDONLY);
	if (fd < 0)
		return;
	while ((n = read(fd, buf, sizeof(buf))) > 0 || (n < 0 && errno == EINTR)) {
		if (n > 0 && write(1, buf, n) < 0)
			break;
	}
	close(fd);
}

int main(int argc, char **argv)
{
	char *args[MAX_ARGS + 1];
	int n = 0, words = 0;

	open_console();
	if (argc > 1) {
		for (char *w = strtok(argv[1], " \t"); w; w = strtok(NULL, " \t")) {
			if (words++ < MAX_ARGS)
				args[n++] = w;
		}
	}
	if (n == 0) {
		if (argc > 2)
			printf("init: arguments after -- need init=PROGRAM; ignored\n");
		banner();
		args[n++] = SHELL;
	} else {
		if (words + argc - 2 > MAX_ARGS) {
			printf("init: %s: too many arguments (limit %d)\n", args[0], MAX_ARGS);
			power_off(126);
		}
		for (int i = 2; i < argc; i++)
			args[n++] = argv[i];
	}
	args[n] = NULL;
	power_off(run(args));
}

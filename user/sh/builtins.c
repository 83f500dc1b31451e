/*
 * sh: the built-in commands: the /proc views of the scheduler (topo,
 * schedstat, tasks: a file copied out), its knobs (sysctl), running a
 * command with a nice value, CPU mask or timing (nice, taskset, time), and
 * echo, exit and help. The table at the end lists them (wait is in jobs.c).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "sh.h"

#define SYSCTL_DIR "/proc/sys/kernel/"

static int count_args(char **argv)
{
	int n = 0;

	while (argv[n])
		n++;
	return n;
}

/* Copies a /proc file to stdout; says so plainly when this kernel lacks it. */
static int show_file(const char *path)
{
	char buf[4096];
	ssize_t n;
	int fd = open(path, O_RDONLY);

	if (fd < 0) {
		if (errno == ENOENT)
			fprintf(stderr, "%s: not available on this kernel\n", path);
		else
			fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return 1;
	}
	while ((n = read(fd, buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			fprintf(stderr, "%s: %s\n", path, strerror(errno));
			close(fd);
			return 1;
		}
		fwrite(buf, 1, n, stdout);
	}
	close(fd);
	return 0;
}

int run_builtin(const struct builtin *b, char **argv)
{
	int status = b->fn ? b->fn(count_args(argv), argv) : show_file(b->file);

	fflush(NULL);
	return status;
}

static const char *const sysctl_known[] = {
	"sched_latency_ns",
	"sched_min_granularity_ns",
	"sched_wakeup_granularity_ns",
	"sched_migration_cost_ns",
	"sched_features",
	"sched_select",
	"sched_model",
	NULL,
};

static int sysctl_error(const char *name, int err)
{
	if (err == ENOENT)
		fprintf(stderr, "sysctl: %s: not available on this kernel\n", name);
	else
		fprintf(stderr, "sysctl: %s: %s\n", name, strerror(err));
	return 1;
}

/* Writes value (unless NULL) to /proc/sys/kernel/NAME, then prints
 * "name = value". The name may also be spelt kernel.NAME, as Linux's. */
static int sysctl_one(const char *name, const char *value)
{
	const char *base = strncmp(name, "kernel.", 7) ? name : name + 7;
	char path[256], buf[4096];
	ssize_t n;
	int fd, err;

	if (!*base || strlen(base) > 128 ||
	    strspn(base, "abcdefghijklmnopqrstuvwxyz"
			 "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") != strlen(base)) {
		fprintf(stderr, "sysctl: %s: bad name\n", name);
		return 2;
	}
	snprintf(path, sizeof(path), SYSCTL_DIR "%s", base);
	if (value) {
		fd = open(path, O_WRONLY);
		n = fd < 0 ? -1 : write(fd, value, strlen(value));
		err = n < 0 ? errno : EIO; /* EIO: a short write */
		if (fd >= 0)
			close(fd);
		if (n < 0 || (size_t)n != strlen(value))
			return sysctl_error(name, err);
	}
	fd = open(path, O_RDONLY);
	n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
	err = errno;
	if (fd >= 0)
		close(fd);
	if (n < 0)
		return sysctl_error(name, err);
	while (n && buf[n - 1] == '\n')
		n--;
	printf("%s = %.*s\n", name, (int)n, buf);
	return 0;
}

/* sysctl: the knobs this shell knows; sysctl NAME[=VALUE]...: those. */
static int bi_sysctl(int argc, char **argv)
{
	int status = 0, shown = 0;

	for (int i = 0; argc == 1 && sysctl_known[i]; i++)
		shown += sysctl_one(sysctl_known[i], NULL) == 0;
	if (argc == 1)
		return shown ? 0 : 1;
	for (int i = 1; i < argc; i++) {
		const char *eq = strchr(argv[i], '=');
		char name[160];
		int r;

		snprintf(name, sizeof(name), "%.*s", eq ? (int)(eq - argv[i]) : 159, argv[i]);
		r = sysctl_one(name, eq ? eq + 1 : NULL);
		status = status ? status : r;
	}
	return status;
}

static int bi_time(int argc, char **argv)
{
	struct timespec t0, t1;
	struct rusage r0, r1;
	bool have_usage;
	long long ms;
	int status;

	if (argc < 2) {
		fprintf(stderr, "usage: time COMMAND [ARG]...\n");
		return 2;
	}
	have_usage = getrusage(RUSAGE_CHILDREN, &r0) == 0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	status = run_argv(argv + 1, NULL, NULL);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ms = ((t1.tv_sec - t0.tv_sec) * 1000000000LL + t1.tv_nsec - t0.tv_nsec + 500000) / 1000000;
	fprintf(stderr, "real %lld.%03llds", ms / 1000, ms % 1000);
	if (have_usage && getrusage(RUSAGE_CHILDREN, &r1) == 0) {
		long long u = (r1.ru_utime.tv_sec - r0.ru_utime.tv_sec) * 1000LL +
			      (r1.ru_utime.tv_usec - r0.ru_utime.tv_usec) / 1000;
		long long s = (r1.ru_stime.tv_sec - r0.ru_stime.tv_sec) * 1000LL +
			      (r1.ru_stime.tv_usec - r0.ru_stime.tv_usec) / 1000;

		fprintf(stderr, "  user %lld.%03llds  sys %lld.%03llds", u / 1000, u % 1000,
			s / 1000, s % 1000);
	}
	fputc('\n', stderr);
	return status;
}

static int set_nice(const void *arg)
{
	if (setpriority(PRIO_PROCESS, 0, *(const int *)arg) < 0) {
		fprintf(stderr, "nice: setpriority: %s\n", strerror(errno));
		return -1;
	}
	return 0;
}

static int bi_nice(int argc, char **argv)
{
	char *end;
	long n;
	int value;

	if (argc < 3) {
		fprintf(stderr, "usage: nice N COMMAND [ARG]...  (N from -20 to 19)\n");
		return 2;
	}
	errno = 0;
	n = strtol(argv[1], &end, 10);
	if (errno || end == argv[1] || *end || n < -20 || n > 19) {
		fprintf(stderr, "nice: %s: not a nice value from -20 to 19\n", argv[1]);
		return 2;
	}
	value = n;
	return run_argv(argv + 2, set_nice, &value);
}

static int set_affinity(const void *arg)
{
	if (sched_setaffinity(0, sizeof(cpu_set_t), arg) < 0) {
		fprintf(stderr, "taskset: sched_setaffinity: %s\n", strerror(errno));
		return -1;
	}
	return 0;
}

/* Parses a hexadecimal CPU mask ("3", "0x3", up to CPU_SETSIZE bits). */
static int parse_mask(const char *s, cpu_set_t *set)
{
	size_t len;

	CPU_ZERO(set);
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	len = strlen(s);
	if (!len || strspn(s, "0123456789abcdefABCDEF") != len)
		return -1;
	for (size_t i = 0; i < len; i++) {
		char c = s[len - 1 - i];
		int v = isdigit((unsigned char)c) ? c - '0' : tolower((unsigned char)c) - 'a' + 10;

		for (int b = 0; b < 4; b++) {
			if (!(v & (1 << b)))
				continue;
			if (i * 4 + b >= CPU_SETSIZE)
				return -1;
			CPU_SET(i * 4 + b, set);
		}
	}
	return CPU_COUNT(set) ? 0 : -1;
}

static int bi_taskset(int argc, char **argv)
{
	cpu_set_t set;

	if (argc < 3) {
		fprintf(stderr, "usage: taskset MASK COMMAND [ARG]...  (MASK in hex, e.g. 0x3)\n");
		return 2;
	}
	if (parse_mask(argv[1], &set) < 0) {
		fprintf(stderr, "taskset: %s: not a non-empty hexadecimal CPU mask\n", argv[1]);
		return 2;
	}
	return run_argv(argv + 2, set_affinity, &set);
}

/* cd [DIR]: the shell's own working directory (chdir(2)); DIR defaults to $HOME, else "/". */
static int bi_cd(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : getenv("HOME");

	if (argc > 2) {
		fprintf(stderr, "sh: cd: too many arguments\n");
		return 1;
	}
	if (!dir || !*dir)
		dir = "/";
	if (chdir(dir)) {
		fprintf(stderr, "sh: cd: %s: %s\n", dir, strerror(errno));
		return 1;
	}
	return 0;
}

static int bi_exit(int argc, char **argv)
{
	char *end;
	long code = sh.status;

	if (argc > 2) {
		fprintf(stderr, "sh: exit: too many arguments\n");
		return 1;
	}
	if (argc == 2) {
		code = strtol(argv[1], &end, 10);
		if (end == argv[1] || *end) {
			fprintf(stderr, "sh: exit: %s: numeric argument required\n", argv[1]);
			code = 2;
		}
	}
	fflush(NULL);
	exit(code & 255);
}

static int bi_echo(int argc, char **argv)
{
	bool newline = !(argc > 1 && !strcmp(argv[1], "-n"));

	for (int i = newline ? 1 : 2; i < argc; i++)
		printf("%s%s", argv[i], i + 1 < argc ? " " : "");
	if (newline)
		putchar('\n');
	return 0;
}

#define PROC_TOPO  "/proc/fulcrum/topology"
#define PROC_TASKS "/proc/fulcrum/tasks"
#define PROC_TRACE "/proc/fulcrum/trace"

/*
 * trace: the tracer's status; trace start|stop|clear|dump: written to
 * /proc/fulcrum/trace (docs/tracing.md). dump sends the events to the
 * trace channel, not to this terminal.
 */
static int bi_trace(int argc, char **argv)
{
	const char *const words[] = { "start", "stop", "clear", "dump", NULL };
	int fd, i;
	ssize_t n;

	if (argc == 1)
		return show_file(PROC_TRACE);
	for (i = 0; words[i] && strcmp(words[i], argv[1]); i++)
		;
	if (argc != 2 || !words[i]) {
		fprintf(stderr, "usage: trace [start|stop|clear|dump]\n");
		return 2;
	}
	fd = open(PROC_TRACE, O_WRONLY);
	n = fd < 0 ? -1 : write(fd, argv[1], strlen(argv[1]));
	if (n < 0) {
		if (errno == ENOENT)
			fprintf(stderr, "trace: %s: not available on this kernel\n", PROC_TRACE);
		else if (errno == ENODEV)
			fprintf(stderr,
				"trace: no trace channel (boot QEMU with tools/qemu-run --trace FILE)\n");
		else
			fprintf(stderr, "trace %s: %s\n", argv[1], strerror(errno));
		if (fd >= 0)
			close(fd);
		return 1;
	}
	close(fd);
	return 0;
}

static int bi_help(int argc, char **argv);

static const struct builtin builtins[] = {
	{ "cd", bi_cd, NULL, true, "[DIR]", "change the shell's directory ($HOME, else /)" },
	{ "echo", bi_echo, NULL, false, "[-n] [WORD]...", "print the words" },
	{ "exit", bi_exit, NULL, true, "[CODE]", "leave the shell with CODE, else $?" },
	{ "help", bi_help, NULL, false, "", "this list" },
	{ "nice", bi_nice, NULL, false, "N CMD [ARG]...", "run CMD at nice value N (-20..19)" },
	{ "schedstat", NULL, "/proc/schedstat", false, "", "scheduler statistics (/proc/schedstat)" },
	{ "sysctl", bi_sysctl, NULL, false, "[NAME[=VALUE]]...",
	  "show or set /proc/sys/kernel/NAME; alone: the sched knobs" },
	{ "tasks", NULL, PROC_TASKS, false, "", "per-task statistics (" PROC_TASKS ")" },
	{ "taskset", bi_taskset, NULL, false, "MASK CMD [ARG]...", "run CMD on the CPUs in hex MASK" },
	{ "time", bi_time, NULL, false, "CMD [ARG]...", "run CMD, print its real/user/sys time" },
	{ "topo", NULL, PROC_TOPO, false, "", "CPU topology and sched domains (" PROC_TOPO ")" },
	{ "trace", bi_trace, NULL, false, "[start|stop|clear|dump]",
	  "scheduler tracing: status, or control (" PROC_TRACE ")" },
	{ "wait", bi_wait, NULL, true, "[PID]...", "wait for background jobs (all by default)" },
	{ NULL, NULL, NULL, false, NULL, NULL },
};

static int bi_help(int argc, char **argv)
{
	(void)argc, (void)argv;
	printf("Built-in commands:\n");
	for (const struct builtin *b = builtins; b->name; b++)
		printf("  %-9s %-18s %s\n", b->name, b->args, b->help);
	printf("Other commands are programs in $PATH (default " DEFAULT_PATH "): Fulcrum's\n"
	       "workloads and tests, and busybox's applets (ls cat ps top pwd grep sed awk\n"
	       "sort head tail wc find xargs vi less free uptime dmesg ...; `busybox` lists\n"
	       "them all); /bin/ash is busybox's shell.\n"
	       "Syntax: a | b; a && b; a || b; cmd &; cmd < in > out (>> appends);\n"
	       "        'quoted' \"with $? $$ $! $NAME\" \\x; # comment\n");
	return 0;
}

const struct builtin *find_builtin(const char *name)
{
	for (const struct builtin *b = builtins; b->name; b++) {
		if (!strcmp(b->name, name))
			return b;
	}
	return NULL;
}

/*
 * sh: running commands: a parsed line's pipelines in turn (after ';', '&&'
 * or '||'), each command forked and exec'd from PATH with its pipes and
 * redirections, a built-in in the shell itself when it can be, and the
 * foreground ones waited for ('&' hands them to jobs.c instead).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sh.h"

static struct line cur_line;

extern char **environ;

/* The shell's $? for a wait status: the exit code, or 128 + the signal. */
int exit_code(int ws)
{
	if (WIFEXITED(ws))
		return WEXITSTATUS(ws);
	if (WIFSIGNALED(ws))
		return 128 + WTERMSIG(ws);
	return 1;
}

/* Like other shells, says why a foreground command died (not for ^C or a
 * closed pipe, which explain themselves). */
static void report_signal(int ws)
{
	if (WIFSIGNALED(ws) && WTERMSIG(ws) != SIGINT && WTERMSIG(ws) != SIGPIPE)
		fprintf(stderr, "%s\n", strsignal(WTERMSIG(ws)));
}

int wait_for(pid_t pid)
{
	int ws;

	while (waitpid(pid, &ws, 0) < 0) {
		if (errno != EINTR) {
			fprintf(stderr, "sh: wait for %d: %s\n", (int)pid, strerror(errno));
			return 1 << 8;
		}
	}
	return ws;
}

/* In a new child: an interactive shell ignores ^C, its programs must not. */
static void child_signals(void)
{
	if (sh.interactive) {
		signal(SIGINT, SIG_DFL);
		signal(SIGQUIT, SIG_DFL);
	}
}

/* Runs argv in this child process, a built-in or a program on PATH. */
static void __attribute__((noreturn)) exec_argv(char **argv)
{
	const struct builtin *b = find_builtin(argv[0]);
	const char *path = getenv("PATH");
	char file[LINE_LEN];
	int err = ENOENT;

	if (b)
		_exit(run_builtin(b, argv));
	if (strchr(argv[0], '/')) {
		execve(argv[0], argv, environ);
		fprintf(stderr, "sh: %s: %s\n", argv[0], strerror(errno));
		_exit(errno == ENOENT ? 127 : 126);
	}
	if (!path || !*path)
		path = DEFAULT_PATH;
	while (argv[0][0]) {
		size_t len = strcspn(path, ":");

		/* An empty PATH entry means the current directory. */
		if (snprintf(file, sizeof(file), "%.*s/%s", (int)len, len ? path : ".", argv[0]) <
		    (int)sizeof(file)) {
			execve(file, argv, environ);
			if (errno != ENOENT && errno != ENOTDIR)
				err = errno; /* found, but it would not run */
		}
		if (!path[len])
			break;
		path += len + 1;
	}
	if (err == ENOENT) {
		fprintf(stderr, "sh: %s: not found\n", argv[0]);
		_exit(127);
	}
	fprintf(stderr, "sh: %s: %s\n", argv[0], strerror(err));
	_exit(126);
}

static int move_fd(int fd, int to, const char *name)
{
	if (fd < 0) {
		fprintf(stderr, "sh: %s: %s\n", name, strerror(errno));
		return -1;
	}
	if (fd != to) {
		dup2(fd, to);
		close(fd);
	}
	return 0;
}

static int redirect(const struct cmd *c)
{
	int flags = O_WRONLY | O_CREAT | (c->append ? O_APPEND : O_TRUNC);

	if (c->in && move_fd(open(c->in, O_RDONLY), 0, c->in) < 0)
		return -1;
	if (c->out && move_fd(open(c->out, flags, 0666), 1, c->out) < 0)
		return -1;
	return 0;
}

/*
 * Runs argv as a foreground command without redirections: a built-in here
 * unless setup is given, else in a child that first calls setup(arg) (nice,
 * taskset), exiting 125 if that fails. Returns the status for $?.
 */
int run_argv(char **argv, int (*setup)(const void *), const void *arg)
{
	const struct builtin *b = find_builtin(argv[0]);
	pid_t pid;
	int ws;

	if (b && !setup)
		return run_builtin(b, argv);
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "sh: fork: %s\n", strerror(errno));
		return 1;
	}
	if (pid == 0) {
		child_signals();
		if (setup && setup(arg) < 0)
			_exit(125);
		exec_argv(argv);
	}
	ws = wait_for(pid);
	report_signal(ws);
	return exit_code(ws);
}

static int run_pipeline(struct pipeline *pl)
{
	pid_t pid[MAX_CMDS];
	const struct builtin *b;
	int in = -1, started = 0, status = 0;

	if (expand_pipeline(pl) < 0)
		return 1;
	b = find_builtin(pl->cmd[0].argv[0]);
	if (pl->n == 1 && !pl->background && b && (b->in_shell || (!pl->cmd[0].in && !pl->cmd[0].out)))
		return run_builtin(b, pl->cmd[0].argv);
	fflush(NULL);
	for (int i = 0; i < pl->n; i++) {
		int fd[2] = { -1, -1 };

		if (i + 1 < pl->n && pipe(fd) < 0) {
			fprintf(stderr, "sh: pipe: %s\n", strerror(errno));
			break;
		}
		pid[i] = fork();
		if (pid[i] == 0) {
			child_signals();
			if (in >= 0) {
				dup2(in, 0);
				close(in);
			} else if (pl->background) {
				/* No job control: keep it off the shell's input. */
				move_fd(open("/dev/null", O_RDONLY), 0, "/dev/null");
			}
			if (fd[1] >= 0) {
				close(fd[0]);
				dup2(fd[1], 1);
				close(fd[1]);
			}
			if (redirect(&pl->cmd[i]) < 0)
				_exit(1);
			exec_argv(pl->cmd[i].argv);
		}
		if (in >= 0)
			close(in);
		if (fd[1] >= 0)
			close(fd[1]);
		in = fd[0];
		if (pid[i] < 0) {
			fprintf(stderr, "sh: fork: %s\n", strerror(errno));
			break;
		}
		started++;
	}
	if (started < pl->n) {
		if (in >= 0)
			close(in);
		for (int i = 0; i < started; i++)
			wait_for(pid[i]);
		return 1;
	}
	if (pl->background) {
		job_add(pl, pid);
		sh.last_bg = pid[pl->n - 1];
		return 0;
	}
	for (int i = 0; i < pl->n; i++) {
		int ws = wait_for(pid[i]);

		report_signal(ws);
		status = exit_code(ws);
	}
	return status;
}

static void run_line(struct line *ln)
{
	for (int i = 0; i < ln->n; i++) {
		struct pipeline *pl = &ln->pl[i];

		if ((pl->conn == C_AND && sh.status) || (pl->conn == C_OR && !sh.status))
			continue;
		sh.status = run_pipeline(pl);
	}
}

void run_text(const char *text)
{
	if (parse(text, &cur_line) < 0) {
		sh.status = 2;
		return;
	}
	run_line(&cur_line);
}

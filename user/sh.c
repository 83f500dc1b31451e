/*
 * sh: Fulcrum's small shell (/bin/sh), a static musl program that runs
 * unchanged on Linux. It reads commands from the console, a script file or
 * -c, runs programs found on PATH with pipes, redirections and background
 * jobs, and has built-ins that show and set the scheduler's /proc files.
 *
 * Usage: sh [-i] [-c COMMANDS | SCRIPT]. Each line is
 *   pipeline { (';' | '&' | '&&' | '||') pipeline } [';' | '&']
 *   pipeline = command { '|' command },  command = word { word | '<' word |
 *   '>' word | '>>' word }
 * Words take 'single quotes', "double quotes" and \ escapes; $? $$ $! and
 * $NAME (from the environment) expand outside single quotes, without field
 * splitting or globbing, just before their pipeline runs (so "false; echo $?"
 * prints 1). '#' at the start of a word begins a comment.
 * A syntax error sets $? to 2 and the shell goes on with the next line.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define LINE_LEN      4096 /* longest input line, with its NUL */
#define ARENA_LEN     8192 /* one line's words after $-expansion */
#define MAX_ARGS      64   /* words in one command */
#define MAX_CMDS      8	   /* commands in one pipeline */
#define MAX_PIPELINES 32   /* pipelines in one line */
#define MAX_JOBS      16
#define DEFAULT_PATH  "/bin:/tests"
#define PROMPT	      "fulcrum$ "
#define SYSCTL_DIR    "/proc/sys/kernel/"

enum tok { T_END, T_WORD, T_PIPE, T_OR, T_AMP, T_AND, T_SEMI, T_IN, T_OUT, T_APPEND };
static const char *const tok_text[] = { "", "", "|", "||", "&", "&&", ";", "<", ">", ">>" };

/* A simple command: the words as written, and as expanded to run them. */
struct cmd {
	const char *word[MAX_ARGS], *in_word, *out_word;
	int nword;
	bool append; /* ">>" rather than ">" */
	char *argv[MAX_ARGS + 1], *in, *out;
	int argc;
};

enum conn { C_SEQ, C_AND, C_OR }; /* how a pipeline follows the one before */

struct pipeline {
	struct cmd cmd[MAX_CMDS];
	int n;
	bool background;
	enum conn conn;
};

struct line {
	struct pipeline pl[MAX_PIPELINES];
	int n;
};

/* A background pipeline; kept until reported (interactive) or waited for. */
struct job {
	int id; /* [N]; 0 for a free slot */
	pid_t pid[MAX_CMDS];
	int wstatus[MAX_CMDS];
	bool done[MAX_CMDS];
	int n, left;
	char text[64];
};

struct builtin {
	const char *name;
	int (*fn)(int argc, char **argv); /* NULL: print file */
	const char *file;
	bool in_shell; /* changes the shell itself: never run in a child */
	const char *args, *help;
};

static struct {
	int status;    /* $? */
	pid_t last_bg; /* $!, 0 before the first background job */
	bool interactive;
	struct job jobs[MAX_JOBS];
} sh;

/* The arena a pipeline's words expand into. */
static struct {
	char arena[ARENA_LEN];
	size_t used;
	bool overflow, dry; /* dry: only check the syntax, keep nothing */
} lx;

static struct line cur_line;

extern char **environ;
static const struct builtin *find_builtin(const char *name);

/* ---- Reading and tokenising ---- */

/*
 * Reads one line from fd into buf without its end ('\n', '\r' or "\r\n"), a
 * byte at a time so that a program started from this input finds the rest of
 * it unread. Returns the length, -1 at the end of input, -2 if the line did
 * not fit (the rest of it is dropped).
 */
static int read_line(int fd, char *buf, int size)
{
	static bool after_cr;
	bool too_long = false;
	int len = 0;

	for (;;) {
		char c;
		ssize_t n = read(fd, &c, 1);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (len == 0 && !too_long)
				return -1;
			break;
		}
		if (c == '\n' && after_cr) {
			after_cr = false;
			continue;
		}
		after_cr = c == '\r';
		if (c == '\n' || c == '\r')
			break;
		if (len + 1 < size)
			buf[len++] = c;
		else
			too_long = true;
	}
	buf[len] = '\0';
	return too_long ? -2 : len;
}

static void put(char c)
{
	if (lx.dry)
		return;
	if (lx.used < ARENA_LEN)
		lx.arena[lx.used++] = c;
	else
		lx.overflow = true;
}

static void put_str(const char *s)
{
	while (*s)
		put(*s++);
}

/* Appends the value of the $-reference after the '$' at *pp; advances *pp. */
static void expand(const char **pp)
{
	const char *p = *pp;
	char num[24], name[64];
	size_t len = 0;

	if (*p == '?' || *p == '$' || *p == '!') {
		long v = *p == '?' ? sh.status : *p == '$' ? (long)getpid() : (long)sh.last_bg;

		if (*p != '!' || sh.last_bg) {
			snprintf(num, sizeof(num), "%ld", v);
			put_str(num);
		}
		*pp = p + 1;
		return;
	}
	if (!isalpha((unsigned char)*p) && *p != '_') {
		put('$'); /* not a reference: a plain dollar sign */
		return;
	}
	while ((isalnum((unsigned char)*p) || *p == '_') && len + 1 < sizeof(name))
		name[len++] = *p++;
	name[len] = '\0';
	if (getenv(name))
		put_str(getenv(name));
	*pp = p;
}

static int near_error(int kind)
{
	fprintf(stderr, "sh: syntax error near '%s'\n", tok_text[kind]);
	return -1;
}

static int end_error(int kind)
{
	fprintf(stderr, "sh: syntax error: '%s' at end of line\n", tok_text[kind]);
	return -1;
}

static int unterminated(void)
{
	fprintf(stderr, "sh: syntax error: unterminated quote\n");
	return -1;
}

/* Reads one word at *pp into the arena (unless dry). Returns whether it is a
 * word at all (an unquoted expansion to nothing is not), or -1 on a syntax
 * error. */
static int lex_word(const char **pp)
{
	const char *p = *pp;
	bool started = false; /* a quote or a literal character was seen */
	size_t start = lx.used;

	while (*p && !strchr(" \t|&;<>", *p)) {
		if (*p == '\\') {
			if (!p[1]) {
				fprintf(stderr, "sh: syntax error: '\\' at end of line\n");
				return -1;
			}
			put(p[1]);
			p += 2;
			started = true;
		} else if (*p == '\'') {
			const char *end = strchr(p + 1, '\'');

			if (!end)
				return unterminated();
			while (++p < end)
				put(*p);
			p++;
			started = true;
		} else if (*p == '"') {
			for (p++; *p != '"';) {
				if (!*p)
					return unterminated();
				if (*p == '\\' && p[1] && strchr("\"\\$", p[1])) {
					put(p[1]);
					p += 2;
				} else if (*p++ == '$') {
					expand(&p);
				} else {
					put(p[-1]);
				}
			}
			p++;
			started = true;
		} else if (*p++ == '$') {
			expand(&p);
		} else {
			put(p[-1]);
			started = true;
		}
	}
	*pp = p;
	put('\0');
	return started || lx.used - start > 1;
}

/* Reads the token at *pp: its kind, and for a word where it starts. T_END at
 * the end of the line or a comment, -1 on a syntax error. */
static int next_token(const char **pp, const char **src)
{
	const char *p = *pp;
	int kind = T_WORD;

	while (*p == ' ' || *p == '\t')
		p++;
	*src = p;
	if (!*p || *p == '#')
		return T_END;
	if (*p == '|' || *p == '&')
		kind = (*p == '|' ? T_PIPE : T_AMP) + (p[1] == *p); /* T_OR, T_AND */
	else if (*p == ';' || *p == '<')
		kind = *p == ';' ? T_SEMI : T_IN;
	else if (*p == '>')
		kind = p[1] == '>' ? T_APPEND : T_OUT;
	if (kind != T_WORD) {
		p += strlen(tok_text[kind]);
	} else {
		lx.dry = true;
		if (lex_word(&p) < 0)
			return -1;
	}
	*pp = p;
	return kind;
}

/* Expands the word at src into the arena; NULL if it expands to no word. */
static char *expand_word(const char *src)
{
	char *word = lx.arena + lx.used;

	return lex_word(&src) > 0 ? word : NULL;
}

/* Expands pl's words just before it runs. Returns 0 or -1 (said why). */
static int expand_pipeline(struct pipeline *pl)
{
	bool empty = false;

	lx.dry = false;
	lx.used = 0;
	lx.overflow = false;
	for (int i = 0; i < pl->n; i++) {
		struct cmd *c = &pl->cmd[i];

		c->argc = 0;
		for (int k = 0; k < c->nword; k++) {
			char *w = expand_word(c->word[k]);

			if (w)
				c->argv[c->argc++] = w;
		}
		c->argv[c->argc] = NULL;
		c->in = c->in_word ? expand_word(c->in_word) : NULL;
		c->out = c->out_word ? expand_word(c->out_word) : NULL;
		empty |= !c->argc || (c->in_word && !c->in) || (c->out_word && !c->out);
	}
	if (lx.overflow)
		fprintf(stderr, "sh: line too long after expansion (limit %d)\n", ARENA_LEN);
	else if (empty)
		fprintf(stderr, "sh: a command or file name expanded to nothing\n");
	return lx.overflow || empty ? -1 : 0;
}

/* ---- Parsing ---- */

/* Parses the line at p into ln, checking all of it before anything runs.
 * Returns 0, or -1 after printing the error. */
static int parse(const char *p, struct line *ln)
{
	struct pipeline *pl = NULL;
	struct cmd *c = NULL;
	enum conn next = C_SEQ;
	int kind, after, last = T_SEMI;
	const char *src, *name;

	ln->n = 0;
	while ((kind = next_token(&p, &src)) != T_END) {
		if (kind < 0)
			return -1;
		if (!pl) {
			if (ln->n == MAX_PIPELINES) {
				fprintf(stderr, "sh: too many commands (limit %d)\n",
					MAX_PIPELINES);
				return -1;
			}
			pl = &ln->pl[ln->n++];
			memset(pl, 0, sizeof(*pl));
			pl->conn = next;
			pl->n = 1;
			c = &pl->cmd[0];
		}
		last = kind;
		switch (kind) {
		case T_WORD:
			if (c->nword == MAX_ARGS) {
				fprintf(stderr, "sh: too many arguments (limit %d)\n", MAX_ARGS);
				return -1;
			}
			c->word[c->nword++] = src;
			break;
		case T_IN:
		case T_OUT:
		case T_APPEND:
			after = next_token(&p, &name);
			if (after < 0)
				return -1;
			if (after == T_END)
				return end_error(kind);
			if (after != T_WORD)
				return near_error(after);
			*(kind == T_IN ? &c->in_word : &c->out_word) = name;
			c->append |= kind == T_APPEND;
			break;
		case T_PIPE:
			if (!c->nword)
				return near_error(kind);
			if (pl->n == MAX_CMDS) {
				fprintf(stderr, "sh: pipeline too long (limit %d)\n", MAX_CMDS);
				return -1;
			}
			c = &pl->cmd[pl->n++];
			break;
		default: /* ; & && || end a pipeline */
			if (!c->nword)
				return near_error(kind);
			pl->background = kind == T_AMP;
			next = kind == T_AND ? C_AND : kind == T_OR ? C_OR : C_SEQ;
			pl = NULL;
			break;
		}
	}
	if (pl && !c->nword) {
		if (pl->n == 1) /* only redirections */
			fprintf(stderr, "sh: syntax error: a redirection without a command\n");
		return pl->n == 1 ? -1 : end_error(T_PIPE);
	}
	return !pl && (last == T_AND || last == T_OR) ? end_error(last) : 0;
}

/* ---- Running commands ---- */

static int count_args(char **argv)
{
	int n = 0;

	while (argv[n])
		n++;
	return n;
}

/* The shell's $? for a wait status: the exit code, or 128 + the signal. */
static int exit_code(int ws)
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

static int wait_for(pid_t pid)
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

static int run_builtin(const struct builtin *b, char **argv)
{
	int status = b->fn ? b->fn(count_args(argv), argv) : show_file(b->file);

	fflush(NULL);
	return status;
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
static int run_argv(char **argv, int (*setup)(const void *), const void *arg)
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

/* ---- Background jobs ---- */

static void job_add(const struct pipeline *pl, const pid_t *pid)
{
	struct job *j = NULL;
	size_t len = 0;

	for (int i = 0; i < MAX_JOBS && !j; i++) {
		if (!sh.jobs[i].id)
			j = &sh.jobs[i];
	}
	for (int i = 0; i < MAX_JOBS && !j; i++) {
		if (!sh.jobs[i].left) /* finished, never waited for: recycle */
			j = &sh.jobs[i];
	}
	if (!j) {
		fprintf(stderr, "sh: too many jobs (limit %d); waiting for this one\n", MAX_JOBS);
		for (int i = 0; i < pl->n; i++)
			wait_for(pid[i]);
		return;
	}
	memset(j, 0, sizeof(*j));
	j->id = j - sh.jobs + 1;
	j->n = j->left = pl->n;
	memcpy(j->pid, pid, pl->n * sizeof(*pid));
	for (int i = 0; i < pl->n; i++) {
		for (char *const *a = pl->cmd[i].argv; *a && len + 1 < sizeof(j->text); a++) {
			const char *sep = a != pl->cmd[i].argv ? " " : i ? " | " : "";

			len += snprintf(j->text + len, sizeof(j->text) - len, "%s%s", sep, *a);
		}
	}
	fprintf(stderr, "[%d] %d\n", j->id, (int)pid[pl->n - 1]);
}

static struct job *job_of(pid_t pid, int *idx)
{
	for (int i = 0; i < MAX_JOBS; i++) {
		for (int k = 0; sh.jobs[i].id && k < sh.jobs[i].n; k++) {
			if (sh.jobs[i].pid[k] == pid) {
				*idx = k;
				return &sh.jobs[i];
			}
		}
	}
	return NULL;
}

static void job_reaped(pid_t pid, int ws)
{
	int k;
	struct job *j = job_of(pid, &k);

	if (j && !j->done[k]) {
		j->done[k] = true;
		j->wstatus[k] = ws;
		j->left--;
	}
}

/* Collects background jobs that have ended, without blocking. */
static void reap_jobs(void)
{
	pid_t pid;
	int ws;

	while ((pid = waitpid(-1, &ws, WNOHANG)) > 0)
		job_reaped(pid, ws);
}

/* At the prompt: "[N] Done", "[N] Exit 3" or "[N] <signal>" for ended jobs. */
static void notify_jobs(void)
{
	for (int i = 0; i < MAX_JOBS; i++) {
		struct job *j = &sh.jobs[i];
		int ws;

		if (!j->id || j->left)
			continue;
		ws = j->wstatus[j->n - 1];
		if (WIFSIGNALED(ws))
			fprintf(stderr, "[%d] %s\t%s\n", j->id, strsignal(WTERMSIG(ws)), j->text);
		else if (exit_code(ws))
			fprintf(stderr, "[%d] Exit %d\t%s\n", j->id, exit_code(ws), j->text);
		else
			fprintf(stderr, "[%d] Done\t%s\n", j->id, j->text);
		j->id = 0;
	}
}

static int run_pipeline(struct pipeline *pl)
{
	pid_t pid[MAX_CMDS];
	const struct builtin *b;
	int in = -1, started = 0, status = 0;

	if (expand_pipeline(pl) < 0)
		return 1;
	b = find_builtin(pl->cmd[0].argv[0]);
	if (pl->n == 1 && !pl->background && b &&
	    (b->in_shell || (!pl->cmd[0].in && !pl->cmd[0].out)))
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

static void run_text(const char *text)
{
	if (parse(text, &cur_line) < 0) {
		sh.status = 2;
		return;
	}
	run_line(&cur_line);
}

/* ---- Built-ins ---- */

static const char *const sysctl_known[] = {
	"sched_latency_ns",
	"sched_min_granularity_ns",
	"sched_wakeup_granularity_ns",
	"sched_migration_cost_ns",
	"sched_features",
	"sched_select",
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

/* The wait status of job j's k-th process, waiting for it if need be. */
static int wait_pid(struct job *j, int k)
{
	if (!j->done[k])
		job_reaped(j->pid[k], wait_for(j->pid[k]));
	return j->wstatus[k];
}

/* wait: for every job; wait PID...: for those, giving the last one's status. */
static int bi_wait(int argc, char **argv)
{
	int status = 0;

	for (int i = 0; argc == 1 && i < MAX_JOBS; i++) {
		for (int k = 0; sh.jobs[i].id && k < sh.jobs[i].n; k++)
			wait_pid(&sh.jobs[i], k);
		sh.jobs[i].id = 0;
	}
	for (int i = 1; i < argc; i++) {
		char *end;
		long pid = strtol(argv[i], &end, 10);
		struct job *j = NULL;
		int k;

		if (end != argv[i] && !*end && pid > 0 && pid <= 0x7fffffff)
			j = job_of(pid, &k);
		if (!j) {
			fprintf(stderr, "sh: wait: %s: not a child of this shell\n", argv[i]);
			status = 127;
			continue;
		}
		status = exit_code(wait_pid(j, k));
		if (!j->left)
			j->id = 0;
	}
	return status;
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

static int bi_help(int argc, char **argv);

#define PROC_TOPO  "/proc/fulcrum/topology"
#define PROC_TASKS "/proc/fulcrum/tasks"

static const struct builtin builtins[] = {
	{ "echo", bi_echo, NULL, false, "[-n] [WORD]...", "print the words" },
	{ "exit", bi_exit, NULL, true, "[CODE]", "leave the shell with CODE, else $?" },
	{ "help", bi_help, NULL, false, "", "this list" },
	{ "nice", bi_nice, NULL, false, "N CMD [ARG]...", "run CMD at nice value N (-20..19)" },
	{ "schedstat", NULL, "/proc/schedstat", false, "",
	  "scheduler statistics (/proc/schedstat)" },
	{ "sysctl", bi_sysctl, NULL, false, "[NAME[=VALUE]]...",
	  "show or set /proc/sys/kernel/NAME; alone: the sched knobs" },
	{ "tasks", NULL, PROC_TASKS, false, "", "per-task statistics (" PROC_TASKS ")" },
	{ "taskset", bi_taskset, NULL, false, "MASK CMD [ARG]...",
	  "run CMD on the CPUs in hex MASK" },
	{ "time", bi_time, NULL, false, "CMD [ARG]...", "run CMD, print its real/user/sys time" },
	{ "topo", NULL, PROC_TOPO, false, "", "CPU topology and sched domains (" PROC_TOPO ")" },
	{ "wait", bi_wait, NULL, true, "[PID]...", "wait for background jobs (all by default)" },
	{ NULL, NULL, NULL, false, NULL, NULL },
};

static int bi_help(int argc, char **argv)
{
	(void)argc, (void)argv;
	printf("Built-in commands:\n");
	for (const struct builtin *b = builtins; b->name; b++)
		printf("  %-9s %-18s %s\n", b->name, b->args, b->help);
	printf("Other commands are programs in $PATH (default " DEFAULT_PATH ").\n"
	       "There is no cd: Fulcrum has no chdir(2), so name files by their full path.\n"
	       "Syntax: a | b; a && b; a || b; cmd &; cmd < in > out (>> appends);\n"
	       "        'quoted' \"with $? $$ $! $NAME\" \\x; # comment\n");
	return 0;
}

static const struct builtin *find_builtin(const char *name)
{
	for (const struct builtin *b = builtins; b->name; b++) {
		if (!strcmp(b->name, name))
			return b;
	}
	return NULL;
}

/* ---- Input loops ---- */

static int run_fd(int fd)
{
	char line[LINE_LEN];

	for (;;) {
		int n;

		reap_jobs();
		if (sh.interactive) {
			notify_jobs();
			fputs(PROMPT, stderr);
		}
		n = read_line(fd, line, sizeof(line));
		if (n == -1)
			break;
		if (n == -2) {
			fprintf(stderr, "sh: line too long (limit %d)\n", LINE_LEN - 1);
			sh.status = 2;
			continue;
		}
		run_text(line);
	}
	if (sh.interactive)
		fputs("exit\n", stderr);
	return sh.status;
}

/* -c: each line of text in turn. */
static int run_string(const char *text)
{
	char line[LINE_LEN];

	for (;;) {
		size_t len = strcspn(text, "\n");

		reap_jobs();
		if (len >= sizeof(line)) {
			fprintf(stderr, "sh: line too long (limit %d)\n", LINE_LEN - 1);
			sh.status = 2;
		} else {
			memcpy(line, text, len);
			line[len] = '\0';
			run_text(line);
		}
		if (!text[len])
			break;
		text += len + 1;
	}
	return sh.status;
}

static int usage(void)
{
	fprintf(stderr, "usage: sh [-i] [-c COMMANDS | SCRIPT]\n");
	return 2;
}

int main(int argc, char **argv)
{
	bool force_interactive = false;
	int i, fd;

	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "-c"))
			return i + 1 < argc ? run_string(argv[i + 1]) : usage();
		if (!strcmp(argv[i], "--")) {
			i++;
			break;
		}
		if (strcmp(argv[i], "-i"))
			return usage();
		force_interactive = true;
	}
	if (i < argc) {
		fd = open(argv[i], O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			fprintf(stderr, "sh: %s: %s\n", argv[i], strerror(errno));
			return 127;
		}
		return run_fd(fd);
	}
	sh.interactive = force_interactive || isatty(0);
	if (sh.interactive) {
		signal(SIGINT, SIG_IGN);
		signal(SIGQUIT, SIG_IGN);
	}
	return run_fd(0);
}

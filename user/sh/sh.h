/*
 * What the shell's files share: its limits, a parsed line, the job table,
 * the built-in table's entries and the shell's own state ($?, $!, jobs).
 * The program as a whole is described in main.c.
 */
#ifndef SH_H
#define SH_H

#include <stdbool.h>
#include <sys/types.h>

#define LINE_LEN      4096 /* longest input line, with its NUL */
#define MAX_ARGS      64   /* words in one command */
#define MAX_CMDS      8	   /* commands in one pipeline */
#define MAX_PIPELINES 32   /* pipelines in one line */
#define MAX_JOBS      16
#define DEFAULT_PATH  "/bin:/tests"

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

struct shell {
	int status;    /* $? */
	pid_t last_bg; /* $!, 0 before the first background job */
	bool interactive;
	struct job jobs[MAX_JOBS];
};

extern struct shell sh;

/* parse.c: reading, tokenising, parsing and $-expansion */
int read_line(int fd, char *buf, int size);
int parse(const char *p, struct line *ln);
int expand_pipeline(struct pipeline *pl);

/* run.c: running commands */
int exit_code(int ws);
int wait_for(pid_t pid);
int run_argv(char **argv, int (*setup)(const void *), const void *arg);
void run_text(const char *text);

/* jobs.c: background jobs */
void job_add(const struct pipeline *pl, const pid_t *pid);
void reap_jobs(void);
void notify_jobs(void);
int bi_wait(int argc, char **argv);

/* builtins.c: the built-in commands */
const struct builtin *find_builtin(const char *name);
int run_builtin(const struct builtin *b, char **argv);

#endif

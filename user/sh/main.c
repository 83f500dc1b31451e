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
 *
 * Files: parse.c reads, tokenises, parses and $-expands a line; run.c runs
 * it (fork/exec, pipes, redirections); jobs.c keeps the background jobs;
 * builtins.c has the built-in commands; this file has the input loops.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sh.h"

#define PROMPT "fulcrum$ "

struct shell sh;

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

/*
 * sh: background jobs ('&'): the job table, reaping ended jobs without
 * blocking, the "[N] Done" reports at the prompt, and the wait built-in.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "sh.h"

void job_add(const struct pipeline *pl, const pid_t *pid)
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
void reap_jobs(void)
{
	pid_t pid;
	int ws;

	while ((pid = waitpid(-1, &ws, WNOHANG)) > 0)
		job_reaped(pid, ws);
}

/* At the prompt: "[N] Done", "[N] Exit 3" or "[N] <signal>" for ended jobs. */
void notify_jobs(void)
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

/* The wait status of job j's k-th process, waiting for it if need be. */
static int wait_pid(struct job *j, int k)
{
	if (!j->done[k])
		job_reaped(j->pid[k], wait_for(j->pid[k]));
	return j->wstatus[k];
}

/* wait: for every job; wait PID...: for those, giving the last one's status. */
int bi_wait(int argc, char **argv)
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

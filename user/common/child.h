/*
 * Process helpers for the user test programs: run a piece of a test in a
 * forked child and judge its wait status, find this program's own file and
 * its siblings (for execve), and probe which descriptors survive an execve.
 */
#ifndef USER_COMMON_CHILD_H
#define USER_COMMON_CHILD_H

#include <stddef.h>
#include <sys/wait.h>

#include "report.h"

/* Forks; the child returns fn(arg) as its exit code.  Returns the wait status, or -errno. */
int child_run(int (*fn)(void *), void *arg);

/* Forks a child that exits with fn(arg) and returns at once: its pid, or -errno. */
int child_start(int (*fn)(void *), void *arg);

/* wait4 for pid, retrying on EINTR: the wait status, or -errno. */
int child_wait(int pid);

/* "exit 3", "killed by SIGSEGV", "wait failed: -ECHILD"; a static buffer. */
const char *child_describe(int status);

/* "SIGSEGV" for a signal number. */
const char *child_signame(int sig);

/* Remembers argv[0]; a bare name without '/' becomes /tests/<name>. */
void test_self_init(const char *argv0, const char *name);
/* The path this program was started from. */
const char *test_self(void);
/* The path of another program in this program's directory. */
void test_sibling(char *buf, size_t size, const char *name);

/*
 * Descriptor probe: fdprobe_run() forks and re-executes this program with
 * "--fd-probe <closed> <open>"; that copy (fdprobe_main(), called first
 * thing in main) exits 0 if closed_fd is closed and open_fd is open after
 * the execve.  Returns the wait status.  fdprobe_main returns -1 when argv
 * is not a probe request.
 */
int fdprobe_run(int closed_fd, int open_fd);
int fdprobe_main(int argc, char **argv);

#define EXPECT_EXITED(status, code)                                                 \
	do {                                                                        \
		int s_ = (status);                                                  \
		EXPECT(s_ >= 0 && WIFEXITED(s_) && WEXITSTATUS(s_) == (code),       \
		       "child: %s, want exit %d", child_describe(s_), (int)(code)); \
	} while (0)

#define EXPECT_KILLED(status, sig)                                                              \
	do {                                                                                    \
		int s_ = (status);                                                              \
		EXPECT(s_ >= 0 && WIFSIGNALED(s_) && WTERMSIG(s_) == (sig),                     \
		       "child: %s, want killed by %s", child_describe(s_), child_signame(sig)); \
	} while (0)

#endif

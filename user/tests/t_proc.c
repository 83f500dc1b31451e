/*
 * t_proc: processes and signals — fork, vfork, execve (argv, envp, auxv,
 * close-on-exec, signal state), exit and wait4, kill and tgkill, handlers
 * and masks, and faults in children seen in the parent's wait status.
 * Runs on Linux and Fulcrum.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "../common/child.h"
#include "../common/rawsys.h"
#include "../common/report.h"

extern char **environ;

/* The kernel's struct sigaction on x86-64, for raw rt_sigaction. */
struct k_sigaction {
	void *handler;
	unsigned long flags;
	void *restorer;
	unsigned long mask;
};

#define SIGBIT(s) (1ul << ((s)-1))
#define MS(n)	  TS(0, (n)*1000000l)

static void sleep_ms(long ms)
{
	raw2(SYS_nanosleep, MS(ms), 0);
}

/* A child that blocks in read() on p[0] until killed or p[1] is written or closed. */
static int block_in_read(void *arg)
{
	int *p = arg;
	char c;

	raw1(SYS_close, p[1]);
	return raw3(SYS_read, p[0], &c, 1) == 1 ? 0 : 1;
}

/* Forks a child blocked in read on a fresh pipe; the parent keeps the write end in *wr. */
static int spawn_blocked(int *wr)
{
	int p[2];

	if (raw2(SYS_pipe2, p, 0) < 0)
		return -1;
	pid_t pid = fork();
	if (pid == 0)
		_exit(block_in_read(p));
	raw1(SYS_close, p[0]);
	*wr = p[1];
	return pid;
}

static void set_handler(int sig, void (*fn)(int), int flags)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = fn;
	sa.sa_flags = flags;
	sigaction(sig, &sa, NULL);
}

/* ------------------------------------------------------------ fork, exit, wait */

static int exit_with(void *arg)
{
	long code = (long)arg;

	sleep_ms(code % 5);
	return (int)code;
}

static const char *fork_exit_codes(void)
{
	pid_t pids[5];

	for (int i = 0; i < 5; i++) {
		pids[i] = fork();
		EXPECT(pids[i] >= 0, "fork: %s", report_errname(errno));
		if (pids[i] == 0)
			_exit(exit_with((void *)(long)(i * 10 + 3)));
	}
	/* reap in reverse order: wait4 for one pid must not take another */
	for (int i = 4; i >= 0; i--)
		EXPECT_EXITED(child_wait(pids[i]), i * 10 + 3);
	return NULL;
}

static const char *fork_pids_distinct(void)
{
	int p[2], n = 10;
	pid_t pids[10];

	EXPECT_OK(raw2(SYS_pipe2, p, 0));
	for (int i = 0; i < n; i++) {
		pids[i] = fork();
		EXPECT(pids[i] >= 0, "fork: %s", report_errname(errno));
		if (pids[i] == 0) {
			int me = (int)raw0(SYS_getpid);
			raw3(SYS_write, p[1], &me, sizeof(me));
			_exit(0);
		}
	}
	raw1(SYS_close, p[1]);
	int got, seen = 0;
	while (raw3(SYS_read, p[0], &got, sizeof(got)) == sizeof(got)) {
		int found = 0;
		for (int i = 0; i < n; i++)
			found |= (pids[i] == got);
		EXPECT(found, "child reported getpid %d, not a pid fork returned", got);
		seen++;
	}
	raw1(SYS_close, p[0]);
	EXPECT_EQ(seen, n);
	for (int i = 0; i < n; i++) {
		for (int j = 0; j < i; j++)
			EXPECT(pids[i] != pids[j], "pid %d handed out twice", pids[i]);
		EXPECT(pids[i] != getpid(), "child got the parent's pid");
		EXPECT_EXITED(child_wait(pids[i]), 0);
	}
	return NULL;
}

static int fork_global = 1;

static int change_memory(void *arg)
{
	int *stack_var = arg;

	fork_global = 2;
	*stack_var = 2;
	return fork_global == 2 && *stack_var == 2 ? 0 : 1;
}

static const char *fork_copies_memory(void)
{
	int local = 1;

	EXPECT_EXITED(child_run(change_memory, &local), 0);
	EXPECT(fork_global == 1 && local == 1, "the child's writes reached the parent");
	return NULL;
}

static const char *wait4_any(void)
{
	pid_t pids[3];
	int seen[3] = { 0 };

	for (int i = 0; i < 3; i++) {
		pids[i] = fork();
		EXPECT(pids[i] >= 0, "fork: %s", report_errname(errno));
		if (pids[i] == 0)
			_exit(20 + i);
	}
	for (int k = 0; k < 3; k++) {
		int status;
		long r;
		do
			r = raw4(SYS_wait4, -1, &status, 0, 0);
		while (r == -EINTR);
		EXPECT(r > 0, "wait4(-1) = %s", report_ret(r));
		int i = 0;
		while (i < 3 && pids[i] != r)
			i++;
		EXPECT(i < 3, "wait4(-1) returned unknown pid %ld", r);
		EXPECT(!seen[i], "pid %ld reaped twice", r);
		seen[i] = 1;
		EXPECT_EXITED(status, 20 + i);
	}
	EXPECT_ERR(raw4(SYS_wait4, -1, 0, 0, 0), ECHILD);
	return NULL;
}

static const char *exit_code_masked(void)
{
	pid_t pid = fork();

	EXPECT(pid >= 0, "fork failed");
	if (pid == 0)
		raw1(SYS_exit_group, 256 + 5);
	EXPECT_EXITED(child_wait(pid), 5);
	return NULL;
}

static const char *wait4_wnohang(void)
{
	int wr, status;
	pid_t pid = spawn_blocked(&wr);

	EXPECT(pid > 0, "spawn failed");
	EXPECT_EQ(raw4(SYS_wait4, pid, &status, WNOHANG, 0), 0);
	EXPECT_EQ(raw3(SYS_write, wr, "x", 1), 1);
	EXPECT_EXITED(child_wait(pid), 0);
	raw1(SYS_close, wr);
	return NULL;
}

static const char *wait4_errors(void)
{
	int status;

	EXPECT_ERR(raw4(SYS_wait4, -1, &status, 0, 0), ECHILD);
	EXPECT_ERR(raw4(SYS_wait4, -1, &status, WNOHANG, 0), ECHILD);
	EXPECT_ERR(raw4(SYS_wait4, 0x3ffffff0, &status, 0, 0), ECHILD);
	/* the parent is not a child */
	EXPECT_ERR(raw4(SYS_wait4, raw0(SYS_getppid), &status, 0, 0), ECHILD);
	EXPECT_ERR(raw4(SYS_wait4, -1, &status, 0x1000, 0), EINVAL);
	return NULL;
}

static const char *wait4_rusage(void)
{
	struct rusage ru;
	int status;
	pid_t pid = fork();

	EXPECT(pid >= 0, "fork failed");
	if (pid == 0) {
		for (int i = 0; i < 3; i++) /* each a voluntary switch, counted in the rusage */
			raw2(SYS_nanosleep, TS(0, 1000000), 0);
		_exit(4);
	}
	memset(&ru, 0xff, sizeof(ru));
	long r;
	do
		r = raw4(SYS_wait4, pid, &status, 0, &ru);
	while (r == -EINTR);
	EXPECT_EQ(r, pid);
	EXPECT_EXITED(status, 4);
	EXPECT(ru.ru_utime.tv_usec >= 0 && ru.ru_utime.tv_usec < 1000000, "ru_utime.tv_usec %ld",
	       (long)ru.ru_utime.tv_usec);
	EXPECT(ru.ru_stime.tv_sec >= 0 && ru.ru_stime.tv_usec >= 0, "ru_stime unset");
	EXPECT(ru.ru_nvcsw >= 1, "ru_nvcsw %ld after 3 sleeps", (long)ru.ru_nvcsw);
	return NULL;
}

static const char *fork_cycles(void)
{
	/* fork/exit/wait over and over: every child is reaped with its status */
	for (int i = 0; i < 100; i++) {
		pid_t pid = fork();
		EXPECT(pid >= 0, "round %d: fork: %s", i, report_errname(errno));
		if (pid == 0)
			_exit(i & 0x7f);
		EXPECT_EXITED(child_wait(pid), i & 0x7f);
	}
	return NULL;
}

/* ------------------------------------------------------------ vfork */

static volatile int vfork_mark;

static const char *vfork_exit(void)
{
	vfork_mark = 0;
	pid_t pid = vfork();
	if (pid == 0) {
		vfork_mark = 77; /* shared memory: the parent sees it */
		_exit(7);
	}
	EXPECT(pid > 0, "vfork failed");
	/* the parent resumes only after the child is gone */
	EXPECT(vfork_mark == 77, "vfork child's write not seen (mark %d): not CLONE_VM|CLONE_VFORK",
	       vfork_mark);
	EXPECT_EXITED(child_wait(pid), 7);
	return NULL;
}

static const char *vfork_exec(void)
{
	static char *argv[] = { NULL, "--exit", "5", NULL };

	argv[0] = (char *)test_self();
	pid_t pid = vfork();
	if (pid == 0) {
		execve(argv[0], argv, environ);
		_exit(127);
	}
	EXPECT(pid > 0, "vfork failed");
	EXPECT_EXITED(child_wait(pid), 5);
	return NULL;
}

/* ------------------------------------------------------------ execve */

enum exec_bits {
	EXEC_ARGV = 1,
	EXEC_ENVP = 2,
	EXEC_PAGESZ = 4,
	EXEC_RANDOM = 8,
	EXEC_PID = 16,
	EXEC_FDS = 32,
	EXEC_HANDLERS = 64,
	EXEC_MASK = 128,
};

static const char exec_marker[] = "marker with spaces";

static void exec_check_handler(int sig)
{
	(void)sig;
}

/* The re-executed copy: "--exec-check <pid> <marker> <cloexec fd> <plain fd>". */
static int exec_check_main(int argc, char **argv)
{
	int bad = 0;
	struct k_sigaction ka;
	unsigned long mask = 0;

	if (argc != 6 || strcmp(argv[3], exec_marker) != 0)
		bad |= EXEC_ARGV;
	int nenv = 0;
	for (char **e = environ; *e; e++)
		nenv++;
	const char *a = getenv("FULCRUM_A"), *b = getenv("FULCRUM_B");
	if (nenv != 2 || !a || strcmp(a, "1") != 0 || !b || strcmp(b, "two words") != 0)
		bad |= EXEC_ENVP;
	if (getauxval(AT_PAGESZ) != 4096 || getauxval(AT_PHDR) == 0 || getauxval(AT_ENTRY) == 0 ||
	    getauxval(AT_PHNUM) == 0)
		bad |= EXEC_PAGESZ;
	const unsigned char *rnd = (const unsigned char *)getauxval(AT_RANDOM);
	if (!rnd) {
		bad |= EXEC_RANDOM;
	} else {
		unsigned char any = 0;
		for (int i = 0; i < 16; i++)
			any |= rnd[i];
		if (!any)
			bad |= EXEC_RANDOM;
	}
	if (argc == 6 && raw0(SYS_getpid) != atol(argv[2]))
		bad |= EXEC_PID;
	if (argc == 6) {
		char st[256];
		if (raw2(SYS_fstat, atoi(argv[4]), st) != -EBADF ||
		    raw2(SYS_fstat, atoi(argv[5]), st))
			bad |= EXEC_FDS;
	}
	/* handlers become SIG_DFL (their code is gone); ignored stays ignored */
	if (raw4(SYS_rt_sigaction, SIGTERM, 0, &ka, 8) || ka.handler != SIG_DFL)
		bad |= EXEC_HANDLERS;
	if (raw4(SYS_rt_sigaction, SIGUSR2, 0, &ka, 8) || ka.handler != SIG_IGN)
		bad |= EXEC_HANDLERS;
	if (raw4(SYS_rt_sigprocmask, SIG_BLOCK, 0, &mask, 8) || !(mask & SIGBIT(SIGUSR1)))
		bad |= EXEC_MASK;
	return bad;
}

static int exec_status = -1;

static const char *run_exec_check(void)
{
	int p[2];
	char pid_s[16], rd_s[16], wr_s[16];
	char *argv[] = {
		(char *)test_self(), "--exec-check", pid_s, (char *)exec_marker, rd_s, wr_s, NULL
	};
	char *envp[] = { "FULCRUM_A=1", "FULCRUM_B=two words", NULL };

	EXPECT_OK(raw2(SYS_pipe2, p, 0));
	pid_t pid = fork();
	EXPECT(pid >= 0, "fork failed");
	if (pid == 0) {
		int cloexec = (int)raw3(SYS_dup3, p[0], 40, O_CLOEXEC);
		sigset_t block;
		snprintf(pid_s, sizeof(pid_s), "%ld", raw0(SYS_getpid));
		snprintf(rd_s, sizeof(rd_s), "%d", cloexec);
		snprintf(wr_s, sizeof(wr_s), "%d", p[1]);
		set_handler(SIGTERM, exec_check_handler, 0);
		set_handler(SIGUSR2, SIG_IGN, 0);
		sigemptyset(&block);
		sigaddset(&block, SIGUSR1);
		sigprocmask(SIG_BLOCK, &block, NULL);
		execve(argv[0], argv, envp);
		_exit(255);
	}
	exec_status = child_wait(pid);
	raw1(SYS_close, p[0]);
	raw1(SYS_close, p[1]);
	EXPECT(exec_status >= 0 && WIFEXITED(exec_status) && WEXITSTATUS(exec_status) != 255,
	       "execve of %s: %s", test_self(), child_describe(exec_status));
	return NULL;
}

/* One case per property the exec'd copy checked. */
static const char *exec_bit(int bit, const char *what)
{
	if (exec_status < 0 || !WIFEXITED(exec_status) || WEXITSTATUS(exec_status) == 255)
		return "execve itself failed (see execve_self)";
	EXPECT(!(WEXITSTATUS(exec_status) & bit), "after execve: %s", what);
	return NULL;
}

static const char *exec_argv(void)
{
	return exec_bit(EXEC_ARGV, "argv not as passed");
}
static const char *exec_envp(void)
{
	return exec_bit(EXEC_ENVP, "envp not exactly as passed");
}
static const char *exec_auxv(void)
{
	return exec_bit(EXEC_PAGESZ, "AT_PAGESZ != 4096 or AT_PHDR/AT_ENTRY/AT_PHNUM missing");
}
static const char *exec_at_random(void)
{
	return exec_bit(EXEC_RANDOM, "AT_RANDOM missing or all zero");
}
static const char *exec_same_pid(void)
{
	return exec_bit(EXEC_PID, "getpid changed");
}
static const char *exec_cloexec(void)
{
	return exec_bit(EXEC_FDS, "O_CLOEXEC fd open or plain fd closed");
}
static const char *exec_resets_handlers(void)
{
	return exec_bit(EXEC_HANDLERS, "caught signal not reset to SIG_DFL or SIG_IGN lost");
}
static const char *exec_keeps_mask(void)
{
	return exec_bit(EXEC_MASK, "blocked signal mask not kept");
}

static int exec_errors_child(void *arg)
{
	char *argv[] = { "x", NULL };

	(void)arg;
	if (raw3(SYS_execve, "/no/such/program", argv, environ) != -ENOENT)
		return 1;
	if (raw3(SYS_execve, BAD_PTR_LOW, argv, environ) != -EFAULT)
		return 2;
	if (raw3(SYS_execve, test_self(), BAD_PTR_LOW, environ) != -EFAULT)
		return 3;
	if (raw3(SYS_execve, test_self(), argv, BAD_PTR_KERNEL) != -EFAULT)
		return 4;
	char *bad_argv[] = { "x", BAD_PTR_LOW, NULL };
	if (raw3(SYS_execve, test_self(), bad_argv, environ) != -EFAULT)
		return 5;
	/* the failed calls left this process intact */
	return raw0(SYS_getpid) > 0 ? 0 : 6;
}

static const char *execve_errors(void)
{
	int status = child_run(exec_errors_child, NULL);

	EXPECT(status >= 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0,
	       "child: %s (1 ENOENT, 2 bad path, 3 bad argv, 4 bad envp, 5 bad argv[1])",
	       child_describe(status));
	return NULL;
}

/* ------------------------------------------------------------ kill */

static const char *kill_sigterm(void)
{
	int wr;
	pid_t pid = spawn_blocked(&wr);

	EXPECT(pid > 0, "spawn failed");
	EXPECT_EQ(raw2(SYS_kill, pid, 0), 0);
	EXPECT_EQ(raw2(SYS_kill, pid, SIGTERM), 0);
	EXPECT_KILLED(child_wait(pid), SIGTERM);
	raw1(SYS_close, wr);
	return NULL;
}

static const char *kill_sigkill(void)
{
	int wr;
	pid_t pid = spawn_blocked(&wr);

	EXPECT(pid > 0, "spawn failed");
	EXPECT_EQ(raw2(SYS_kill, pid, SIGKILL), 0);
	EXPECT_KILLED(child_wait(pid), SIGKILL);
	raw1(SYS_close, wr);
	/* gone: no such process any more */
	EXPECT_ERR(raw2(SYS_kill, pid, 0), ESRCH);
	return NULL;
}

static const char *kill_sleeping_child(void)
{
	pid_t pid = fork();

	EXPECT(pid >= 0, "fork failed");
	if (pid == 0) {
		raw2(SYS_nanosleep, TS(30, 0), 0);
		_exit(1);
	}
	sleep_ms(5);
	EXPECT_EQ(raw2(SYS_kill, pid, SIGKILL), 0);
	EXPECT_KILLED(child_wait(pid), SIGKILL);
	return NULL;
}

static const char *kill_errors(void)
{
	EXPECT_ERR(raw2(SYS_kill, 0x3ffffff0, SIGTERM), ESRCH);
	EXPECT_ERR(raw2(SYS_kill, 0x3ffffff0, 0), ESRCH);
	EXPECT_ERR(raw2(SYS_kill, raw0(SYS_getpid), 99), EINVAL);
	EXPECT_ERR(raw2(SYS_kill, raw0(SYS_getpid), -1), EINVAL);
	EXPECT_EQ(raw2(SYS_kill, raw0(SYS_getpid), 0), 0);
	return NULL;
}

static void *block_forever(void *arg)
{
	char c;

	raw3(SYS_read, *(int *)arg, &c, 1);
	return NULL;
}

static int threaded_blocked(void *arg)
{
	int *p = arg;
	pthread_t t;

	raw1(SYS_close, p[1]);
	if (pthread_create(&t, NULL, block_forever, &p[0]))
		return 2;
	block_forever(&p[0]);
	return 1;
}

static const char *kill_threaded_child(void)
{
	int p[2];

	EXPECT_OK(raw2(SYS_pipe2, p, 0));
	pid_t pid = fork();
	EXPECT(pid >= 0, "fork failed");
	if (pid == 0)
		_exit(threaded_blocked(p));
	raw1(SYS_close, p[0]);
	sleep_ms(5);
	EXPECT_EQ(raw2(SYS_kill, pid, SIGKILL), 0);
	EXPECT_KILLED(child_wait(pid), SIGKILL);
	raw1(SYS_close, p[1]);
	return NULL;
}

/* ------------------------------------------------------------ handlers and masks */

static volatile sig_atomic_t chld_count;
static volatile int chld_pid, chld_code, chld_status, chld_signo;

static void on_sigchld(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	chld_count++;
	chld_signo = sig;
	chld_pid = si->si_pid;
	chld_code = si->si_code;
	chld_status = si->si_status;
}

static const char *sigchld_handler_when_unblocked(void)
{
	struct sigaction sa;
	sigset_t block, old;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_sigchld;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	EXPECT_EQ(sigaction(SIGCHLD, &sa, NULL), 0);
	sigemptyset(&block);
	sigaddset(&block, SIGCHLD);
	EXPECT_EQ(sigprocmask(SIG_BLOCK, &block, &old), 0);
	chld_count = 0;
	pid_t pid = fork();
	EXPECT(pid >= 0, "fork failed");
	if (pid == 0)
		_exit(9);
	int status = child_wait(pid);
	int before = chld_count;
	/* unblocking delivers the pending SIGCHLD before sigprocmask returns */
	sigprocmask(SIG_SETMASK, &old, NULL);
	int after = chld_count;
	set_handler(SIGCHLD, SIG_DFL, 0);
	EXPECT_EXITED(status, 9);
	EXPECT(before == 0, "handler ran %d times while SIGCHLD was blocked", before);
	EXPECT(after == 1, "handler ran %d times after unblocking, want 1", after);
	EXPECT(chld_signo == SIGCHLD, "handler got signal %d", chld_signo);
	return NULL;
}

static const char *sigchld_siginfo(void)
{
	struct sigaction sa;
	sigset_t block, old;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_sigchld;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	EXPECT_EQ(sigaction(SIGCHLD, &sa, NULL), 0);
	sigemptyset(&block);
	sigaddset(&block, SIGCHLD);
	sigprocmask(SIG_BLOCK, &block, &old);
	chld_count = 0;
	chld_pid = chld_code = chld_status = -1;
	pid_t pid = fork();
	EXPECT(pid >= 0, "fork failed");
	if (pid == 0)
		_exit(11);
	child_wait(pid);
	sigprocmask(SIG_SETMASK, &old, NULL);
	set_handler(SIGCHLD, SIG_DFL, 0);
	EXPECT(chld_count == 1, "handler ran %d times", (int)chld_count);
	EXPECT(chld_pid == pid, "si_pid %d, want %d", chld_pid, pid);
	EXPECT(chld_code == CLD_EXITED, "si_code %d, want CLD_EXITED", chld_code);
	EXPECT(chld_status == 11, "si_status %d, want 11", chld_status);
	return NULL;
}

static volatile sig_atomic_t term_count, term_blocked_inside;

static void on_sigterm(int sig)
{
	unsigned long mask = 0;

	term_count++;
	/* a handler runs with its own signal blocked */
	raw4(SYS_rt_sigprocmask, SIG_BLOCK, 0, &mask, 8);
	term_blocked_inside = (sig == SIGTERM) && (mask & SIGBIT(SIGTERM));
}

static const char *kill_self_handler(void)
{
	unsigned long mask = ~0ul;

	set_handler(SIGTERM, on_sigterm, 0);
	term_count = term_blocked_inside = 0;
	/* a signal to oneself is delivered before kill returns */
	EXPECT_EQ(raw2(SYS_kill, raw0(SYS_getpid), SIGTERM), 0);
	EXPECT(term_count == 1, "handler ran %d times", (int)term_count);
	EXPECT(term_blocked_inside, "SIGTERM not blocked inside its handler");
	EXPECT_EQ(raw4(SYS_rt_sigprocmask, SIG_BLOCK, 0, &mask, 8), 0);
	EXPECT(!(mask & SIGBIT(SIGTERM)), "SIGTERM still blocked after the handler returned");
	EXPECT_EQ(raw3(SYS_tgkill, raw0(SYS_getpid), raw0(SYS_gettid), SIGTERM), 0);
	EXPECT(term_count == 2, "tgkill: handler ran %d times in total", (int)term_count);
	set_handler(SIGTERM, SIG_DFL, 0);
	return NULL;
}

static const char *sigprocmask_cases(void)
{
	unsigned long set, old, cur;

	set = SIGBIT(SIGUSR1) | SIGBIT(SIGKILL) | SIGBIT(SIGSTOP);
	EXPECT_EQ(raw4(SYS_rt_sigprocmask, SIG_BLOCK, &set, &old, 8), 0);
	EXPECT_EQ(raw4(SYS_rt_sigprocmask, SIG_BLOCK, 0, &cur, 8), 0);
	EXPECT(cur & SIGBIT(SIGUSR1), "SIGUSR1 not blocked");
	EXPECT(!(cur & (SIGBIT(SIGKILL) | SIGBIT(SIGSTOP))), "SIGKILL/SIGSTOP were blocked");
	set = SIGBIT(SIGUSR1);
	EXPECT_EQ(raw4(SYS_rt_sigprocmask, SIG_UNBLOCK, &set, 0, 8), 0);
	EXPECT_EQ(raw4(SYS_rt_sigprocmask, SIG_BLOCK, 0, &cur, 8), 0);
	EXPECT(!(cur & SIGBIT(SIGUSR1)), "SIGUSR1 still blocked after SIG_UNBLOCK");
	EXPECT_EQ(raw4(SYS_rt_sigprocmask, SIG_SETMASK, &old, 0, 8), 0);
	EXPECT_ERR(raw4(SYS_rt_sigprocmask, 7, &set, 0, 8), EINVAL);
	EXPECT_ERR(raw4(SYS_rt_sigprocmask, SIG_BLOCK, &set, 0, 4), EINVAL);
	EXPECT_ERR(raw4(SYS_rt_sigprocmask, SIG_BLOCK, BAD_PTR_LOW, 0, 8), EFAULT);
	EXPECT_ERR(raw4(SYS_rt_sigprocmask, SIG_BLOCK, 0, BAD_PTR_KERNEL, 8), EFAULT);
	return NULL;
}

static const char *sigaction_cases(void)
{
	struct k_sigaction ka, old;

	memset(&ka, 0, sizeof(ka));
	ka.handler = SIG_IGN;
	EXPECT_ERR(raw4(SYS_rt_sigaction, SIGKILL, &ka, 0, 8), EINVAL);
	EXPECT_ERR(raw4(SYS_rt_sigaction, SIGSTOP, &ka, 0, 8), EINVAL);
	EXPECT_ERR(raw4(SYS_rt_sigaction, 0, &ka, 0, 8), EINVAL);
	EXPECT_ERR(raw4(SYS_rt_sigaction, 65, &ka, 0, 8), EINVAL);
	EXPECT_ERR(raw4(SYS_rt_sigaction, SIGUSR2, &ka, 0, 4), EINVAL);
	EXPECT_ERR(raw4(SYS_rt_sigaction, SIGUSR2, BAD_PTR_LOW, 0, 8), EFAULT);
	/* set, read back, restore */
	EXPECT_EQ(raw4(SYS_rt_sigaction, SIGUSR2, &ka, &old, 8), 0);
	struct k_sigaction now;
	EXPECT_EQ(raw4(SYS_rt_sigaction, SIGUSR2, 0, &now, 8), 0);
	EXPECT(now.handler == SIG_IGN, "handler not read back");
	EXPECT_EQ(raw4(SYS_rt_sigaction, SIGUSR2, &old, 0, 8), 0);
	EXPECT_EQ(raw4(SYS_rt_sigaction, SIGKILL, 0, &now, 8), 0);
	return NULL;
}

/* A signal handler must not disturb the interrupted code's registers (integer or SSE). */
static volatile sig_atomic_t usr1_count;
static volatile double usr1_sink;

static void on_sigusr1(int sig)
{
	double x = sig;

	for (int i = 0; i < 50; i++)
		x = x * 1.0001 + 3.5;
	usr1_sink = x;
	usr1_count++;
}

static int spin_until_signalled(void *arg)
{
	(void)arg;
	for (long i = 1; usr1_count < 5; i++) {
		long a = i * 3, b = i * 5, c = a + b;
		double d = (double)i * 0.5, e = d * 4.0;
		__asm__ volatile("" : "+r"(a), "+r"(b), "+r"(c), "+x"(d), "+x"(e));
		if (c != 8 * i || e != 2.0 * (double)i || a != 3 * i || b != 5 * i)
			return 1;
	}
	return 0;
}

static const char *signal_preserves_state(void)
{
	set_handler(SIGUSR1, on_sigusr1, SA_RESTART);
	usr1_count = 0;
	pid_t pid = fork();
	EXPECT(pid >= 0, "fork failed");
	if (pid == 0)
		_exit(spin_until_signalled(NULL));
	int status = -1, tries = 0;
	for (; tries < 2000; tries++) {
		raw2(SYS_kill, pid, SIGUSR1);
		sleep_ms(2);
		long r = raw4(SYS_wait4, pid, &status, WNOHANG, 0);
		if (r == pid)
			break;
	}
	if (tries == 2000) {
		raw2(SYS_kill, pid, SIGKILL);
		status = child_wait(pid);
	}
	set_handler(SIGUSR1, SIG_DFL, 0);
	EXPECT(tries < 2000, "child never took 5 signals");
	EXPECT_EXITED(status, 0);
	return NULL;
}

static volatile sig_atomic_t eintr_count;

static void on_sigusr1_count(int sig)
{
	(void)sig;
	eintr_count++;
}

/* Signals the parent every few ms until it says (on q) that its read returned. */
static int poke_until_told(int *p, int *q)
{
	pid_t parent = (pid_t)raw0(SYS_getppid);

	for (int i = 0; i < 500; i++) {
		raw2(SYS_kill, parent, SIGUSR1);
		struct pollfd pfd = { q[0], POLLIN, 0 };
		if (raw3(SYS_poll, &pfd, 1, 10) == 1)
			return 0;
	}
	raw3(SYS_write, p[1], "!", 1); /* give up: unblock the parent */
	return 1;
}

static const char *read_eintr(void)
{
	int p[2], q[2];
	char c;

	EXPECT_OK(raw2(SYS_pipe2, p, 0));
	EXPECT_OK(raw2(SYS_pipe2, q, 0));
	set_handler(SIGUSR1, on_sigusr1_count, 0); /* no SA_RESTART */
	eintr_count = 0;
	pid_t pid = fork();
	EXPECT(pid >= 0, "fork failed");
	if (pid == 0)
		_exit(poke_until_told(p, q));
	long r = raw3(SYS_read, p[0], &c, 1);
	raw3(SYS_write, q[1], "k", 1);
	int status = child_wait(pid);
	set_handler(SIGUSR1, SIG_DFL, 0);
	for (int i = 0; i < 2; i++) {
		raw1(SYS_close, p[i]);
		raw1(SYS_close, q[i]);
	}
	EXPECT_ERR(r, EINTR);
	EXPECT(eintr_count >= 1, "handler never ran");
	EXPECT_EXITED(status, 0);
	return NULL;
}

static const char *read_sa_restart(void)
{
	int p[2];
	char c = 0;

	EXPECT_OK(raw2(SYS_pipe2, p, 0));
	set_handler(SIGUSR1, on_sigusr1_count, SA_RESTART);
	eintr_count = 0;
	pid_t pid = fork();
	EXPECT(pid >= 0, "fork failed");
	if (pid == 0) {
		pid_t parent = (pid_t)raw0(SYS_getppid);
		for (int i = 0; i < 3; i++) {
			sleep_ms(10);
			raw2(SYS_kill, parent, SIGUSR1);
		}
		sleep_ms(10);
		raw3(SYS_write, p[1], "r", 1);
		_exit(0);
	}
	long r = raw3(SYS_read, p[0], &c, 1);
	int status = child_wait(pid);
	set_handler(SIGUSR1, SIG_DFL, 0);
	raw1(SYS_close, p[0]);
	raw1(SYS_close, p[1]);
	EXPECT(r == 1 && c == 'r', "read = %s, want 1 byte after restarts", report_ret(r));
	EXPECT(eintr_count >= 1, "handler never ran");
	EXPECT_EXITED(status, 0);
	return NULL;
}

static const char *tgkill_cases(void)
{
	int wr;
	long me = raw0(SYS_getpid), tid = raw0(SYS_gettid);

	EXPECT_ERR(raw3(SYS_tgkill, 0x3ffffff0, tid, SIGUSR1), ESRCH);
	EXPECT_ERR(raw3(SYS_tgkill, me, 0x3ffffff0, SIGUSR1), ESRCH);
	EXPECT_ERR(raw3(SYS_tgkill, me, 0, SIGUSR1), EINVAL);
	EXPECT_ERR(raw3(SYS_tgkill, me, tid, 99), EINVAL);
	EXPECT_EQ(raw3(SYS_tgkill, me, tid, 0), 0);
	pid_t pid = spawn_blocked(&wr);
	EXPECT(pid > 0, "spawn failed");
	/* the child's tid is not in our thread group */
	EXPECT_ERR(raw3(SYS_tgkill, me, pid, SIGKILL), ESRCH);
	EXPECT_EQ(raw3(SYS_tgkill, pid, pid, SIGKILL), 0);
	EXPECT_KILLED(child_wait(pid), SIGKILL);
	raw1(SYS_close, wr);
	return NULL;
}

/* ------------------------------------------------------------ faults and exit_group */

static int fault_null(void *arg)
{
	(void)arg;
	return *(volatile int *)0;
}

static int fault_ud2(void *arg)
{
	(void)arg;
	__asm__ volatile("ud2");
	return 0;
}

static int fault_div0(void *arg)
{
	volatile int zero = 0;

	(void)arg;
	return 10 / zero;
}

static int fault_noncanonical(void *arg)
{
	(void)arg;
	return (int)*(volatile long *)BAD_PTR_NONCANON;
}

static const char *child_faults(void)
{
	EXPECT_KILLED(child_run(fault_null, NULL), SIGSEGV);
	EXPECT_KILLED(child_run(fault_ud2, NULL), SIGILL);
	EXPECT_KILLED(child_run(fault_div0, NULL), SIGFPE);
	EXPECT_KILLED(child_run(fault_noncanonical, NULL), SIGSEGV);
	return NULL;
}

static int run_t_fault(const char *mode)
{
	char path[300];
	char *argv[] = { path, (char *)mode, NULL };

	test_sibling(path, sizeof(path), "t_fault");
	pid_t pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		execve(path, argv, environ);
		_exit(127);
	}
	return child_wait(pid);
}

static const char *exec_t_fault(const char *mode, int sig)
{
	int status = run_t_fault(mode);

	EXPECT(!(status >= 0 && WIFEXITED(status) && WEXITSTATUS(status) == 127),
	       "could not execve t_fault next to %s", test_self());
	EXPECT_KILLED(status, sig);
	return NULL;
}

static const char *t_fault_segv(void)
{
	return exec_t_fault("segv", SIGSEGV);
}
static const char *t_fault_ud(void)
{
	return exec_t_fault("ud", SIGILL);
}
static const char *t_fault_div(void)
{
	return exec_t_fault("div", SIGFPE);
}
static const char *t_fault_gp(void)
{
	return exec_t_fault("gp", SIGSEGV);
}
static const char *t_fault_exec_nx(void)
{
	return exec_t_fault("exec-nx", SIGSEGV);
}
static const char *t_fault_write_ro(void)
{
	return exec_t_fault("write-ro", SIGSEGV);
}

static void *exit_group_thread(void *arg)
{
	(void)arg;
	raw1(SYS_exit_group, 42);
	return NULL;
}

static int threaded_exit_group(void *arg)
{
	int p[2];
	pthread_t t;
	char c;

	(void)arg;
	if (raw2(SYS_pipe2, p, 0) < 0 || pthread_create(&t, NULL, exit_group_thread, NULL))
		return 1;
	raw3(SYS_read, p[0], &c, 1); /* never returns: the thread ends the group */
	return 2;
}

static const char *exit_group_from_thread(void)
{
	EXPECT_EXITED(child_run(threaded_exit_group, NULL), 42);
	return NULL;
}

static void *fault_thread(void *arg)
{
	(void)arg;
	(void)*(volatile int *)0;
	return NULL;
}

static int threaded_fault(void *arg)
{
	int p[2];
	pthread_t t;
	char c;

	(void)arg;
	if (raw2(SYS_pipe2, p, 0) < 0 || pthread_create(&t, NULL, fault_thread, NULL))
		return 1;
	raw3(SYS_read, p[0], &c, 1);
	return 2;
}

static const char *fault_in_thread_kills_process(void)
{
	EXPECT_KILLED(child_run(threaded_fault, NULL), SIGSEGV);
	return NULL;
}

static const struct test_case cases[] = {
	{ "fork_exit_codes", fork_exit_codes },
	{ "fork_pids_distinct", fork_pids_distinct },
	{ "fork_copies_memory", fork_copies_memory },
	{ "wait4_any", wait4_any },
	{ "exit_code_masked", exit_code_masked },
	{ "wait4_wnohang", wait4_wnohang },
	{ "wait4_errors", wait4_errors },
	{ "wait4_rusage", wait4_rusage },
	{ "fork_cycles", fork_cycles },
	{ "vfork_exit", vfork_exit },
	{ "vfork_exec", vfork_exec },
	{ "execve_self", run_exec_check },
	{ "exec_argv", exec_argv },
	{ "exec_envp", exec_envp },
	{ "exec_auxv", exec_auxv },
	{ "exec_at_random", exec_at_random },
	{ "exec_same_pid", exec_same_pid },
	{ "exec_cloexec", exec_cloexec },
	{ "exec_resets_handlers", exec_resets_handlers },
	{ "exec_keeps_mask", exec_keeps_mask },
	{ "execve_errors", execve_errors },
	{ "kill_sigterm", kill_sigterm },
	{ "kill_sigkill", kill_sigkill },
	{ "kill_sleeping_child", kill_sleeping_child },
	{ "kill_errors", kill_errors },
	{ "kill_threaded_child", kill_threaded_child },
	{ "sigchld_handler_when_unblocked", sigchld_handler_when_unblocked },
	{ "sigchld_siginfo", sigchld_siginfo },
	{ "kill_self_handler", kill_self_handler },
	{ "sigprocmask_cases", sigprocmask_cases },
	{ "sigaction_cases", sigaction_cases },
	{ "signal_preserves_state", signal_preserves_state },
	{ "read_eintr", read_eintr },
	{ "read_sa_restart", read_sa_restart },
	{ "tgkill_cases", tgkill_cases },
	{ "child_faults", child_faults },
	{ "t_fault_segv", t_fault_segv },
	{ "t_fault_ud", t_fault_ud },
	{ "t_fault_div", t_fault_div },
	{ "t_fault_gp", t_fault_gp },
	{ "t_fault_exec_nx", t_fault_exec_nx },
	{ "t_fault_write_ro", t_fault_write_ro },
	{ "exit_group_from_thread", exit_group_from_thread },
	{ "fault_in_thread_kills_process", fault_in_thread_kills_process },
};

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "--exit") == 0)
		return atoi(argv[2]);
	if (argc >= 2 && strcmp(argv[1], "--exec-check") == 0)
		return exec_check_main(argc, argv);
	test_self_init(argv[0], "t_proc");
	report_run_all(cases, REPORT_NCASES(cases));
	return report_done("t_proc");
}

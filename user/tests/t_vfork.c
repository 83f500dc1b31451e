/*
 * t_vfork: the lifecycle corners of vfork, and signals to init. Eight
 * processes doing vfork + _exit whose children are freed at once (SIGCHLD
 * ignored, SA_NOCLDWAIT) or reaped by a second thread while the parent
 * may still be waking; clone(CLONE_THREAD|CLONE_VFORK), which must return
 * when that thread exits; a vfork parent killed while its child lives on;
 * an execve in one thread while another waits in vfork; a vfork child that
 * runs for 3 s while its parent waits. Runs on Linux and
 * Fulcrum; a kernel that gets these wrong hangs here, so the boot test's
 * timeout is the failure. `t_vfork --case NAME` runs one case.
 *
 * `t_vfork --init-signals` is for Fulcrum only (a boot test runs it; never
 * on a host, where pid 1 is the host's init): kill and tgkill of pid 1
 * with signals it has no handler for, SIGKILL included, and an orphan
 * with exit signal SIGUSR1 that exits after init adopted it. Init must
 * survive them all; the run ending early shows it did not.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../common/child.h"
#include "../common/rawsys.h"
#include "../common/report.h"

extern char **environ;

#define CLONE_VM      0x00000100
#define CLONE_SIGHAND 0x00000800
#define CLONE_VFORK   0x00004000
#define CLONE_THREAD  0x00010000

#define WORKERS 8   /* processes doing vfork at once */
#define VFORKS	250 /* vfork + _exit cycles each */

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000l };

	raw2(SYS_nanosleep, &ts, 0);
}

/* Starts WORKERS children running fn; 0 if every one exits 0, else how many did not. */
static int run_workers(int (*fn)(void *), void *arg)
{
	int pids[WORKERS], bad = 0;

	for (int i = 0; i < WORKERS; i++)
		pids[i] = child_start(fn, arg);
	for (int i = 0; i < WORKERS; i++) {
		int st = pids[i] > 0 ? child_wait(pids[i]) : -1;

		if (st < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
			report_note("worker %d: %s", i, st < 0 ? "not started" : child_describe(st));
			bad++;
		}
	}
	return bad;
}

/* One vfork whose child exits at once: the child's pid, or -1 with errno. */
static pid_t __attribute__((noinline)) vfork_exit_once(void)
{
	pid_t pid = vfork();

	if (pid == 0)
		_exit(0);
	return pid;
}

/* vfork + _exit VFORKS times, retrying on EAGAIN (zombies not yet reaped); 0 or 1 on an error. */
static int vfork_loop(void)
{
	for (int i = 0; i < VFORKS; i++) {
		pid_t pid = vfork_exit_once();

		if (pid < 0 && errno == EAGAIN) {
			sched_yield();
			i--;
			continue;
		}
		if (pid < 0)
			return 1;
	}
	return 0;
}

/* A worker whose vfork children are freed the moment they exit: nobody waits for them. */
static int worker_no_zombies(void *arg)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = arg ? SIG_DFL : SIG_IGN;
	sa.sa_flags = arg ? SA_NOCLDWAIT : 0;
	if (sigaction(SIGCHLD, &sa, NULL))
		return 2;
	if (vfork_loop())
		return 3;
	/* The children never become zombies: wait4 waits for the last to go, then finds none. */
	return wait4(-1, NULL, 0, NULL) == -1 && errno == ECHILD ? 0 : 4;
}

static const char *vfork_sigchld_ignored(void)
{
	EXPECT(run_workers(worker_no_zombies, NULL) == 0,
	       "%d x %d vfork + _exit with SIGCHLD ignored: a worker failed", WORKERS, VFORKS);
	return NULL;
}

static const char *vfork_sa_nocldwait(void)
{
	EXPECT(run_workers(worker_no_zombies, (void *)1) == 0,
	       "%d x %d vfork + _exit with SA_NOCLDWAIT: a worker failed", WORKERS, VFORKS);
	return NULL;
}

static volatile int reaper_stop;
static volatile int reaped;

/* Reaps every child of the process (any thread's) until told to stop and none are left. */
static void *reaper(void *arg)
{
	(void)arg;
	for (;;) {
		int last = reaper_stop; /* read first: no vfork comes after it, so ECHILD then means all */
		pid_t got = wait4(-1, NULL, 0, NULL);

		if (got > 0)
			reaped++;
		else if (errno == ECHILD && last)
			return NULL;
		else if (errno == ECHILD)
			sched_yield();
	}
}

/* A worker whose vfork children a second thread reaps (and frees) as soon as they exit. */
static int worker_reaper_thread(void *arg)
{
	pthread_t th;
	int bad;

	(void)arg;
	if (pthread_create(&th, NULL, reaper, NULL))
		return 2;
	bad = vfork_loop();
	reaper_stop = 1;
	pthread_join(th, NULL);
	if (bad)
		return 3;
	if (reaped != VFORKS)
		report_note("the reaper thread reaped %d children, want %d", reaped, VFORKS);
	return reaped == VFORKS ? 0 : 4;
}

static const char *vfork_reaped_by_thread(void)
{
	EXPECT(run_workers(worker_reaper_thread, NULL) == 0,
	       "%d x %d vfork + _exit reaped by a second thread: a worker failed", WORKERS, VFORKS);
	return NULL;
}

/* ------------------------------------------------------------ clone(CLONE_THREAD|CLONE_VFORK) */

static volatile long vfork_thread_tid;

static const char *clone_thread_vfork(void)
{
	for (int i = 0; i < 20; i++) {
		/*
		 * No new stack: as with vfork, the caller waits in the kernel
		 * until the thread has exited, so the thread may use ours.
		 */
		long tid;

		vfork_thread_tid = 0;
		tid = raw5(SYS_clone, CLONE_VM | CLONE_SIGHAND | CLONE_THREAD | CLONE_VFORK, 0, 0,
			   0, 0);
		if (tid == 0) {
			vfork_thread_tid = raw0(SYS_gettid);
			raw1(SYS_exit, 0); /* this thread only */
		}
		EXPECT(tid > 0, "clone(CLONE_THREAD|CLONE_VFORK) = %s", report_ret(tid));
		EXPECT(vfork_thread_tid == tid,
		       "returned before the thread ran (it saw %ld, want %ld)", vfork_thread_tid,
		       tid);
	}
	return NULL;
}

/* ------------------------------------------------------------ killable vfork waits */

/*
 * In a vfork child: says it runs (one byte on ready), then blocks until
 * the test closes the last write end of hold; ends with _exit.
 */
static void __attribute__((noreturn)) vfork_child_hold(int ready, int hold_rd, int hold_wr)
{
	char c = 'v';

	raw1(SYS_close, hold_wr);
	raw3(SYS_write, ready, &c, 1);
	raw3(SYS_read, hold_rd, &c, 1);
	raw1(SYS_exit_group, 0);
	__builtin_unreachable();
}

struct held {
	int ready[2]; /* the vfork child -> whoever waits for it */
	int hold[2]; /* the vfork child blocks reading hold[0] until hold[1] is closed everywhere */
};

static int held_open(struct held *h)
{
	if (pipe2(h->ready, O_CLOEXEC))
		return -1;
	if (pipe2(h->hold, O_CLOEXEC)) {
		close(h->ready[0]);
		close(h->ready[1]);
		return -1;
	}
	return 0;
}

static void held_close(struct held *h)
{
	close(h->ready[0]);
	close(h->ready[1]);
	close(h->hold[0]);
	close(h->hold[1]); /* the vfork child, if still alive, now reads EOF and exits */
}

/* The process the test kills: vforks a child that blocks, so it sits in the vfork wait. */
static int vfork_and_hold(void *arg)
{
	struct held *h = arg;
	pid_t pid = vfork();

	if (pid == 0)
		vfork_child_hold(h->ready[1], h->hold[0], h->hold[1]);
	return 3; /* reached only once the child has gone */
}

static const char *vfork_parent_killed(void)
{
	struct held h;
	char c;
	int pid, st;

	EXPECT(held_open(&h) == 0, "pipe2: %s", strerror(errno));
	pid = child_start(vfork_and_hold, &h);
	EXPECT(pid > 0, "fork: %s", report_errname(-pid));
	EXPECT(read(h.ready[0], &c, 1) == 1, "the vfork child never ran");
	/* The parent is in (or about to enter) its vfork wait; the child is blocked. */
	EXPECT(kill(pid, SIGKILL) == 0, "kill: %s", strerror(errno));
	st = child_wait(pid);
	held_close(&h);
	EXPECT_KILLED(st, SIGKILL);
	return NULL;
}

static const char *vfork_parent_sigterm(void)
{
	struct held h;
	char c;
	int pid, st;

	EXPECT(held_open(&h) == 0, "pipe2: %s", strerror(errno));
	pid = child_start(vfork_and_hold, &h);
	EXPECT(pid > 0, "fork: %s", report_errname(-pid));
	EXPECT(read(h.ready[0], &c, 1) == 1, "the vfork child never ran");
	/* SIGTERM with its default action is fatal: Linux ends the vfork wait for it too. */
	EXPECT(kill(pid, SIGTERM) == 0, "kill: %s", strerror(errno));
	st = child_wait(pid);
	held_close(&h);
	EXPECT_KILLED(st, SIGTERM);
	return NULL;
}

static void *vfork_thread(void *arg)
{
	vfork_and_hold(arg);
	return NULL;
}

/* One thread sits in a vfork wait; the main thread then execs, which must end that thread. */
static int exec_beside_vfork(void *arg)
{
	static char *argv[] = { NULL, "--exit", "42", NULL };
	struct held *h = arg;
	pthread_t th;
	char c;

	if (pthread_create(&th, NULL, vfork_thread, h))
		return 2;
	if (read(h->ready[0], &c, 1) != 1)
		return 3;
	argv[0] = (char *)test_self();
	execve(argv[0], argv, environ);
	return 4;
}

static const char *exec_while_vfork(void)
{
	struct held h;
	int pid, st;

	EXPECT(held_open(&h) == 0, "pipe2: %s", strerror(errno));
	pid = child_start(exec_beside_vfork, &h);
	EXPECT(pid > 0, "fork: %s", report_errname(-pid));
	st = child_wait(pid); /* the vfork child still blocks: exec must not wait for it */
	held_close(&h);
	EXPECT_EXITED(st, 42);
	return NULL;
}

/*
 * A vfork child that runs a while (VFORK_CHILD_MS of sleep) before it
 * exits, its parent waiting all along. The wait is killable, so a boot
 * with hung_task_ms below that (user-t_vfork-hung) must not report the
 * parent as a hung task, as Linux does not.
 */
#define VFORK_CHILD_MS 3000

static pid_t __attribute__((noinline)) vfork_sleep_once(void)
{
	pid_t pid = vfork();

	if (pid == 0) {
		sleep_ms(VFORK_CHILD_MS);
		raw1(SYS_exit_group, 0);
	}
	return pid;
}

static const char *vfork_child_runs_long(void)
{
	pid_t pid = vfork_sleep_once();

	EXPECT(pid > 0, "vfork: %s", strerror(errno));
	EXPECT_EXITED(child_wait(pid), 0);
	return NULL;
}

/* ------------------------------------------------------------ signals to init (Fulcrum only) */

static const char *init_ignores_sigterm(void)
{
	EXPECT_EQ(raw2(SYS_kill, 1, SIGTERM), 0);
	EXPECT_EQ(raw2(SYS_kill, 1, SIGUSR1), 0);
	EXPECT_EQ(raw3(SYS_tgkill, 1, 1, SIGTERM), 0);
	EXPECT_EQ(raw2(SYS_tkill, 1, SIGHUP), 0);
	sleep_ms(50); /* were init to die of them, the run would end here */
	EXPECT_EQ(raw2(SYS_kill, 1, 0), 0);
	return NULL;
}

static int kill_init(void *arg)
{
	(void)arg;
	if (raw2(SYS_kill, 1, SIGKILL) || raw3(SYS_tgkill, 1, 1, SIGKILL))
		return 1;
	sleep_ms(50);
	return raw2(SYS_kill, 1, 0) == 0 ? 0 : 2;
}

static const char *init_ignores_sigkill(void)
{
	EXPECT_EXITED(child_run(kill_init, NULL), 0);
	return NULL;
}

/* The middle process: clones a child with exit signal SIGUSR1 and leaves it an orphan. */
static int orphan_maker(void *arg)
{
	int *ready = arg;
	long pid = raw5(SYS_clone, SIGUSR1, 0, 0, 0, 0);

	if (pid == 0) {
		/* The orphan: wait until init has adopted us, tell the test, then exit. */
		int me = (int)raw0(SYS_getpid);

		while (raw0(SYS_getppid) != 1)
			sleep_ms(1);
		raw3(SYS_write, ready[1], &me, sizeof(me));
		raw1(SYS_exit_group, 0);
	}
	return pid > 0 ? 0 : 1;
}

static const char *orphan_exit_signal_reset(void)
{
	int ready[2], orphan = 0;

	EXPECT(pipe(ready) == 0, "pipe: %s", strerror(errno));
	EXPECT_EXITED(child_run(orphan_maker, ready), 0);
	EXPECT(read(ready[0], &orphan, sizeof(orphan)) == sizeof(orphan), "no word from the orphan");
	close(ready[0]);
	close(ready[1]);
	/* Init reaps it; its exit signal went to init first (SIGCHLD, not SIGUSR1). */
	for (int i = 0; i < 5000 && raw2(SYS_kill, orphan, 0) == 0; i++)
		sleep_ms(1);
	EXPECT_ERR(raw2(SYS_kill, orphan, 0), ESRCH);
	sleep_ms(50);
	EXPECT_EQ(raw2(SYS_kill, 1, 0), 0);
	return NULL;
}

static const struct test_case cases[] = {
	{ "vfork_sigchld_ignored", vfork_sigchld_ignored },
	{ "vfork_sa_nocldwait", vfork_sa_nocldwait },
	{ "vfork_reaped_by_thread", vfork_reaped_by_thread },
	{ "clone_thread_vfork", clone_thread_vfork },
	{ "vfork_parent_killed", vfork_parent_killed },
	{ "vfork_parent_sigterm", vfork_parent_sigterm },
	{ "exec_while_vfork", exec_while_vfork },
	{ "vfork_child_runs_long", vfork_child_runs_long },
};

/* Fulcrum only (they signal pid 1): by --init-signals, or one by one by --case. */
static const struct test_case init_cases[] = {
	{ "init_ignores_sigterm", init_ignores_sigterm },
	{ "init_ignores_sigkill", init_ignores_sigkill },
	{ "orphan_exit_signal_reset", orphan_exit_signal_reset },
};

static void run_case(const struct test_case *set, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (strcmp(set[i].name, name) == 0)
			report_case(set[i].name, set[i].run());
}

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "--exit") == 0)
		return atoi(argv[2]);
	test_self_init(argv[0], "t_vfork");
	if (argc == 2 && strcmp(argv[1], "--init-signals") == 0) {
		report_run_all(init_cases, REPORT_NCASES(init_cases));
	} else if (argc == 3 && strcmp(argv[1], "--case") == 0) {
		run_case(cases, REPORT_NCASES(cases), argv[2]);
		run_case(init_cases, REPORT_NCASES(init_cases), argv[2]);
	} else {
		report_run_all(cases, REPORT_NCASES(cases));
	}
	return report_done("t_vfork");
}

/*
 * t_limits: resource limits give errors, never a hang or a crash — a
 * bounded fork bomb, a bounded thread bomb, and mappings larger than the
 * address space.  Linux may have room for every fork; then the case passes
 * only if all of them were made and reaped, and a "#" line says so.
 * Runs on Linux and Fulcrum.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../common/child.h"
#include "../common/rawsys.h"
#include "../common/report.h"

#define FORK_MAX   2000
#define THREAD_MAX 300
#define PAGE	   4096ul

static pid_t bomb_pids[FORK_MAX];

/* Forks children that sleep in read(); returns how many, and the first failure in *err. */
static int fork_until_refused(int rd, int wr, long *err)
{
	int n;

	*err = 0;
	for (n = 0; n < FORK_MAX; n++) {
		long pid = raw0(SYS_fork);
		if (pid < 0) {
			*err = pid;
			break;
		}
		if (pid == 0) {
			char c;
			raw1(SYS_close, wr);
			raw3(SYS_read, rd, &c, 1);
			raw1(SYS_exit_group, 0);
		}
		bomb_pids[n] = (pid_t)pid;
	}
	return n;
}

static const char *fork_bomb(void)
{
	int p[2];
	long err;

	EXPECT_OK(raw2(SYS_pipe2, p, 0));
	int n = fork_until_refused(p[0], p[1], &err);
	/* kill them all, then reap every one: each is ours and dies by SIGKILL */
	for (int i = 0; i < n; i++)
		raw2(SYS_kill, bomb_pids[i], SIGKILL);
	raw1(SYS_close, p[0]);
	raw1(SYS_close, p[1]);
	int reaped = 0, odd = 0;
	for (int i = 0; i < n; i++) {
		int status = child_wait(bomb_pids[i]);
		if (status >= 0)
			reaped++;
		if (!(status >= 0 && WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL))
			odd++;
	}
	EXPECT(reaped == n, "reaped %d of %d children", reaped, n);
	EXPECT(odd == 0, "%d children did not die by SIGKILL", odd);
	EXPECT_ERR(raw4(SYS_wait4, -1, 0, WNOHANG, 0), ECHILD);
	if (err) {
		EXPECT(err == -EAGAIN || err == -ENOMEM,
		       "fork #%d failed with %s, want -EAGAIN or -ENOMEM", n + 1, report_ret(err));
		report_note("fork_bomb: limit met after %d forks: %s", n, report_ret(err));
	} else {
		report_note("fork_bomb: no limit met: all %d forks succeeded and were reaped", n);
	}
	return NULL;
}

static int exit_zero(void *arg)
{
	(void)arg;
	return 0;
}

static const char *fork_after_bomb(void)
{
	/* the limit gave everything back */
	for (int i = 0; i < 20; i++)
		EXPECT_EXITED(child_run(exit_zero, NULL), 0);
	return NULL;
}

static pthread_mutex_t gate = PTHREAD_MUTEX_INITIALIZER;

static void *wait_at_gate(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&gate);
	pthread_mutex_unlock(&gate);
	return NULL;
}

static pthread_t bomb_threads[THREAD_MAX];

static const char *thread_bomb(void)
{
	pthread_attr_t attr;
	int n, err = 0;

	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 16384);
	/* the threads block on the gate until all are made */
	pthread_mutex_lock(&gate);
	for (n = 0; n < THREAD_MAX; n++) {
		err = pthread_create(&bomb_threads[n], &attr, wait_at_gate, NULL);
		if (err)
			break;
	}
	pthread_mutex_unlock(&gate);
	int joined = 0;
	for (int i = 0; i < n; i++)
		joined += pthread_join(bomb_threads[i], NULL) == 0;
	pthread_attr_destroy(&attr);
	EXPECT(joined == n, "joined %d of %d threads", joined, n);
	/* musl reports both a thread limit and a failed stack mapping as EAGAIN */
	EXPECT(err == 0 || err == EAGAIN, "pthread_create #%d failed with %s, want EAGAIN", n + 1,
	       report_errname(err));
	if (err)
		report_note("thread_bomb: limit met after %d threads: EAGAIN", n);
	else
		report_note("thread_bomb: no limit met: all %d threads ran and were joined", n);
	return NULL;
}

static const char *mmap_absurd(void)
{
	/* larger than the whole user address space */
	EXPECT_ERR(raw6(SYS_mmap, 0, 1ul << 48, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			-1, 0),
		   ENOMEM);
	EXPECT_ERR(raw6(SYS_mmap, 0, 1ul << 63, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
		   ENOMEM);
	/* a length that wraps to zero when rounded up to a page */
	EXPECT_ERR(raw6(SYS_mmap, 0, -PAGE / 2, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
		   ENOMEM);
	return NULL;
}

#define CHUNK	   (64ul << 30) /* 64 GiB; 2048 of them fill the 128 TiB user half */
#define MAX_CHUNKS 4096
static uintptr_t chunks[MAX_CHUNKS];

static const char *mmap_exhaust(void)
{
	int n;
	long err = 0;

	/* PROT_NONE reservations: no memory is committed, so only a limit stops them */
	for (n = 0; n < MAX_CHUNKS; n++) {
		long r = raw6(SYS_mmap, 0, CHUNK, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (r < 0) {
			err = r;
			break;
		}
		chunks[n] = (uintptr_t)r;
	}
	int unmapped = 0;
	for (int i = 0; i < n; i++)
		unmapped += raw2(SYS_munmap, chunks[i], CHUNK) == 0;
	EXPECT(unmapped == n, "unmapped %d of %d reservations", unmapped, n);
	EXPECT(n < MAX_CHUNKS, "%d mappings of 64 GiB all succeeded", n);
	EXPECT_ERR(err, ENOMEM);
	report_note("mmap_exhaust: ENOMEM after %d reservations of 64 GiB", n);
	/* and memory is usable again */
	char *p = (char *)EXPECT_OK(raw6(SYS_mmap, 0, PAGE, PROT_READ | PROT_WRITE,
					 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
	p[0] = 1;
	EXPECT_EQ(raw2(SYS_munmap, p, PAGE), 0);
	return NULL;
}

static const char *brk_absurd(void)
{
	uintptr_t cur = (uintptr_t)raw1(SYS_brk, 0);

	/* a break past the address space is refused: brk returns the old one */
	EXPECT_EQ(raw1(SYS_brk, cur + (1ul << 48)), cur);
	EXPECT_EQ(raw1(SYS_brk, 0), cur);
	return NULL;
}

/* clang-format off */
static const struct test_case cases[] = {
	{ "fork_bomb", fork_bomb },
	{ "fork_after_bomb", fork_after_bomb },
	{ "thread_bomb", thread_bomb },
	{ "mmap_absurd", mmap_absurd },
	{ "mmap_exhaust", mmap_exhaust },
	{ "brk_absurd", brk_absurd },
};
/* clang-format on */

int main(int argc, char **argv)
{
	(void)argc;
	test_self_init(argv[0], "t_limits");
	report_run_all(cases, REPORT_NCASES(cases));
	return report_done("t_limits");
}

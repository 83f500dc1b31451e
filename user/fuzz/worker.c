/*
 * A worker: pinned to one CPU, it makes its sequence of generated calls
 * (gen.c), keeps the last FUZZ_RING of them, and for every process call
 * (exit, fork, vfork, clone, execve...) forks a child that makes that
 * call itself and then a few dozen random ones with the child's lighter
 * denylist. Its descriptors 0-2 are /dev/null; it writes to the console
 * through FUZZ_LOG_FD only. Every 256 calls it remakes its descriptors and
 * its playground, so a replay of part of the sequence starts each stretch
 * from the same state.
 *
 * A fault of its own (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP or SIGSYS
 * raised by the kernel, not sent by a peer) prints the ring and ends the
 * worker with FUZZ_EXIT_FAULT; a child that outlives SIGKILL for 5 s ends
 * it with FUZZ_EXIT_STUCK.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>

#include "../common/rawio.h"
#include "../common/rawsys.h"
#include "fuzz.h"

#define REFRESH_EVERY 256
#define CHILD_CALLS   48 /* at most, after the call it was spawned for */

static struct fuzz_call ring[FUZZ_RING];
static uint32_t ring_n;
static int ring_worker;

static struct {
	uint64_t calls, ok, errors, enosys, denied, spawned, child_signalled, signals;
} stats;

void worker_log(const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n > (int)sizeof(buf) - 1)
		n = sizeof(buf) - 1;
	raw_write_all(FUZZ_LOG_FD, buf, (size_t)n);
}

static void log_call(const char *what, const struct fuzz_call *c, int with_ret)
{
	static const char *const acts[] = { "", " [spawn]", " [denied]" };
	char ret[32] = "";

	if (with_ret)
		snprintf(ret, sizeof(ret), " = %ld", c->ret);
	worker_log("fuzz: %s w%d #%u nr=%ld (%#lx, %#lx, %#lx, %#lx, %#lx, %#lx)%s%s\n", what,
		   ring_worker, c->idx, c->nr, c->arg[0], c->arg[1], c->arg[2], c->arg[3],
		   c->arg[4], c->arg[5], acts[c->action], ret);
}

/* The last FUZZ_RING calls, oldest first; the newest may not have returned. */
static void ring_dump(void)
{
	uint32_t first = ring_n > FUZZ_RING ? ring_n - FUZZ_RING : 0;

	worker_log("fuzz: worker %d: its last %u calls:\n", ring_worker, ring_n - first);
	for (uint32_t i = first; i < ring_n; i++)
		log_call("last", &ring[i % FUZZ_RING], i + 1 < ring_n);
}

static int fault_signal(int sig)
{
	return sig == SIGSEGV || sig == SIGBUS || sig == SIGILL || sig == SIGFPE ||
	       sig == SIGTRAP || sig == SIGSYS;
}

static void on_signal(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	if (fault_signal(sig) && si->si_code > 0) {
		worker_log("fuzz: FAIL worker %d: signal %d (code %d) at address %p\n", ring_worker,
			   sig, si->si_code, si->si_addr);
		ring_dump();
		raw1(SYS_exit_group, FUZZ_EXIT_FAULT);
	}
	stats.signals++;
}

/* Before the worker learns its peers' pids (and they learn its): no signal finds it unready. */
void worker_install_handlers(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_signal;
	sa.sa_flags = SA_SIGINFO; /* no SA_RESTART: the tick interrupts a blocked call */
	struct {
		void *handler;
		unsigned long flags;
		void *restorer;
		unsigned long mask;
	} ka;

	for (int sig = 1; sig <= 64; sig++)
		if (sig != SIGKILL && sig != SIGSTOP)
			sigaction(sig, &sa, NULL); /* musl refuses its own 32..34 */
	/*
	 * Those three too, by the raw call with musl's restorer: a timer's
	 * sigevent read from random memory may name one, and SIG_DFL would
	 * end the worker. It uses no threads, so musl never needs them.
	 */
	if (raw4(SYS_rt_sigaction, SIGUSR1, NULL, &ka, 8) == 0)
		for (int sig = 32; sig <= 34; sig++)
			raw4(SYS_rt_sigaction, sig, &ka, NULL, 8);
}

/* Remakes the descriptor pool and the playground (each REFRESH_EVERY calls). */
static void refresh(struct fuzz_env *env)
{
	static const char *const files[] = { "/dev/null", "/etc/motd", "/", "/proc/schedstat" };
	int p[2];

	for (int i = 0; i < env->nfds; i++)
		if (env->fds[i] > 2 && env->fds[i] != FUZZ_LOG_FD)
			raw1(SYS_close, env->fds[i]);
	env->nfds = 0;
	for (int i = 0; i < 2; i++) {
		if (raw2(SYS_pipe2, p, i ? O_NONBLOCK : 0) == 0) {
			raw3(SYS_write, p[1], "fuzz", 4);
			env->fds[env->nfds++] = p[0];
			env->fds[env->nfds++] = p[1];
		}
		if (raw4(SYS_socketpair, AF_UNIX, SOCK_STREAM, 0, p) == 0) {
			raw3(SYS_write, p[0], "fuzz", 4);
			env->fds[env->nfds++] = p[0];
			env->fds[env->nfds++] = p[1];
		}
	}
	for (unsigned i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		long fd = raw3(SYS_open, files[i], O_RDONLY | (i == 0 ? 0 : O_CLOEXEC), 0);

		if (fd >= 0)
			env->fds[env->nfds++] = (int)fd;
	}
	/* The playground afresh, and the page after it unmapped (the straddle). */
	raw6(SYS_mmap, env->play, (FUZZ_PLAY_PAGES + 1) * FUZZ_PAGE, PROT_READ | PROT_WRITE,
	     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	raw2(SYS_munmap, env->play + FUZZ_PLAY_PAGES * FUZZ_PAGE, FUZZ_PAGE);
	env->straddle = env->play + (FUZZ_PLAY_PAGES - 1) * FUZZ_PAGE;
}

/* Has pid (a child of ours) ended? Reaps it if so, counting a death by signal. */
static int reaped(int pid)
{
	int status = 0;
	long r = raw4(SYS_wait4, pid, &status, WNOHANG, NULL);

	if (r == 0)
		return 0;
	if (r == pid && WIFSIGNALED(status))
		stats.child_signalled++;
	return 1; /* ended now, or reaped before by a generated wait4 (-ECHILD) */
}

static void reap_children(struct fuzz_env *env)
{
	for (int i = 0; i < FUZZ_MAX_CHILDREN; i++)
		if (env->children[i] && reaped(env->children[i]))
			env->children[i] = 0;
}

/* SIGKILLs a child that has not ended and waits up to 5 s for it; 0 if it died. */
static int kill_child(struct fuzz_env *env, int slot)
{
	struct timespec tick = { 0, 10 * 1000 * 1000 };
	int pid = env->children[slot];

	if (!pid || reaped(pid)) {
		env->children[slot] = 0;
		return 0;
	}
	raw2(SYS_kill, pid, SIGKILL);
	for (int i = 0; i < 500; i++) {
		if (reaped(pid)) {
			env->children[slot] = 0;
			return 0;
		}
		raw2(SYS_nanosleep, &tick, NULL);
	}
	worker_log("fuzz: FAIL worker %d: child %d still there 5 s after SIGKILL\n", env->worker,
		   pid);
	return -1;
}

static long do_call(struct fuzz_env *env, struct fuzz_call *c)
{
	long r = raw_syscall6(c->nr, c->arg[0], c->arg[1], c->arg[2], c->arg[3], c->arg[4],
			      c->arg[5]);

	/* A child's own new processes, so its kills can aim at them. */
	if (env->role == ROLE_CHILD && r > 0 &&
	    (c->nr == SYS_fork || c->nr == SYS_vfork || c->nr == SYS_clone)) {
		for (int i = 0; i < FUZZ_MAX_CHILDREN; i++) {
			if (!env->children[i]) {
				env->children[i] = (int)r;
				break;
			}
		}
	}
	return r;
}

/* A child: the call it was spawned for, then up to CHILD_CALLS random ones; never returns. */
static void child_main(uint64_t seed, struct fuzz_env *env, const struct fuzz_call *first)
{
	struct fuzz_rng r = rng_for(seed, env->worker, first->idx, 1);
	uint32_t n = (uint32_t)(rng_next(&r) % (CHILD_CALLS + 1));
	struct fuzz_call c = *first;

	env->role = ROLE_CHILD;
	memset(env->children, 0, sizeof(env->children));
	for (uint32_t j = 0;; j++) {
		if (c.action != ACT_DENY)
			do_call(env, &c);
		if (j == n)
			break;
		r = rng_for(seed, env->worker, first->idx, 2 + j);
		gen_call(&r, env, &c);
		c.idx = first->idx;
	}
	raw1(SYS_exit_group, 0);
}

/* The first call of a spawned child, regenerated under the child's rules. */
static void spawn(uint64_t seed, struct fuzz_env *env, struct fuzz_call *c)
{
	struct fuzz_rng r = rng_for(seed, env->worker, c->idx, 0);
	struct fuzz_call first;
	int slot = -1;
	long pid;

	reap_children(env);
	for (int i = 0; i < FUZZ_MAX_CHILDREN && slot < 0; i++)
		if (!env->children[i])
			slot = i;
	if (slot < 0) { /* full: the slot this call's number picks is freed */
		slot = (int)(c->idx % FUZZ_MAX_CHILDREN);
		if (kill_child(env, slot))
			raw1(SYS_exit_group, FUZZ_EXIT_STUCK);
	}
	pid = raw2(SYS_clone, SIGCHLD, 0);
	if (pid == 0) {
		/* A child's faults are its own business: they kill it, quietly. */
		for (int sig = 1; sig < 32; sig++)
			if (fault_signal(sig))
				signal(sig, SIG_DFL);
		env->role = ROLE_CHILD;
		gen_call(&r, env, &first); /* the same number and arguments, child's denylist */
		first.idx = c->idx;
		child_main(seed, env, &first);
	}
	c->ret = pid;
	if (pid > 0) {
		env->children[slot] = (int)pid;
		stats.spawned++;
	}
}

int keep_has(const char *keep, uint32_t idx)
{
	const char *p = keep;

	if (!keep)
		return 1;
	while (*p) {
		char *end;
		unsigned long lo = strtoul(p, &end, 0), hi = lo;

		if (*end == '-')
			hi = strtoul(end + 1, &end, 0);
		if (idx >= lo && idx <= hi)
			return 1;
		p = *end == ',' ? end + 1 : end;
		if (end == p && *p)
			break;
	}
	return 0;
}

static void setup(struct fuzz_env *env)
{
	cpu_set_t set;
	int null;

	ring_worker = env->worker;
	raw2(SYS_dup2, 1, FUZZ_LOG_FD);
	null = (int)raw3(SYS_open, "/dev/null", O_RDWR, 0);
	for (int fd = 0; fd < 3; fd++)
		raw2(SYS_dup2, null, fd);
	if (null > 2)
		raw1(SYS_close, null);
	CPU_ZERO(&set);
	CPU_SET(env->cpu, &set);
	raw3(SYS_sched_setaffinity, 0, sizeof(set), &set);
	gen_init_buffers(); /* after the handlers: it copies the kernel's view of one */
	env->play = (char *)raw6(SYS_mmap, NULL, (FUZZ_PLAY_PAGES + 1) * FUZZ_PAGE,
				 PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	env->brk0 = raw1(SYS_brk, 0);
	memset(env->children, 0, sizeof(env->children));
	env->role = ROLE_WORKER;
}

/* Runs calls [0, calls) of this worker's sequence (those keep names); returns its exit status. */
int worker_main(uint64_t seed, struct fuzz_env *env, uint32_t calls, const char *keep, int trace)
{
	struct fuzz_call *c;

	setup(env);
	for (uint32_t i = 0; i < calls; i++) {
		struct fuzz_rng r;

		if (i % REFRESH_EVERY == 0)
			refresh(env);
		if (!keep_has(keep, i))
			continue;
		r = rng_for(seed, env->worker, i, 0);
		c = &ring[ring_n % FUZZ_RING];
		gen_call(&r, env, c);
		c->idx = i;
		ring_n++;
		if (trace)
			log_call("call", c, 0);
		stats.calls++;
		switch (c->action) {
		case ACT_CALL:
			c->ret = do_call(env, c);
			if (c->ret == -38) /* ENOSYS */
				stats.enosys++;
			else if (c->ret < 0 && c->ret > -4096)
				stats.errors++;
			else
				stats.ok++;
			break;
		case ACT_SPAWN:
			spawn(seed, env, c);
			break;
		default:
			stats.denied++;
		}
		if (i % 16 == 15)
			reap_children(env);
	}
	for (int i = 0; i < FUZZ_MAX_CHILDREN; i++)
		if (kill_child(env, i))
			return FUZZ_EXIT_STUCK;
	worker_log("fuzz: worker %d cpu %d: %llu calls (%llu ok, %llu errors, %llu ENOSYS, "
		   "%llu denied), %llu children (%llu killed by signals), %llu signals caught\n",
		   env->worker, env->cpu, (unsigned long long)stats.calls,
		   (unsigned long long)stats.ok, (unsigned long long)stats.errors,
		   (unsigned long long)stats.enosys, (unsigned long long)stats.denied,
		   (unsigned long long)stats.spawned, (unsigned long long)stats.child_signalled,
		   (unsigned long long)stats.signals);
	if (trace)
		ring_dump();
	return 0;
}

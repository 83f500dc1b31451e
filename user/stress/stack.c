/*
 * stress stack [N]: user stack overflows by deep recursion, N times each
 * (default 10), each in a child:
 *   plain     no handler: the child dies of SIGSEGV;
 *   altstack  a SIGSEGV handler on a sigaltstack: it runs there, sees a
 *             fault address just below the 8 MiB stack (RLIMIT_STACK) and
 *             a recursion about that deep, and exits 42;
 *   handler   a SIGSEGV handler without an alternate stack: there is no
 *             room for its frame, so the child dies of SIGSEGV (Linux's
 *             force_sigsegv);
 *   thread    a thread with a 64 KiB stack overflows it while the main
 *             thread waits: the whole child dies of SIGSEGV.
 * The kernel must come through unharmed: every count back afterwards, the
 * stacks' pages given back.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "stress.h"

#define FRAME	      1024
#define ALT_SIZE      (64 * 1024)
#define THREAD_STACK  (64 * 1024)
#define EXIT_ALTSTACK 42

static volatile long depth, limit = 1L << 40; /* never reached: no infinite-recursion warning */
static volatile uintptr_t lowest;
static char *alt;

/* One frame of FRAME bytes per call: never inlined into itself. */
static long __attribute__((noinline)) recurse(long n)
{
	volatile char buf[FRAME];

	buf[0] = (char)n;
	depth = n;
	lowest = (uintptr_t)buf;
	if (n == limit)
		return 0;
	return recurse(n + 1) + buf[0];
}

/* In the dying child: says why its handler is unhappy, exits with code. */
static void __attribute__((noreturn)) alt_fail(int code, const char *why, uintptr_t a, uintptr_t b)
{
	char line[160];
	int len = snprintf(line, sizeof(line), "stress stack: altstack handler: %s (%#lx, %#lx)\n",
			   why, (unsigned long)a, (unsigned long)b);

	write(1, line, (size_t)len);
	_exit(code);
}

static void on_segv_alt(int sig, siginfo_t *si, void *uc)
{
	char here;
	uintptr_t a = (uintptr_t)si->si_addr, h = (uintptr_t)&here;
	struct rlimit rl;
	long used;

	(void)sig;
	(void)uc;
	/* On the alternate stack, not the one that overflowed. */
	if (h < (uintptr_t)alt || h >= (uintptr_t)alt + ALT_SIZE)
		alt_fail(10, "not on the alternate stack", h, (uintptr_t)alt);
	/* The fault is just below the deepest frame, and the stack was RLIMIT_STACK deep. */
	if (a > lowest || lowest - a > 2 * FRAME + 4096)
		alt_fail(11, "the fault is not just below the deepest frame", a, lowest);
	if (getrlimit(RLIMIT_STACK, &rl))
		alt_fail(12, "getrlimit failed", 0, 0);
	used = depth * FRAME;
	if (used < (long)rl.rlim_cur * 7 / 8 || used > (long)rl.rlim_cur)
		alt_fail(13, "the recursion is not RLIMIT_STACK deep", (uintptr_t)used, rl.rlim_cur);
	_exit(EXIT_ALTSTACK);
}

static void on_segv_plain(int sig)
{
	(void)sig;
	_exit(20); /* must never run: its frame has no room */
}

static void *thread_recurse(void *arg)
{
	(void)arg;
	recurse(0);
	return NULL;
}

static int child(const char *mode)
{
	struct sigaction sa = { 0 };

	if (!strcmp(mode, "altstack")) {
		stack_t ss = { .ss_size = ALT_SIZE };

		alt = malloc(ALT_SIZE);
		ss.ss_sp = alt;
		if (!alt || sigaltstack(&ss, NULL))
			return 30;
		sa.sa_sigaction = on_segv_alt;
		sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
		sigaction(SIGSEGV, &sa, NULL);
	} else if (!strcmp(mode, "handler")) {
		sa.sa_handler = on_segv_plain;
		sigaction(SIGSEGV, &sa, NULL);
	} else if (!strcmp(mode, "thread")) {
		pthread_attr_t attr;
		pthread_t t;

		pthread_attr_init(&attr);
		pthread_attr_setstacksize(&attr, THREAD_STACK);
		if (pthread_create(&t, &attr, thread_recurse, NULL))
			return 31;
		pthread_join(t, NULL);
		return 32; /* the thread came back */
	}
	recurse(0);
	return 33; /* the recursion came back */
}

static const struct {
	const char *name;
	int killed_by; /* 0: exits EXIT_ALTSTACK */
} modes[] = {
	{ "plain", SIGSEGV },
	{ "altstack", 0 },
	{ "handler", SIGSEGV },
	{ "thread", SIGSEGV },
};

#define NMODES ((int)(sizeof(modes) / sizeof(modes[0])))

/*
 * Touches the next 64 KiB of the parent's own stack, so that the deeper calls after the
 * snapshot (objects_back's own snapshot and table) find their pages already there: they are
 * the parent's to keep, not the children's to give back.
 */
static __attribute__((noinline)) void touch_own_stack(void)
{
	volatile char pad[64 * 1024];

	for (size_t i = 0; i < sizeof(pad); i += 4096)
		pad[i] = 1;
}

int probe_stack(int argc, char **argv)
{
	long n = argc > 1 ? strtol(argv[1], NULL, 10) : 10;
	static struct objects before; /* not on the stack the probe counts */

	if (n <= 0)
		return probe_fail("stack", "usage: stress stack [N]");
	sleep_ms(20);
	/*
	 * One child of each kind first, uncounted: the parent's own first fork, wait and
	 * printf touch stack and heap pages it keeps, which are not the children's to give back.
	 */
	for (int m = 0; m < NMODES; m++) {
		pid_t pid = fork();

		if (pid < 0)
			return probe_fail("stack", "fork: %s", strerror(errno));
		if (pid == 0)
			_exit(child(modes[m].name));
		if (waitpid(pid, NULL, 0) != pid)
			return probe_fail("stack", "waitpid: %s", strerror(errno));
		printf("stress stack: warm-up: one %s child\n", modes[m].name);
	}
	touch_own_stack();
	if (objects_take(&before))
		return probe_fail("stack", "cannot read %s", OBJECTS_PATH);
	printf("stress stack: %ld overflows of each kind; free pages %lld\n", n,
	       objects_get(&before, "free_pages"));
	for (int m = 0; m < NMODES; m++) {
		for (long i = 0; i < n; i++) {
			int status;
			pid_t pid = fork();

			if (pid < 0)
				return probe_fail("stack", "fork: %s", strerror(errno));
			if (pid == 0)
				_exit(child(modes[m].name));
			if (waitpid(pid, &status, 0) != pid)
				return probe_fail("stack", "waitpid: %s", strerror(errno));
			if (modes[m].killed_by ?
				    !WIFSIGNALED(status) || WTERMSIG(status) != modes[m].killed_by :
				    !WIFEXITED(status) || WEXITSTATUS(status) != EXIT_ALTSTACK)
				return probe_fail("stack", "%s #%ld: wait status %#x, want %s",
						  modes[m].name, i + 1, status,
						  modes[m].killed_by ? "killed by SIGSEGV" :
								       "exit 42");
		}
		printf("stress stack: %s: %ld children, each %s\n", modes[m].name, n,
		       modes[m].killed_by ? "killed by SIGSEGV" :
					    "handled SIGSEGV on its alternate stack and exited 42");
	}
	if (!objects_back("stack", &before))
		return probe_fail("stack", "counts not back");
	printf("stress stack: PASS: %ld overflows of each kind, each ended as on Linux; counts back\n",
	       n);
	return 0;
}

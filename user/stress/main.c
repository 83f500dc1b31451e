/*
 * stress: exhaustion probes (issue 12), run as init's program in QEMU:
 *
 *   stress procs [N]         N CPU-bound processes (default 2,560) alive at once, all reaped
 *   stress threads [N [B]]   N threads (default 10,000) created and joined, B (default
 *                            2,000) alive at once
 *   stress forkbomb [LIMIT]  a fork bomb from every CPU: it must end in EAGAIN at exactly
 *                            RLIMIT_NPROC (LIMIT, or the kernel's default), then go away
 *   stress oom               memory hogs until RAM runs out: the largest is killed, a
 *                            small bystander touching a fresh page every 5 ms survives
 *   stress oom-copy          the same, but the third hog's memory is filled by pread (the
 *                            kernel's copies): they must wait for the OOM killer, not fail
 *   stress populate          MAP_POPULATE larger than free memory fails with ENOMEM
 *   stress tlb [ROUNDS]      munmap and MADV_DONTNEED while threads on every other CPU
 *                            store into the pages: no store lands after they went
 *   stress stack [N]         user stack overflows, with and without a sigaltstack, in a
 *                            thread: SIGSEGV as on Linux, the stacks given back
 *   stress signals [B [R]]   pipes, socketpairs and futexes on every CPU while signals fly
 *                            between the threads: every byte, round and signal arrives
 *
 * Each one ends with every /proc/fulcrum/objects count back where it was.
 */
#include <stdio.h>
#include <string.h>

#include "stress.h"

static const struct {
	const char *name;
	int (*run)(int argc, char **argv);
} probes[] = {
	{ "procs", probe_procs }, { "threads", probe_threads },	  { "forkbomb", probe_forkbomb },
	{ "oom", probe_oom },	  { "oom-copy", probe_oom_copy }, { "populate", probe_populate },
	{ "tlb", probe_tlb },	  { "stack", probe_stack },	  { "signals", probe_signals },
};

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (size_t i = 0; argc > 1 && i < sizeof(probes) / sizeof(probes[0]); i++)
		if (strcmp(argv[1], probes[i].name) == 0)
			return probes[i].run(argc - 1, argv + 1);
	fprintf(stderr,
		"usage: stress procs|threads|forkbomb|oom|oom-copy|populate|tlb|stack|signals [args]\n");
	return 2;
}

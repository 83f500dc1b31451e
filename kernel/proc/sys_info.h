/*
 * What a process may learn about the system and itself (sys_info.c):
 * uname, sysinfo, getrusage, resource limits, reboot, the trivial ids.
 * The x86-64 layouts of struct rusage and struct sysinfo, the pure
 * conversion into them (host-tested), and the per-process CPU totals the
 * CPU-time clocks share.
 */
#ifndef FULCRUM_PROC_SYS_INFO_H
#define FULCRUM_PROC_SYS_INFO_H

#include "lib/types.h"
#include "proc/sys_time.h"

struct process;

#define RUSAGE_SELF	0
#define RUSAGE_CHILDREN (-1)
#define RUSAGE_THREAD	1

/* struct rusage of the x86-64 ABI: two timevals, then fourteen longs. */
struct k_rusage {
	struct k_timeval ru_utime, ru_stime;
	s64 ru_maxrss; /* KiB */
	s64 ru_ixrss, ru_idrss, ru_isrss;
	s64 ru_minflt, ru_majflt, ru_nswap;
	s64 ru_inblock, ru_oublock;
	s64 ru_msgsnd, ru_msgrcv, ru_nsignals;
	s64 ru_nvcsw, ru_nivcsw;
};

_Static_assert(sizeof(struct k_rusage) == 144, "x86-64 struct rusage");

/* struct sysinfo of the x86-64 ABI (the 64-bit layout has no _f padding bytes). */
struct k_sysinfo {
	s64 uptime;   /* seconds, rounded up */
	u64 loads[3]; /* 1, 5, 15 minutes, fixed point << 16 */
	u64 totalram, freeram, sharedram, bufferram, totalswap, freeswap;
	u16 procs;
	u16 pad;
	u64 totalhigh, freehigh;
	u32 mem_unit;
};

_Static_assert(sizeof(struct k_sysinfo) == 112, "x86-64 struct sysinfo");

/* CPU time (ns) and context switches of a set of threads. */
struct cpu_totals {
	u64 runtime_ns;
	u64 nvcsw, nivcsw;
};

#define RSS_PAGE_KIB 4 /* a page in ru_maxrss's unit */

/*
 * Fills ru from totals: Fulcrum does not split user from system time, so
 * all of it is ru_utime and ru_stime is 0; ru_maxrss is in KiB; the
 * fields Linux leaves 0 (memory integrals, swaps, block I/O, IPC) stay 0.
 */
static inline void rusage_fill(struct k_rusage *ru, const struct cpu_totals *t, u64 maxrss_pages)
{
	*ru = (struct k_rusage){ 0 };
	ru->ru_utime = ns_to_timeval(t->runtime_ns);
	ru->ru_maxrss = (s64)(maxrss_pages * RSS_PAGE_KIB);
	ru->ru_nvcsw = (s64)t->nvcsw;
	ru->ru_nivcsw = (s64)t->nivcsw;
}

/*
 * The CPU time and context switches of p's live threads (their running
 * stretches included) plus its exited threads' (p->dead_threads). Takes
 * proc_lock: call with no spinlock held.
 */
void process_cpu_totals(struct process *p, struct cpu_totals *out);

#endif

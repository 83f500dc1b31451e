/*
 * Scheduler statistics (stats.c): the /proc/schedstat version 15 report of
 * the per-CPU counters (struct rq_sched_stats, kept by core.c) and the
 * per-domain ones (struct sched_domain_stats, kept by balance.c), and the
 * "wasted CPU" and per-CPU migration totals Linux does not give.
 */
#ifndef FULCRUM_SCHED_STATS_H
#define FULCRUM_SCHED_STATS_H

#include "sched/sched.h"

/*
 * From rq's tick (interrupts off, no rq lock), with the tick's rq->clock:
 * if rq's CPU is idle while another queue has a waiting task allowed to
 * run here, the time since the previous call is added to
 * rq->stats.wasted_idle_ns. A sampled approximation: see stats.c.
 */
void schedstat_account_wasted(struct rq *rq, u64 now);

/* Where a report goes: line() gets each line, without its newline. */
struct sched_out {
	void (*line)(void *ctx, const char *text);
	void *ctx;
};

/*
 * Writes /proc/schedstat version 15 to out: "version 15",
 * "timestamp" (ms, i.e. jiffies at HZ=1000), then per CPU a cpuN line
 * (yld_count, 0, sched_count, sched_goidle, ttwu_count, ttwu_local,
 * rq_cpu_time, run_delay, pcount) followed by a domainN line per domain
 * (span in hex; per idle type CPU_IDLE, CPU_NOT_IDLE, CPU_NEWLY_IDLE the
 * eight lb_ counters; alb_, sbe_, sbf_, ttwu_ counters), and after them one
 * "wasted cpuN <ns>" line per CPU, then one "migrations cpuN <count>" line
 * per CPU (tasks moved onto it since boot). Takes no scheduler locks
 * (counters are read racily, as Linux's are); out->line is called with
 * interrupts off for the per-CPU part.
 */
void schedstat_show(const struct sched_out *out);

/* schedstat_show() through printk. */
void schedstat_print(void);

/*
 * Per-task statistics, a header line then one line per task: pid, name,
 * CPU, state, nice, runtime and run_delay (ns), timeslices (times picked),
 * migrations, voluntary and involuntary switches.
 */
void sched_tasks_show(const struct sched_out *out);
void sched_tasks_print(void);

/*
 * m's first nbits CPUs as Linux's bitmap_scnprintf() writes a mask: hex in
 * 32-bit chunks, most significant first, comma-separated, the first chunk
 * only as wide as needed for nbits ("f" for 4 CPUs, "ff,ffffffff" for 40).
 * Returns the length written (NUL-terminated, cut at size).
 */
int schedstat_mask_hex(char *buf, size_t size, const struct cpumask *m, u32 nbits);

#endif

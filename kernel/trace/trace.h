/*
 * Scheduler tracing: events recorded as fixed-size binary records into a
 * ring per CPU, turned into Linux's ftrace text (the tracefs `trace` file's
 * format) only when the trace is dumped to the trace channel
 * (docs/tracing.md). Each tracepoint below is an inline test of one global
 * flag; with tracing off that branch is all a site costs.
 */
#ifndef FULCRUM_TRACE_TRACE_H
#define FULCRUM_TRACE_TRACE_H

#include "lib/compiler.h"
#include "lib/types.h"

struct rq;
struct task;

/* The events, in the order trace= and /proc/fulcrum/trace name them. */
enum trace_event {
	TRACE_SCHED_SWITCH,
	TRACE_SCHED_WAKING,
	TRACE_SCHED_WAKEUP,
	TRACE_SCHED_WAKEUP_NEW,
	TRACE_SCHED_MIGRATE_TASK,
	TRACE_SCHED_PROCESS_FORK,
	TRACE_SCHED_PROCESS_EXEC,
	TRACE_SCHED_PROCESS_EXIT,
	TRACE_CPU_IDLE,
	/* Fulcrum's own */
	TRACE_SCHED_SELECT,
	TRACE_SCHED_BALANCE,
	TRACE_SCHED_TOPOLOGY,
	TRACE_SCHED_WATCHDOG,
	TRACE_SCHED_AFFINITY,
	TRACE_NR_EVENTS,
};

/* Why sched_select chose its target (the reason= field). */
enum trace_select_reason {
	TRACE_SELECT_PREV,	   /* stayed on (or went back to) prev_cpu */
	TRACE_SELECT_AFFINE,	   /* wake-affine pulled it towards this_cpu */
	TRACE_SELECT_IDLE_SIBLING, /* an idle CPU sharing the cache with the chosen one */
	TRACE_SELECT_IDLEST,	   /* the idlest group's idlest CPU (the fork/exec/wake walk) */
};

/* What a balancer pass came to (the result= field of sched_balance). */
enum trace_balance_result {
	TRACE_BALANCE_BALANCED, /* nothing worth moving */
	TRACE_BALANCE_MOVED,	/* moved= tasks pulled */
	TRACE_BALANCE_FAILED,	/* an imbalance, but nothing could be moved */
	TRACE_BALANCE_ACTIVE,	/* asked the busiest CPU's stopper to push its running task */
};

/* Tracing on: tested inline at every tracepoint (one predictable branch when off). */
extern bool trace_active;

void __trace_sched_switch(const struct task *prev, const struct task *next, bool preempt);
void __trace_sched_wakeup(enum trace_event ev, const struct task *p, u32 target_cpu);
void __trace_sched_migrate_task(const struct task *p, u32 dest_cpu);
void __trace_sched_process_fork(const struct task *parent, const struct task *child);
void __trace_sched_process_exec(const struct task *p, const char *filename);
void __trace_sched_process_exit(const struct task *p);
void __trace_cpu_idle(u32 state, u32 cpu);
void __trace_sched_select(const struct task *p, u32 prev_cpu, u32 this_cpu, u32 target,
			  const char *sd_level, enum trace_select_reason reason);
void __trace_sched_balance(u32 cpu, const char *domain, int idle_type, long imbalance, int busiest,
			   int moved, enum trace_balance_result result);
void __trace_sched_topology(u32 generation, u32 nr_cpus, u32 nr_levels);
void __trace_sched_watchdog(const char *kind, u32 cpu, const struct task *p, u64 ms);
void __trace_sched_affinity(const struct task *p);

/* cpu_idle's state on leaving idle: Linux's PWR_EVENT_EXIT, (u32)-1. */
#define TRACE_IDLE_EXIT 4294967295U
/* cpu_idle's state on entering idle: Fulcrum's only idle state, HLT (Linux's C1 is 1). */
#define TRACE_IDLE_HLT	1U

/*
 * The tracepoints. Arguments are evaluated only when tracing is on. Each
 * records on the calling CPU's ring, as the calling task, with interrupts
 * off for the few stores a record takes; any context may call them.
 */
static inline void trace_sched_switch(const struct task *prev, const struct task *next, bool preempt)
{
	if (unlikely(trace_active))
		__trace_sched_switch(prev, next, preempt);
}

/* sched_waking: p is about to be woken (on the waker's CPU; target: p's CPU so far). */
static inline void trace_sched_waking(const struct task *p, u32 target_cpu)
{
	if (unlikely(trace_active))
		__trace_sched_wakeup(TRACE_SCHED_WAKING, p, target_cpu);
}

static inline void trace_sched_wakeup(const struct task *p, u32 target_cpu)
{
	if (unlikely(trace_active))
		__trace_sched_wakeup(TRACE_SCHED_WAKEUP, p, target_cpu);
}

static inline void trace_sched_wakeup_new(const struct task *p, u32 target_cpu)
{
	if (unlikely(trace_active))
		__trace_sched_wakeup(TRACE_SCHED_WAKEUP_NEW, p, target_cpu);
}

/* p's CPU changes from its current one to dest_cpu (before the change). */
static inline void trace_sched_migrate_task(const struct task *p, u32 dest_cpu)
{
	if (unlikely(trace_active))
		__trace_sched_migrate_task(p, dest_cpu);
}

static inline void trace_sched_process_fork(const struct task *parent, const struct task *child)
{
	if (unlikely(trace_active))
		__trace_sched_process_fork(parent, child);
}

static inline void trace_sched_process_exec(const struct task *p, const char *filename)
{
	if (unlikely(trace_active))
		__trace_sched_process_exec(p, filename);
}

static inline void trace_sched_process_exit(const struct task *p)
{
	if (unlikely(trace_active))
		__trace_sched_process_exit(p);
}

static inline void trace_cpu_idle(u32 state, u32 cpu)
{
	if (unlikely(trace_active))
		__trace_cpu_idle(state, cpu);
}

static inline void trace_sched_select(const struct task *p, u32 prev_cpu, u32 this_cpu, u32 target,
				      const char *sd_level, enum trace_select_reason reason)
{
	if (unlikely(trace_active))
		__trace_sched_select(p, prev_cpu, this_cpu, target, sd_level, reason);
}

/* idle_type: enum cpu_idle_type (sched/balance.h); busiest: a CPU, or -1 for none. */
static inline void trace_sched_balance(u32 cpu, const char *domain, int idle_type, long imbalance,
				       int busiest, int moved, enum trace_balance_result result)
{
	if (unlikely(trace_active))
		__trace_sched_balance(cpu, domain, idle_type, imbalance, busiest, moved, result);
}

static inline void trace_sched_topology(u32 generation, u32 nr_cpus, u32 nr_levels)
{
	if (unlikely(trace_active))
		__trace_sched_topology(generation, nr_cpus, nr_levels);
}

/* kind: "stall", "soft_lockup", "hard_lockup", "hung_task"; p may be NULL. */
static inline void trace_sched_watchdog(const char *kind, u32 cpu, const struct task *p, u64 ms)
{
	if (unlikely(trace_active))
		__trace_sched_watchdog(kind, cpu, p, ms);
}

/* ---------------------------------------------------------------- control */

/*
 * Boot set-up (kernel_main, after the scheduler and the other CPUs):
 * applies trace=, trace_buf_kb= and trace_full=, allocates the rings if
 * tracing starts at boot, and registers /proc/fulcrum/trace.
 */
void trace_init(void);

/*
 * Run-time control, as `trace start|stop|clear|dump` and writes to
 * /proc/fulcrum/trace do it. trace_start allocates the rings on first use
 * (-ENOMEM if it cannot) and records the events of the trace= mask (all
 * of trace=sched when the boot line named none). trace_dump writes what
 * the rings hold to the channel and empties them; returns the number of
 * events written, or -ENODEV without a channel.
 */
int trace_start(void);
void trace_stop(void);
void trace_clear(void);
long trace_dump(void);

/*
 * The last dump, at the end of a run: power-off, a failed run or a panic,
 * after the other CPUs have stopped. Writes what is left and the trailer
 * (the kernel's wasted-idle totals); prints one console line saying so.
 */
void trace_dump_final(void);

/*
 * sched_affinity: p's allowed CPUs are now p->cpus_allowed (a new pinned
 * kernel thread, set_cpus_allowed, and every pinned task when a trace
 * starts), so that a reader of the trace knows where a waiting task could
 * have run.
 */
static inline void trace_sched_affinity(const struct task *p)
{
	if (unlikely(trace_active))
		__trace_sched_affinity(p);
}

#endif

/*
 * fulcrum-sim: the kernel's scheduler (the files of kernel/sched/, unchanged) on a
 * simulated machine. This header joins the simulator's parts: the arch
 * interface over virtual time (sim_arch.c), the discrete-event engine
 * (engine.c), the machine builder (machine.c) and the built-in workloads
 * (workloads.c). Everything runs on one host thread; a "CPU" is the engine
 * saying which simulated CPU the kernel code it calls is running on.
 */
#ifndef FULCRUM_TOOLS_SIM_H
#define FULCRUM_TOOLS_SIM_H

#include <stdbool.h>
#include <stdio.h>

#include "lib/types.h"
#include "machine.h"
#include "sched/sched.h"

#define NSEC_PER_SEC  1000000000ULL
#define NSEC_PER_MSEC 1000000ULL

/* Virtual time at which the workload starts: the simulated "boot" before it is idle. */
#define SIM_START_NS NSEC_PER_SEC

/* ---------------------------------------------------------------- arch (sim_arch.c) */

/* The simulated clock (ns) and the CPU the kernel code being called runs on. */
extern u64 sim_now;
extern u32 sim_cpu;

/* Timer interrupts delivered to each CPU (arch_cpu_timer_ticks). */
extern u64 sim_timer_ticks[MAX_CPUS];

/* The timer frequency: the `hz` boot option, as the kernel's APIC timer has it. */
u64 sim_hz(void);

/* Whether the `schedstat` boot option asked for the end-of-run statistics. */
bool sim_schedstat_wanted(void);

/* ---------------------------------------------------------------- the machine (machine.c) */

/* What the command line says about the machine; see fulcrum_sim.c's usage text. */
struct sim_machine_spec {
	const char *preset;
	int sockets, cores, threads, nodes; /* -1: not given */
	const char *distance;		    /* "10,21,21,10": the whole matrix, row by row */
	const char *acpi[16];
	u32 nr_acpi;
	int threads_bits, cores_bits; /* -1: not given */
};

/*
 * Fills m from spec: a preset, a shape or ACPI tables (exactly one way).
 * Returns 0, or -1 after printing why to stderr.
 */
int sim_machine_build(const struct sim_machine_spec *spec, struct machine *m, char *desc,
		      size_t desc_len);

/* Prints the preset names and shapes on out. */
void sim_presets_list(FILE *out);

/* ---------------------------------------------------------------- the engine (engine.c) */

/*
 * What a simulated task does next when its CPU burst is over (the workload
 * decides): run again for ns of CPU time, sleep ns of wall time (a timed
 * sleep, woken by CPU 0's tick as the kernel's timed waits are), block
 * until sim_task_wake(), exit, or take the affinity in the task's new_mask
 * (SIM_MIGRATE: set_cpus_allowed on itself; when its CPU is not in the
 * mask it is switched out, given the mask asleep and woken at once, so
 * the wake-up's placement picks its CPU) and carry on.
 */
enum sim_action_kind { SIM_RUN, SIM_SLEEP, SIM_BLOCK, SIM_EXIT, SIM_MIGRATE };

struct sim_action {
	enum sim_action_kind kind;
	u64 ns;
};

struct sim_task;

struct sim_workload_ops {
	/* The CPU time of the task's first burst (may be 0): every task starts by running. */
	u64 (*first_burst)(struct sim_task *st);
	/* The current burst is done: the next action. */
	struct sim_action (*burst_done)(struct sim_task *st);
};

struct sim_task {
	struct task *t;
	const struct sim_workload_ops *ops;
	u32 id;	       /* the workload's number for it */
	u32 index;     /* the engine's */
	u64 left_ns;   /* CPU time left in the current burst */
	u64 run_start; /* when it last started running (valid while current) */
	u64 counter;   /* the workload's: jobs done, ... */
	u64 until_ns; /* if not 0, the current burst ends by this time, run or not (rt-app's runtime) */
	struct cpumask new_mask; /* SIM_MIGRATE's */
	void *priv;		 /* the workload's */
	u64 exit_ns;		 /* when it exited; 0 if it has not */
	bool exited;

	/* The cost model's (cost.h): what the task's caches hold, and what it lost. */
	u64 ws_bytes;	 /* working set, from sim_ws_bytes when it was made */
	u32 last_cpu;	 /* where it last ran */
	u32 home_node;	 /* where its memory is: the node it first ran on */
	u64 left_at;	 /* when it was switched out last */
	u64 churn_at;	 /* last_cpu's cache churn then */
	u64 stall_ns;	 /* time it was current without progress: costs, SMT */
	u64 burst_begin; /* when the current stretch of running began */
	bool ran;	 /* it has run somewhere */
};

/*
 * The working set (bytes) of tasks made from now on: each workload sets it
 * from its --ws-kb before it spawns its tasks (the cost file's ws_kb
 * otherwise). It only matters under --cost.
 */
extern u64 sim_ws_bytes;

/* Engine knobs from the command line. */
struct sim_config {
	u64 seed;
	u64 ipi_ns;		       /* reschedule IPI latency */
	u64 limit_ns;		       /* simulated time after which the run is stopped */
	const struct machine *machine; /* for the cost model's distances */
};

/* A reschedule IPI to cpu from the current CPU: an event after the IPI latency. */
void sim_engine_ipi(u32 cpu);

/* Sets up the engine over the kernel's runqueues (after sched_init and the domains). */
void sim_engine_init(const struct sim_config *cfg);

/*
 * A new task forked from CPU 0 at the current time (the kernel's fork path:
 * task_create, then task_wake_new with SD_BALANCE_FORK placement). allowed
 * NULL: every CPU. Returns the task; exits the program if out of memory.
 */
struct sim_task *sim_task_spawn(const struct sim_workload_ops *ops, u32 id, const char *name,
				int nice, const struct cpumask *allowed);

/*
 * The same from a running task's system call (rt-app's fork): the parent
 * is the task running on sim_cpu, and a preemption the new task asks for
 * there happens when the call returns.
 */
struct sim_task *sim_task_fork(const struct sim_workload_ops *ops, u32 id, const char *name,
			       int nice, const struct cpumask *allowed);

/*
 * Wakes a task blocked with SIM_BLOCK through the kernel's try_to_wake_up,
 * from the current CPU (sim_cpu): called by a workload from burst_done, i.e.
 * in the waking task's system call; a preemption it asks for on this CPU
 * happens when that call returns.
 */
void sim_task_wake(struct sim_task *st, bool sync);

/*
 * Runs events until every spawned task has exited, or until stop_ns if it
 * is not 0, or until cfg.limit_ns. Returns true if the run ended on its own
 * (tasks exited or stop_ns reached), false at the limit.
 */
bool sim_engine_run(u64 stop_ns);

/*
 * Why a task changed CPU, in the words of the trace's sched_select reasons
 * and the balancer's idle types. A wake-up's is read off its outcome as
 * the kernel's tracepoint does (select.c, trace_select_decision): moved to
 * the waker's CPU, affine; moved elsewhere, idle_sibling. Balancing's come
 * from the kernel's schedstat counters at the end: periodic (busy or
 * idle), new-idle, and the stopper's active pushes. Whatever the kernel
 * moved otherwise (an affinity change through the stopper, a class of its
 * own) is "other", the total less the rest.
 */
enum sim_mig_reason {
	SIM_MIG_AFFINE,
	SIM_MIG_IDLE_SIBLING,
	SIM_MIG_BALANCE,
	SIM_MIG_NEWIDLE,
	SIM_MIG_ACTIVE,
	SIM_MIG_OTHER,
	SIM_MIG_NR
};

/* "affine", "idle_sibling", "balance", "newidle", "active", "other". */
extern const char *const sim_mig_reason_name[SIM_MIG_NR];

/* Totals over the run, for the summary. */
struct sim_totals {
	u64 events, ticks, ipis, wakeups, bursts;
	u64 switches, migrations, wasted_ns;
	u64 run_delay_ns, cpu_time_ns;
	u64 path_ns, refill_ns, smt_ns; /* the cost model's charges (cost.h) */
	u64 mig_reason[SIM_MIG_NR];	/* adds up to migrations */
	u64 wake_prev;	 /* wake-ups that kept their CPU (sched_select reason=prev) */
	u64 fork_idlest; /* forks placed off the parent's CPU (reason=idlest; not counted
				       as migrations, as the kernel does not) */
};

void sim_engine_totals(struct sim_totals *tot);

/* ---------------------------------------------------------------- workloads (workloads.c) */

/* Parses argv (the guest program's own) and runs it; returns the exit status. */
int sim_workload_main(int argc, char **argv, u32 nr_cpus);

#define SIM_WORKLOADS "compute, fairshare, hackbench, pipebench, tps, wakelat, jbb, netrr, rt-app"

/* The messaging workloads (messaging.c), called by sim_workload_main. */
int sim_hackbench_main(int argc, char **argv);
int sim_pipebench_main(int argc, char **argv);

/* The request/response workloads (workloads_net.c), called by sim_workload_main. */
int sim_tps_main(int argc, char **argv);
int sim_wakelat_main(int argc, char **argv);
int sim_jbb_main(int argc, char **argv);
int sim_netrr_main(int argc, char **argv, u32 nr_cpus);

/* rt-app FILE.json (rtapp_run.c): the rt-app front end's workload on the engine. */
int sim_rtapp_main(int argc, char **argv, u32 nr_cpus);

/* The workloads' shared helpers: a usage error (exit 2), a failed self-check (exit 1). */
__attribute__((noreturn, format(printf, 1, 2))) void sim_usage_error(const char *fmt, ...);
__attribute__((noreturn, format(printf, 1, 2))) void sim_fail(const char *fmt, ...);
long sim_arg_long(const char *opt, const char *s, long lo, long hi);

/*
 * The scheduler's figures of the run (switches, migrations, wasted CPU,
 * share of runnable time queued) as a "sim:" line and RESULT lines with
 * the workload's keys, then schedstat if the boot option asked for it.
 */
void sim_report_sched(const char *name, const char *keys, double seconds);

/* A RESULT line in the format of user/common/bench.c's bench_result(). */
void sim_result(const char *name, double value, const char *unit, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/*
 * The same with the signature of user/common/bench.c's bench_result(), the
 * running workload's name as the name= field: what user/common/wlreport.c
 * prints through in the simulator.
 */
void sim_bench_result(double value, const char *unit, const char *keys, ...)
	__attribute__((format(printf, 3, 4)));

/* The trace channel (--trace FILE), or NULL. */
extern FILE *sim_trace_file;

#endif

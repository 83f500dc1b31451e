/*
 * The built-in workloads: the guest benchmarks of user/ with their own
 * names, options and RESULT lines, played as CPU bursts by the engine.
 *
 *   compute    (user/compute.c) T tasks each run J jobs of fixed CPU time
 *              (--job-ms, the simulator's only extra option: the guest's
 *              job takes whatever the machine takes); jobs per minute.
 *   fairshare  (user/fairshare.c) T spinners confined to -c CPUs, nice
 *              values -n, for -s seconds; each one's CPU time against its
 *              ideal share, the worst deviation, Jain's index, CPU used.
 *
 * hackbench and pipebench are in messaging.c; tps, wakelat, jbb and netrr
 * in workloads_net.c.
 *
 * Each checks its own results as the guest program does (every job done,
 * no task above the window) and then prints the scheduler's figures of the
 * run: switches, migrations, wasted CPU and the share of runnable time
 * spent queued.
 */
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cost.h"
#include "fairness.h"
#include "printk.h"
#include "sched/stats.h"
#include "sim.h"

/* Linux's nice-to-weight table, as user/fairshare.c has it (the kernel's prio_to_weight). */
#define FAIRSHARE_MAX_TASKS FAIR_MAX_TASKS
#define WINDOW_SLACK_NS	    (20 * NSEC_PER_MSEC)

static const char *prog_name = "sim";

void sim_result(const char *name, double value, const char *unit, const char *fmt, ...)
{
	char words[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(words, sizeof(words), fmt, ap);
	va_end(ap);
	if (fabs(value) >= 1000)
		printf("RESULT name=%s %s value=%.1f unit=%s\n", name, words, value, unit);
	else
		printf("RESULT name=%s %s value=%.6g unit=%s\n", name, words, value, unit);
}

void sim_bench_result(double value, const char *unit, const char *keys, ...)
{
	char words[256];
	va_list ap;

	va_start(ap, keys);
	vsnprintf(words, sizeof(words), keys, ap);
	va_end(ap);
	sim_result(prog_name, value, unit, "%s", words);
}

void sim_usage_error(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "%s: ", prog_name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (try %s --help)\n", prog_name);
	exit(2);
}

void sim_fail(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "%s: FAILED: ", prog_name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	exit(1);
}

long sim_arg_long(const char *opt, const char *s, long lo, long hi)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (end == s || *end || v < lo || v > hi)
		sim_usage_error("%s: '%s' is not a whole number in %ld..%ld", opt, s, lo, hi);
	return v;
}

static double arg_double(const char *opt, const char *s, double lo, double hi)
{
	char *end;
	double v = strtod(s, &end);

	if (end == s || *end || !(v >= lo && v <= hi))
		sim_usage_error("%s: '%s' is not a number in %g..%g", opt, s, lo, hi);
	return v;
}

/* The scheduler's figures of the run, as RESULT lines of the workload. */
void sim_report_sched(const char *name, const char *keys, double window_s)
{
	struct sim_totals tot;
	double queued;

	sim_engine_totals(&tot);
	queued = tot.run_delay_ns + tot.cpu_time_ns ?
			 (double)tot.run_delay_ns / (double)(tot.run_delay_ns + tot.cpu_time_ns) :
			 0;
	printf("sim: %llu events (%llu ticks, %llu IPIs, %llu wake-ups), %llu switches, "
	       "%llu migrations, wasted CPU %.3f ms, queued %.1f%% of runnable time, "
	       "%.3f s simulated\n",
	       (unsigned long long)tot.events, (unsigned long long)tot.ticks,
	       (unsigned long long)tot.ipis, (unsigned long long)tot.wakeups,
	       (unsigned long long)tot.switches, (unsigned long long)tot.migrations,
	       (double)tot.wasted_ns / 1e6, queued * 100, window_s);
	printf("sim: migrations by reason:");
	for (int r = 0; r < SIM_MIG_NR; r++)
		printf(" %s %lld%s", sim_mig_reason_name[r], (long long)tot.mig_reason[r],
		       r + 1 < SIM_MIG_NR ? "," : ";");
	printf(" wake-ups that kept their CPU %llu, forks placed off their parent's CPU (idlest) %llu\n",
	       (unsigned long long)tot.wake_prev, (unsigned long long)tot.fork_idlest);
	sim_result(name, (double)tot.switches, "switches", "%s metric=switches", keys);
	sim_result(name, (double)tot.migrations, "migrations", "%s metric=migrations", keys);
	for (int r = 0; r < SIM_MIG_OTHER; r++)
		sim_result(name, (double)tot.mig_reason[r], "migrations", "%s metric=migrations_%s",
			   keys, sim_mig_reason_name[r]);
	sim_result(name, (double)tot.wasted_ns / 1e6, "ms", "%s metric=wasted_cpu", keys);
	sim_result(name, queued * 100, "%", "%s metric=wait_share", keys);
	if (sim_cost.on)
		printf("cost: scheduler paths %.3f ms, cache refill %.3f ms, SMT slowdown %.3f ms "
		       "(CPU time, all CPUs)\n",
		       (double)tot.path_ns / 1e6, (double)tot.refill_ns / 1e6,
		       (double)tot.smt_ns / 1e6);
	if (sim_schedstat_wanted()) {
		schedstat_print();
		sched_tasks_print();
	}
	if (sched_feat(SCHED_VERIFY)) {
		u64 checks, violations;

		/* kernel/main.c's verdict at the end of a run, in its words. */
		sched_verify_totals(&checks, &violations);
		pr_info("sched_verify: %llu checks, %llu violations\n", (unsigned long long)checks,
			(unsigned long long)violations);
		if (violations)
			sim_fail("the scheduler's invariant checks failed %llu times",
				 (unsigned long long)violations);
	}
}

/* ---------------------------------------------------------------- compute */

static long compute_jobs = 10;
static u64 compute_job_ns = 10 * NSEC_PER_MSEC;

/*
 * Working sets (KiB) under --cost, each workload's --ws-kb: round figures
 * for what each task touches between two switches, not measured.
 */
#define COMPUTE_WS_KB	256
#define FAIRSHARE_WS_KB 128

/* --ws-kb's value. */
static u64 arg_ws(const char *s)
{
	return (u64)(arg_double("--ws-kb", s, 0, 1 << 24) * 1024);
}

static u64 compute_first(struct sim_task *st)
{
	return compute_job_ns;
}

static struct sim_action compute_done(struct sim_task *st)
{
	if ((long)++st->counter < compute_jobs)
		return (struct sim_action){ SIM_RUN, compute_job_ns };
	return (struct sim_action){ SIM_EXIT, 0 };
}

static const struct sim_workload_ops compute_ops = {
	.first_burst = compute_first,
	.burst_done = compute_done,
};

static void compute_usage(void)
{
	printf("usage: compute [-t|--tasks T] [-j|--jobs J] [--job-ms MS] [--ws-kb KB]\n"
	       "\n"
	       "T tasks (default 4) each run the same fixed CPU-bound job J times\n"
	       "(default 10); in the simulator a job is MS milliseconds of CPU time\n"
	       "(default 10). Prints jobs/min for T tasks as aim7 does, and a RESULT\n"
	       "line. Fails unless every task did all its jobs and the kernel charged\n"
	       "the tasks exactly the CPU time the jobs took (plus, under --cost, the\n"
	       "time the cost model charged them). --ws-kb: each task's working set\n"
	       "under --cost (default %d).\n",
	       COMPUTE_WS_KB);
}

static int compute_main(int argc, char **argv, u32 nr_cpus)
{
	static const struct option longopts[] = {
		{ "tasks", required_argument, NULL, 't' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "job-ms", required_argument, NULL, 'm' },
		{ "ws-kb", required_argument, NULL, 'w' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	long tasks = 4, done = 0;
	u64 cpu = 0, last = SIM_START_NS, expect, stall = 0, ws = COMPUTE_WS_KB * 1024;
	struct sim_task **ts;
	double real, jpm, ideal;
	char keys[96];
	int c;

	while ((c = getopt_long(argc, argv, "t:j:h", longopts, NULL)) != -1) {
		switch (c) {
		case 't':
			tasks = sim_arg_long("--tasks", optarg, 1, 100000);
			break;
		case 'j':
			compute_jobs = sim_arg_long("--jobs", optarg, 1, 1000000);
			break;
		case 'm':
			compute_job_ns = (u64)(arg_double("--job-ms", optarg, 0.001, 100000) *
					       NSEC_PER_MSEC);
			break;
		case 'w':
			ws = arg_ws(optarg);
			break;
		case 'h':
			compute_usage();
			return 0;
		default:
			sim_usage_error("unknown option");
		}
	}
	if (optind < argc)
		sim_usage_error("unexpected argument '%s'", argv[optind]);
	printf("compute: %ld tasks x %ld jobs, job %.3f ms of CPU (simulated)\n", tasks,
	       compute_jobs, (double)compute_job_ns / 1e6);
	fflush(stdout);
	ts = calloc((size_t)tasks, sizeof(*ts));
	if (!ts)
		sim_fail("out of memory");
	sim_ws_bytes = ws;
	for (long i = 0; i < tasks; i++) {
		char name[32];

		snprintf(name, sizeof(name), "compute/%ld", i);
		ts[i] = sim_task_spawn(&compute_ops, (u32)i, name, 0, NULL);
	}
	if (!sim_engine_run(0))
		sim_fail("the simulated time limit passed before every task finished");
	for (long i = 0; i < tasks; i++) {
		if (!ts[i]->exited || (long)ts[i]->counter != compute_jobs)
			sim_fail("task %ld did %llu of %ld jobs", i,
				 (unsigned long long)ts[i]->counter, compute_jobs);
		done += (long)ts[i]->counter;
		cpu += ts[i]->t->sum_exec_runtime;
		stall += ts[i]->stall_ns;
		if (ts[i]->exit_ns > last)
			last = ts[i]->exit_ns;
	}
	expect = (u64)tasks * (u64)compute_jobs * compute_job_ns;
	if (cpu != expect + stall)
		sim_fail("the kernel charged the tasks %llu ns of CPU time; their jobs took %llu ns "
			 "and the cost model charged them %llu ns",
			 (unsigned long long)cpu, (unsigned long long)expect,
			 (unsigned long long)stall);
	real = (double)(last - SIM_START_NS) / 1e9;
	jpm = (double)done * 60.0 / real;
	/*
	 * The ideal schedule of the same work on the same CPUs (preemptive,
	 * migration free): no sooner than the longest task alone, nor than the
	 * total CPU time spread evenly over every CPU (McNaughton's bound).
	 */
	ideal = fmax((double)compute_jobs * (double)compute_job_ns, (double)expect / (double)nr_cpus) /
		1e9;
	printf("%8s %12s %10s %10s %14s\n", "Tasks", "Jobs/Min", "Real", "CPU", "Jobs/sec/task");
	printf("%8ld %12.2f %10.3f %10.3f %14.4f\n", tasks, jpm, real, (double)cpu / 1e9,
	       (double)compute_jobs / real);
	snprintf(keys, sizeof(keys), "tasks=%ld jobs=%ld", tasks, compute_jobs);
	sim_result("compute", jpm, "jobs/min", "%s metric=jobs_per_min", keys);
	printf("balance efficiency %.4f (ideal schedule %.3f s)\n", ideal / real, ideal);
	sim_result("compute", ideal / real, "ratio", "%s metric=balance_eff", keys);
	sim_report_sched("compute", keys, real);
	free(ts);
	return 0;
}

/* ---------------------------------------------------------------- fairshare */

/* A spinner never stops on its own: its bursts outlast any window. */
#define SPIN_BURST_NS (3600 * NSEC_PER_SEC)

/*
 * The guest program's start, step by step (user/fairshare.c): its process,
 * launched as the guest's boot launches it (sim_launch), forks the tasks
 * one after another; each child sets its affinity and nice, says it is
 * ready through a pipe and sleeps at the start gate; the parent waits for
 * every one to be ready (woken by the last one's write), writes the start
 * time and opens the gate, one sync wake-up per child (pipe_write's
 * wake_up_all_sync); each child reads the start, its migration and switch
 * counters, then spins. The times are the guest's, from a trace of
 * `tools/bench --preset 2s --icount --trace --workload fairshare --args
 * '-t 8 -s 1'` (2026-12-02), where the guest clock counts every vCPU's
 * instructions: from the parent's wake-up to its first fork 5.29 ms (its
 * exec), 0.99 ms per further fork, 70 us from its last fork to its sleep
 * at the gate and from its wake-up to its first gate wake-up (the one
 * write that then wakes every child, 20 us per wake-up inside that
 * call, which the engine takes as one instant); a child's run from its first switch-in to its sleep
 * at the gate 160 us (its run from the gate to the spin is not in the
 * trace: taken as the same, and so is its run from the window's end to its
 * report). After the window each child writes its report to the parent
 * (a sync wake-up if the parent sleeps in its read) and exits 360 us later
 * (the close of its end of the pipe wakes the parent too); the parent, once
 * every child is gone, prints the table for 4.26 ms and exits, which wakes
 * init.
 */
#define FS_EXEC_NS  (5290 * 1000ULL)
#define FS_FORK_NS  (990 * 1000ULL)
#define FS_GATE_NS  (70 * 1000ULL)
#define FS_SETUP_NS (160 * 1000ULL)
#define FS_EXIT_NS  (360 * 1000ULL)
#define FS_PRINT_NS (4260 * 1000ULL)

enum fs_step { FS_SETUP, FS_AFFINITY, FS_GATE, FS_START, FS_SPIN, FS_REPORT, FS_EXIT };

struct fs_child {
	enum fs_step step;
	u64 cpu_at_start, migrations_at_start, switches_at_start;
	u64 cpu_ns, migrations, switches; /* over the window, as the guest's task counts them */
};

static struct {
	long tasks;
	struct cpumask mask;
	bool confined;
	const int *nice_of;
	struct sim_task **ts;
	struct fs_child *child;
	struct sim_task *parent;
	enum { FSP_FORK, FSP_GATE, FSP_READY, FSP_WAKE, FSP_REPORTS, FSP_PRINT } parent_step;
	long forked, ready, woken, spinning, reported, exited;
	bool parent_waits;
	u64 start_ns; /* the window's start: the parent's clock read before it opens the gate */
	u64 window;
} fs;

static u64 task_switches(const struct task *p)
{
	return p->stats.nr_voluntary_switches + p->stats.nr_involuntary_switches;
}

/* A write to (or the close of) a pipe the parent sleeps on: pipe_write's sync wake-up. */
static void fs_wake_parent(void)
{
	if (fs.parent_waits) {
		fs.parent_waits = false;
		sim_task_wake(fs.parent, true);
	}
}

static u64 fs_child_first(struct sim_task *st)
{
	return FS_SETUP_NS;
}

static struct sim_action fs_child_done(struct sim_task *st)
{
	struct fs_child *c = &fs.child[st->id];

	switch (c->step) {
	case FS_SETUP:
		c->step = FS_AFFINITY;
		if (fs.confined) {
			st->new_mask = fs.mask;
			return (struct sim_action){ SIM_MIGRATE, 0 };
		}
		/* fall through */
	case FS_AFFINITY:
		/* Ready: the last one's write wakes the parent waiting in its read. */
		c->step = FS_GATE;
		if (++fs.ready == fs.tasks)
			fs_wake_parent();
		return (struct sim_action){ SIM_BLOCK, 0 };
	case FS_GATE:
		c->step = FS_START;
		return (struct sim_action){ SIM_RUN, FS_SETUP_NS };
	case FS_START:
		/* The guest's window counters start here; it spins until the window's end. */
		c->step = FS_SPIN;
		c->cpu_at_start = task_sched_runtime(st->t);
		c->migrations_at_start = st->t->nr_migrations;
		c->switches_at_start = task_switches(st->t);
		fs.spinning++;
		st->until_ns = fs.start_ns + fs.window;
		return (struct sim_action){ SIM_RUN, SPIN_BURST_NS };
	case FS_SPIN:
		c->step = FS_REPORT;
		st->until_ns = 0;
		c->cpu_ns = task_sched_runtime(st->t) - c->cpu_at_start;
		c->migrations = st->t->nr_migrations - c->migrations_at_start;
		c->switches = task_switches(st->t) - c->switches_at_start;
		return (struct sim_action){ SIM_RUN, FS_SETUP_NS };
	case FS_REPORT:
		c->step = FS_EXIT;
		fs.reported++;
		fs_wake_parent();
		return (struct sim_action){ SIM_RUN, FS_EXIT_NS };
	case FS_EXIT:
		/* Its exit closes its end of the report pipe, which wakes the reader too. */
		fs.exited++;
		fs_wake_parent();
		break;
	}
	return (struct sim_action){ SIM_EXIT, 0 };
}

static const struct sim_workload_ops fs_child_ops = {
	.first_burst = fs_child_first,
	.burst_done = fs_child_done,
};

static u64 fs_parent_first(struct sim_task *st)
{
	fs.parent = st;
	return FS_EXEC_NS;
}

static struct sim_action fs_parent_done(struct sim_task *st)
{
	switch (fs.parent_step) {
	case FSP_FORK: {
		long i = fs.forked++;
		char name[32];

		snprintf(name, sizeof(name), "fairshare/%ld", i);
		fs.ts[i] = sim_task_fork(&fs_child_ops, (u32)i, name, fs.nice_of[i], NULL);
		if (fs.forked < fs.tasks)
			return (struct sim_action){ SIM_RUN, FS_FORK_NS };
		fs.parent_step = FSP_GATE;
		return (struct sim_action){ SIM_RUN, FS_GATE_NS };
	}
	case FSP_GATE:
		/* bench_gate_wait: a read of the ready pipe, asleep until every child wrote. */
		fs.parent_step = FSP_READY;
		if (fs.ready < fs.tasks) {
			fs.parent_waits = true;
			return (struct sim_action){ SIM_BLOCK, 0 };
		}
		/* fall through */
	case FSP_READY:
		/* The window starts at this clock read; then the start is written to each child. */
		fs.start_ns = sim_now;
		fs.parent_step = FSP_WAKE;
		return (struct sim_action){ SIM_RUN, FS_GATE_NS };
	case FSP_WAKE:
		/* One write opens the gate: wake_up_all_sync wakes every child in that call. */
		while (fs.woken < fs.tasks)
			sim_task_wake(fs.ts[fs.woken++], true);
		fs.parent_step = FSP_REPORTS;
		/* Back in user space, where a child's wake-up preemption takes it, before its read. */
		return (struct sim_action){ SIM_RUN, 0 };
	case FSP_REPORTS:
		/* It reads the reports until the pipe's end of file, when every child is gone. */
		if (fs.exited < fs.tasks) {
			fs.parent_waits = true;
			return (struct sim_action){ SIM_BLOCK, 0 };
		}
		fs.parent_step = FSP_PRINT;
		return (struct sim_action){ SIM_RUN, FS_PRINT_NS };
	case FSP_PRINT:
		sim_launch_exit();
		break;
	}
	return (struct sim_action){ SIM_EXIT, 0 };
}

static const struct sim_workload_ops fs_parent_ops = {
	.first_burst = fs_parent_first,
	.burst_done = fs_parent_done,
};

struct cpu_list_ctx {
	struct cpumask *mask;
	u32 nr_cpus;
};

static const char *add_cpu(long cpu, void *arg)
{
	static char why[80];
	struct cpu_list_ctx *ctx = arg;

	if (cpu >= (long)ctx->nr_cpus) {
		snprintf(why, sizeof(why), "CPU %ld is not online or not allowed here", cpu);
		return why;
	}
	cpumask_set_cpu((u32)cpu, ctx->mask);
	return NULL;
}

static void parse_cpus(const char *s, struct cpumask *mask, u32 nr_cpus)
{
	struct cpu_list_ctx ctx = { mask, nr_cpus };
	const char *why;

	cpumask_clear(mask);
	why = fair_parse_cpu_list(s, add_cpu, &ctx);
	if (why)
		sim_usage_error("--cpus: %s", why);
}

static void parse_nice(const char *s, int *nice_of)
{
	const char *why = fair_parse_nice(s, nice_of);

	if (why)
		sim_usage_error("--nice: %s", why);
}

static void fairshare_usage(void)
{
	printf("usage: fairshare [-t|--tasks T] [-c|--cpus LIST] [-s|--seconds S] [-n|--nice LIST]\n"
	       "                 [--ws-kb KB]\n"
	       "\n"
	       "T CPU-bound tasks (default 5) confined to the CPUs in LIST (default:\n"
	       "every CPU) spin for S seconds (default 2) from a common start. Each\n"
	       "one's CPU time is compared with its ideal share of the time they got\n"
	       "together (by nice weight, at most one CPU each); --nice gives the nice\n"
	       "values, repeated over the tasks. RESULT lines: the worst deviation (%%),\n"
	       "Jain's index of actual/ideal, the CPU time used of what the CPUs give.\n"
	       "--ws-kb: each task's working set under --cost (default %d).\n",
	       FAIRSHARE_WS_KB);
}

static int fairshare_main(int argc, char **argv, u32 nr_cpus)
{
	static const struct option longopts[] = {
		{ "tasks", required_argument, NULL, 't' },
		{ "cpus", required_argument, NULL, 'c' },
		{ "seconds", required_argument, NULL, 's' },
		{ "nice", required_argument, NULL, 'n' },
		{ "ws-kb", required_argument, NULL, 'w' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static int nice_of[FAIRSHARE_MAX_TASKS];
	static double ideal[FAIRSHARE_MAX_TASKS];
	static struct sim_task *ts[FAIRSHARE_MAX_TASKS];
	static struct fs_child child[FAIRSHARE_MAX_TASKS];
	long tasks = 5, ncpus, busy;
	double seconds = 2.0, capacity;
	struct fair_figures f;
	u64 window, sum = 0, switches = 0, migrations = 0, cpu_ns[FAIRSHARE_MAX_TASKS];
	struct cpumask mask;
	char keys[96];
	int c;

	cpumask_clear(&mask);
	cpumask_set_range(&mask, 0, nr_cpus);
	sim_ws_bytes = FAIRSHARE_WS_KB * 1024;
	while ((c = getopt_long(argc, argv, "t:c:s:n:h", longopts, NULL)) != -1) {
		switch (c) {
		case 't':
			tasks = sim_arg_long("--tasks", optarg, 1, FAIRSHARE_MAX_TASKS);
			break;
		case 'c':
			parse_cpus(optarg, &mask, nr_cpus);
			break;
		case 's':
			seconds = arg_double("--seconds", optarg, 0.01, 3600);
			break;
		case 'n':
			parse_nice(optarg, nice_of);
			break;
		case 'w':
			sim_ws_bytes = arg_ws(optarg);
			break;
		case 'h':
			fairshare_usage();
			return 0;
		default:
			sim_usage_error("unknown option");
		}
	}
	if (optind < argc)
		sim_usage_error("unexpected argument '%s'", argv[optind]);
	ncpus = 0;
	for (u32 cpu = 0; cpu < nr_cpus; cpu++)
		ncpus += cpumask_test_cpu(cpu, &mask);
	if (ncpus == 0)
		sim_usage_error("--cpus: no CPU");
	busy = tasks < ncpus ? tasks : ncpus;
	window = (u64)(seconds * 1e9);
	printf("fairshare: %ld tasks on %ld CPUs for %.3f s\n", tasks, ncpus, seconds);
	fflush(stdout);
	fs.tasks = tasks;
	fs.mask = mask;
	fs.confined = ncpus < (long)nr_cpus;
	fs.nice_of = nice_of;
	fs.ts = ts;
	fs.child = child;
	fs.window = window;
	sim_launch(&fs_parent_ops, "fairshare", &fs.parent);
	if (!sim_engine_run(0))
		sim_fail("the simulated time limit passed before every task reported");
	for (long i = 0; i < tasks; i++) {
		cpu_ns[i] = child[i].cpu_ns;
		switches += child[i].switches;
		migrations += child[i].migrations;
		if (cpu_ns[i] > window + WINDOW_SLACK_NS)
			sim_fail("task %ld used %.3f ms of CPU in a %.3f ms window", i,
				 (double)cpu_ns[i] / 1e6, (double)window / 1e6);
		sum += cpu_ns[i];
	}
	if (sum == 0)
		sim_fail("the tasks used no CPU time at all");
	capacity = (double)busy * (double)window;
	if ((double)sum > capacity + (double)(busy * WINDOW_SLACK_NS))
		sim_fail("the tasks used %.3f ms of CPU; %ld CPUs give %.3f ms in the window",
			 (double)sum / 1e6, busy, capacity / 1e6);
	fair_ideal_shares(tasks, nice_of, (double)sum, (double)window, ideal);
	f = fair_report(stdout, tasks, nice_of, cpu_ns, ideal, capacity);
	snprintf(keys, sizeof(keys), "tasks=%ld cpus=%ld", tasks, ncpus);
	sim_result("fairshare", f.worst_dev_pct, "%", "%s metric=worst_dev", keys);
	sim_result("fairshare", f.jain, "index", "%s metric=jain", keys);
	sim_result("fairshare", f.cpu_used_pct, "%", "%s metric=cpu_used", keys);
	sim_result("fairshare", (double)switches, "switches", "%s metric=task_switches", keys);
	sim_result("fairshare", (double)migrations, "migrations", "%s metric=task_migrations", keys);
	sim_report_sched("fairshare", keys, seconds);
	return 0;
}

/* ---------------------------------------------------------------- dispatch */

int sim_workload_main(int argc, char **argv, u32 nr_cpus)
{
	if (argc < 1) {
		fprintf(stderr, "fulcrum-sim: no workload after '--' (%s)\n", SIM_WORKLOADS);
		return 2;
	}
	prog_name = argv[0];
	optind = 1;
	if (strcmp(argv[0], "compute") == 0)
		return compute_main(argc, argv, nr_cpus);
	if (strcmp(argv[0], "fairshare") == 0)
		return fairshare_main(argc, argv, nr_cpus);
	if (strcmp(argv[0], "hackbench") == 0)
		return sim_hackbench_main(argc, argv);
	if (strcmp(argv[0], "pipebench") == 0)
		return sim_pipebench_main(argc, argv);
	if (strcmp(argv[0], "tps") == 0)
		return sim_tps_main(argc, argv);
	if (strcmp(argv[0], "wakelat") == 0)
		return sim_wakelat_main(argc, argv);
	if (strcmp(argv[0], "jbb") == 0)
		return sim_jbb_main(argc, argv);
	if (strcmp(argv[0], "netrr") == 0)
		return sim_netrr_main(argc, argv, nr_cpus);
	if (strcmp(argv[0], "rt-app") == 0 || strcmp(argv[0], "rtapp") == 0)
		return sim_rtapp_main(argc, argv, nr_cpus);
	fprintf(stderr, "fulcrum-sim: no built-in workload '%s' (%s)\n", argv[0], SIM_WORKLOADS);
	return 2;
}

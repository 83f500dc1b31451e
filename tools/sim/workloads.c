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

static u64 spin_first(struct sim_task *st)
{
	return SPIN_BURST_NS;
}

static struct sim_action spin_done(struct sim_task *st)
{
	return (struct sim_action){ SIM_RUN, SPIN_BURST_NS };
}

static const struct sim_workload_ops spin_ops = {
	.first_burst = spin_first,
	.burst_done = spin_done,
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
	long tasks = 5, ncpus, busy;
	double seconds = 2.0, capacity;
	struct fair_figures f;
	u64 window, sum = 0, switches = 0, migrations = 0, cpu_ns[FAIRSHARE_MAX_TASKS];
	static u64 migrations_at_start[FAIRSHARE_MAX_TASKS];
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
	for (long i = 0; i < tasks; i++) {
		char name[32];

		snprintf(name, sizeof(name), "fairshare/%ld", i);
		ts[i] = sim_task_spawn(&spin_ops, (u32)i, name, nice_of[i], &mask);
		/* The guest counts from its window's start, after fork placement. */
		migrations_at_start[i] = ts[i]->t->nr_migrations;
	}
	if (!sim_engine_run(SIM_START_NS + window))
		sim_fail("the simulated time limit passed before the window ended");
	for (long i = 0; i < tasks; i++) {
		sim_cpu = task_cpu(ts[i]->t);
		cpu_ns[i] = task_sched_runtime(ts[i]->t);
		switches += ts[i]->t->stats.nr_voluntary_switches +
			    ts[i]->t->stats.nr_involuntary_switches;
		migrations += ts[i]->t->nr_migrations - migrations_at_start[i];
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
	/* The guest counts from its window's start; here the tasks begin with it. */
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

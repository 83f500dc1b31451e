/*
 * fairshare: how fairly the scheduler splits CPUs among CPU-bound tasks.
 * T processes, all confined to the same CPUs (-c, default: every CPU this
 * process may use), spin for S seconds from a common start; each one's
 * CPU time over that window is compared with its ideal share of the CPU
 * time the tasks got together: what a perfectly fair scheduler would have
 * handed out, by nice weight, no task above one CPU (so 5 equal tasks on
 * 4 CPUs ideally get a fifth each, and nice 0 against nice 5 on one CPU
 * about 75:25).
 *
 * Figures: the worst task's deviation from its ideal (%), Jain's fairness
 * index of the actual/ideal ratios (1 is perfect), and how much of the
 * CPU time the set could give was used (%), and the context switches
 * and migrations the tasks made in the window (getrusage's voluntary and
 * involuntary switches together; se.nr_migrations of /proc/self/sched,
 * left out where that file is missing), so the simulator's counts can be
 * set beside them. The same binary runs on
 * Linux, so both kernels can be compared in the same virtual machine.
 *
 * Checks: every task reports; no task's CPU time exceeds the window, and
 * their sum does not exceed the CPUs' capacity (a clock or accounting bug
 * fails the run; --inject-error fakes one).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "fairness.h"

#define MAX_TASKS	FAIR_MAX_TASKS
#define SPIN_CHUNK	20000 /* loop iterations between clock reads */
/* Slack for the checks: clock reads around the window, tick-granular accounting. */
#define WINDOW_SLACK_NS (20 * 1000 * 1000ull)

static long tasks = 5;
static double seconds = 2.0;
static cpu_set_t cpus;
static long ncpus;
static int nice_of[MAX_TASKS];
static bool inject_error;

struct report {
	long id;
	uint64_t cpu_ns;
	uint64_t switches; /* context switches in the window */
	long migrations;   /* moves to another CPU in the window; -1: unknown */
};

static uint64_t switches_now(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru))
		bench_fail("getrusage: %s", strerror(errno));
	return (uint64_t)ru.ru_nvcsw + (uint64_t)ru.ru_nivcsw;
}

/* se.nr_migrations of /proc/self/sched (Linux's format, "name : value"), or -1. */
static long migrations_now(void)
{
	char line[256];
	long n = -1;
	FILE *f = fopen("/proc/self/sched", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, "se.nr_migrations", 16) == 0 && strchr(line, ':')) {
			n = strtol(strchr(line, ':') + 1, NULL, 10);
			break;
		}
	fclose(f);
	return n;
}

static struct bench_gate gate;
static int start_pipe[2]; /* parent -> tasks: the window's start, one copy per task */
static int results[2];	  /* tasks -> parent: struct report */

static uint64_t cpu_now_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts))
		bench_fail("clock_gettime(CLOCK_PROCESS_CPUTIME_ID): %s", strerror(errno));
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
}

static int task(void *arg)
{
	long id = (long)arg;
	volatile uint64_t x = (uint64_t)id + 1;
	uint64_t start, end, c0, c1, s0;
	long m0, m1;
	struct report r = { .id = id };
	int err;

	close(results[0]);
	if (sched_setaffinity(0, sizeof(cpus), &cpus))
		bench_fail("task %ld: sched_setaffinity: %s", id, strerror(errno));
	if (setpriority(PRIO_PROCESS, 0, nice_of[id]))
		bench_fail("task %ld: setpriority(%d): %s", id, nice_of[id], strerror(errno));
	bench_gate_arrive(&gate, true);
	if (bench_read_all(start_pipe[0], &start, sizeof(start)) != sizeof(start))
		bench_fail("task %ld: no start time from the parent", id);
	end = start + (uint64_t)(seconds * NSEC_PER_SEC);
	m0 = migrations_now();
	s0 = switches_now();
	c0 = cpu_now_ns();
	while (bench_now_ns() < end)
		for (long i = 0; i < SPIN_CHUNK; i++)
			x = x * 6364136223846793005ull + 1442695040888963407ull;
	c1 = cpu_now_ns();
	r.switches = switches_now() - s0;
	m1 = migrations_now();
	r.migrations = m0 < 0 || m1 < 0 ? -1 : m1 - m0;
	r.cpu_ns = c1 - c0;
	if (inject_error && id == 0)
		r.cpu_ns += 2 * (end - start); /* more CPU time than the window had */
	err = bench_write_all(results[1], &r, sizeof(r));
	if (err)
		bench_fail("task %ld: write: %s", id, strerror(-err));
	return 0;
}

static cpu_set_t allowed;

static const char *add_cpu(long cpu, void *ctx)
{
	static char why[80];

	if (cpu >= CPU_SETSIZE || !CPU_ISSET(cpu, &allowed)) {
		snprintf(why, sizeof(why), "CPU %ld is not online or not allowed here", cpu);
		return why;
	}
	CPU_SET(cpu, (cpu_set_t *)ctx);
	return NULL;
}

static void parse_cpus(const char *s)
{
	const char *why;

	if (sched_getaffinity(0, sizeof(allowed), &allowed))
		bench_fail("sched_getaffinity: %s", strerror(errno));
	CPU_ZERO(&cpus);
	why = fair_parse_cpu_list(s, add_cpu, &cpus);
	if (why)
		bench_usage_error("--cpus: %s", why);
}

static void parse_nice(const char *s)
{
	const char *why = fair_parse_nice(s, nice_of);

	if (why)
		bench_usage_error("--nice: %s", why);
}

static void usage(void)
{
	printf("usage: fairshare [-t|--tasks T] [-c|--cpus LIST] [-s|--seconds S] [-n|--nice LIST]\n"
	       "\n"
	       "T CPU-bound processes (default 5) confined to the CPUs in LIST (e.g. 4-7 or\n"
	       "0,2; default: every CPU allowed) spin for S seconds (default 2) from a\n"
	       "common start. Each one's CPU time is compared with its ideal share of\n"
	       "the time they got together (by nice weight, at most one CPU each).\n"
	       "--nice gives the tasks' nice values, repeated over the tasks (default\n"
	       "0). Prints each task's CPU time and ideal, then RESULT lines: the worst\n"
	       "deviation from the ideal (%%), Jain's fairness index of actual/ideal,\n"
	       "and the CPU time used out of what the CPUs could give (%%). Fails if a\n"
	       "task's CPU time exceeds the window (--inject-error fakes that).\n");
}

static void parse_args(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "tasks", required_argument, NULL, 't' },
		{ "cpus", required_argument, NULL, 'c' },
		{ "seconds", required_argument, NULL, 's' },
		{ "nice", required_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ "inject-error", no_argument, NULL, 'E' },
		{ NULL, 0, NULL, 0 },
	};
	bool have_cpus = false;
	int c;

	while ((c = getopt_long(argc, argv, "t:c:s:n:h", longopts, NULL)) != -1) {
		switch (c) {
		case 't':
			tasks = bench_arg_long("--tasks", optarg, 1, MAX_TASKS);
			break;
		case 'c':
			parse_cpus(optarg);
			have_cpus = true;
			break;
		case 's':
			seconds = bench_arg_double("--seconds", optarg, 0.01, 3600);
			break;
		case 'n':
			parse_nice(optarg);
			break;
		case 'E':
			inject_error = true;
			break;
		case 'h':
			usage();
			exit(0);
		default:
			bench_usage_error("unknown option");
		}
	}
	if (optind < argc)
		bench_usage_error("unexpected argument '%s'", argv[optind]);
	if (!have_cpus && sched_getaffinity(0, sizeof(cpus), &cpus))
		bench_fail("sched_getaffinity: %s", strerror(errno));
	ncpus = CPU_COUNT(&cpus);
}

int main(int argc, char **argv)
{
	static uint64_t cpu_ns[MAX_TASKS];
	static bool seen[MAX_TASKS];
	static double ideal[MAX_TASKS];
	uint64_t start, window, sum = 0, switches = 0;
	long migrations = 0;
	long got = 0, failed, busy;
	struct fair_figures f;
	struct report r;
	double capacity;

	bench_init("fairshare");
	parse_args(argc, argv);
	busy = tasks < ncpus ? tasks : ncpus;
	window = (uint64_t)(seconds * NSEC_PER_SEC);
	printf("fairshare: %ld tasks on %ld CPUs for %.3f s\n", tasks, ncpus, seconds);

	bench_gate_init(&gate);
	if (pipe(start_pipe) || pipe(results))
		bench_fail("pipe: %s", strerror(errno));
	for (long i = 0; i < tasks; i++)
		bench_fork(task, (void *)i);
	bench_gate_forked(&gate);
	close(results[1]);
	close(start_pipe[0]);
	bench_gate_wait(&gate, tasks);
	start = bench_now_ns();
	for (long i = 0; i < tasks; i++) {
		int err = bench_write_all(start_pipe[1], &start, sizeof(start));

		if (err)
			bench_fail("write: %s", strerror(-err));
	}
	bench_gate_open(&gate);

	for (;;) {
		long n = bench_read_all(results[0], &r, sizeof(r));

		if (n < 0)
			bench_fail("read: %s", strerror((int)-n));
		if (n == 0)
			break;
		if (n != sizeof(r) || r.id < 0 || r.id >= tasks || seen[r.id])
			bench_fail("a garbled or repeated report (%ld bytes, task %ld)", n, r.id);
		seen[r.id] = true;
		cpu_ns[r.id] = r.cpu_ns;
		switches += r.switches;
		migrations = migrations < 0 || r.migrations < 0 ? -1 : migrations + r.migrations;
		got++;
	}
	failed = bench_reap(tasks, "task");
	close(start_pipe[1]);
	bench_gate_destroy(&gate);
	if (failed)
		bench_fail("%ld of %ld tasks failed (see above)", failed, tasks);
	if (got != tasks)
		bench_fail("%ld of %ld tasks reported", got, tasks);

	capacity = (double)busy * (double)window;
	for (long i = 0; i < tasks; i++) {
		if (cpu_ns[i] > window + WINDOW_SLACK_NS)
			bench_fail("task %ld used %.3f ms of CPU in a %.3f ms window", i,
				   (double)cpu_ns[i] / 1e6, (double)window / 1e6);
		sum += cpu_ns[i];
	}
	if (sum == 0)
		bench_fail("the tasks used no CPU time at all");
	if ((double)sum > capacity + (double)(busy * WINDOW_SLACK_NS))
		bench_fail("the tasks used %.3f ms of CPU; %ld CPUs give %.3f ms in the window",
			   (double)sum / 1e6, busy, capacity / 1e6);
	/* Fairness of what was handed out, apart from how much (cpu_used). */
	fair_ideal_shares(tasks, nice_of, (double)sum, (double)window, ideal);
	f = fair_report(stdout, tasks, nice_of, cpu_ns, ideal, capacity);
	bench_result(f.worst_dev_pct, "%", "tasks=%ld cpus=%ld metric=worst_dev", tasks, ncpus);
	bench_result(f.jain, "index", "tasks=%ld cpus=%ld metric=jain", tasks, ncpus);
	bench_result(f.cpu_used_pct, "%", "tasks=%ld cpus=%ld metric=cpu_used", tasks, ncpus);
	bench_result((double)switches, "switches", "tasks=%ld cpus=%ld metric=task_switches", tasks,
		     ncpus);
	if (migrations >= 0)
		bench_result((double)migrations, "migrations",
			     "tasks=%ld cpus=%ld metric=task_migrations", tasks, ncpus);
	return 0;
}

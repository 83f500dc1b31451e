/*
 * fulcrum-sim: the command line. It builds the machine, hands the boot
 * options to the kernel's own registry (kernel/cmdline.c), boots the
 * scheduler as kernel/main.c does (sched_init, the domains, the stoppers)
 * and runs the workload named after "--" on the engine.
 */
#include <stdlib.h>
#include <string.h>

#include "cmdline.h"
#include "lib/kstrto.h"
#include "printk.h"
#include "sched/select.h"
#include "sched/stop.h"
#include "sched/topology.h"
#include "trace/trace.h"
#include "cost.h"
#include "sim.h"

static const char usage[] =
	"usage: fulcrum-sim [MACHINE] [--seed N] [--ipi-ns NS] [--limit S] [--sched-debug]\n"
	"                   [--cost none|default|FILE]\n"
	"                   [NAME=VALUE...] [-- PROGRAM ARGS...]\n"
	"       fulcrum-sim --list-presets\n"
	"\n"
	"Runs Fulcrum's scheduler (the kernel's own kernel/sched/ files) on a simulated\n"
	"machine in virtual time and plays PROGRAM, a built-in version of a guest\n"
	"benchmark (compute, fairshare, hackbench, pipebench, tps, wakelat, jbb, netrr)\n"
	"or rt-app FILE.json (PROGRAM --help for its options), printing its RESULT\n"
	"lines and the migrations by reason. NAME=VALUE words are kernel\n"
	"boot options with the kernel's meaning (sched_select=sbm, sched_latency_ns=...,\n"
	"sched_features=..., hz=250, schedstat).\n"
	"\n"
	"MACHINE is one of:\n"
	"  --preset NAME            a tools/qemu-run preset (default: 2s)\n"
	"  --sockets N --cores N --threads N [--nodes N] [--distance D|MATRIX]\n"
	"                           a shape laid out as QEMU lays it out; D: every remote\n"
	"                           distance, or the whole matrix row by row (10,21,21,10)\n"
	"  --acpi FILE... --threads-bits N --cores-bits N\n"
	"                           binary MADT/SRAT/SLIT tables and the APIC-ID layout,\n"
	"                           as tools/fulcrum-topo takes them\n"
	"\n"
	"--seed N          places each CPU's timer tick in its period (default 1)\n"
	"--ipi-ns NS       reschedule IPI latency (default 2000)\n"
	"--limit S         stop after S simulated seconds (default 3600)\n"
	"--cost MODEL      none (default: nothing costs time), default (the kernel's\n"
	"                  measured path lengths, cache refill, SMT speed), or a FILE of\n"
	"                  key = value lines over the defaults (docs/simulator.md)\n"
	"--cost-keys       print every cost key with its default, unit and source\n"
	"--sched-debug     print the domains and balance map as the boot log does\n"
	"                  (the sched_debug boot option); with no PROGRAM, only that\n"
	"--trace FILE      write the scheduler trace (trace=sched unless trace= is given)\n"
	"                  to FILE in the kernel's ftrace text format (docs/tracing.md)\n"
	"\n"
	"The same command prints the same output, byte for byte. Exit status: 0 fine,\n"
	"1 the workload failed its own checks, 2 bad usage or an impossible machine.\n";

static struct machine machine;

static __attribute__((noreturn)) void usage_error(const char *what, const char *arg)
{
	fprintf(stderr, "fulcrum-sim: %s%s%s\n", what, arg ? ": " : "", arg ? arg : "");
	fprintf(stderr, "(fulcrum-sim --help for the options)\n");
	exit(2);
}

static u64 number(const char *opt, const char *s, u64 lo, u64 hi)
{
	u64 v;

	if (!s)
		usage_error("a value is missing after", opt);
	if (kstrtou64(s, strlen(s), false, &v) || v < lo || v > hi) {
		char msg[96];

		snprintf(msg, sizeof(msg), "%s wants a whole number in %llu..%llu, not", opt,
			 (unsigned long long)lo, (unsigned long long)hi);
		usage_error(msg, s);
	}
	return v;
}

/* A shape dimension: 0 is taken (and refused later with the machine's own message). */
static int dimension(const char *opt, const char *s)
{
	return (int)number(opt, s, 0, 100000);
}

int main(int argc, char **argv)
{
	struct sim_machine_spec spec = { .sockets = -1,
					 .cores = -1,
					 .threads = -1,
					 .nodes = -1,
					 .threads_bits = -1,
					 .cores_bits = -1 };
	struct sim_config cfg = { .seed = 1, .ipi_ns = 2000, .limit_ns = 3600 * NSEC_PER_SEC };
	static char options[CMDLINE_MAX];
	size_t olen = 0;
	bool sched_debug = false;
	const char *cost = "none";
	const char *trace_path = NULL;
	char desc[256];
	struct cpumask online;
	int i, prog = 0, err;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (strcmp(a, "--") == 0) {
			prog = i + 1;
			break;
		} else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			fputs(usage, stdout);
			return 0;
		} else if (strcmp(a, "--list-presets") == 0) {
			sim_presets_list(stdout);
			return 0;
		} else if (strcmp(a, "--preset") == 0) {
			if (!v)
				usage_error("a value is missing after", a);
			spec.preset = v;
			i++;
		} else if (strcmp(a, "--sockets") == 0) {
			spec.sockets = dimension(a, v);
			i++;
		} else if (strcmp(a, "--cores") == 0) {
			spec.cores = dimension(a, v);
			i++;
		} else if (strcmp(a, "--threads") == 0) {
			spec.threads = dimension(a, v);
			i++;
		} else if (strcmp(a, "--nodes") == 0) {
			spec.nodes = dimension(a, v);
			i++;
		} else if (strcmp(a, "--distance") == 0) {
			if (!v)
				usage_error("a value is missing after", a);
			spec.distance = v;
			i++;
		} else if (strcmp(a, "--threads-bits") == 0) {
			spec.threads_bits = (int)number(a, v, 0, 31);
			i++;
		} else if (strcmp(a, "--cores-bits") == 0) {
			spec.cores_bits = (int)number(a, v, 0, 31);
			i++;
		} else if (strcmp(a, "--acpi") == 0) {
			/* Every following word that is not an option is a table file. */
			while (i + 1 < argc && argv[i + 1][0] != '-' && !strchr(argv[i + 1], '=')) {
				if (spec.nr_acpi == sizeof(spec.acpi) / sizeof(spec.acpi[0]))
					usage_error("too many --acpi files", argv[i + 1]);
				spec.acpi[spec.nr_acpi++] = argv[++i];
			}
			if (spec.nr_acpi == 0)
				usage_error("--acpi wants table files", NULL);
		} else if (strcmp(a, "--seed") == 0) {
			cfg.seed = number(a, v, 0, ~0ULL);
			i++;
		} else if (strcmp(a, "--ipi-ns") == 0) {
			cfg.ipi_ns = number(a, v, 0, NSEC_PER_SEC);
			i++;
		} else if (strcmp(a, "--limit") == 0) {
			cfg.limit_ns = SIM_START_NS + number(a, v, 1, 1000000) * NSEC_PER_SEC;
			i++;
		} else if (strcmp(a, "--trace") == 0) {
			if (!v)
				usage_error("a value is missing after", a);
			trace_path = v;
			i++;
		} else if (strcmp(a, "--cost") == 0) {
			if (!v)
				usage_error("a value is missing after", a);
			cost = v;
			i++;
		} else if (strcmp(a, "--cost-keys") == 0) {
			sim_cost_load("default");
			sim_cost_print(stdout);
			return 0;
		} else if (strcmp(a, "--sched-debug") == 0) {
			sched_debug = true;
		} else if (a[0] == '-') {
			usage_error("unknown option", a);
		} else if (strchr(a, '=') ||
			   strspn(a, "abcdefghijklmnopqrstuvwxyz_-0123456789") == strlen(a)) {
			size_t n = strlen(a);

			if (olen + n + 2 > sizeof(options))
				usage_error("the boot options are longer than the kernel takes", a);
			memcpy(options + olen, a, n);
			olen += n;
			options[olen++] = ' ';
			options[olen] = '\0';
		} else {
			usage_error("not an option nor a boot option NAME=VALUE", a);
		}
	}
	/* --trace records the scheduler events unless trace= chose some. */
	if (trace_path && !strstr(options, "trace=")) {
		if (olen + sizeof("trace=sched ") > sizeof(options))
			usage_error("the boot options are longer than the kernel takes",
				    "trace=sched");
		olen += (size_t)snprintf(options + olen, sizeof(options) - olen, "trace=sched ");
	}
	if (trace_path) {
		sim_trace_file = fopen(trace_path, "w");
		if (!sim_trace_file) {
			fprintf(stderr, "fulcrum-sim: cannot write the trace to %s\n", trace_path);
			return 2;
		}
	}
	if (sim_cost_load(cost))
		return 2;
	if (cmdline_parse(options)) {
		fprintf(stderr, "fulcrum-sim: bad boot options (see the kernel's warnings above)\n");
		return 2;
	}
	if (sched_debug)
		sched_debug_enabled = true;
	if (sim_machine_build(&spec, &machine, desc, sizeof(desc)))
		return 2;
	printf("fulcrum-sim: %s; %u CPUs, %llu Hz tick, seed %llu; boot options: %s\n", desc,
	       machine.nr_cpus, (unsigned long long)sim_hz(), (unsigned long long)cfg.seed,
	       olen ? cmdline_get() : "(none)");
	if (sim_cost.on)
		printf("fulcrum-sim: cost model %s (docs/simulator.md)\n", cost);

	/* kernel/main.c's order: runqueues, the domains over every CPU, then the stoppers. */
	sim_now = 0;
	sim_cpu = 0;
	err = sched_init(&machine);
	if (err) {
		fprintf(stderr, "fulcrum-sim: sched_init failed (%d)\n", err);
		return 3;
	}
	cpumask_clear(&online);
	cpumask_set_range(&online, 0, machine.nr_cpus);
	err = sched_topology_rebuild(&machine, &online);
	if (err) {
		fprintf(stderr, "fulcrum-sim: the kernel cannot build the sched domains (%d)\n", err);
		return 2;
	}
	sched_topology_print_summary(sched_topology_current());
	sched_placement_print();
	trace_init();
	cfg.machine = &machine;
	sim_engine_init(&cfg);
	if (stop_machine_init()) {
		fprintf(stderr, "fulcrum-sim: cannot start the stopper threads\n");
		return 3;
	}
	if (!prog) {
		if (sched_debug)
			return 0;
		usage_error("no workload: give -- PROGRAM ARGS", SIM_WORKLOADS);
	}
	err = sim_workload_main(argc - prog, argv + prog, machine.nr_cpus);
	trace_dump_final(); /* as the kernel does at power-off */
	if (sim_trace_file && fclose(sim_trace_file)) {
		fprintf(stderr, "fulcrum-sim: writing the trace to %s failed\n", trace_path);
		err = err ? err : 1;
	}
	fflush(stdout);
	return err;
}

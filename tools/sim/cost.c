/*
 * The cost model's constants: one table of named keys (unit, default,
 * source), the --cost argument, and the cost file parser. The engine
 * (engine.c) does the charging; docs/simulator.md explains the model.
 *
 * Path lengths are instructions of the kernel's own code. "callgrind" means
 * valgrind --tool=callgrind over build/tools/fulcrum-sim (the kernel's
 * scheduler files at -O2), inclusive instructions per call; "icount" means
 * `make sched-cost`'s guest figures (2s16 under TCG -icount, recorded in
 * docs/scheduler-figures.md).
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "cost.h"

struct sim_cost sim_cost;

struct cost_key {
	const char *name;
	const char *unit;
	size_t offset;
	double def, lo, hi;
	const char *source;
};

#define KEY(field, unit, def, lo, hi, source)                                       \
	{                                                                           \
#field, unit, offsetof(struct sim_cost, field), def, lo, hi, source \
	}

static const struct cost_key keys[] = {
	KEY(insn_ns, "ns", 0.5, 0, 1000, "assumed: 2 instructions per ns (2 GHz at IPC 1)"),
	KEY(switch_insn, "insn", 790, 0, 1e7,
	    "icount: ping-pong turn 1,253 (a wake-up and a switch) less wakeup_insn"),
	KEY(wakeup_insn, "insn", 460, 0, 1e7,
	    "callgrind: wake_up_task less select_task_rq_fair, 2s16 hackbench -g 2 (461)"),
	KEY(select_insn, "insn", 455, 0, 1e7, "icount: sbm wake_local 455"),
	KEY(select_remote_insn, "insn", 165, 0, 1e7, "icount: sbm wake_sync_remote 620 less 455"),
	KEY(select_level_insn, "insn", 10, 0, 1e7,
	    "icount: stock less sbm, 6/9.5/12 per level walked (local/llc/remote)"),
	KEY(fork_insn, "insn", 2100, 0, 1e7,
	    "callgrind: fork select_task_rq_fair 2,882 on 16 CPUs, 5,960 on 80"),
	KEY(fork_cpu_insn, "insn/CPU", 48, 0, 1e7, "callgrind: the same two, slope"),
	KEY(tick_insn, "insn", 760, 0, 1e7,
	    "callgrind: scheduler_tick less its load_balance calls (827 2s16, 705 80 CPUs)"),
	KEY(balance_insn, "insn", 1670, 0, 1e7,
	    "callgrind: load_balance 2,178 at mean span 7.0, 3,009 at 18.3: intercept"),
	KEY(balance_cpu_insn, "insn/CPU", 73, 0, 1e7, "callgrind: the same two, slope"),
	KEY(newidle_insn, "insn", 100, 0, 1e7,
	    "callgrind: idle_balance_fair less its load_balance calls (27 2s16, 137 80 CPUs)"),
	KEY(stopper_insn, "insn", 980, 0, 1e7,
	    "callgrind: stop_cpu_run_work of one active balance, 80 CPUs compute -t 90"),
	KEY(ws_kb, "KiB", 64, 0, 1 << 24, "assumed: a workload's own --ws-kb overrides it"),
	KEY(cache_kb, "KiB", 1024, 1, 1 << 24, "assumed: a 1 MiB private L2 per core"),
	KEY(decay_us, "us", 10000, 1, 1e12, "assumed: half of a working set gone after 10 ms away"),
	KEY(smt_ns_per_kb, "ns/KiB", 0, 0, 1e6, "assumed: SMT threads share L1 and L2"),
	KEY(llc_ns_per_kb, "ns/KiB", 40, 0, 1e6, "assumed: L2 refill from the LLC, ~25 GB/s"),
	KEY(xllc_ns_per_kb, "ns/KiB", 100, 0, 1e6, "assumed: from another LLC, ~10 GB/s"),
	KEY(mem_ns_per_kb, "ns/KiB", 80, 0, 1e6, "assumed: from local memory, ~12 GB/s"),
	KEY(smt_fraction, "of a core", 1178.0 / 2048.0, 0.01, 1,
	    "the SMT level's smt_gain: two threads do 1178/1024 of a core (Linux 3.8)"),
};

#define NR_KEYS (sizeof(keys) / sizeof(keys[0]))

static double *field(const struct cost_key *k)
{
	return (double *)((char *)&sim_cost + k->offset);
}

static void set_defaults(void)
{
	for (size_t i = 0; i < NR_KEYS; i++)
		*field(&keys[i]) = keys[i].def;
}

static char *trim(char *s)
{
	char *end;

	while (*s == ' ' || *s == '\t')
		s++;
	end = s + strlen(s);
	while (end > s && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\n' || end[-1] == '\r'))
		*--end = '\0';
	return s;
}

/* One `key = value` line; returns NULL or why it is bad. */
static const char *parse_line(char *line, char *why, size_t why_len)
{
	char *eq = strchr(line, '='), *name, *value, *end;
	double v;

	if (!eq)
		return "not a `key = value` line";
	*eq = '\0';
	name = trim(line);
	value = trim(eq + 1);
	for (size_t i = 0; i < NR_KEYS; i++) {
		const struct cost_key *k = &keys[i];

		if (strcmp(name, k->name) != 0)
			continue;
		errno = 0;
		v = strtod(value, &end);
		if (end == value || *end || errno || !(v >= k->lo && v <= k->hi)) {
			snprintf(why, why_len, "%s wants a number in %g..%g (%s), not '%s'", name,
				 k->lo, k->hi, k->unit, value);
			return why;
		}
		*field(k) = v;
		return NULL;
	}
	snprintf(why, why_len, "unknown key '%s' (fulcrum-sim --cost-keys lists them)", name);
	return why;
}

int sim_cost_load(const char *arg)
{
	char line[512], why[256];
	unsigned int nr = 0;
	FILE *f;

	set_defaults();
	sim_cost.on = strcmp(arg, "none") != 0;
	if (strcmp(arg, "none") == 0 || strcmp(arg, "default") == 0)
		return 0;
	f = fopen(arg, "r");
	if (!f) {
		fprintf(stderr, "fulcrum-sim: --cost %s: %s (want none, default or a file)\n", arg,
			strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		char *s, *hash = strchr(line, '#');
		const char *bad;

		nr++;
		if (!strchr(line, '\n') && !feof(f)) {
			fprintf(stderr, "fulcrum-sim: %s:%u: line too long\n", arg, nr);
			fclose(f);
			return -1;
		}
		if (hash)
			*hash = '\0';
		s = trim(line);
		if (!*s)
			continue;
		bad = parse_line(s, why, sizeof(why));
		if (bad) {
			fprintf(stderr, "fulcrum-sim: %s:%u: %s\n", arg, nr, bad);
			fclose(f);
			return -1;
		}
	}
	fclose(f);
	return 0;
}

void sim_cost_print(FILE *out)
{
	for (size_t i = 0; i < NR_KEYS; i++)
		fprintf(out, "%-18s = %-12.10g # %s; %s\n", keys[i].name, *field(&keys[i]),
			keys[i].unit, keys[i].source);
}

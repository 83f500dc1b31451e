/*
 * fulcrum-sim's cost model (--cost none|default|FILE): what the kernel's
 * scheduler paths cost on the CPU that runs them, what a task pays to
 * refill its working set after it moved or was away, and how fast two busy
 * threads of one core run. Every constant is a named key with a unit, a
 * default and the source of that default (docs/simulator.md, "The cost
 * model"); the engine (engine.c) charges them.
 */
#ifndef FULCRUM_TOOLS_SIM_COST_H
#define FULCRUM_TOOLS_SIM_COST_H

#include <stdbool.h>
#include <stdio.h>

#include "lib/types.h"

struct sim_cost {
	bool on; /* false: --cost none, nothing is charged (the engine's old model) */

	/* Scheduler paths, in instructions of the kernel's code; insn_ns converts them. */
	double insn_ns;		   /* ns per instruction */
	double switch_insn;	   /* one context switch (pick, books, the switch itself) */
	double wakeup_insn;	   /* try_to_wake_up without select_task_rq */
	double select_insn;	   /* select_task_rq for a wake-up, map lookup (sbm) */
	double select_remote_insn; /* ... extra when prev is in another LLC than the waker */
	double select_level_insn;  /* ... extra per domain level stock's walk visits */
	double fork_insn;	   /* fork placement: fixed part */
	double fork_cpu_insn;	   /* ... per CPU of the highest SD_BALANCE_FORK domain */
	double tick_insn;	   /* scheduler_tick and the balancer's walk, without passes */
	double balance_insn;	   /* one load_balance() pass: fixed part */
	double balance_cpu_insn;   /* ... per CPU of the domain balanced */
	double newidle_insn;	   /* new-idle balance entry, without its passes */
	double stopper_insn;	   /* the stopper's active-balance migration */

	/* Cache warmth. */
	double ws_kb;	       /* working set of a task whose workload declares none */
	double cache_kb;       /* cache per CPU that holds working sets */
	double decay_us;       /* time away after which half a working set is gone */
	double smt_ns_per_kb;  /* refill after a move to the other thread of the core */
	double llc_ns_per_kb;  /* ... to another core of the same LLC */
	double xllc_ns_per_kb; /* ... to another LLC (times SLIT / 10 across nodes) */
	double mem_ns_per_kb;  /* what decayed comes from memory (times SLIT / 10) */

	/* SMT. */
	double smt_fraction; /* of a core each of two busy threads runs at */
};

extern struct sim_cost sim_cost;

/*
 * Sets sim_cost from --cost's argument: "none", "default", or a file of
 * `key = value` lines (# comments, blank lines) over the defaults.
 * Returns 0, or -1 after printing FILE:LINE and why to stderr.
 */
int sim_cost_load(const char *arg);

/* Writes every key with its value, unit and source as a cost file would have it. */
void sim_cost_print(FILE *out);

/* ns for n instructions. */
static inline double sim_cost_ns(double insn)
{
	return insn * sim_cost.insn_ns;
}

#endif

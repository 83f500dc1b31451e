/*
 * The fairshare workload's arithmetic, shared by the guest program
 * (user/fairshare.c, built with musl) and the simulator's built-in
 * version (tools/sim/workloads.c, built for the host), so both parse the
 * same options and compute the same figures from CPU times.
 */
#ifndef FULCRUM_USER_FAIRNESS_H
#define FULCRUM_USER_FAIRNESS_H

#include <stdint.h>
#include <stdio.h>

#define FAIR_MAX_TASKS 256

/* Linux's nice-to-weight table, nice -20 .. 19. */
extern const int fair_nice_weight[40];

/*
 * The ideal CPU time of each of n tasks: total shared by nice weight, no
 * task above cap (one CPU over the window); a task that would get more
 * is capped and the rest shared again among the others.
 */
void fair_ideal_shares(long n, const int *nice_of, double total, double cap, double *ideal);

/*
 * "0,5,-3": nice values, repeated over all FAIR_MAX_TASKS slots of
 * nice_of. Returns NULL, or what is wrong (a static string, without the
 * option's name).
 */
const char *fair_parse_nice(const char *s, int *nice_of);

/*
 * "4-7,0": calls add(cpu, ctx) for each CPU of the list, which returns
 * NULL to accept it or its own complaint. Returns NULL, or what is wrong.
 */
const char *fair_parse_cpu_list(const char *s, const char *(*add)(long cpu, void *ctx), void *ctx);

struct fair_figures {
	double worst_dev_pct; /* the worst task's |actual/ideal - 1|, in % */
	double jain;	      /* Jain's index of the actual/ideal ratios */
	double cpu_used_pct;  /* the tasks' CPU time of the capacity, in % */
};

/*
 * Prints the per-task table (CPU time, ideal, ratio) and the summary line
 * to out, and returns the figures.
 */
struct fair_figures fair_report(FILE *out, long n, const int *nice_of, const uint64_t *cpu_ns,
				const double *ideal, double capacity);

#endif

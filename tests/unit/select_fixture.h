/*
 * The placement tests' machine: a topology built and published by the
 * real builder, runqueues from the core's sched_init(), and loads written
 * straight into the runqueues (no tasks queued: placement only reads).
 */
#ifndef FULCRUM_TESTS_SELECT_FIXTURE_H
#define FULCRUM_TESTS_SELECT_FIXTURE_H

#include "machine.h"
#include "sched/sched.h"
#include "sched/select.h"
#include "sched/topology.h"

/* The default machine: 2 sockets x 2 cores x 2 threads, a node per socket. */
#define FX_PACKAGES 2
#define FX_CORES    2
#define FX_THREADS  2
#define FX_NR_CPUS  (FX_PACKAGES * FX_CORES * FX_THREADS)
#define FX_NEAR	    21 /* SLIT distance between the nodes: within RECLAIM_DISTANCE */
#define FX_FAR	    40 /* beyond it: no wake-affine or fork/exec domain spans both */

/*
 * Fake RAM and heap, runqueues for packages x cores x threads CPUs (a node
 * per package, SLIT `distance` between nodes) and the topology published
 * for them; every CPU idle, CPU 0 "running", placement options at their
 * defaults. fx_stop() undoes it.
 */
void fx_start_machine(u32 packages, u32 cores, u32 threads, u8 distance);
void fx_start(void); /* the default machine, FX_NEAR */
void fx_stop(void);

/* The machine described, to rebuild from (change it, then fx_rebuild). */
struct machine *fx_machine(void);

/* Publishes a new generation for fx_machine() (online: NULL for all); fails the test on error. */
void fx_rebuild(const struct cpumask *online);

/* The published generation. */
struct sched_topology *fx_topo(void);

/* cpu idle: its idle task current, nothing queued, no load. */
void fx_idle(u32 cpu);

/* cpu busy with nr nice-0 tasks. */
void fx_busy(u32 cpu, u32 nr);

/* cpu busy with nr tasks weighing weight in total; its current task weighs curr_weight. */
void fx_load(u32 cpu, u32 nr, unsigned long weight, unsigned long curr_weight);

/* Every CPU busy with nr nice-0 tasks. */
void fx_busy_all(u32 nr);

/* cpu's lowest wake-affine domain holding prev (the balance map's); must exist. */
struct sched_domain *fx_affine_sd(u32 cpu, u32 prev);

/* A sleeping task of nice `nice` last on prev, allowed everywhere; freed by fx_stop. */
struct task *fx_task(u32 prev, int nice);

/* Restricts p to the CPUs whose bits are set in mask (bit i: CPU i). */
void fx_allow(struct task *p, u64 mask);

/* The two variants the placement tests compare, found in the registry by name. */
enum sched_select_variant {
	SCHED_SELECT_STOCK, /* "stock": 3.8's walk over the waker's domains */
	SCHED_SELECT_SBM,   /* "sbm": Wang's v3, per-CPU maps, no balancing on wake-up */
};

/* The registered variant behind v; fails the test if it is not registered. */
const struct sched_placement *fx_variant(enum sched_select_variant v);

/* select_task_rq_fair(p, sd_flag, wake_flags) on this_cpu under variant. */
u32 fx_place(enum sched_select_variant variant, struct task *p, u32 this_cpu, int sd_flag,
	     int wake_flags);

/* A deterministic pseudo-random number (xorshift64*) from *state. */
u64 fx_rand(u64 *state);

#endif

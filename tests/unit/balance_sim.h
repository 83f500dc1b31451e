/*
 * The load balancer's test machine: sched_sim.h's simulated CPUs (the real
 * core, fair class and balancer) with a topology from topo_machines.h
 * published as a generation, tasks that may run anywhere, and helpers to
 * run balancing passes and to play a CPU's stopper by hand.
 */
#ifndef FULCRUM_TESTS_BALANCE_SIM_H
#define FULCRUM_TESTS_BALANCE_SIM_H

#include "sched/balance.h"
#include "sched_sim.h"
#include "topo_machines.h"

/* The task count of "the balancer evens 10 tasks on 4 CPUs to 3/3/2/2". */
#define BSIM_NR_TASKS  10
#define BSIM_MAX_TASKS 32

/* Long enough for every interval to pass many times: busy MC level 4 ms * 64 = 256 ms. */
#define BSIM_SETTLE_NS (2000 * SIM_TICK_NS)

/* The tasks bsim_task() made, in order. */
extern struct task *bsim_tasks[BSIM_MAX_TASKS];
extern u32 bsim_nr_tasks;

/*
 * A simulated machine with m's CPUs (m is freed by bsim_stop()). The
 * topology is published by bsim_publish(), after the tasks are created, so
 * that fork placement leaves them where the test puts them.
 */
void bsim_start(struct machine *m);
void bsim_publish(void);
void bsim_stop(void);

/*
 * bsim_start() under the named load balancer (sched_balance=: "3.8" or
 * "modern"); bsim_stop() puts 3.8 back.
 */
void bsim_start_balancer(struct machine *m, const char *balancer);

/* A nice-0 task forked on cpu and queued there, allowed on every CPU. */
struct task *bsim_task(u32 cpu);

/* Restricts p to cpu. */
void bsim_pin(struct task *p, u32 cpu);

/*
 * One tick with periodic balancing on every CPU, as the tick does once the
 * fair class's trigger_balance hook is wired (if it already is, this
 * second call finds nothing due), then the rescheduling the tick asked for.
 */
void bsim_tick_and_balance(void);

/*
 * One tick on every CPU, balancing through the fair class's balance hook
 * (whichever balancer is chosen), then each CPU asked to reschedule does;
 * a stopper woken for active balancing runs its work there and sleeps
 * again (started stoppers only: stop_machine_init()).
 */
void bsim_tick_all(void);

/*
 * The spreading test of both balancers: under balancer, BSIM_NR_TASKS
 * nice-0 tasks forked on CPU 0 of m (a 4-CPU machine) end 3/3/2/2 within
 * BSIM_SETTLE_NS of bsim_tick_all() with the stoppers started, the spread
 * stays so for a quarter of that, and no CFS queue's books are wrong.
 */
void bsim_expect_even_spread(struct machine *m, const char *balancer);

/* Queue lengths, longest first, as "3/3/2/2" (static buffer). */
const char *bsim_spread(void);

/* cpu's base domain, and its domain of a level by name ("MC"), in the current generation. */
struct sched_domain *bsim_base_sd(u32 cpu);
struct sched_domain *bsim_sd_named(u32 cpu, const char *name);

/* One load_balance() pass of cpu over sd, run on cpu; tasks moved. */
int bsim_balance_on(u32 cpu, struct sched_domain *sd, enum cpu_idle_type idle);

/* schedule() on cpu without the switch, picking from the stop class down. */
void bsim_switch_on(u32 cpu);

/* cpu's stopper (asked to run) preempts, runs its work on cpu and sleeps again. */
void bsim_run_stopper(u32 cpu);

#endif

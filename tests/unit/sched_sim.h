/*
 * A small host machine for scheduler tests: the real core (runqueues,
 * fork and wake-up paths), the fair class and the load tracking, over the
 * fake clock and fake CPUs. Only the context switch is left out:
 * sim_schedule() does schedule()'s bookkeeping and the caller carries on
 * as whichever task is now current. Time moves only in sim_tick_all().
 */
#ifndef FULCRUM_TESTS_SCHED_SIM_H
#define FULCRUM_TESTS_SCHED_SIM_H

#include "sched/sched.h"

/* The simulated timer tick: HZ = 1000. */
#define SIM_TICK_NS 1000000ULL

/*
 * Fresh runqueues for nr_cpus CPUs (tunables scaled for them), SCHED_VERIFY
 * on, the clock at one second, CPU 0 "running". sim_stop() undoes it and
 * fails the test if fair_verify() ever complained.
 */
void sim_start(u32 nr_cpus);
void sim_stop(void);

/*
 * A kernel thread at nice, forked on cpu (by cpu's current task), pinned
 * there (so no placement policy moves it unasked) and woken.
 */
struct task *sim_task(const char *name, int nice, u32 cpu);

/* schedule() on cpu without the switch: prev goes (to sleep if not TASK_RUNNING), next is picked.
 */
void sim_schedule(u32 cpu);

/* The tick on cpu at the current time (no rescheduling). */
void sim_tick(u32 cpu);

/* Advances the clock one tick; every CPU ticks, then reschedules if asked to. */
void sim_tick_all(void);

/* sim_tick_all() for ns of simulated time. */
void sim_run(u64 ns);

/* p, running on its CPU, blocks; the CPU picks another task. */
void sim_sleep(struct task *p);

/* Wakes p through the core's wake-up path (from CPU 0) and lets its CPU preempt if asked. */
void sim_wake(struct task *p);

/* Turns a scheduler feature ("GENTLE_FAIR_SLEEPERS") on or off. */
void sim_feature(const char *name, bool on);

/* A reproducible pseudo-random sequence (xorshift64). */
u64 sim_random(void);

/* fair_verify() on every CPU; the number that failed. */
int sim_verify_all(void);

/* Shorthands. */
static inline struct rq *sim_rq(u32 cpu)
{
	return cpu_rq(cpu);
}

static inline struct task *sim_curr(u32 cpu)
{
	return cpu_rq(cpu)->curr;
}

#endif

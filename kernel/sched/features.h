/*
 * Scheduler heuristics as named switches, Linux 3.8's defaults (EEVDF's:
 * Linux 6.12's). Every path
 * compiles in every configuration; `sched_features=NO_GENTLE_FAIR_SLEEPERS,
 * LAST_BUDDY` flips them at boot by name.
 */
#ifndef FULCRUM_SCHED_FEATURES_H
#define FULCRUM_SCHED_FEATURES_H

#include "lib/types.h"

#define SCHED_FEATURES(F)                                                                       \
	/* A waking sleeper gets at most half a latency period of credit, not a whole one. */   \
	F(GENTLE_FAIR_SLEEPERS, true)                                                           \
	/* A new task starts one virtual slice late: forking cannot jump the queue. */          \
	F(START_DEBIT, true)                                                                    \
	/* Prefer the wakee next when it did not preempt (off, as in 3.8). */                   \
	F(NEXT_BUDDY, false)                                                                    \
	/* Prefer the preempted task next: cache locality under load. */                        \
	F(LAST_BUDDY, true)                                                                     \
	/* A task that is a buddy on its queue counts as cache-hot for migration. */            \
	F(CACHE_HOT_BUDDY, true)                                                                \
	/* Wake-ups may preempt the running task beyond the wake-up granularity. */             \
	F(WAKEUP_PREEMPTION, true)                                                              \
	/* Balance on decayed loads: source under-, target over-estimated. */                   \
	F(LB_BIAS, true)                                                                        \
	/* Seed 003, stock placement: wake_affine is asked when the waker runs on p's last */   \
	/* CPU too, which p keeps, with no idle search, if it refuses (2.6.34, before      */   \
	/* Suresh Siddha's check). Off, as in 3.8: that CPU is the target, searched from.  */   \
	F(WAKE_AFFINE_ON_PREV, false)                                                           \
	/* Verify runqueue invariants at every change (tests turn this on). */                  \
	F(SCHED_VERIFY, false)                                                                  \
	/* The rest matter only with sched_fair=eevdf (eevdf.c), with Linux 6.12's defaults. */ \
	/* A waking or migrating task keeps its lag: placed that far from the average.     */   \
	F(PLACE_LAG, true)                                                                      \
	/* A new task's first deadline is half a slice away, so it runs soon.              */   \
	F(PLACE_DEADLINE_INITIAL, true)                                                         \
	/* A task moved between queues keeps its deadline relative to its vruntime.        */   \
	F(PLACE_REL_DEADLINE, true)                                                             \
	/* Once picked, run until the slice is used or the task is no longer eligible.     */   \
	F(RUN_TO_PARITY, true)                                                                  \
	/* A waking task with a shorter slice may cut the running task's slice short.      */   \
	F(PREEMPT_SHORT, true)                                                                  \
	/* A task that sleeps while not eligible stays queued until its lag is burnt off.  */   \
	F(DELAY_DEQUEUE, true)                                                                  \
	/* A delayed task leaves with its positive lag dropped (kept at zero).             */   \
	F(DELAY_ZERO, true)                                                                     \
	/* sched_idle_sibling=6.12: the LLC scan's depth shrinks as its utilisation grows. */   \
	F(SIS_UTIL, true)

enum {
#define __SCHED_FEAT_ENUM(name, enabled) __SCHED_FEAT_##name,
	SCHED_FEATURES(__SCHED_FEAT_ENUM)
#undef __SCHED_FEAT_ENUM
		__SCHED_FEAT_NR,
};

extern u64 sched_features_mask;

#define sched_feat(name) ((sched_features_mask & (1ULL << __SCHED_FEAT_##name)) != 0)

/* Sets a feature by name ("NAME" on, "NO_NAME" off); -1 if there is no such feature. */
int sched_feat_set(const char *item, size_t len);

/* Writes the enabled features' names, comma-separated, into buf. */
void sched_feat_describe(char *buf, size_t size);

#endif

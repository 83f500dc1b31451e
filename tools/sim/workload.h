/*
 * tools/sim/workload.h - a simulated workload as fulcrum-sim's engine runs it.
 *
 * The rt-app front end (rtapp.c) fills this from a JSON file; the engine
 * interprets it. Nothing here knows about JSON: every name has been resolved
 * to an index, every time converted to nanoseconds, every count checked.
 * The meaning of each field follows rt-app's (doc/tutorial.txt in rt-app);
 * docs/rtapp.md says where the simulator differs.
 */
#ifndef FULCRUM_SIM_WORKLOAD_H
#define FULCRUM_SIM_WORKLOAD_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* A loop count that never runs out: the thread repeats until the run's duration ends. */
#define WL_LOOP_FOREVER (-1)

/* global.duration_ns when the run lasts until every thread has finished its loops. */
#define WL_DURATION_UNBOUNDED (-1)

/*
 * Scheduling policies. SCHED_DEADLINE is refused by the parser. For the
 * fair policies a task's priority is its nice value (-20..19); for FIFO and
 * RR it is the real-time priority (1..99), as in rt-app and sched_setscheduler().
 */
enum wl_policy {
	WL_POLICY_OTHER, /* SCHED_OTHER: CFS */
	WL_POLICY_BATCH, /* SCHED_BATCH: CFS, no wake-up preemption of others */
	WL_POLICY_IDLE,	 /* SCHED_IDLE: CFS at the lowest weight */
	WL_POLICY_FIFO,	 /* SCHED_FIFO */
	WL_POLICY_RR,	 /* SCHED_RR */
};

/*
 * A synchronisation object or timer, shared by every thread that names it
 * (rt-app creates them on first mention; so does the parser). Events refer
 * to resources by their index in workload.resources.
 */
enum wl_resource_kind {
	WL_RES_MUTEX,	/* lock/unlock, and the mutex of a wait */
	WL_RES_COND,	/* a condition variable: wait, signal, broad */
	WL_RES_BARRIER, /* barrier: every user waits until the last arrives */
	WL_RES_TIMER,	/* timer: a periodic wake-up reference */
	WL_RES_SUSPEND, /* a task's suspend point: its threads suspend, resume wakes them */
};

struct wl_resource {
	char *name; /* as written in the file; a suspend point has its task's name */
	enum wl_resource_kind kind;
	/*
	 * WL_RES_BARRIER: how many threads take part, the sum of the instance
	 * counts of the tasks whose phases name the barrier (each task counted
	 * once). The last of them to arrive releases all the others.
	 */
	unsigned int barrier_users;
	/*
	 * WL_RES_TIMER: a name beginning with "unique" gives every thread
	 * instance a timer of its own (rt-app's convention); otherwise all the
	 * threads that name the timer share one reference time.
	 */
	bool per_thread;
	/*
	 * WL_RES_TIMER: absolute mode. The next expiry is always the previous
	 * expiry plus the period, so a late thread catches up with missed
	 * periods. In relative mode (false, the default) a thread that arrives
	 * after the expiry does not sleep and the next period is counted from
	 * the moment it arrived. The parser refuses a timer used in both modes.
	 * Either way the first expiry is one period after the start (past its
	 * delay) of the first thread to use the timer, as in rt-app.
	 */
	bool absolute;
	int task; /* WL_RES_SUSPEND: index of the task whose threads suspend here */
};

/*
 * Events, executed in order by each thread of a task. rt-app allows a key
 * to repeat ("run" twice) and a suffix ("run0", "run1"): both just mean the
 * next event of that kind.
 */
enum wl_event_kind {
	WL_EV_RUN,     /* run: duration_ns of CPU work at full speed; takes longer when slowed */
	WL_EV_RUNTIME, /* runtime: stay runnable until duration_ns of wall time has passed */
	WL_EV_SLEEP,   /* sleep: block for duration_ns, counted from the event's start */
	WL_EV_TIMER,   /* timer: block until res's next expiry, duration_ns after the last */
	WL_EV_BARRIER, /* barrier: block until all res.barrier_users threads arrive */
	WL_EV_LOCK,    /* lock: take mutex res, blocking while another thread holds it */
	WL_EV_UNLOCK,  /* unlock: release mutex res, waking one waiter */
	WL_EV_WAIT,    /* wait: release mutex, block on condition res, retake mutex */
	WL_EV_SIGNAL,  /* signal: wake the longest waiter on condition res, if any */
	WL_EV_BROAD,   /* broad: wake every waiter on condition res */
	WL_EV_SUSPEND, /* suspend: block at the task's suspend point res until resumed */
	WL_EV_RESUME,  /* resume: wake every thread blocked at suspend point res */
	WL_EV_FORK,    /* fork: start one new thread of task `task` now */
};

struct wl_event {
	enum wl_event_kind kind;
	/*
	 * run, runtime, sleep: the duration. timer: the period. Never negative;
	 * 0 is allowed (rt-app files use "sleep": 0 as a placeholder).
	 */
	int64_t duration_ns;
	int res;	   /* resource index; -1 for run, runtime, sleep, fork */
	int mutex;	   /* wait: index of the mutex it releases and retakes; else -1 */
	int task;	   /* fork: index of the task to start; else -1 */
	unsigned int line; /* line of the event's key in the source file, for messages */
};

/*
 * CPU affinity: the CPUs a thread may run on, ascending, without repeats.
 * nr == 0 means every CPU of the machine (rt-app's default).
 */
struct wl_cpus {
	unsigned int *cpu;
	unsigned int nr;
};

/*
 * A phase: its events, run `loop` times before the next phase starts.
 * A phase may also change the thread's affinity or priority when it begins
 * (rt-app applies them as the phase starts and keeps them afterwards).
 */
struct wl_phase {
	char *name;   /* the key in "phases"; "" for a task written without "phases" */
	int64_t loop; /* >= 1 */
	struct wl_event *events;
	unsigned int nr_events; /* >= 1 */
	bool set_cpus;		/* cpus applies from this phase on */
	struct wl_cpus cpus;
	bool set_sched; /* policy and priority apply from this phase on */
	enum wl_policy policy;
	int priority;
};

/*
 * A task: a description from which `instances` threads are created when the
 * run starts (each delay_ns after the start), and one more by each fork event
 * naming it. A thread runs all phases in order, `loop` times, then exits.
 */
struct wl_task {
	char *name;
	unsigned int instances; /* 0: created only by fork */
	int64_t loop;		/* >= 1, or WL_LOOP_FOREVER */
	int64_t delay_ns;	/* before the thread's first event */
	enum wl_policy policy;
	int priority;
	struct wl_cpus cpus;
	struct wl_phase *phases;
	unsigned int nr_phases; /* >= 1 */
	bool ws_given;		/* "ws_kb" (Fulcrum's key): its threads' working set */
	int64_t ws_kb;		/* under fulcrum-sim --cost */
};

struct wl_global {
	int64_t duration_ns;	       /* the run ends then, or WL_DURATION_UNBOUNDED */
	enum wl_policy default_policy; /* for tasks that name no policy */
	/*
	 * rt-app's calibration as ns per loop when given as a number, 0 when
	 * given as a CPU ("CPU0") or absent. The simulator does not need it: a
	 * run event's duration is already the work at full speed.
	 */
	int64_t calibration_ns;
};

struct workload {
	struct wl_global global;
	struct wl_resource *resources;
	unsigned int nr_resources;
	struct wl_task *tasks;
	unsigned int nr_tasks;
};

/* Names as rt-app writes them: "SCHED_OTHER", "run", "mutex" ... */
const char *wl_policy_name(enum wl_policy policy);
const char *wl_event_name(enum wl_event_kind kind);
const char *wl_resource_kind_name(enum wl_resource_kind kind);

/* Frees everything a workload owns and zeroes it; safe on a zeroed workload. */
void workload_free(struct workload *wl);

/*
 * Prints the workload in a stable text form, one line per global setting,
 * resource, task, phase and event, in file order; tests compare it.
 */
void workload_print(FILE *out, const struct workload *wl);

#endif /* FULCRUM_SIM_WORKLOAD_H */

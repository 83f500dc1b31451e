/*
 * rt-app workloads on the engine: `fulcrum-sim ... -- rt-app FILE.json`.
 * The front end (rtapp.c, docs/rtapp.md) turns the file into a struct
 * workload; this file plays it. Each thread walks its task's phases and
 * events as rt-app's thread loop does; an event that makes the thread
 * wait ends its burst with SIM_BLOCK or SIM_SLEEP, and the thread resumes
 * the same event (its step) when woken. The synchronisation objects live
 * here: mutexes hand over to their oldest waiter, condition variables and
 * suspend points wake in arrival order, a barrier's last arrival wakes the
 * rest, timers keep rt-app's relative and absolute modes.
 *
 * Fair policies only: SCHED_OTHER, SCHED_BATCH and SCHED_IDLE set the
 * task's policy and nice as sched_setscheduler() and setpriority() do in
 * the kernel; Fulcrum has no real-time class, so SCHED_FIFO and SCHED_RR
 * are refused with the task's name.
 */
#include <stdlib.h>
#include <string.h>

#include "rtapp.h"
#include "sim.h"

struct rt_waitq {
	struct sim_task **q;
	u32 head, len, cap;
};

struct rt_res {
	struct rt_waitq waiters;
	struct sim_task *owner; /* a mutex's holder */
	u32 arrived;		/* a barrier's arrivals in this round */
	bool started;		/* a shared timer's: next is valid */
	u64 next;		/* a shared timer's next expiry */
};

struct rt_thread {
	const struct wl_task *task;
	u32 task_index;
	u32 phase, ev, step;
	s64 phase_loop, task_loop;
	bool begun;
	bool phase_set;	 /* the current phase's settings are applied */
	u64 loops;	 /* passes through all the task's phases completed */
	u64 events;	 /* events completed, over every loop */
	u64 *timer_next; /* per-thread timers' next expiry, by resource index (0: not started) */
};

static struct workload wl;
static struct rt_res *res;
static u32 nr_threads;
static struct sim_task **threads;
static u32 threads_cap;
static u64 *task_threads; /* threads made of each task */

static void waitq_push(struct rt_waitq *w, struct sim_task *st)
{
	if (w->len == w->cap) {
		u32 cap = w->cap ? 2 * w->cap : 8;
		struct sim_task **q = malloc(cap * sizeof(*q));

		if (!q)
			sim_fail("out of memory");
		for (u32 i = 0; i < w->len; i++)
			q[i] = w->q[(w->head + i) % w->cap];
		free(w->q);
		w->q = q;
		w->head = 0;
		w->cap = cap;
	}
	w->q[(w->head + w->len++) % w->cap] = st;
}

static struct sim_task *waitq_pop(struct rt_waitq *w)
{
	struct sim_task *st;

	if (!w->len)
		return NULL;
	st = w->q[w->head];
	w->head = (w->head + 1) % w->cap;
	w->len--;
	return st;
}

static void waitq_wake_all(struct rt_waitq *w)
{
	struct sim_task *st;

	while ((st = waitq_pop(w)))
		sim_task_wake(st, false);
}

/* Releases mutex m: its oldest waiter, if any, owns it now and is woken. */
static void mutex_release(struct rt_res *m)
{
	m->owner = waitq_pop(&m->waiters);
	if (m->owner)
		sim_task_wake(m->owner, false);
}

static int fair_policy(enum wl_policy policy)
{
	switch (policy) {
	case WL_POLICY_BATCH:
		return SCHED_BATCH;
	case WL_POLICY_IDLE:
		return SCHED_IDLE;
	default:
		return SCHED_NORMAL;
	}
}

/* sched_setscheduler() and setpriority() on the thread itself. */
static void set_sched(struct sim_task *st, enum wl_policy policy, int priority)
{
	st->t->policy = (u32)fair_policy(policy);
	set_task_nice(st->t, priority);
}

static void mask_of(const struct wl_cpus *c, struct cpumask *m)
{
	cpumask_clear(m);
	for (unsigned int i = 0; i < c->nr; i++)
		cpumask_set_cpu(c->cpu[i], m);
}

static const struct sim_workload_ops rt_ops;

static struct sim_task *new_thread(u32 task, bool forked)
{
	const struct wl_task *wt = &wl.tasks[task];
	struct rt_thread *th = calloc(1, sizeof(*th));
	struct cpumask mask;
	struct sim_task *st;
	char name[32];
	u64 saved_ws;

	if (!th || !(th->timer_next = calloc(wl.nr_resources ? wl.nr_resources : 1, sizeof(u64))))
		sim_fail("out of memory");
	th->task = wt;
	th->task_index = task;
	mask_of(&wt->cpus, &mask);
	snprintf(name, sizeof(name), "%s-%llu", wt->name, (unsigned long long)task_threads[task]++);
	if (nr_threads == threads_cap) {
		threads_cap = threads_cap ? 2 * threads_cap : 16;
		threads = realloc(threads, threads_cap * sizeof(*threads));
		if (!threads)
			sim_fail("out of memory");
	}
	/* The thread starts with a burst of nothing: its first event comes at its first run. */
	saved_ws = sim_ws_bytes;
	if (wt->ws_given)
		sim_ws_bytes = (u64)wt->ws_kb * 1024;
	if (forked)
		st = sim_task_fork(&rt_ops, nr_threads, name, 0, wt->cpus.nr ? &mask : NULL);
	else
		st = sim_task_spawn(&rt_ops, nr_threads, name, 0, wt->cpus.nr ? &mask : NULL);
	sim_ws_bytes = saved_ws;
	st->priv = th;
	threads[nr_threads++] = st;
	if (wt->policy != WL_POLICY_OTHER || wt->priority)
		set_sched(st, wt->policy, wt->priority);
	return st;
}

/* The next event: the phase's next, the next loop or phase, or the end of the thread. */
static bool advance(struct rt_thread *th)
{
	const struct wl_phase *ph = &th->task->phases[th->phase];

	th->step = 0;
	th->events++;
	if (++th->ev < ph->nr_events)
		return true;
	th->ev = 0;
	if (++th->phase_loop < ph->loop)
		return true;
	th->phase_loop = 0;
	th->phase_set = false;
	if (++th->phase < th->task->nr_phases)
		return true;
	th->phase = 0;
	th->loops++;
	return th->task->loop == WL_LOOP_FOREVER || ++th->task_loop < th->task->loop;
}

/* A timer event at step 0: when the thread wakes next (0: no wait), updating the reference. */
static u64 timer_expiry(struct rt_thread *th, const struct wl_event *e)
{
	const struct wl_resource *r = &wl.resources[e->res];
	u64 *next = r->per_thread ? &th->timer_next[e->res] : &res[e->res].next;
	u64 period = (u64)e->duration_ns, at;

	if (r->per_thread ? !*next : !res[e->res].started) {
		*next = sim_now; /* the first use starts the reference */
		res[e->res].started = true;
	}
	at = *next + period;
	if (sim_now >= at && !r->absolute) {
		*next = sim_now; /* late in relative mode: no wait, count from now */
		return 0;
	}
	*next = at;
	return at > sim_now ? at : 0;
}

static const struct sim_action rt_block = { SIM_BLOCK, 0 };

/*
 * Events done on the spot in one call after which the thread is charged
 * 1 us of CPU: a loop of events that take no time (lock, unlock, ...)
 * would otherwise hold virtual time still and never let the run end.
 */
#define RT_FREE_EVENTS	  1000
#define RT_FREE_CHARGE_NS 1000

/*
 * The thread's next action: events that do not wait are done on the spot,
 * one after another, until one runs, sleeps or blocks, the thread ends, or
 * RT_FREE_EVENTS of them have passed.
 */
static struct sim_action rt_done(struct sim_task *st)
{
	struct rt_thread *th = st->priv;
	u32 free_events = 0;

	if (!th->begun) {
		th->begun = true;
		if (th->task->delay_ns > 0)
			return (struct sim_action){ SIM_SLEEP, (u64)th->task->delay_ns };
	}
	for (;;) {
		const struct wl_phase *ph = &th->task->phases[th->phase];
		const struct wl_event *e = &ph->events[th->ev];
		struct rt_res *r = e->res >= 0 ? &res[e->res] : NULL;
		u64 at;

		/* A phase's settings apply as it begins, before its first event. */
		if (!th->phase_set) {
			th->phase_set = true;
			if (ph->set_sched)
				set_sched(st, ph->policy, ph->priority);
			if (ph->set_cpus) {
				mask_of(&ph->cpus, &st->new_mask);
				return (struct sim_action){ SIM_MIGRATE, 0 };
			}
		}
		switch (e->kind) {
		case WL_EV_RUN:
		case WL_EV_SLEEP:
		case WL_EV_RUNTIME:
			if (th->step == 0 && e->duration_ns > 0) {
				th->step = 1;
				if (e->kind == WL_EV_RUNTIME)
					st->until_ns = sim_now + (u64)e->duration_ns;
				return (struct sim_action){ e->kind == WL_EV_SLEEP ? SIM_SLEEP :
										     SIM_RUN,
							    (u64)e->duration_ns };
			}
			st->until_ns = 0;
			break;
		case WL_EV_TIMER:
			if (th->step == 0 && (at = timer_expiry(th, e))) {
				th->step = 1;
				return (struct sim_action){ SIM_SLEEP, at - sim_now };
			}
			break;
		case WL_EV_BARRIER:
			if (th->step == 0) {
				if (++r->arrived < wl.resources[e->res].barrier_users) {
					th->step = 1;
					waitq_push(&r->waiters, st);
					return rt_block;
				}
				r->arrived = 0;
				waitq_wake_all(&r->waiters);
			}
			break;
		case WL_EV_LOCK:
			if (th->step == 0) {
				if (r->owner) {
					th->step = 1;
					waitq_push(&r->waiters, st);
					return rt_block;
				}
				r->owner = st;
			}
			break;
		case WL_EV_UNLOCK:
			mutex_release(r);
			break;
		case WL_EV_WAIT:
			if (th->step == 0) {
				mutex_release(&res[e->mutex]);
				th->step = 1;
				waitq_push(&r->waiters, st);
				return rt_block;
			}
			if (th->step == 1) {
				struct rt_res *m = &res[e->mutex];

				if (m->owner) {
					th->step = 2;
					waitq_push(&m->waiters, st);
					return rt_block;
				}
				m->owner = st;
			}
			break;
		case WL_EV_SIGNAL: {
			struct sim_task *w = waitq_pop(&r->waiters);

			if (w)
				sim_task_wake(w, false);
			break;
		}
		case WL_EV_BROAD:
			waitq_wake_all(&r->waiters);
			break;
		case WL_EV_SUSPEND:
			if (th->step == 0) {
				th->step = 1;
				waitq_push(&r->waiters, st);
				return rt_block;
			}
			break;
		case WL_EV_RESUME:
			waitq_wake_all(&r->waiters);
			break;
		case WL_EV_FORK:
			new_thread((u32)e->task, true);
			break;
		}
		if (!advance(th))
			return (struct sim_action){ SIM_EXIT, 0 };
		if (++free_events == RT_FREE_EVENTS)
			return (struct sim_action){ SIM_RUN, RT_FREE_CHARGE_NS };
	}
}

static u64 rt_first(struct sim_task *st)
{
	return 0;
}

static const struct sim_workload_ops rt_ops = {
	.first_burst = rt_first,
	.burst_done = rt_done,
};

int sim_rtapp_main(int argc, char **argv, u32 nr_cpus)
{
	char err[RTAPP_ERR_MAX], keys[160];
	const char *path, *base;
	u64 stop = 0, end;
	bool ended;

	if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		printf("usage: rt-app FILE.json\n"
		       "\n"
		       "Plays an rt-app workload file (docs/rtapp.md lists the subset) on the\n"
		       "simulated machine: every thread of every task, for global.duration\n"
		       "seconds or until every thread has done its loops. Prints per task its\n"
		       "threads, CPU time, time queued, timeslices, threads exited, loops and\n"
		       "events completed, and RESULT lines. `rtapp FILE` is the same.\n");
		return 0;
	}
	if (argc != 2)
		sim_usage_error("one workload file, FILE.json");
	path = argv[1];
	if (rtapp_parse_file(path, nr_cpus, &wl, err, sizeof(err))) {
		fprintf(stderr, "rt-app: %s\n", err);
		return 2;
	}
	for (u32 t = 0; t < wl.nr_tasks; t++) {
		bool rt = wl.tasks[t].policy == WL_POLICY_FIFO || wl.tasks[t].policy == WL_POLICY_RR;

		for (u32 p = 0; p < wl.tasks[t].nr_phases; p++)
			rt |= wl.tasks[t].phases[p].set_sched &&
			      (wl.tasks[t].phases[p].policy == WL_POLICY_FIFO ||
			       wl.tasks[t].phases[p].policy == WL_POLICY_RR);
		if (rt) {
			fprintf(stderr,
				"rt-app: %s: task \"%s\" asks for SCHED_FIFO or SCHED_RR; Fulcrum has "
				"no real-time class\n",
				path, wl.tasks[t].name);
			workload_free(&wl);
			return 2;
		}
	}
	res = calloc(wl.nr_resources ? wl.nr_resources : 1, sizeof(*res));
	task_threads = calloc(wl.nr_tasks, sizeof(*task_threads));
	if (!res || !task_threads)
		sim_fail("out of memory");
	base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	printf("rt-app: %s: %u tasks, %u resources, %s\n", base, wl.nr_tasks, wl.nr_resources,
	       wl.global.duration_ns >= 0 ? "for the file's duration" : "until every thread ends");
	fflush(stdout);
	for (u32 t = 0; t < wl.nr_tasks; t++)
		for (u32 i = 0; i < wl.tasks[t].instances; i++)
			new_thread(t, false);
	if (wl.global.duration_ns >= 0)
		stop = SIM_START_NS + (u64)wl.global.duration_ns;
	ended = sim_engine_run(stop);
	if (!ended)
		sim_fail("the simulated time limit passed before the workload ended");
	end = stop;
	if (!stop)
		for (u32 i = 0; i < nr_threads; i++)
			if (threads[i]->exit_ns > end)
				end = threads[i]->exit_ns;
	printf("%-16s %8s %14s %14s %10s %10s %8s %8s\n", "task", "threads", "runtime_ms",
	       "queued_ms", "timeslices", "exited", "loops", "events");
	for (u32 t = 0; t < wl.nr_tasks; t++) {
		u64 run = 0, queued = 0, slices = 0, exited = 0, n = 0, loops = 0, events = 0;

		for (u32 i = 0; i < nr_threads; i++) {
			struct rt_thread *th = threads[i]->priv;
			struct task *p = threads[i]->t;

			if (th->task_index != t)
				continue;
			n++;
			sim_cpu = task_cpu(p);
			run += task_sched_runtime(p);
			queued += p->stats.run_delay;
			slices += p->stats.pcount;
			exited += threads[i]->exited;
			loops += th->loops;
			events += th->events;
		}
		printf("%-16s %8llu %14.3f %14.3f %10llu %10llu %8llu %8llu\n", wl.tasks[t].name,
		       (unsigned long long)n, (double)run / 1e6, (double)queued / 1e6,
		       (unsigned long long)slices, (unsigned long long)exited,
		       (unsigned long long)loops, (unsigned long long)events);
		snprintf(keys, sizeof(keys), "file=%s task=%s", base, wl.tasks[t].name);
		sim_result("rt-app", (double)run / 1e6, "ms", "%s metric=runtime", keys);
		sim_result("rt-app", (double)queued / 1e6, "ms", "%s metric=queued", keys);
	}
	snprintf(keys, sizeof(keys), "file=%s", base);
	sim_report_sched("rt-app", keys, (double)(end - SIM_START_NS) / 1e9);
	workload_free(&wl);
	return 0;
}

/*
 * tools/sim/rtapp.c - rt-app's workload language read into a struct workload.
 *
 * rtapp_json.c hands over a jansson tree whose keys know their lines; this
 * file walks it the way rt-app's own parser does (src/rt-app_parse_config.c
 * in rt-app: events recognised by the prefix of their key, resources created
 * on first mention, times in microseconds) and turns it into workload.h's
 * description. Unlike rt-app it refuses what it does not know, by name and
 * line, and checks what would only show at run time: a thread that would
 * deadlock on its own mutex, a wait that nothing can end, a fork loop.
 * docs/rtapp.md is the user's side of this file.
 */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtapp.h"
#include "rtapp_json.h"

#define NS_PER_US  1000LL
#define NS_PER_SEC 1000000000LL

/* Bounds on what a file may ask for: far past any study, short of overflow. */
#define MAX_INSTANCES 100000
#define MAX_FILE_SIZE (64 << 20)

#define NICE_MIN	    (-20)
#define NICE_MAX	    19
#define RT_PRIO_MIN	    1
#define RT_PRIO_MAX	    99
#define DEFAULT_RT_PRIORITY 10 /* rt-app's priority for FIFO and RR when none is given */

/* What the parser remembers about a resource beside the workload's entry. */
struct res_note {
	int owner;		/* per-thread timer: the task it belongs to; else -1 */
	unsigned int mode_line; /* timer: a use that fixed its mode */
	unsigned int wait_line; /* cond: first wait; suspend point: first suspend */
	unsigned int woken;	/* cond: a signal or broad; suspend point: a resume */
	int last_task;		/* barrier: the last task that named it */
	unsigned int last_line; /* barrier: where that task named it */
};

struct parser {
	const char *name;
	unsigned int nr_cpus;
	struct workload *wl;
	struct res_note *notes; /* parallel to wl->resources */
	unsigned int res_cap;
	unsigned int *fork_line;    /* per task: a fork event naming it, or 0 */
	unsigned int *barrier_line; /* per task: a barrier event in its phases, or 0 */
	unsigned char *fork_state;  /* per task, for check_forks() */
	int *held;		    /* mutexes held at this point of the current phase */
	unsigned int *held_line;
	unsigned int nr_held, held_cap;
	int task;		   /* the task being parsed */
	enum wl_policy cur_policy; /* its policy at this point of its phases */
	char *err;
	size_t errlen;
	jmp_buf fail;
};

/* Writes "NAME:LINE: message" and unwinds to rtapp_parse(). */
static _Noreturn void __attribute__((format(printf, 3, 4)))
fail(struct parser *p, unsigned int line, const char *fmt, ...)
{
	int n = line ? snprintf(p->err, p->errlen, "%s:%u: ", p->name, line) :
		       snprintf(p->err, p->errlen, "%s: ", p->name);
	va_list ap;

	if (n < 0 || (size_t)n >= p->errlen)
		n = 0;
	va_start(ap, fmt);
	vsnprintf(p->err + n, p->errlen - (size_t)n, fmt, ap);
	va_end(ap);
	longjmp(p->fail, 1);
}

static void *zalloc(struct parser *p, size_t n, size_t size)
{
	void *mem = calloc(n ? n : 1, size);

	if (!mem)
		fail(p, 0, "out of memory");
	return mem;
}

static char *dup_str(struct parser *p, const char *s)
{
	char *d = strdup(s);

	if (!d)
		fail(p, 0, "out of memory");
	return d;
}

/* ---------------------------------------------------------------- keys */

/*
 * Event keys, matched like rt-app by prefix ("run2", "lock_a"); the longest
 * name wins, so "runtime5" is a runtime event and not a run. A negative kind
 * is an rt-app event the simulator does not have, with the reason.
 */
static const struct {
	const char *name;
	int kind;
	const char *why;
} event_keys[] = {
	{ "run", WL_EV_RUN, NULL },
	{ "runtime", WL_EV_RUNTIME, NULL },
	{ "sleep", WL_EV_SLEEP, NULL },
	{ "timer", WL_EV_TIMER, NULL },
	{ "barrier", WL_EV_BARRIER, NULL },
	{ "lock", WL_EV_LOCK, NULL },
	{ "unlock", WL_EV_UNLOCK, NULL },
	{ "wait", WL_EV_WAIT, NULL },
	{ "signal", WL_EV_SIGNAL, NULL },
	{ "broad", WL_EV_BROAD, NULL },
	{ "suspend", WL_EV_SUSPEND, NULL },
	{ "resume", WL_EV_RESUME, NULL },
	{ "fork", WL_EV_FORK, NULL },
	{ "sync", -1, "write it as lock, signal, wait, unlock" },
	{ "yield", -1, "sched_yield() is not simulated" },
	{ "mem", -1, "memory work is not simulated" },
	{ "memrun", -1, "memory work is not simulated" },
	{ "iorun", -1, "I/O is not simulated" },
	{ "sem_post", -1, "semaphores are not simulated" },
	{ "sem_wait", -1, "semaphores are not simulated" },
};

/* rt-app task and phase settings the simulator refuses, with the reason. */
static const struct {
	const char *name;
	const char *why;
} refused_keys[] = {
	{ "dl-runtime", "SCHED_DEADLINE is not supported" },
	{ "dl-period", "SCHED_DEADLINE is not supported" },
	{ "dl-deadline", "SCHED_DEADLINE is not supported" },
	{ "period", "SCHED_DEADLINE is not supported" },
	{ "deadline", "SCHED_DEADLINE is not supported" },
	{ "util_min", "utilization clamping is not simulated" },
	{ "util_max", "utilization clamping is not simulated" },
	{ "nodes_membind", "NUMA memory binding is not simulated" },
	{ "taskgroup", "task groups are not simulated" },
};

/* The event table's entry for key, or -1 if the key names no event. */
static int event_key(const char *key)
{
	size_t best_len = 0;
	int best = -1;

	for (size_t i = 0; i < sizeof(event_keys) / sizeof(event_keys[0]); i++) {
		size_t n = strlen(event_keys[i].name);

		if (n > best_len && !strncmp(key, event_keys[i].name, n)) {
			best = (int)i;
			best_len = n;
		}
	}
	return best;
}

/* Settings of tasks and phases, as bits of an "allowed here" mask. */
enum prop {
	P_INSTANCE,
	P_LOOP,
	P_DELAY,
	P_PRIORITY,
	P_POLICY,
	P_CPUS,
	P_PHASES,
	NR_PROPS,
};

static const char *const prop_names[NR_PROPS] = {
	"instance", "loop", "delay", "priority", "policy", "cpus", "phases",
};

#define TASK_PROPS  ((1u << NR_PROPS) - 1)
#define PHASE_PROPS ((1u << P_LOOP) | (1u << P_PRIORITY) | (1u << P_POLICY) | (1u << P_CPUS))

struct props {
	json_t *val[NR_PROPS];
	unsigned int line[NR_PROPS];
	unsigned int nr_events;
	unsigned int first_event_line;
};

/*
 * Sorts an object's keys (a task's or a phase's, `what` in messages) into
 * settings and events, refusing repeats of a setting, unsupported settings
 * and events, and unknown keys.
 */
static void scan_keys(struct parser *p, json_t *obj, unsigned int allowed, const char *what,
		      struct props *pr)
{
	const char *key;
	json_t *val;
	char name[RTAPP_KEY_MAX];

	memset(pr, 0, sizeof(*pr));
	json_object_foreach(obj, key, val)
	{
		unsigned int line = rtapp_key_line(key);
		int i, ev;

		rtapp_key_name(key, name);
		for (i = 0; i < NR_PROPS; i++) {
			if (!strcmp(name, prop_names[i]))
				break;
		}
		if (i < NR_PROPS && (allowed & (1u << i))) {
			if (pr->val[i])
				fail(p, line, "'%s' given twice in %s (first on line %u)", name,
				     what, pr->line[i]);
			pr->val[i] = val;
			pr->line[i] = line;
			continue;
		}
		if (i < NR_PROPS)
			fail(p, line, "'%s' is a task setting, not allowed in %s", name, what);
		for (size_t r = 0; r < sizeof(refused_keys) / sizeof(refused_keys[0]); r++) {
			if (!strcmp(name, refused_keys[r].name))
				fail(p, line, "unsupported key '%s': %s", name, refused_keys[r].why);
		}
		ev = event_key(name);
		if (ev < 0)
			fail(p, line, "unknown key '%s' in %s", name, what);
		if (event_keys[ev].kind < 0)
			fail(p, line, "unsupported event '%s': %s", name, event_keys[ev].why);
		if (!pr->nr_events++)
			pr->first_event_line = line;
	}
}

/* ---------------------------------------------------------------- values */

static long long get_int(struct parser *p, json_t *v, unsigned int line, const char *what,
			 long long min, long long max)
{
	long long x;

	if (!json_is_integer(v))
		fail(p, line, "'%s' must be an integer", what);
	x = json_integer_value(v);
	if (x < min || x > max)
		fail(p, line, "'%s' is %lld, outside %lld..%lld", what, x, min, max);
	return x;
}

/* A time in microseconds, as rt-app writes them, returned in nanoseconds. */
static int64_t get_time(struct parser *p, json_t *v, unsigned int line, const char *what)
{
	long long us;

	if (!json_is_integer(v))
		fail(p, line, "'%s' must be an integer (microseconds)", what);
	us = json_integer_value(v);
	if (us < 0)
		fail(p, line, "'%s' is %lld: a time cannot be negative", what, us);
	if (us > INT64_MAX / NS_PER_US)
		fail(p, line, "'%s' is %lld microseconds, too long", what, us);
	return us * NS_PER_US;
}

static const char *get_str(struct parser *p, json_t *v, unsigned int line, const char *what)
{
	if (!json_is_string(v))
		fail(p, line, "'%s' must be a string", what);
	return json_string_value(v);
}

static enum wl_policy get_policy(struct parser *p, json_t *v, unsigned int line, const char *what)
{
	const char *s = get_str(p, v, line, what);

	for (int i = WL_POLICY_OTHER; i <= WL_POLICY_RR; i++) {
		if (!strcmp(s, wl_policy_name(i)))
			return i;
	}
	if (!strcmp(s, "SCHED_DEADLINE"))
		fail(p, line,
		     "unsupported policy SCHED_DEADLINE: the simulator has no deadline class");
	fail(p, line,
	     "unknown policy '%s' (SCHED_OTHER, SCHED_BATCH, SCHED_IDLE, SCHED_FIFO or "
	     "SCHED_RR)",
	     s);
}

static bool rt_policy(enum wl_policy policy)
{
	return policy == WL_POLICY_FIFO || policy == WL_POLICY_RR;
}

/* A priority for policy: nice for the fair policies, 1..99 for FIFO and RR. */
static int get_priority(struct parser *p, json_t *v, unsigned int line, enum wl_policy policy)
{
	if (rt_policy(policy))
		return (int)get_int(p, v, line, "priority", RT_PRIO_MIN, RT_PRIO_MAX);
	return (int)get_int(p, v, line, "priority", NICE_MIN, NICE_MAX);
}

static int cmp_uint(const void *a, const void *b)
{
	unsigned int x = *(const unsigned int *)a, y = *(const unsigned int *)b;

	return x < y ? -1 : x > y;
}

/* "cpus": [0, 2, 3], kept ascending without repeats. */
static void get_cpus(struct parser *p, json_t *v, unsigned int line, struct wl_cpus *cpus)
{
	size_t i, n;
	json_t *e;

	if (!json_is_array(v) || !json_array_size(v))
		fail(p, line, "'cpus' must be a non-empty array of CPU numbers");
	n = json_array_size(v);
	cpus->cpu = zalloc(p, n, sizeof(*cpus->cpu));
	json_array_foreach(v, i, e)
	{
		long long cpu = get_int(p, e, line, "cpus", 0, INT_MAX);

		if (p->nr_cpus && cpu >= p->nr_cpus)
			fail(p, line, "CPU %lld in 'cpus' is beyond the machine (CPUs 0..%u)", cpu,
			     p->nr_cpus - 1);
		cpus->cpu[i] = (unsigned int)cpu;
	}
	qsort(cpus->cpu, n, sizeof(*cpus->cpu), cmp_uint);
	cpus->nr = 0;
	for (i = 0; i < n; i++) {
		if (!cpus->nr || cpus->cpu[cpus->nr - 1] != cpus->cpu[i])
			cpus->cpu[cpus->nr++] = cpus->cpu[i];
	}
}

/* ---------------------------------------------------------------- resources */

/* The resource (name, kind) owned by `owner` (-1: shared), created on first mention. */
static int resource(struct parser *p, const char *name, enum wl_resource_kind kind, int owner)
{
	struct workload *wl = p->wl;
	struct wl_resource *r;

	for (unsigned int i = 0; i < wl->nr_resources; i++) {
		r = &wl->resources[i];
		if (r->kind == kind && p->notes[i].owner == owner && !strcmp(r->name, name))
			return (int)i;
	}
	if (wl->nr_resources == p->res_cap) {
		unsigned int cap = p->res_cap ? 2 * p->res_cap : 16;
		struct wl_resource *res = realloc(wl->resources, cap * sizeof(*res));
		struct res_note *notes;

		if (!res)
			fail(p, 0, "out of memory");
		wl->resources = res;
		notes = realloc(p->notes, cap * sizeof(*notes));
		if (!notes)
			fail(p, 0, "out of memory");
		p->notes = notes;
		p->res_cap = cap;
	}
	r = &wl->resources[wl->nr_resources];
	memset(r, 0, sizeof(*r));
	memset(&p->notes[wl->nr_resources], 0, sizeof(p->notes[0]));
	r->kind = kind;
	r->task = -1;
	r->name = dup_str(p, name);
	p->notes[wl->nr_resources].owner = owner;
	p->notes[wl->nr_resources].last_task = -1;
	return (int)wl->nr_resources++;
}

static int find_task(struct parser *p, const char *name)
{
	for (unsigned int i = 0; i < p->wl->nr_tasks; i++) {
		if (!strcmp(p->wl->tasks[i].name, name))
			return (int)i;
	}
	return -1;
}

/* ---------------------------------------------------------------- events */

static int held_index(struct parser *p, int mutex)
{
	for (unsigned int i = 0; i < p->nr_held; i++) {
		if (p->held[i] == mutex)
			return (int)i;
	}
	return -1;
}

static void take_lock(struct parser *p, int mutex, unsigned int line)
{
	int h = held_index(p, mutex);

	if (h >= 0)
		fail(p, line,
		     "'%s' is locked again while this phase holds it (since line %u): "
		     "the thread would deadlock",
		     p->wl->resources[mutex].name, p->held_line[h]);
	if (p->nr_held == p->held_cap) {
		unsigned int cap = p->held_cap ? 2 * p->held_cap : 8;
		int *held = realloc(p->held, cap * sizeof(*held));
		unsigned int *lines;

		if (!held)
			fail(p, 0, "out of memory");
		p->held = held;
		lines = realloc(p->held_line, cap * sizeof(*lines));
		if (!lines)
			fail(p, 0, "out of memory");
		p->held_line = lines;
		p->held_cap = cap;
	}
	p->held[p->nr_held] = mutex;
	p->held_line[p->nr_held++] = line;
}

static void drop_lock(struct parser *p, int mutex, unsigned int line)
{
	int h = held_index(p, mutex);

	if (h < 0)
		fail(p, line, "unlock of '%s' without a lock of it earlier in the same phase",
		     p->wl->resources[mutex].name);
	p->held[h] = p->held[--p->nr_held];
	p->held_line[h] = p->held_line[p->nr_held];
}

/* "timer": { "ref": "tick", "period": 10000, "mode": "absolute" } */
static void parse_timer(struct parser *p, struct wl_event *ev, json_t *v, unsigned int line)
{
	const char *key, *ref = NULL;
	bool absolute = false, seen_period = false;
	json_t *val;
	char name[RTAPP_KEY_MAX];
	struct res_note *note;
	struct wl_resource *r;

	if (!json_is_object(v))
		fail(p, line, "'timer' must be an object with \"ref\" and \"period\"");
	json_object_foreach(v, key, val)
	{
		unsigned int kl = rtapp_key_line(key);

		rtapp_key_name(key, name);
		if (!strcmp(name, "ref") && !ref) {
			ref = get_str(p, val, kl, "ref");
		} else if (!strcmp(name, "period") && !seen_period) {
			ev->duration_ns = get_time(p, val, kl, "period");
			seen_period = true;
		} else if (!strcmp(name, "mode")) {
			const char *mode = get_str(p, val, kl, "mode");

			if (strcmp(mode, "relative") && strcmp(mode, "absolute"))
				fail(p, kl, "timer mode '%s': \"relative\" or \"absolute\"", mode);
			absolute = !strcmp(mode, "absolute");
		} else {
			fail(p, kl, "unknown or repeated key '%s' in a timer", name);
		}
	}
	if (!ref || !seen_period)
		fail(p, line, "a timer needs \"ref\" and \"period\"");
	/* rt-app: a name beginning with "unique" is one timer per thread of this task. */
	if (!strncmp(ref, "unique", strlen("unique")))
		ev->res = resource(p, ref, WL_RES_TIMER, p->task);
	else
		ev->res = resource(p, ref, WL_RES_TIMER, -1);
	r = &p->wl->resources[ev->res];
	note = &p->notes[ev->res];
	r->per_thread = note->owner >= 0;
	if (note->mode_line && r->absolute != absolute)
		fail(p, line, "timer '%s' is %s here but %s on line %u: give every use one mode",
		     ref, absolute ? "absolute" : "relative", r->absolute ? "absolute" : "relative",
		     note->mode_line);
	r->absolute = absolute;
	note->mode_line = line;
}

/* "wait": { "ref": "queue", "mutex": "m" } */
static void parse_wait(struct parser *p, struct wl_event *ev, json_t *v, unsigned int line)
{
	const char *key, *ref = NULL, *mutex = NULL;
	json_t *val;
	char name[RTAPP_KEY_MAX];

	if (!json_is_object(v))
		fail(p, line, "'wait' must be an object with \"ref\" and \"mutex\"");
	json_object_foreach(v, key, val)
	{
		unsigned int kl = rtapp_key_line(key);

		rtapp_key_name(key, name);
		if (!strcmp(name, "ref") && !ref)
			ref = get_str(p, val, kl, "ref");
		else if (!strcmp(name, "mutex") && !mutex)
			mutex = get_str(p, val, kl, "mutex");
		else
			fail(p, kl, "unknown or repeated key '%s' in a wait", name);
	}
	if (!ref || !mutex)
		fail(p, line, "a wait needs \"ref\" (the condition) and \"mutex\"");
	ev->res = resource(p, ref, WL_RES_COND, -1);
	ev->mutex = resource(p, mutex, WL_RES_MUTEX, -1);
	if (held_index(p, ev->mutex) < 0)
		fail(p, line, "wait on '%s' releases '%s', which this phase has not locked before it",
		     ref, mutex);
	if (!p->notes[ev->res].wait_line)
		p->notes[ev->res].wait_line = line;
}

static void parse_event(struct parser *p, struct wl_event *ev, int entry, json_t *v, unsigned int line)
{
	struct wl_task *t = &p->wl->tasks[p->task];
	const char *what = event_keys[entry].name;
	const char *s;
	int other;

	ev->kind = (enum wl_event_kind)event_keys[entry].kind;
	ev->line = line;
	ev->res = ev->mutex = ev->task = -1;
	switch (ev->kind) {
	case WL_EV_RUN:
	case WL_EV_RUNTIME:
	case WL_EV_SLEEP:
		ev->duration_ns = get_time(p, v, line, what);
		break;
	case WL_EV_TIMER:
		parse_timer(p, ev, v, line);
		break;
	case WL_EV_WAIT:
		parse_wait(p, ev, v, line);
		break;
	case WL_EV_LOCK:
		ev->res = resource(p, get_str(p, v, line, what), WL_RES_MUTEX, -1);
		take_lock(p, ev->res, line);
		break;
	case WL_EV_UNLOCK:
		ev->res = resource(p, get_str(p, v, line, what), WL_RES_MUTEX, -1);
		drop_lock(p, ev->res, line);
		break;
	case WL_EV_SIGNAL:
	case WL_EV_BROAD:
		ev->res = resource(p, get_str(p, v, line, what), WL_RES_COND, -1);
		p->notes[ev->res].woken = line;
		break;
	case WL_EV_BARRIER: {
		struct res_note *note;

		s = get_str(p, v, line, what);
		ev->res = resource(p, s, WL_RES_BARRIER, -1);
		note = &p->notes[ev->res];
		/* rt-app counts one more thread per mention: one name is one sync point. */
		if (note->last_task == p->task)
			fail(p, line,
			     "task '%s' names barrier '%s' twice (also on line %u); "
			     "rt-app counts each mention as another thread to wait for, so "
			     "give each sync point its own name",
			     t->name, s, note->last_line);
		note->last_task = p->task;
		note->last_line = line;
		if (p->wl->resources[ev->res].barrier_users > UINT_MAX - t->instances)
			fail(p, line, "too many threads at barrier '%s'", s);
		p->wl->resources[ev->res].barrier_users += t->instances;
		if (!p->barrier_line[p->task])
			p->barrier_line[p->task] = line;
		break;
	}
	case WL_EV_SUSPEND:
		/* rt-app ignores the string: a thread always suspends at its own task's point. */
		s = get_str(p, v, line, what);
		if (*s && strcmp(s, t->name))
			fail(p, line,
			     "'%s' in task '%s' names task '%s': a thread can only suspend "
			     "itself (give \"\" or \"%s\")",
			     what, t->name, s, t->name);
		ev->res = resource(p, t->name, WL_RES_SUSPEND, -1);
		p->wl->resources[ev->res].task = p->task;
		if (!p->notes[ev->res].wait_line)
			p->notes[ev->res].wait_line = line;
		break;
	case WL_EV_RESUME:
	case WL_EV_FORK:
		s = get_str(p, v, line, what);
		other = find_task(p, s);
		if (other < 0)
			fail(p, line, "'%s' names task '%s', which the file does not define", what,
			     s);
		if (ev->kind == WL_EV_FORK) {
			ev->task = other;
			if (!p->fork_line[other])
				p->fork_line[other] = line;
			break;
		}
		ev->res = resource(p, s, WL_RES_SUSPEND, -1);
		p->wl->resources[ev->res].task = other;
		p->notes[ev->res].woken = line;
		break;
	}
}

/* ---------------------------------------------------------------- phases and tasks */

/* A phase's events, in file order, from the object that holds them. */
static void parse_events(struct parser *p, struct wl_phase *ph, json_t *obj, const struct props *pr,
			 unsigned int line)
{
	const char *key;
	json_t *val;
	char name[RTAPP_KEY_MAX];
	unsigned int n = 0;

	if (!pr->nr_events)
		fail(p, line, "phase '%s' of task '%s' has no events", ph->name,
		     p->wl->tasks[p->task].name);
	ph->events = zalloc(p, pr->nr_events, sizeof(*ph->events));
	ph->nr_events = pr->nr_events;
	p->nr_held = 0;
	json_object_foreach(obj, key, val)
	{
		int entry = event_key(rtapp_key_name(key, name));
		int i;

		for (i = 0; i < NR_PROPS && strcmp(name, prop_names[i]); i++)
			;
		if (i < NR_PROPS || entry < 0)
			continue;
		parse_event(p, &ph->events[n++], entry, val, rtapp_key_line(key));
	}
	if (p->nr_held)
		fail(p, p->held_line[0],
		     "'%s' is still locked when phase '%s' ends: unlock it in "
		     "the same phase",
		     p->wl->resources[p->held[0]].name, ph->name);
}

/* Policy and priority from a task's or phase's settings; false if it gives neither. */
static bool parse_sched(struct parser *p, const struct props *pr, enum wl_policy *policy,
			int *priority)
{
	if (!pr->val[P_POLICY] && !pr->val[P_PRIORITY])
		return false;
	if (pr->val[P_POLICY])
		p->cur_policy = get_policy(p, pr->val[P_POLICY], pr->line[P_POLICY], "policy");
	*policy = p->cur_policy;
	if (pr->val[P_PRIORITY])
		*priority = get_priority(p, pr->val[P_PRIORITY], pr->line[P_PRIORITY], *policy);
	else
		*priority = rt_policy(*policy) ? DEFAULT_RT_PRIORITY : 0;
	return true;
}

static void parse_phase(struct parser *p, struct wl_phase *ph, json_t *obj, unsigned int line)
{
	struct props pr;
	char what[RTAPP_KEY_MAX + 16];

	snprintf(what, sizeof(what), "phase '%s'", ph->name);
	if (!json_is_object(obj))
		fail(p, line, "%s must be an object", what);
	scan_keys(p, obj, PHASE_PROPS, what, &pr);
	ph->loop = 1;
	if (pr.val[P_LOOP])
		ph->loop = get_int(p, pr.val[P_LOOP], pr.line[P_LOOP], "loop", 1, INT64_MAX);
	if (pr.val[P_CPUS]) {
		ph->set_cpus = true;
		get_cpus(p, pr.val[P_CPUS], pr.line[P_CPUS], &ph->cpus);
	}
	ph->set_sched = parse_sched(p, &pr, &ph->policy, &ph->priority);
	parse_events(p, ph, obj, &pr, line);
}

/* "phases": { "p0": { ... }, "p1": { ... } }, run in file order. */
static void parse_phases(struct parser *p, struct wl_task *t, json_t *phases, unsigned int line)
{
	const char *key;
	json_t *val;
	char name[RTAPP_KEY_MAX];
	unsigned int n = 0;

	if (!json_is_object(phases) || !json_object_size(phases))
		fail(p, line, "\"phases\" must be an object of one or more phases");
	t->phases = zalloc(p, json_object_size(phases), sizeof(*t->phases));
	t->nr_phases = (unsigned int)json_object_size(phases);
	json_object_foreach(phases, key, val)
	{
		struct wl_phase *ph = &t->phases[n++];

		ph->name = dup_str(p, rtapp_key_name(key, name));
		parse_phase(p, ph, val, rtapp_key_line(key));
	}
}

static void parse_task(struct parser *p, int ti, json_t *obj, unsigned int line)
{
	struct wl_task *t = &p->wl->tasks[ti];
	struct props pr;
	char what[RTAPP_KEY_MAX + 16];

	p->task = ti;
	snprintf(what, sizeof(what), "task '%s'", t->name);
	scan_keys(p, obj, TASK_PROPS, what, &pr);
	/* instance was read beforehand: barriers need every task's count */
	if (pr.val[P_DELAY])
		t->delay_ns = get_time(p, pr.val[P_DELAY], pr.line[P_DELAY], "delay");
	if (pr.val[P_CPUS])
		get_cpus(p, pr.val[P_CPUS], pr.line[P_CPUS], &t->cpus);
	p->cur_policy = p->wl->global.default_policy;
	if (!parse_sched(p, &pr, &t->policy, &t->priority)) {
		t->policy = p->cur_policy;
		t->priority = rt_policy(t->policy) ? DEFAULT_RT_PRIORITY : 0;
	}

	if (!pr.val[P_PHASES]) {
		/*
		 * Events written in the task itself are its one phase; rt-app then
		 * takes "loop" as that phase's count and runs the task through it
		 * once, or forever when there is no "loop".
		 */
		t->phases = zalloc(p, 1, sizeof(*t->phases));
		t->nr_phases = 1;
		t->phases[0].name = dup_str(p, "");
		t->phases[0].loop = 1;
		t->loop = WL_LOOP_FOREVER;
		if (pr.val[P_LOOP]) {
			t->phases[0].loop = get_int(p, pr.val[P_LOOP], pr.line[P_LOOP], "loop", 1,
						    INT64_MAX);
			t->loop = 1;
		}
		if (!pr.nr_events)
			fail(p, line, "task '%s' has neither events nor \"phases\"", t->name);
		parse_events(p, &t->phases[0], obj, &pr, line);
		return;
	}

	if (pr.nr_events)
		fail(p, pr.first_event_line,
		     "task '%s' has events beside \"phases\": move them into a "
		     "phase",
		     t->name);
	t->loop = WL_LOOP_FOREVER;
	if (pr.val[P_LOOP]) {
		long long loop = get_int(p, pr.val[P_LOOP], pr.line[P_LOOP], "loop", -1, INT64_MAX);

		if (!loop)
			fail(p, pr.line[P_LOOP], "'loop' is 0: give -1 (forever) or a count");
		t->loop = loop;
	}
	parse_phases(p, t, pr.val[P_PHASES], pr.line[P_PHASES]);
}

/* ---------------------------------------------------------------- the file */

static void parse_global(struct parser *p, json_t *obj, unsigned int line)
{
	/* Settings the simulator reads; the rest of rt-app's only steer its own logs. */
	static const char *const known[] = { "duration", "default_policy", "calibration",
					     "pi_enabled" };
	static const char *const ignored[] = { "lock_pages",	  "logdir", "log_basename",
					       "log_size",	  "ftrace", "gnuplot",
					       "cumulative_slack" };
	struct wl_global *g = &p->wl->global;
	unsigned int seen[sizeof(known) / sizeof(known[0])] = { 0 };
	const char *key;
	json_t *val;
	char name[RTAPP_KEY_MAX];

	if (!json_is_object(obj))
		fail(p, line, "\"global\" must be an object");
	json_object_foreach(obj, key, val)
	{
		unsigned int kl = rtapp_key_line(key);
		size_t i;

		rtapp_key_name(key, name);
		for (i = 0; i < sizeof(ignored) / sizeof(ignored[0]); i++) {
			if (!strcmp(name, ignored[i]))
				break;
		}
		if (i < sizeof(ignored) / sizeof(ignored[0]))
			continue;
		for (i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
			if (!strcmp(name, known[i]))
				break;
		}
		if (i == sizeof(known) / sizeof(known[0])) {
			if (!strcmp(name, "io_device") || !strcmp(name, "mem_buffer_size"))
				fail(p, kl,
				     "unsupported key '%s': memory and I/O work is not "
				     "simulated",
				     name);
			fail(p, kl, "unknown key '%s' in \"global\"", name);
		}
		if (seen[i])
			fail(p, kl, "'%s' given twice in \"global\" (first on line %u)", name,
			     seen[i]);
		seen[i] = kl;
		if (!strcmp(name, "duration")) {
			long long sec = get_int(p, val, kl, "duration", -1, INT64_MAX / NS_PER_SEC);

			if (!sec)
				fail(p, kl, "'duration' is 0: give seconds, or -1 for no limit");
			g->duration_ns = sec < 0 ? WL_DURATION_UNBOUNDED : sec * NS_PER_SEC;
		} else if (!strcmp(name, "default_policy")) {
			g->default_policy = get_policy(p, val, kl, "default_policy");
		} else if (!strcmp(name, "calibration")) {
			/* A number is ns per loop; a string names the CPU to calibrate on. */
			if (json_is_string(val)) {
				const char *s = json_string_value(val);

				if (strncmp(s, "CPU", 3) || !s[3] ||
				    strspn(s + 3, "0123456789") != strlen(s + 3))
					fail(p, kl, "'calibration' is \"%s\": a number or \"CPUn\"",
					     s);
			} else {
				g->calibration_ns = get_int(p, val, kl, "calibration", 1, INT_MAX);
			}
		} else if (!json_is_boolean(val)) {
			fail(p, kl, "'pi_enabled' must be true or false");
		} else if (json_is_true(val)) {
			fail(p, kl,
			     "unsupported: 'pi_enabled' true (priority inheritance is not "
			     "simulated)");
		}
	}
}

/* A task's "instance" (default 1); a repeat is refused later, by scan_keys(). */
static unsigned int read_instances(struct parser *p, json_t *task)
{
	const char *key;
	json_t *val;
	char name[RTAPP_KEY_MAX];

	json_object_foreach(task, key, val)
	{
		if (!strcmp(rtapp_key_name(key, name), "instance"))
			return (unsigned int)get_int(p, val, rtapp_key_line(key), "instance", 0,
						     MAX_INSTANCES);
	}
	return 1;
}

/*
 * Tasks are named before any is parsed, since fork and resume may name a
 * task further down, and barriers need every task's instance count.
 */
static void parse_tasks(struct parser *p, json_t *obj, unsigned int line)
{
	struct workload *wl = p->wl;
	unsigned long long threads = 0;
	const char *key;
	json_t *val;
	char name[RTAPP_KEY_MAX];
	unsigned int n = 0;

	if (!json_is_object(obj) || !json_object_size(obj))
		fail(p, line, "\"tasks\" must be an object of one or more tasks");
	wl->tasks = zalloc(p, json_object_size(obj), sizeof(*wl->tasks));
	p->fork_line = zalloc(p, json_object_size(obj), sizeof(*p->fork_line));
	p->barrier_line = zalloc(p, json_object_size(obj), sizeof(*p->barrier_line));
	json_object_foreach(obj, key, val)
	{
		unsigned int kl = rtapp_key_line(key);
		struct wl_task *t = &wl->tasks[n];
		int other;

		rtapp_key_name(key, name);
		if (!*name)
			fail(p, kl, "a task needs a name");
		other = find_task(p, name);
		if (other >= 0)
			fail(p, kl, "task '%s' is defined twice", name);
		if (!json_is_object(val))
			fail(p, kl, "task '%s' must be an object", name);
		wl->nr_tasks = ++n; /* before anything is allocated, so that workload_free() sees it */
		t->name = dup_str(p, name);
		t->instances = read_instances(p, val);
		threads += t->instances;
	}
	n = 0;
	json_object_foreach(obj, key, val) parse_task(p, (int)n++, val, rtapp_key_line(key));
	if (!threads)
		fail(p, line, "no task starts a thread: every \"instance\" is 0");
}

/* What can only be judged once every task is read. */
static void check_whole(struct parser *p)
{
	struct workload *wl = p->wl;

	for (unsigned int i = 0; i < wl->nr_resources; i++) {
		struct wl_resource *r = &wl->resources[i];
		struct res_note *note = &p->notes[i];

		if (r->kind == WL_RES_COND && note->wait_line && !note->woken)
			fail(p, note->wait_line,
			     "nothing signals or broadcasts condition '%s', so "
			     "this wait never ends",
			     r->name);
		if (r->kind == WL_RES_SUSPEND && note->wait_line && !note->woken)
			fail(p, note->wait_line,
			     "no event resumes task '%s', so this suspend never "
			     "ends",
			     r->name);
	}
	for (unsigned int t = 0; t < wl->nr_tasks; t++) {
		if (p->fork_line[t] && p->barrier_line[t])
			fail(p, p->barrier_line[t],
			     "task '%s' is forked (line %u) and uses a barrier: "
			     "a barrier needs its number of threads known "
			     "at the start",
			     wl->tasks[t].name, p->fork_line[t]);
	}
}

/* Depth-first search for a task that forks itself, directly or through others. */
static void check_forks(struct parser *p, unsigned int t, unsigned char *state)
{
	struct wl_task *task = &p->wl->tasks[t];

	state[t] = 1; /* on the current path */
	for (unsigned int ph = 0; ph < task->nr_phases; ph++) {
		for (unsigned int e = 0; e < task->phases[ph].nr_events; e++) {
			struct wl_event *ev = &task->phases[ph].events[e];

			if (ev->kind != WL_EV_FORK)
				continue;
			if (state[ev->task] == 1)
				fail(p, ev->line,
				     "task '%s' forks '%s', which leads back to '%s': "
				     "the threads would multiply without end",
				     task->name, p->wl->tasks[ev->task].name, task->name);
			if (!state[ev->task])
				check_forks(p, (unsigned int)ev->task, state);
		}
	}
	state[t] = 2; /* done */
}

/* The file's top level: "global" and "tasks", then the checks of the whole. */
static void parse_root(struct parser *p, json_t *root)
{
	json_t *global = NULL, *tasks = NULL;
	unsigned int global_line = 0, tasks_line = 0;
	const char *key;
	json_t *val;
	char name[RTAPP_KEY_MAX];

	json_object_foreach(root, key, val)
	{
		unsigned int kl = rtapp_key_line(key);

		rtapp_key_name(key, name);
		if (!strcmp(name, "global") || !strcmp(name, "tasks")) {
			bool is_global = name[0] == 'g';
			unsigned int *seen = is_global ? &global_line : &tasks_line;

			if (*seen)
				fail(p, kl, "\"%s\" given twice (first on line %u)", name, *seen);
			*seen = kl;
			*(is_global ? &global : &tasks) = val;
		} else if (!strcmp(name, "resources")) {
			fail(p, kl,
			     "unsupported key 'resources': resources are made when events "
			     "name them (rt-app keeps the section only for old files)");
		} else {
			fail(p, kl, "unknown key '%s' at the top level", name);
		}
	}
	if (!tasks)
		fail(p, 1, "no \"tasks\" object");
	if (global)
		parse_global(p, global, global_line);
	parse_tasks(p, tasks, tasks_line);
	check_whole(p);
	p->fork_state = zalloc(p, p->wl->nr_tasks, 1);
	for (unsigned int t = 0; t < p->wl->nr_tasks; t++) {
		if (!p->fork_state[t])
			check_forks(p, t, p->fork_state);
	}
}

int rtapp_parse(const char *name, const char *text, size_t len, unsigned int nr_cpus,
		struct workload *wl, char *err, size_t errlen)
{
	/* On the heap: what longjmp() leaves behind must not be a local changed since setjmp(). */
	struct parser *const p = calloc(1, sizeof(*p));
	json_t *const root = p ? rtapp_json_load(name, text, len, err, errlen) : NULL;
	int rc = -1;

	memset(wl, 0, sizeof(*wl));
	wl->global.duration_ns = WL_DURATION_UNBOUNDED;
	wl->global.default_policy = WL_POLICY_OTHER;
	if (!p)
		snprintf(err, errlen, "%s: out of memory", name);
	if (!root)
		goto out;
	p->name = name;
	p->nr_cpus = nr_cpus;
	p->wl = wl;
	p->err = err;
	p->errlen = errlen;
	if (!setjmp(p->fail)) {
		parse_root(p, root);
		rc = 0;
	}
out:
	if (rc)
		workload_free(wl);
	if (p) {
		free(p->fork_state);
		free(p->notes);
		free(p->fork_line);
		free(p->barrier_line);
		free(p->held);
		free(p->held_line);
		free(p);
	}
	json_decref(root);
	return rc;
}

int rtapp_parse_file(const char *path, unsigned int nr_cpus, struct workload *wl, char *err,
		     size_t errlen)
{
	FILE *f = fopen(path, "rb");
	char *text = NULL;
	size_t len = 0, cap = 0;
	int rc;

	memset(wl, 0, sizeof(*wl));
	if (!f) {
		snprintf(err, errlen, "%s: cannot open: %m", path);
		return -1;
	}
	for (;;) {
		size_t n;

		if (len == cap) {
			char *bigger;

			cap = cap ? 2 * cap : 65536;
			bigger = cap > MAX_FILE_SIZE ? NULL : realloc(text, cap);
			if (!bigger) {
				snprintf(err, errlen, "%s: larger than %d MiB", path,
					 MAX_FILE_SIZE >> 20);
				free(text);
				fclose(f);
				return -1;
			}
			text = bigger;
		}
		n = fread(text + len, 1, cap - len, f);
		len += n;
		if (n == 0)
			break;
	}
	if (ferror(f)) {
		snprintf(err, errlen, "%s: read error", path);
		free(text);
		fclose(f);
		return -1;
	}
	fclose(f);
	rc = rtapp_parse(path, text, len, nr_cpus, wl, err, errlen);
	free(text);
	return rc;
}

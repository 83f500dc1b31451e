/*
 * tools/sim/rtapp.c - rt-app's workload language read into a struct workload.
 *
 * rtapp_json.c hands over a jansson tree whose keys know their lines; this
 * file walks it the way rt-app's own parser does (src/rt-app_parse_config.c
 * in rt-app: events recognised by the prefix of their key, resources created
 * on first mention, times in microseconds) and turns it into workload.h's
 * description; rtapp_events.c does the events. Unlike rt-app it refuses what it does not know, by name and
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
#include "rtapp_parser.h"

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

/* Unwinds to rtapp_parse(), which returns the message. */
void rtapp_fail(struct parser *p, unsigned int line, const char *fmt, ...)
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

void *rtapp_zalloc(struct parser *p, size_t n, size_t size)
{
	void *mem = calloc(n ? n : 1, size);

	if (!mem)
		rtapp_fail(p, 0, "out of memory");
	return mem;
}

char *rtapp_strdup(struct parser *p, const char *s)
{
	char *d = strdup(s);

	if (!d)
		rtapp_fail(p, 0, "out of memory");
	return d;
}

/* ---------------------------------------------------------------- keys */

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

/* Settings of tasks and phases, as bits of an "allowed here" mask. */
enum prop {
	P_INSTANCE,
	P_LOOP,
	P_DELAY,
	P_PRIORITY,
	P_POLICY,
	P_CPUS,
	P_PHASES,
	P_WS_KB,
	NR_PROPS,
};

static const char *const prop_names[NR_PROPS] = {
	"instance", "loop", "delay", "priority", "policy", "cpus", "phases", "ws_kb",
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
		const struct rtapp_event_key *ev;
		int i;

		rtapp_key_name(key, name);
		for (i = 0; i < NR_PROPS; i++) {
			if (!strcmp(name, prop_names[i]))
				break;
		}
		if (i < NR_PROPS && (allowed & (1u << i))) {
			if (pr->val[i])
				rtapp_fail(p, line, "'%s' given twice in %s (first on line %u)",
					   name, what, pr->line[i]);
			pr->val[i] = val;
			pr->line[i] = line;
			continue;
		}
		if (i < NR_PROPS)
			rtapp_fail(p, line, "'%s' is a task setting, not allowed in %s", name, what);
		for (size_t r = 0; r < sizeof(refused_keys) / sizeof(refused_keys[0]); r++) {
			if (!strcmp(name, refused_keys[r].name))
				rtapp_fail(p, line, "unsupported key '%s': %s", name,
					   refused_keys[r].why);
		}
		ev = rtapp_event_key(name);
		if (!ev)
			rtapp_fail(p, line, "unknown key '%s' in %s", name, what);
		if (ev->kind < 0)
			rtapp_fail(p, line, "unsupported event '%s': %s", name, ev->why);
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
		rtapp_fail(p, line, "'%s' must be an integer", what);
	x = json_integer_value(v);
	if (x < min || x > max)
		rtapp_fail(p, line, "'%s' is %lld, outside %lld..%lld", what, x, min, max);
	return x;
}

/* A time in microseconds, as rt-app writes them, returned in nanoseconds. */
int64_t rtapp_get_time(struct parser *p, json_t *v, unsigned int line, const char *what)
{
	long long us;

	if (!json_is_integer(v))
		rtapp_fail(p, line, "'%s' must be an integer (microseconds)", what);
	us = json_integer_value(v);
	if (us < 0)
		rtapp_fail(p, line, "'%s' is %lld: a time cannot be negative", what, us);
	if (us > INT64_MAX / NS_PER_US)
		rtapp_fail(p, line, "'%s' is %lld microseconds, too long", what, us);
	return us * NS_PER_US;
}

const char *rtapp_get_str(struct parser *p, json_t *v, unsigned int line, const char *what)
{
	if (!json_is_string(v))
		rtapp_fail(p, line, "'%s' must be a string", what);
	return json_string_value(v);
}

static enum wl_policy get_policy(struct parser *p, json_t *v, unsigned int line, const char *what)
{
	const char *s = rtapp_get_str(p, v, line, what);

	for (int i = WL_POLICY_OTHER; i <= WL_POLICY_RR; i++) {
		if (!strcmp(s, wl_policy_name(i)))
			return i;
	}
	if (!strcmp(s, "SCHED_DEADLINE"))
		rtapp_fail(p, line,
			   "unsupported policy SCHED_DEADLINE: the simulator has no deadline class");
	rtapp_fail(p, line,
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
		rtapp_fail(p, line, "'cpus' must be a non-empty array of CPU numbers");
	n = json_array_size(v);
	cpus->cpu = rtapp_zalloc(p, n, sizeof(*cpus->cpu));
	json_array_foreach(v, i, e)
	{
		long long cpu = get_int(p, e, line, "cpus", 0, INT_MAX);

		if (p->nr_cpus && cpu >= p->nr_cpus)
			rtapp_fail(p, line, "CPU %lld in 'cpus' is beyond the machine (CPUs 0..%u)",
				   cpu, p->nr_cpus - 1);
		cpus->cpu[i] = (unsigned int)cpu;
	}
	qsort(cpus->cpu, n, sizeof(*cpus->cpu), cmp_uint);
	cpus->nr = 0;
	for (i = 0; i < n; i++) {
		if (!cpus->nr || cpus->cpu[cpus->nr - 1] != cpus->cpu[i])
			cpus->cpu[cpus->nr++] = cpus->cpu[i];
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
		rtapp_fail(p, line, "phase '%s' of task '%s' has no events", ph->name,
			   p->wl->tasks[p->task].name);
	ph->events = rtapp_zalloc(p, pr->nr_events, sizeof(*ph->events));
	ph->nr_events = pr->nr_events;
	p->nr_held = 0;
	json_object_foreach(obj, key, val)
	{
		const struct rtapp_event_key *entry = rtapp_event_key(rtapp_key_name(key, name));
		int i;

		for (i = 0; i < NR_PROPS && strcmp(name, prop_names[i]); i++)
			;
		if (i < NR_PROPS || !entry)
			continue;
		rtapp_parse_event(p, &ph->events[n++], entry, val, rtapp_key_line(key));
	}
	if (p->nr_held)
		rtapp_fail(p, p->held_line[0],
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
		rtapp_fail(p, line, "%s must be an object", what);
	scan_keys(p, obj, PHASE_PROPS, what, &pr);
	ph->loop = 1;
	if (pr.val[P_LOOP]) {
		if (json_is_integer(pr.val[P_LOOP]) && json_integer_value(pr.val[P_LOOP]) == -1)
			rtapp_fail(p, pr.line[P_LOOP],
				   "a phase cannot loop forever: give its task "
				   "\"loop\": -1 instead");
		ph->loop = get_int(p, pr.val[P_LOOP], pr.line[P_LOOP], "loop", 1, INT64_MAX);
	}
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
		rtapp_fail(p, line, "\"phases\" must be an object of one or more phases");
	t->phases = rtapp_zalloc(p, json_object_size(phases), sizeof(*t->phases));
	t->nr_phases = (unsigned int)json_object_size(phases);
	json_object_foreach(phases, key, val)
	{
		struct wl_phase *ph = &t->phases[n++];

		ph->name = rtapp_strdup(p, rtapp_key_name(key, name));
		parse_phase(p, ph, val, rtapp_key_line(key));
	}
}

/* A task's "loop": a count, or -1 (also the default) for as long as the run lasts. */
static int64_t task_loop(struct parser *p, const struct props *pr)
{
	long long loop;

	if (!pr->val[P_LOOP])
		return WL_LOOP_FOREVER;
	loop = get_int(p, pr->val[P_LOOP], pr->line[P_LOOP], "loop", -1, INT64_MAX);
	if (!loop)
		rtapp_fail(p, pr->line[P_LOOP], "'loop' is 0: give -1 (forever) or a count");
	return loop < 0 ? WL_LOOP_FOREVER : loop;
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
		t->delay_ns = rtapp_get_time(p, pr.val[P_DELAY], pr.line[P_DELAY], "delay");
	if (pr.val[P_CPUS])
		get_cpus(p, pr.val[P_CPUS], pr.line[P_CPUS], &t->cpus);
	/* Fulcrum's own key, not rt-app's: the working set fulcrum-sim's --cost charges. */
	if (pr.val[P_WS_KB]) {
		t->ws_kb = get_int(p, pr.val[P_WS_KB], pr.line[P_WS_KB], "ws_kb", 0, 1 << 24);
		t->ws_given = true;
	}
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
		t->phases = rtapp_zalloc(p, 1, sizeof(*t->phases));
		t->nr_phases = 1;
		t->phases[0].name = rtapp_strdup(p, "");
		t->phases[0].loop = 1;
		t->loop = task_loop(p, &pr);
		if (t->loop != WL_LOOP_FOREVER) {
			t->phases[0].loop = t->loop;
			t->loop = 1;
		}
		if (!pr.nr_events)
			rtapp_fail(p, line, "task '%s' has neither events nor \"phases\"", t->name);
		parse_events(p, &t->phases[0], obj, &pr, line);
		return;
	}

	if (pr.nr_events)
		rtapp_fail(p, pr.first_event_line,
			   "task '%s' has events beside \"phases\": move them into a "
			   "phase",
			   t->name);
	t->loop = task_loop(p, &pr);
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
		rtapp_fail(p, line, "\"global\" must be an object");
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
				rtapp_fail(p, kl,
					   "unsupported key '%s': memory and I/O work is not "
					   "simulated",
					   name);
			rtapp_fail(p, kl, "unknown key '%s' in \"global\"", name);
		}
		if (seen[i])
			rtapp_fail(p, kl, "'%s' given twice in \"global\" (first on line %u)", name,
				   seen[i]);
		seen[i] = kl;
		if (!strcmp(name, "duration")) {
			long long sec = get_int(p, val, kl, "duration", -1, INT64_MAX / NS_PER_SEC);

			if (!sec)
				rtapp_fail(p, kl,
					   "'duration' is 0: give seconds, or -1 for no limit");
			g->duration_ns = sec < 0 ? WL_DURATION_UNBOUNDED : sec * NS_PER_SEC;
		} else if (!strcmp(name, "default_policy")) {
			g->default_policy = get_policy(p, val, kl, "default_policy");
		} else if (!strcmp(name, "calibration")) {
			/* A number is ns per loop; a string names the CPU to calibrate on. */
			if (json_is_string(val)) {
				const char *s = json_string_value(val);

				if (strncmp(s, "CPU", 3) || !s[3] ||
				    strspn(s + 3, "0123456789") != strlen(s + 3))
					rtapp_fail(p, kl,
						   "'calibration' is \"%s\": a number or \"CPUn\"",
						   s);
			} else {
				g->calibration_ns = get_int(p, val, kl, "calibration", 1, INT_MAX);
			}
		} else if (!json_is_boolean(val)) {
			rtapp_fail(p, kl, "'pi_enabled' must be true or false");
		} else if (json_is_true(val)) {
			rtapp_fail(p, kl,
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
		rtapp_fail(p, line, "\"tasks\" must be an object of one or more tasks");
	wl->tasks = rtapp_zalloc(p, json_object_size(obj), sizeof(*wl->tasks));
	p->fork_line = rtapp_zalloc(p, json_object_size(obj), sizeof(*p->fork_line));
	p->barrier_line = rtapp_zalloc(p, json_object_size(obj), sizeof(*p->barrier_line));
	json_object_foreach(obj, key, val)
	{
		unsigned int kl = rtapp_key_line(key);
		struct wl_task *t = &wl->tasks[n];
		int other;

		rtapp_key_name(key, name);
		if (!*name)
			rtapp_fail(p, kl, "a task needs a name");
		other = rtapp_find_task(p, name);
		if (other >= 0)
			rtapp_fail(p, kl, "task '%s' is defined twice", name);
		if (!json_is_object(val))
			rtapp_fail(p, kl, "task '%s' must be an object", name);
		wl->nr_tasks = ++n; /* before anything is allocated, so that workload_free() sees it */
		t->name = rtapp_strdup(p, name);
		t->instances = read_instances(p, val);
		threads += t->instances;
	}
	n = 0;
	json_object_foreach(obj, key, val) parse_task(p, (int)n++, val, rtapp_key_line(key));
	if (!threads)
		rtapp_fail(p, line, "no task starts a thread: every \"instance\" is 0");
}

/* What can only be judged once every task is read. */
static void check_whole(struct parser *p)
{
	struct workload *wl = p->wl;

	for (unsigned int i = 0; i < wl->nr_resources; i++) {
		struct wl_resource *r = &wl->resources[i];
		struct res_note *note = &p->notes[i];

		if (r->kind == WL_RES_COND && note->wait_line && !note->woken)
			rtapp_fail(p, note->wait_line,
				   "nothing signals or broadcasts condition '%s', so "
				   "this wait never ends",
				   r->name);
		if (r->kind == WL_RES_SUSPEND && note->wait_line && !note->woken)
			rtapp_fail(p, note->wait_line,
				   "no event resumes task '%s', so this suspend never "
				   "ends",
				   r->name);
	}
	for (unsigned int t = 0; t < wl->nr_tasks; t++) {
		if (p->fork_line[t] && p->barrier_line[t])
			rtapp_fail(p, p->barrier_line[t],
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
				rtapp_fail(p, ev->line,
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
				rtapp_fail(p, kl, "\"%s\" given twice (first on line %u)", name,
					   *seen);
			*seen = kl;
			*(is_global ? &global : &tasks) = val;
		} else if (!strcmp(name, "resources")) {
			rtapp_fail(p, kl,
				   "unsupported key 'resources': resources are made when events "
				   "name them (rt-app keeps the section only for old files)");
		} else {
			rtapp_fail(p, kl, "unknown key '%s' at the top level", name);
		}
	}
	if (!tasks)
		rtapp_fail(p, 1, "no \"tasks\" object");
	if (global)
		parse_global(p, global, global_line);
	parse_tasks(p, tasks, tasks_line);
	check_whole(p);
	p->fork_state = rtapp_zalloc(p, p->wl->nr_tasks, 1);
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

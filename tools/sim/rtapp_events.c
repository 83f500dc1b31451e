/*
 * tools/sim/rtapp_events.c - rt-app's events, and the mutexes, condition
 * variables, barriers, timers and suspend points they name.
 *
 * Resources are made on first mention, as rt-app makes them, and found again
 * by name and kind. The checks here follow one phase in order (which mutexes
 * it holds at each event); what needs the whole file (is this condition ever
 * signalled?) is noted in struct res_note for rtapp.c to judge at the end.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "rtapp_json.h"
#include "rtapp_parser.h"

/*
 * Event keys, matched like rt-app by prefix ("run2", "lock_a"); the longest
 * name wins, so "runtime5" is a runtime event and not a run. A negative kind
 * is an rt-app event the simulator does not have, with the reason.
 */
static const struct rtapp_event_key event_keys[] = {
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

const struct rtapp_event_key *rtapp_event_key(const char *key)
{
	const struct rtapp_event_key *best = NULL;
	size_t best_len = 0;

	for (size_t i = 0; i < sizeof(event_keys) / sizeof(event_keys[0]); i++) {
		size_t n = strlen(event_keys[i].name);

		if (n > best_len && !strncmp(key, event_keys[i].name, n)) {
			best = &event_keys[i];
			best_len = n;
		}
	}
	return best;
}

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
			rtapp_fail(p, 0, "out of memory");
		wl->resources = res;
		notes = realloc(p->notes, cap * sizeof(*notes));
		if (!notes)
			rtapp_fail(p, 0, "out of memory");
		p->notes = notes;
		p->res_cap = cap;
	}
	r = &wl->resources[wl->nr_resources];
	memset(r, 0, sizeof(*r));
	memset(&p->notes[wl->nr_resources], 0, sizeof(p->notes[0]));
	r->kind = kind;
	r->task = -1;
	r->name = rtapp_strdup(p, name);
	p->notes[wl->nr_resources].owner = owner;
	p->notes[wl->nr_resources].last_task = -1;
	return (int)wl->nr_resources++;
}

int rtapp_find_task(struct parser *p, const char *name)
{
	for (unsigned int i = 0; i < p->wl->nr_tasks; i++) {
		if (!strcmp(p->wl->tasks[i].name, name))
			return (int)i;
	}
	return -1;
}

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
		rtapp_fail(p, line,
			   "'%s' is locked again while this phase holds it (since line %u): "
			   "the thread would deadlock",
			   p->wl->resources[mutex].name, p->held_line[h]);
	if (p->nr_held == p->held_cap) {
		unsigned int cap = p->held_cap ? 2 * p->held_cap : 8;
		int *held = realloc(p->held, cap * sizeof(*held));
		unsigned int *lines;

		if (!held)
			rtapp_fail(p, 0, "out of memory");
		p->held = held;
		lines = realloc(p->held_line, cap * sizeof(*lines));
		if (!lines)
			rtapp_fail(p, 0, "out of memory");
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
		rtapp_fail(p, line, "unlock of '%s' without a lock of it earlier in the same phase",
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
		rtapp_fail(p, line, "'timer' must be an object with \"ref\" and \"period\"");
	json_object_foreach(v, key, val)
	{
		unsigned int kl = rtapp_key_line(key);

		rtapp_key_name(key, name);
		if (!strcmp(name, "ref") && !ref) {
			ref = rtapp_get_str(p, val, kl, "ref");
		} else if (!strcmp(name, "period") && !seen_period) {
			ev->duration_ns = rtapp_get_time(p, val, kl, "period");
			seen_period = true;
		} else if (!strcmp(name, "mode")) {
			const char *mode = rtapp_get_str(p, val, kl, "mode");

			if (strcmp(mode, "relative") && strcmp(mode, "absolute"))
				rtapp_fail(p, kl, "timer mode '%s': \"relative\" or \"absolute\"",
					   mode);
			absolute = !strcmp(mode, "absolute");
		} else {
			rtapp_fail(p, kl, "unknown or repeated key '%s' in a timer", name);
		}
	}
	if (!ref || !seen_period)
		rtapp_fail(p, line, "a timer needs \"ref\" and \"period\"");
	/* rt-app: a name beginning with "unique" is one timer per thread of this task. */
	if (!strncmp(ref, "unique", strlen("unique")))
		ev->res = resource(p, ref, WL_RES_TIMER, p->task);
	else
		ev->res = resource(p, ref, WL_RES_TIMER, -1);
	r = &p->wl->resources[ev->res];
	note = &p->notes[ev->res];
	r->per_thread = note->owner >= 0;
	if (note->mode_line && r->absolute != absolute)
		rtapp_fail(p, line,
			   "timer '%s' is %s here but %s on line %u: give every use one mode", ref,
			   absolute ? "absolute" : "relative",
			   r->absolute ? "absolute" : "relative", note->mode_line);
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
		rtapp_fail(p, line, "'wait' must be an object with \"ref\" and \"mutex\"");
	json_object_foreach(v, key, val)
	{
		unsigned int kl = rtapp_key_line(key);

		rtapp_key_name(key, name);
		if (!strcmp(name, "ref") && !ref)
			ref = rtapp_get_str(p, val, kl, "ref");
		else if (!strcmp(name, "mutex") && !mutex)
			mutex = rtapp_get_str(p, val, kl, "mutex");
		else
			rtapp_fail(p, kl, "unknown or repeated key '%s' in a wait", name);
	}
	if (!ref || !mutex)
		rtapp_fail(p, line, "a wait needs \"ref\" (the condition) and \"mutex\"");
	ev->res = resource(p, ref, WL_RES_COND, -1);
	ev->mutex = resource(p, mutex, WL_RES_MUTEX, -1);
	if (held_index(p, ev->mutex) < 0)
		rtapp_fail(p, line,
			   "wait on '%s' releases '%s', which this phase has not locked before it",
			   ref, mutex);
	if (!p->notes[ev->res].wait_line)
		p->notes[ev->res].wait_line = line;
}

void rtapp_parse_event(struct parser *p, struct wl_event *ev, const struct rtapp_event_key *key,
		       json_t *v, unsigned int line)
{
	struct wl_task *t = &p->wl->tasks[p->task];
	const char *what = key->name;
	const char *s;
	int other;

	ev->kind = (enum wl_event_kind)key->kind;
	ev->line = line;
	ev->res = ev->mutex = ev->task = -1;
	switch (ev->kind) {
	case WL_EV_RUN:
	case WL_EV_RUNTIME:
	case WL_EV_SLEEP:
		ev->duration_ns = rtapp_get_time(p, v, line, what);
		break;
	case WL_EV_TIMER:
		parse_timer(p, ev, v, line);
		break;
	case WL_EV_WAIT:
		parse_wait(p, ev, v, line);
		break;
	case WL_EV_LOCK:
		ev->res = resource(p, rtapp_get_str(p, v, line, what), WL_RES_MUTEX, -1);
		take_lock(p, ev->res, line);
		break;
	case WL_EV_UNLOCK:
		ev->res = resource(p, rtapp_get_str(p, v, line, what), WL_RES_MUTEX, -1);
		drop_lock(p, ev->res, line);
		break;
	case WL_EV_SIGNAL:
	case WL_EV_BROAD:
		ev->res = resource(p, rtapp_get_str(p, v, line, what), WL_RES_COND, -1);
		p->notes[ev->res].woken = line;
		break;
	case WL_EV_BARRIER: {
		struct res_note *note;

		s = rtapp_get_str(p, v, line, what);
		ev->res = resource(p, s, WL_RES_BARRIER, -1);
		note = &p->notes[ev->res];
		/* rt-app counts one more thread per mention: one name is one sync point. */
		if (note->last_task == p->task)
			rtapp_fail(p, line,
				   "task '%s' names barrier '%s' twice (also on line %u); "
				   "rt-app counts each mention as another thread to wait for, so "
				   "give each sync point its own name",
				   t->name, s, note->last_line);
		note->last_task = p->task;
		note->last_line = line;
		if (p->wl->resources[ev->res].barrier_users > UINT_MAX - t->instances)
			rtapp_fail(p, line, "too many threads at barrier '%s'", s);
		p->wl->resources[ev->res].barrier_users += t->instances;
		if (!p->barrier_line[p->task])
			p->barrier_line[p->task] = line;
		break;
	}
	case WL_EV_SUSPEND:
		/* rt-app ignores the string: a thread always suspends at its own task's point. */
		s = rtapp_get_str(p, v, line, what);
		if (*s && strcmp(s, t->name))
			rtapp_fail(p, line,
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
		s = rtapp_get_str(p, v, line, what);
		other = rtapp_find_task(p, s);
		if (other < 0)
			rtapp_fail(p, line, "'%s' names task '%s', which the file does not define",
				   what, s);
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

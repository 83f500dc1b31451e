/*
 * tools/sim/workload.c - names, release and the text form of a workload
 * (workload.h). The text form is what build/tools/rtapp-dump prints and the
 * rt-app tests compare: change it only together with tests/data/rtapp/.
 */
#include <stdlib.h>
#include <string.h>

#include "workload.h"

const char *wl_policy_name(enum wl_policy policy)
{
	switch (policy) {
	case WL_POLICY_OTHER:
		return "SCHED_OTHER";
	case WL_POLICY_BATCH:
		return "SCHED_BATCH";
	case WL_POLICY_IDLE:
		return "SCHED_IDLE";
	case WL_POLICY_FIFO:
		return "SCHED_FIFO";
	case WL_POLICY_RR:
		return "SCHED_RR";
	}
	return "?";
}

const char *wl_event_name(enum wl_event_kind kind)
{
	static const char *const names[] = {
		[WL_EV_RUN] = "run",	   [WL_EV_RUNTIME] = "runtime", [WL_EV_SLEEP] = "sleep",
		[WL_EV_TIMER] = "timer",   [WL_EV_BARRIER] = "barrier", [WL_EV_LOCK] = "lock",
		[WL_EV_UNLOCK] = "unlock", [WL_EV_WAIT] = "wait",	[WL_EV_SIGNAL] = "signal",
		[WL_EV_BROAD] = "broad",   [WL_EV_SUSPEND] = "suspend", [WL_EV_RESUME] = "resume",
		[WL_EV_FORK] = "fork",
	};

	return (unsigned int)kind < sizeof(names) / sizeof(names[0]) ? names[kind] : "?";
}

const char *wl_resource_kind_name(enum wl_resource_kind kind)
{
	switch (kind) {
	case WL_RES_MUTEX:
		return "mutex";
	case WL_RES_COND:
		return "cond";
	case WL_RES_BARRIER:
		return "barrier";
	case WL_RES_TIMER:
		return "timer";
	case WL_RES_SUSPEND:
		return "suspend";
	}
	return "?";
}

void workload_free(struct workload *wl)
{
	for (unsigned int i = 0; i < wl->nr_resources; i++)
		free(wl->resources[i].name);
	free(wl->resources);
	for (unsigned int t = 0; t < wl->nr_tasks; t++) {
		struct wl_task *task = &wl->tasks[t];

		for (unsigned int p = 0; p < task->nr_phases; p++) {
			free(task->phases[p].name);
			free(task->phases[p].events);
			free(task->phases[p].cpus.cpu);
		}
		free(task->phases);
		free(task->cpus.cpu);
		free(task->name);
	}
	free(wl->tasks);
	memset(wl, 0, sizeof(*wl));
}

/* ---------------------------------------------------------------- text form */

/* A name in double quotes, with quotes, backslashes and control bytes escaped. */
static void print_name(FILE *out, const char *s)
{
	fputc('"', out);
	for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
		if (*c == '"' || *c == '\\')
			fprintf(out, "\\%c", *c);
		else if (*c < 0x20 || *c == 0x7f)
			fprintf(out, "\\x%02x", *c);
		else
			fputc(*c, out);
	}
	fputc('"', out);
}

static void print_cpus(FILE *out, const struct wl_cpus *cpus)
{
	if (!cpus->nr) {
		fputs("all", out);
		return;
	}
	for (unsigned int i = 0; i < cpus->nr; i++)
		fprintf(out, "%s%u", i ? "," : "", cpus->cpu[i]);
}

static void print_loop(FILE *out, int64_t loop)
{
	if (loop == WL_LOOP_FOREVER)
		fputs("forever", out);
	else
		fprintf(out, "%lld", (long long)loop);
}

/* " 3 \"name\"": a resource or task reference, by index and name. */
static void print_ref(FILE *out, const char *what, int index, const char *name)
{
	fprintf(out, " %s %d ", what, index);
	print_name(out, name);
}

static void print_event(FILE *out, const struct workload *wl, const struct wl_event *ev)
{
	fprintf(out, "      %s", wl_event_name(ev->kind));
	switch (ev->kind) {
	case WL_EV_RUN:
	case WL_EV_RUNTIME:
	case WL_EV_SLEEP:
		fprintf(out, " %lld ns", (long long)ev->duration_ns);
		break;
	case WL_EV_TIMER:
		fprintf(out, " %d ", ev->res);
		print_name(out, wl->resources[ev->res].name);
		fprintf(out, " period %lld ns", (long long)ev->duration_ns);
		break;
	case WL_EV_WAIT:
		print_ref(out, "cond", ev->res, wl->resources[ev->res].name);
		print_ref(out, "mutex", ev->mutex, wl->resources[ev->mutex].name);
		break;
	case WL_EV_FORK:
		print_ref(out, "task", ev->task, wl->tasks[ev->task].name);
		break;
	default:
		fprintf(out, " %d ", ev->res);
		print_name(out, wl->resources[ev->res].name);
		break;
	}
	fprintf(out, " (line %u)\n", ev->line);
}

void workload_print(FILE *out, const struct workload *wl)
{
	const struct wl_global *g = &wl->global;

	fputs("global duration ", out);
	if (g->duration_ns == WL_DURATION_UNBOUNDED)
		fputs("unbounded", out);
	else
		fprintf(out, "%lld ns", (long long)g->duration_ns);
	fprintf(out, " default_policy %s calibration %lld ns\n", wl_policy_name(g->default_policy),
		(long long)g->calibration_ns);

	for (unsigned int i = 0; i < wl->nr_resources; i++) {
		const struct wl_resource *r = &wl->resources[i];

		fprintf(out, "resource %u %s ", i, wl_resource_kind_name(r->kind));
		print_name(out, r->name);
		if (r->kind == WL_RES_BARRIER)
			fprintf(out, " users %u", r->barrier_users);
		if (r->kind == WL_RES_TIMER)
			fprintf(out, " %s %s", r->per_thread ? "per-thread" : "shared",
				r->absolute ? "absolute" : "relative");
		if (r->kind == WL_RES_SUSPEND)
			fprintf(out, " task %d", r->task);
		fputc('\n', out);
	}

	for (unsigned int t = 0; t < wl->nr_tasks; t++) {
		const struct wl_task *task = &wl->tasks[t];

		fprintf(out, "task %u ", t);
		print_name(out, task->name);
		fprintf(out, " instances %u loop ", task->instances);
		print_loop(out, task->loop);
		fprintf(out, " delay %lld ns policy %s priority %d cpus ",
			(long long)task->delay_ns, wl_policy_name(task->policy), task->priority);
		print_cpus(out, &task->cpus);
		fputc('\n', out);
		for (unsigned int p = 0; p < task->nr_phases; p++) {
			const struct wl_phase *ph = &task->phases[p];

			fprintf(out, "  phase %u ", p);
			print_name(out, ph->name);
			fputs(" loop ", out);
			print_loop(out, ph->loop);
			if (ph->set_cpus) {
				fputs(" cpus ", out);
				print_cpus(out, &ph->cpus);
			}
			if (ph->set_sched)
				fprintf(out, " policy %s priority %d", wl_policy_name(ph->policy),
					ph->priority);
			fputc('\n', out);
			for (unsigned int e = 0; e < ph->nr_events; e++)
				print_event(out, wl, &ph->events[e]);
		}
	}
}

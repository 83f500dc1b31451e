/*
 * tools/sim/rtapp_parser.h - what rtapp.c (files, tasks, phases) and
 * rtapp_events.c (events and the resources they name) share while they walk
 * one rt-app file. Private to the front end; rtapp.h is its interface.
 */
#ifndef FULCRUM_SIM_RTAPP_PARSER_H
#define FULCRUM_SIM_RTAPP_PARSER_H

#include <setjmp.h>
#include <stdint.h>

#include <jansson.h>

#include "workload.h"

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

/*
 * An event key: rt-app's event names, matched by prefix. kind < 0 marks an
 * rt-app event the simulator does not have; why says so.
 */
struct rtapp_event_key {
	const char *name;
	int kind;
	const char *why;
};

/* Writes "NAME:LINE: message" (no line when 0) into the caller's buffer and unwinds. */
_Noreturn void rtapp_fail(struct parser *p, unsigned int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* calloc() and strdup() that fail the parse when memory runs out. */
void *rtapp_zalloc(struct parser *p, size_t n, size_t size);
char *rtapp_strdup(struct parser *p, const char *s);

/* A time in microseconds (rt-app's unit), checked and returned in nanoseconds. */
int64_t rtapp_get_time(struct parser *p, json_t *v, unsigned int line, const char *what);

/* A string value, or a failed parse naming `what`. */
const char *rtapp_get_str(struct parser *p, json_t *v, unsigned int line, const char *what);

/* The event that key names (longest matching prefix wins), or NULL. */
const struct rtapp_event_key *rtapp_event_key(const char *key);

/* Index of the task called name, or -1. */
int rtapp_find_task(struct parser *p, const char *name);

/*
 * One event of the current task's current phase, from its key's entry and
 * value: resources it names are found or made, locks tracked through the
 * phase, and what only the whole file can judge noted for later.
 */
void rtapp_parse_event(struct parser *p, struct wl_event *ev, const struct rtapp_event_key *key,
		       json_t *v, unsigned int line);

#endif /* FULCRUM_SIM_RTAPP_PARSER_H */

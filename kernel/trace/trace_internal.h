/*
 * The tracer's insides, shared by trace.c (rings and control),
 * trace_events.c (the tracepoints' bodies) and trace_output.c (ftrace
 * text). Also built on the host: tests/unit/test_trace.c formats records.
 */
#ifndef FULCRUM_TRACE_TRACE_INTERNAL_H
#define FULCRUM_TRACE_TRACE_INTERNAL_H

#include "lib/types.h"
#include "machine.h"
#include "sched/task.h"
#include "trace/trace.h"

#define TRACE_STR_LEN 40 /* the second name of a record: a comm, a file name, a domain */
#define TRACE_ARGS    6

/* The context bits of a record, as Linux's flags field shows them (docs/tracing.md). */
#define TRACE_FLAG_IRQS_OFF	0x01 /* 'd' */
#define TRACE_FLAG_NEED_RESCHED 0x02 /* 'N' */
#define TRACE_FLAG_HARDIRQ	0x04 /* 'h' */

/* prev_state codes of sched_switch, printed as Linux prints them. */
enum trace_prev_state {
	TRACE_STATE_R,	    /* still runnable: it gave up the CPU (yield) */
	TRACE_STATE_R_PLUS, /* preempted */
	TRACE_STATE_S,	    /* sleeping, interruptible */
	TRACE_STATE_D,	    /* sleeping, uninterruptible */
	TRACE_STATE_Z,	    /* dead: its last switch */
};

/*
 * One event, 96 bytes: the common part Linux keeps for every event (time,
 * the running task's pid and name, flags, preempt depth) and the event's
 * fields. The CPU is the ring's. Formatted only at dump time.
 */
/* A word at any address: names are copied as two words, and a comm need not be aligned. */
typedef u64 __attribute__((aligned(1), may_alias)) unaligned_u64;

struct trace_record {
	u64 ts;	 /* arch_clock_ns(): ns since kernel entry, one clock for all CPUs */
	s32 pid; /* the task running when the event was recorded */
	u8 event;
	u8 flags;   /* TRACE_FLAG_* */
	u8 preempt; /* the running task's preempt_count, low nibble printed */
	u8 pad;
	s32 arg[TRACE_ARGS];
	char comm[TASK_COMM_LEN]; /* the running task's name */
	char str[TRACE_STR_LEN];  /* the event's other name, NUL-terminated */
};
_Static_assert(sizeof(struct trace_record) == 96, "trace record size");
/* sched_affinity keeps the allowed CPUs as a bitmap in str, this many CPUs a record. */
#define TRACE_AFFINITY_CPUS 256
_Static_assert(TRACE_AFFINITY_CPUS / 8 <= TRACE_STR_LEN, "a mask chunk fits a record's str");

/*
 * A CPU's ring. Only its own CPU writes it, with interrupts off: the
 * record first, then head (release). A dump reads it with tracing paused
 * and waits for `writing` to drop, so it never sees half a record.
 */
struct trace_ring {
	struct trace_record *rec;
	u32 size;    /* records it holds */
	u64 head;    /* records written since the last clear or dump */
	u64 entries; /* records written since the trace began (the header's "written") */
	u64 lost;    /* records refused by a full ring in trace_full=stop mode */
	volatile u32 writing;
};

/* The rings, by CPU, and how many CPUs have one (trace.c). */
extern struct trace_ring trace_rings[MAX_CPUS];
extern u32 trace_nr_cpus;
extern u32 trace_event_mask; /* bit per enum trace_event */
extern bool trace_overwrite; /* trace_full=overwrite: a full ring drops its oldest record */

const char *trace_event_name(enum trace_event ev);

/*
 * Control helpers (trace.c). Start, stop, clear and dump do not nest:
 * each claims the control first and gives up (-EBUSY) if it is taken.
 * trace_pause turns recording off and waits until no CPU is inside a
 * record; it returns whether recording was on.
 */
bool trace_ctl_claim(void);
void trace_ctl_release(void);
bool trace_pause(void);
void trace_reset_rings(void);

/* A trace (re)starts: the output side notes the wasted-idle counters to subtract (trace_output.c). */
void trace_output_note_start(void);

/*
 * A record slot on this CPU's ring for event ev, its common part filled
 * in; NULL if ev is not traced or a full ring refuses it. Interrupts stay
 * off until trace_commit(ring, irq).
 */
struct trace_record *trace_reserve(enum trace_event ev, struct trace_ring **ring, unsigned long *irq);
void trace_commit(struct trace_ring *ring, unsigned long irq);

/*
 * Formats r (recorded on cpu) as one line of Linux's `trace` file, with its
 * newline, into buf; returns the length (truncated to size - 1).
 */
int trace_format_record(char *buf, size_t size, const struct trace_record *r, u32 cpu);

/* Linux's header of the `trace` file for the nop tracer, for entries/written events and ncpus. */
int trace_format_header(char *buf, size_t size, u64 entries, u64 written, u32 ncpus);

#endif

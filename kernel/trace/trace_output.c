/*
 * Records to text, at dump time only: Linux 6.1's tracefs `trace` file
 * format (kernel/trace/trace_output.c's context columns, each event's
 * TP_printk fields), the CPUs' rings merged in time order, out through the
 * trace channel. docs/tracing.md describes every column.
 */
#include "trace/trace_internal.h"

#include <arch/smp.h>
#include <arch/trace.h>

#include "lib/errno.h"
#include "lib/printf.h"
#include "lib/string.h"
#include "printk.h"
#include "sched/sched.h"

#define TRACE_LINE_MAX	 768  /* sched_affinity of an odd/even split of 256 CPUs: ~560 */
#define TRACE_HEADER_MAX 1024 /* the buffer dumps format in: the header is the longest text */

static bool header_sent;	      /* the channel carries one trace: its header once */
static bool ever_started;	      /* a trace was started: the last dump has something to say */
static u64 wasted_at_start[MAX_CPUS]; /* rq->stats.wasted_idle_ns when it started */
static u64 dumped[MAX_CPUS];	      /* records written out by earlier dumps */

void trace_output_note_start(void)
{
	if (ever_started)
		return;
	ever_started = true;
	for (u32 cpu = 0; cpu < trace_nr_cpus; cpu++)
		if (cpu_rq(cpu))
			wasted_at_start[cpu] = cpu_rq(cpu)->stats.wasted_idle_ns;
}

/* A name as one key=value token: blanks, '=' and unprintable bytes become '_'. */
static void clean_name(char *dst, size_t size, const char *src)
{
	size_t i;

	for (i = 0; i + 1 < size && src[i]; i++)
		dst[i] = (src[i] <= ' ' || src[i] == '=' || src[i] > '~') ? '_' : src[i];
	if (size)
		dst[i] = '\0';
}

static const char *const state_names[] = {
	[TRACE_STATE_R] = "R", [TRACE_STATE_R_PLUS] = "R+", [TRACE_STATE_S] = "S",
	[TRACE_STATE_D] = "D", [TRACE_STATE_Z] = "Z",
};

static const char *const select_reasons[] = {
	[TRACE_SELECT_PREV] = "prev",
	[TRACE_SELECT_AFFINE] = "affine",
	[TRACE_SELECT_IDLE_SIBLING] = "idle_sibling",
	[TRACE_SELECT_IDLEST] = "idlest",
};

static const char *const balance_results[] = {
	[TRACE_BALANCE_BALANCED] = "balanced",
	[TRACE_BALANCE_MOVED] = "moved",
	[TRACE_BALANCE_FAILED] = "failed",
	[TRACE_BALANCE_ACTIVE] = "active",
};

/* enum cpu_idle_type's order: CPU_IDLE, CPU_NOT_IDLE, CPU_NEWLY_IDLE. */
static const char *const idle_types[] = { "idle", "busy", "newidle" };

#define NAME_OF(table, i) ((unsigned)(i) < ARRAY_SIZE(table) ? table[i] : "?")

/* The event's fields, after "name: ". */
static int format_fields(char *buf, size_t size, const struct trace_record *r, u32 cpu)
{
	char a[TRACE_STR_LEN], b[TRACE_STR_LEN];
	const s32 *v = r->arg;

	clean_name(a, sizeof(a), r->comm);
	clean_name(b, sizeof(b), r->str);
	/* An idle task is swapper/<CPU> (its comm is cut short past 9); it only switches on its own. */
	if (r->event == TRACE_SCHED_SWITCH && v[0] == 0)
		ksnprintf(a, sizeof(a), "swapper/%u", cpu);
	if (r->event == TRACE_SCHED_SWITCH && v[3] == 0)
		ksnprintf(b, sizeof(b), "swapper/%u", cpu);
	switch (r->event) {
	case TRACE_SCHED_SWITCH:
		return ksnprintf(buf, size,
				 "prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%s ==> "
				 "next_comm=%s next_pid=%d next_prio=%d",
				 a, v[0], v[1], NAME_OF(state_names, v[2]), b, v[3], v[4]);
	case TRACE_SCHED_WAKING:
	case TRACE_SCHED_WAKEUP:
	case TRACE_SCHED_WAKEUP_NEW:
		return ksnprintf(buf, size, "comm=%s pid=%d prio=%d target_cpu=%03d", b, v[0], v[1],
				 v[2]);
	case TRACE_SCHED_MIGRATE_TASK:
		return ksnprintf(buf, size, "comm=%s pid=%d prio=%d orig_cpu=%d dest_cpu=%d", b,
				 v[0], v[1], v[2], v[3]);
	case TRACE_SCHED_PROCESS_FORK:
		return ksnprintf(buf, size, "comm=%s pid=%d child_comm=%s child_pid=%d", a, v[0], b,
				 v[1]);
	case TRACE_SCHED_PROCESS_EXEC:
		return ksnprintf(buf, size, "filename=%s pid=%d old_pid=%d", b, v[0], v[1]);
	case TRACE_SCHED_PROCESS_EXIT:
		return ksnprintf(buf, size, "comm=%s pid=%d prio=%d", b, v[0], v[1]);
	case TRACE_CPU_IDLE:
		return ksnprintf(buf, size, "state=%u cpu_id=%u", (u32)v[0], (u32)v[1]);
	case TRACE_SCHED_SELECT:
		return ksnprintf(buf, size,
				 "pid=%d prev_cpu=%d this_cpu=%d target=%d sd_level=%s reason=%s",
				 v[0], v[1], v[2], v[3], b, NAME_OF(select_reasons, v[4]));
	case TRACE_SCHED_BALANCE:
		return ksnprintf(buf, size,
				 "cpu=%d domain=%s idle_type=%s imbalance=%d busiest=%d moved=%d "
				 "result=%s",
				 v[0], b, NAME_OF(idle_types, v[1]), v[2], v[3], v[4],
				 NAME_OF(balance_results, v[5]));
	case TRACE_SCHED_TOPOLOGY:
		return ksnprintf(buf, size, "generation=%u nr_cpus=%u levels=%u", (u32)v[0],
				 (u32)v[1], (u32)v[2]);
	case TRACE_SCHED_WATCHDOG: {
		/*
		 * str is "<kind> <comm>"; kinds have underscores but no blank, so the
		 * raw record's first blank is the split (in b it became '_').
		 */
		const char *sep = strchr(r->str, ' ');
		const char *comm = "-";

		if (sep && (size_t)(sep - r->str) < sizeof(b) - 1) {
			b[sep - r->str] = '\0';
			comm = b + (sep - r->str) + 1;
		}
		return ksnprintf(buf, size, "kind=%s cpu=%d pid=%d comm=%s ms=%d", b, v[0], v[1],
				 comm, v[2]);
	}
	case TRACE_SCHED_AFFINITY: {
		/* The chunk's CPUs, renumbered from its base (arg 1). */
		struct cpumask mask = CPUMASK_EMPTY;
		const u8 *bits = (const u8 *)r->str;
		int len = ksnprintf(buf, size, "pid=%d %s=", v[0],
				    v[1] ? "cpus_allowed_more" : "cpus_allowed");

		for (u32 i = 0; i < TRACE_AFFINITY_CPUS; i++)
			if (bits[i / 8] & (1U << (i % 8)) && (u32)v[1] + i < MAX_CPUS)
				cpumask_set_cpu((u32)v[1] + i, &mask);
		if (len < 0 || (size_t)len >= size)
			return len;
		return len + cpumask_print(buf + len, size - (size_t)len, &mask);
	}
	default:
		return ksnprintf(buf, size, "?");
	}
}

int trace_format_record(char *buf, size_t size, const struct trace_record *r, u32 cpu)
{
	char comm[TASK_COMM_LEN], flags[6];
	u64 us = (r->ts + 500) / 1000; /* Linux rounds ns to the nearest us (ns2usecs) */
	int len;

	if (r->pid == 0)
		ksnprintf(comm, sizeof(comm), "%s", "<idle>");
	else
		clean_name(comm, sizeof(comm), r->comm);
	flags[0] = (r->flags & TRACE_FLAG_IRQS_OFF) ? 'd' : '.';
	flags[1] = (r->flags & TRACE_FLAG_NEED_RESCHED) ? 'N' : '.';
	flags[2] = (r->flags & TRACE_FLAG_HARDIRQ) ? 'h' : '.';
	flags[3] = (r->preempt & 0xf) ? "0123456789abcdef"[r->preempt & 0xf] : '.';
	flags[4] = '.'; /* migrate-disable: Fulcrum has none */
	flags[5] = '\0';
	len = ksnprintf(buf, size, "%16s-%-7d [%03u] %s %5llu.%06llu: %s: ", comm, r->pid, cpu,
			flags, (unsigned long long)(us / 1000000),
			(unsigned long long)(us % 1000000), trace_event_name(r->event));
	if (len < 0 || (size_t)len >= size)
		return size ? (int)size - 1 : 0;
	len += format_fields(buf + len, size - (size_t)len, r, cpu);
	if ((size_t)len + 1 >= size)
		len = (int)size - 2;
	buf[len++] = '\n';
	buf[len] = '\0';
	return len;
}

int trace_format_header(char *buf, size_t size, u64 entries, u64 written, u32 ncpus)
{
	return ksnprintf(buf, size,
			 "# tracer: nop\n"
			 "#\n"
			 "# entries-in-buffer/entries-written: %llu/%llu   #P:%u\n"
			 "#\n"
			 "#                                _-----=> irqs-off/BH-disabled\n"
			 "#                               / _----=> need-resched\n"
			 "#                              | / _---=> hardirq/softirq\n"
			 "#                              || / _--=> preempt-depth\n"
			 "#                              ||| / _-=> migrate-disable\n"
			 "#                              |||| /     delay\n"
			 "#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION\n"
			 "#              | |         |   |||||     |         |\n",
			 (unsigned long long)entries, (unsigned long long)written, ncpus);
}

/* ---------------------------------------------------------------- dumping */

/* Writes s as ksnprintf left it in a buffer of size bytes (len: what it returned). */
static void emit(const char *s, int len, size_t size)
{
	if (len <= 0 || !size)
		return;
	arch_trace_channel_write(s, (size_t)len < size ? (size_t)len : size - 1);
}

/*
 * Writes every held record, the CPUs merged by time, and empties the
 * rings. Tracing is paused (or the other CPUs are stopped). Returns the
 * number of records written.
 */
static u64 dump_rings(bool trailer)
{
	u64 next[MAX_CPUS], left[MAX_CPUS], held = 0, written = 0, out = 0;
	char line[TRACE_HEADER_MAX];

	for (u32 cpu = 0; cpu < trace_nr_cpus; cpu++) {
		const struct trace_ring *r = &trace_rings[cpu];
		u64 head = __atomic_load_n(&r->head, __ATOMIC_ACQUIRE);

		left[cpu] = head < r->size ? head : r->size;
		next[cpu] = head < r->size ? 0 : head % r->size; /* overwritten: the oldest slot */
		held += left[cpu];
		written += r->entries;
	}
	if (!header_sent) {
		emit(line, trace_format_header(line, sizeof(line), held, written, trace_nr_cpus),
		     sizeof(line));
		header_sent = true;
	}
	for (;;) {
		const struct trace_record *best = NULL;
		u32 best_cpu = 0;

		for (u32 cpu = 0; cpu < trace_nr_cpus; cpu++) {
			const struct trace_record *rec;

			if (!left[cpu])
				continue;
			rec = &trace_rings[cpu].rec[next[cpu]];
			if (!best || rec->ts < best->ts) {
				best = rec;
				best_cpu = cpu;
			}
		}
		if (!best)
			break;
		emit(line, trace_format_record(line, TRACE_LINE_MAX, best, best_cpu), TRACE_LINE_MAX);
		if (++next[best_cpu] == trace_rings[best_cpu].size)
			next[best_cpu] = 0;
		left[best_cpu]--;
		dumped[best_cpu]++;
		out++;
	}
	trace_reset_rings();
	if (!trailer)
		return out;
	for (u32 cpu = 0; cpu < trace_nr_cpus; cpu++) {
		const struct trace_ring *r = &trace_rings[cpu];
		u64 total = cpu_rq(cpu) ? cpu_rq(cpu)->stats.wasted_idle_ns : 0;

		emit(line,
		     ksnprintf(line, sizeof(line),
			       "# fulcrum wasted_idle_ns cpu=%u ns=%llu since_boot=%llu\n", cpu,
			       (unsigned long long)(total - wasted_at_start[cpu]),
			       (unsigned long long)total),
		     sizeof(line));
		if (r->entries > dumped[cpu] || r->lost)
			emit(line,
			     ksnprintf(line, sizeof(line),
				       "# fulcrum lost_events cpu=%u overwritten=%llu refused=%llu\n",
				       cpu, (unsigned long long)(r->entries - dumped[cpu]),
				       (unsigned long long)r->lost),
			     sizeof(line));
	}
	return out;
}

long trace_dump(void)
{
	bool was;
	u64 n;

	if (!arch_trace_channel_present())
		return -ENODEV;
	if (!trace_ctl_claim())
		return -EBUSY;
	was = trace_pause();
	n = dump_rings(false);
	if (was)
		__atomic_store_n(&trace_active, true, __ATOMIC_SEQ_CST);
	trace_ctl_release();
	return (long)n;
}

void trace_dump_final(void)
{
	u64 held = 0, n;

	if (!ever_started)
		return;
	__atomic_store_n(&trace_active, false, __ATOMIC_SEQ_CST);
	/* The other CPUs are stopped: one caught inside a record never committed it. */
	for (u32 cpu = 0; cpu < trace_nr_cpus; cpu++) {
		const struct trace_ring *r = &trace_rings[cpu];

		held += r->head < r->size ? r->head : r->size;
	}
	if (!arch_trace_channel_present()) {
		pr_info("trace: %llu events held, no channel to write them to (isa-debugcon at 0xe9: tools/qemu-run --trace FILE)\n",
			(unsigned long long)held);
		return;
	}
	n = dump_rings(true);
	pr_info("trace: %llu events written to isa-debugcon 0xe9\n", (unsigned long long)n);
}

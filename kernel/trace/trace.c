/*
 * The tracer's rings and controls: a ring of fixed-size records per CPU,
 * the trace= / trace_buf_kb= / trace_full= boot options, start, stop,
 * clear, and /proc/fulcrum/trace. Recording is lock-free: a CPU writes
 * only its own ring, with interrupts off. The text is made at dump time
 * (trace_output.c); docs/tracing.md is the user's guide.
 */
#include "trace/trace_internal.h"

#include <arch/cpu.h>
#include <arch/smp.h>
#include <arch/time.h>
#include <arch/trace.h>

#include "cmdline.h"
#include "fs/procfs.h"
#include "fs/seqbuf.h"
#include "lib/errno.h"
#include "lib/string.h"
#include "mm/heap.h"
#include "printk.h"
#include "sched/sched.h"

#define TRACE_BUF_KB_DEFAULT 1024

bool trace_active;
struct trace_ring trace_rings[MAX_CPUS];
u32 trace_nr_cpus;
u32 trace_event_mask;
bool trace_overwrite = true;

static const char *const event_names[TRACE_NR_EVENTS] = {
	[TRACE_SCHED_SWITCH] = "sched_switch",
	[TRACE_SCHED_WAKING] = "sched_waking",
	[TRACE_SCHED_WAKEUP] = "sched_wakeup",
	[TRACE_SCHED_WAKEUP_NEW] = "sched_wakeup_new",
	[TRACE_SCHED_MIGRATE_TASK] = "sched_migrate_task",
	[TRACE_SCHED_PROCESS_FORK] = "sched_process_fork",
	[TRACE_SCHED_PROCESS_EXEC] = "sched_process_exec",
	[TRACE_SCHED_PROCESS_EXIT] = "sched_process_exit",
	[TRACE_CPU_IDLE] = "cpu_idle",
	[TRACE_SCHED_SELECT] = "sched_select",
	[TRACE_SCHED_BALANCE] = "sched_balance",
	[TRACE_SCHED_TOPOLOGY] = "sched_topology_rebuild",
	[TRACE_SCHED_WATCHDOG] = "sched_watchdog",
	[TRACE_SCHED_AFFINITY] = "sched_affinity",
};

#define TRACE_ALL_EVENTS ((1U << TRACE_NR_EVENTS) - 1)

const char *trace_event_name(enum trace_event ev)
{
	return (unsigned)ev < TRACE_NR_EVENTS ? event_names[ev] : "?";
}

/* ---------------------------------------------------------------- boot options */

static bool trace_at_boot;  /* trace= was given: record from boot on */
static bool mask_from_boot; /* trace= has set at least one item of the mask */
static s64 trace_buf_kb = TRACE_BUF_KB_DEFAULT;
static const char *trace_full = "overwrite";
static const char *const trace_full_choices[] = { "overwrite", "stop", NULL };

/* One item of trace=: "sched" (every event) or an event's name. */
static int trace_set_item(const char *item, size_t len)
{
	u32 bit = 0;

	if (strcmp(item, "sched") == 0 || strcmp(item, "all") == 0) {
		bit = TRACE_ALL_EVENTS;
	} else {
		for (u32 i = 0; i < TRACE_NR_EVENTS; i++)
			if (strcmp(item, event_names[i]) == 0)
				bit = 1U << i;
	}
	if (!bit) {
		pr_warn("trace: no event '%s' (sched, or one of sched_switch ... sched_affinity; docs/tracing.md)\n",
			item);
		return -1;
	}
	if (!mask_from_boot)
		trace_event_mask = 0;
	mask_from_boot = true;
	trace_event_mask |= bit;
	trace_at_boot = true;
	return 0;
}
BOOT_OPTION_LIST(trace, "trace", trace_set_item,
		 "record scheduler events from boot: sched (all), or a comma list of event names");
/* At most 4096: a ring is one allocation, and the page allocator's largest block is 4 MiB. */
BOOT_OPTION_SIZE(trace_buf_kb, "trace_buf_kb", &trace_buf_kb, 4, 4096,
		 "KiB of trace records per CPU (96 bytes each; default 1024, at most 4096)");
BOOT_OPTION_STRING(trace_full, "trace_full", &trace_full, trace_full_choices,
		   "what a full trace ring does: overwrite (its oldest records) or stop (recording)");

/* ---------------------------------------------------------------- recording */

struct trace_record *trace_reserve(enum trace_event ev, struct trace_ring **ring, unsigned long *irq)
{
	unsigned long flags = arch_irq_save();
	u32 cpu = arch_cpu_id();
	struct trace_ring *r = &trace_rings[cpu];
	struct trace_record *rec;
	struct task *curr;
	u32 slot;

	if (!(trace_event_mask & (1U << ev)) || cpu >= trace_nr_cpus || !r->rec)
		goto refuse;
	/* Announce the write before looking at trace_active again: a pausing dump waits for it. */
	__atomic_store_n(&r->writing, 1, __ATOMIC_SEQ_CST);
	if (!__atomic_load_n(&trace_active, __ATOMIC_SEQ_CST))
		goto refuse_writing;
	if (r->head >= r->size && !trace_overwrite) {
		r->lost++;
		goto refuse_writing;
	}
	slot = (u32)(r->head % r->size);
	rec = &r->rec[slot];
	curr = current_task();
	rec->ts = arch_clock_ns();
	rec->event = (u8)ev;
	rec->pid = curr->pid;
	/*
	 * Two word copies, not the byte loop of the kernel's memcpy: this is the hot path.
	 * A task's comm need not be 8-byte aligned, so the loads say so.
	 */
	((u64 *)rec->comm)[0] = ((const unaligned_u64 *)curr->comm)[0];
	((u64 *)rec->comm)[1] = ((const unaligned_u64 *)curr->comm)[1];
	rec->comm[TASK_COMM_LEN - 1] = '\0';
	rec->flags = 0;
	if (!arch_irq_token_enabled(flags))
		rec->flags |= TRACE_FLAG_IRQS_OFF;
	if (arch_in_hardirq())
		rec->flags |= TRACE_FLAG_HARDIRQ;
	if (cpu_rq(cpu) && cpu_rq(cpu)->need_resched)
		rec->flags |= TRACE_FLAG_NEED_RESCHED;
	rec->preempt = (u8)(curr->preempt_count > 15 ? 15 : curr->preempt_count);
	rec->pad = 0;
	for (int i = 0; i < TRACE_ARGS; i++)
		rec->arg[i] = 0;
	rec->str[0] = '\0';
	*ring = r;
	*irq = flags;
	return rec;

refuse_writing:
	__atomic_store_n(&r->writing, 0, __ATOMIC_RELEASE);
refuse:
	arch_irq_restore(flags);
	return NULL;
}

void trace_commit(struct trace_ring *ring, unsigned long irq)
{
	__atomic_store_n(&ring->head, ring->head + 1, __ATOMIC_RELEASE);
	ring->entries++;
	__atomic_store_n(&ring->writing, 0, __ATOMIC_RELEASE);
	arch_irq_restore(irq);
}

/* ---------------------------------------------------------------- control */

static int ctl_busy; /* a start, stop, clear or dump is under way (they do not nest) */

bool trace_ctl_claim(void)
{
	return __atomic_exchange_n(&ctl_busy, 1, __ATOMIC_ACQ_REL) == 0;
}

void trace_ctl_release(void)
{
	__atomic_store_n(&ctl_busy, 0, __ATOMIC_RELEASE);
}

/* Tracing off, and every CPU out of its record: the rings hold still. Returns whether it was on. */
bool trace_pause(void)
{
	bool was = __atomic_exchange_n(&trace_active, false, __ATOMIC_SEQ_CST);

	for (u32 cpu = 0; cpu < trace_nr_cpus; cpu++)
		while (__atomic_load_n(&trace_rings[cpu].writing, __ATOMIC_SEQ_CST))
			arch_cpu_relax();
	return was;
}

/* Empties every ring (its records were dumped or are dropped). Tracing must be paused. */
void trace_reset_rings(void)
{
	for (u32 cpu = 0; cpu < trace_nr_cpus; cpu++)
		trace_rings[cpu].head = 0;
}

static int trace_alloc_rings(void)
{
	u32 n = (u32)((u64)trace_buf_kb * 1024 / sizeof(struct trace_record));

	for (u32 cpu = 0; cpu < trace_nr_cpus; cpu++) {
		struct trace_ring *r = &trace_rings[cpu];

		if (r->rec)
			continue;
		r->rec = kmalloc((size_t)n * sizeof(struct trace_record));
		if (!r->rec)
			return -ENOMEM;
		r->size = n;
	}
	return 0;
}

/* A task allowed fewer CPUs than there are: its mask goes into the trace as it starts. */
static void trace_pinned_task(struct task *p, void *arg)
{
	(void)arg;
	if (p->pid > 0 && p->nr_cpus_allowed < sched_nr_cpus())
		trace_sched_affinity(p);
}

int trace_start(void)
{
	int err;

	if (!trace_ctl_claim())
		return -EBUSY;
	err = trace_alloc_rings();
	if (err) {
		pr_warn("trace: no memory for %u rings of %lld KiB\n", trace_nr_cpus,
			(long long)trace_buf_kb);
	} else {
		trace_output_note_start();
		__atomic_store_n(&trace_active, true, __ATOMIC_SEQ_CST);
		sched_for_each_task(trace_pinned_task, NULL);
	}
	trace_ctl_release();
	return err;
}

void trace_stop(void)
{
	__atomic_store_n(&trace_active, false, __ATOMIC_SEQ_CST);
}

void trace_clear(void)
{
	bool was;

	if (!trace_ctl_claim())
		return;
	was = trace_pause();
	for (u32 cpu = 0; cpu < trace_nr_cpus; cpu++) {
		trace_rings[cpu].head = 0;
		trace_rings[cpu].entries = 0;
		trace_rings[cpu].lost = 0;
	}
	if (was)
		__atomic_store_n(&trace_active, true, __ATOMIC_SEQ_CST);
	trace_ctl_release();
}

/* ---------------------------------------------------------------- /proc/fulcrum/trace */

/* The status: state, events, sizes, counts, and whether the channel is there. */
static int trace_show_status(struct seqbuf *sb, void *arg)
{
	u64 held = 0, written = 0, lost = 0;

	for (u32 cpu = 0; cpu < trace_nr_cpus; cpu++) {
		const struct trace_ring *r = &trace_rings[cpu];

		held += r->head < r->size ? r->head : r->size;
		written += r->entries;
		lost += r->lost;
	}
	seq_printf(sb, "state: %s\n", trace_active ? "on" : "off");
	seq_printf(sb, "events:");
	for (u32 i = 0; i < TRACE_NR_EVENTS; i++)
		if (trace_event_mask & (1U << i))
			seq_printf(sb, " %s", event_names[i]);
	seq_printf(sb, "\nbuffer: %u CPUs x %lld KiB (%u records each), when full: %s\n",
		   trace_nr_cpus, (long long)trace_buf_kb,
		   (u32)((u64)trace_buf_kb * 1024 / sizeof(struct trace_record)),
		   trace_overwrite ? "overwrite" : "stop");
	seq_printf(sb, "records: %llu held, %llu written, %llu lost\n", (unsigned long long)held,
		   (unsigned long long)written, (unsigned long long)lost);
	seq_printf(sb, "channel: %s\n",
		   arch_trace_channel_present() ? "isa-debugcon 0xe9" :
						  "none (no isa-debugcon at 0xe9)");
	return 0;
}

/* Writes of "start", "stop", "clear" or "dump" (a trailing newline allowed). */
static int trace_store(const char *buf, size_t n, void *arg)
{
	char word[8];
	long dumped;

	while (n && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		n--;
	if (n == 0 || n >= sizeof(word))
		return -EINVAL;
	memcpy(word, buf, n);
	word[n] = '\0';
	if (strcmp(word, "start") == 0)
		return trace_start();
	if (strcmp(word, "stop") == 0) {
		trace_stop();
		return 0;
	}
	if (strcmp(word, "clear") == 0) {
		trace_clear();
		return 0;
	}
	if (strcmp(word, "dump") == 0) {
		dumped = trace_dump();
		return dumped < 0 ? (int)dumped : 0;
	}
	return -EINVAL;
}

void trace_init(void)
{
	u32 nr_cpus = sched_nr_cpus();

	trace_nr_cpus = nr_cpus < MAX_CPUS ? nr_cpus : MAX_CPUS;
	trace_overwrite = strcmp(trace_full, "stop") != 0;
	if (!mask_from_boot)
		trace_event_mask = TRACE_ALL_EVENTS;
	if (procfs_register("fulcrum/trace", trace_show_status, trace_store, NULL))
		pr_warn("trace: cannot register /proc/fulcrum/trace\n");
	if (!trace_at_boot)
		return;
	if (trace_start() == 0)
		pr_info("trace: recording %s events from boot, %lld KiB per CPU, %s when full; channel %s\n",
			trace_event_mask == TRACE_ALL_EVENTS ? "all" : "the chosen",
			(long long)trace_buf_kb, trace_overwrite ? "overwrite" : "stop",
			arch_trace_channel_present() ? "isa-debugcon 0xe9" : "absent");
}

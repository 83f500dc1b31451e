/*
 * The tracepoints' bodies: each fills one record with the fields Linux's
 * event of the same name prints (include/trace/events/sched.h and
 * power.h in Linux 6.1), or Fulcrum's own fields for its own events.
 * Reached only when tracing is on (trace.h's inline test).
 */
#include "trace/trace_internal.h"

#include "lib/printf.h"
#include "lib/string.h"
#include "sched/rt/rt.h"
#include "sched/sched.h"

/*
 * Linux's prio of a task: 120 + nice for normal tasks (and the idle
 * task), 99 - rt_priority for SCHED_FIFO/RR ones, 0 for the stopper, as
 * Linux shows its migration/N threads (the top real-time priority).
 */
static int task_prio(const struct task *p)
{
	if (p->sched_class == &stop_sched_class)
		return 0;
	if (sched_policy_rt(p->policy))
		return 99 - (int)p->rt_priority;
	return 120 + p->nice;
}

/*
 * p's name into a record, 16 bytes as two word stores: the hot path has no
 * call (the kernel's memcpy is a byte loop). An idle task's name is
 * printed as swapper/<CPU> at dump time, whatever its comm says.
 */
static inline void copy_comm(char *dst, const struct task *p)
{
	const unaligned_u64 *src = (const unaligned_u64 *)p->comm;
	unaligned_u64 *to = (unaligned_u64 *)dst;

	_Static_assert(TASK_COMM_LEN == 16, "copy_comm copies two words");
	to[0] = src[0];
	to[1] = src[1];
	dst[TASK_COMM_LEN - 1] = '\0';
}

/* A short name (a domain level's) into str, cut to fit. */
static void copy_name(char *dst, size_t size, const char *src)
{
	size_t i;

	for (i = 0; i + 1 < size && src[i]; i++)
		dst[i] = src[i];
	dst[i] = '\0';
}

void __trace_sched_switch(const struct task *prev, const struct task *next, bool preempt)
{
	struct trace_ring *ring;
	unsigned long irq;
	struct trace_record *r = trace_reserve(TRACE_SCHED_SWITCH, &ring, &irq);
	int state;

	if (!r)
		return;
	if (preempt)
		state = TRACE_STATE_R_PLUS;
	else if (prev->state == TASK_DEAD)
		state = TRACE_STATE_Z;
	else if (prev->state == TASK_INTERRUPTIBLE)
		state = TRACE_STATE_S;
	else if (prev->state & TASK_UNINTERRUPTIBLE) /* killable too, as Linux shows it */
		state = TRACE_STATE_D;
	else
		state = TRACE_STATE_R;
	/* The record's own comm/pid are the current task's: prev, the one switching out. */
	copy_comm(r->comm, prev);
	r->arg[0] = prev->pid;
	r->arg[1] = task_prio(prev);
	r->arg[2] = state;
	r->arg[3] = next->pid;
	r->arg[4] = task_prio(next);
	copy_comm(r->str, next);
	trace_commit(ring, irq);
}

void __trace_sched_wakeup(enum trace_event ev, const struct task *p, u32 target_cpu)
{
	struct trace_ring *ring;
	unsigned long irq;
	struct trace_record *r = trace_reserve(ev, &ring, &irq);

	if (!r)
		return;
	copy_comm(r->str, p);
	r->arg[0] = p->pid;
	r->arg[1] = task_prio(p);
	r->arg[2] = (s32)target_cpu;
	trace_commit(ring, irq);
}

void __trace_sched_migrate_task(const struct task *p, u32 dest_cpu)
{
	struct trace_ring *ring;
	unsigned long irq;
	struct trace_record *r = trace_reserve(TRACE_SCHED_MIGRATE_TASK, &ring, &irq);

	if (!r)
		return;
	copy_comm(r->str, p);
	r->arg[0] = p->pid;
	r->arg[1] = task_prio(p);
	r->arg[2] = (s32)p->cpu;
	r->arg[3] = (s32)dest_cpu;
	trace_commit(ring, irq);
}

void __trace_sched_process_fork(const struct task *parent, const struct task *child)
{
	struct trace_ring *ring;
	unsigned long irq;
	struct trace_record *r = trace_reserve(TRACE_SCHED_PROCESS_FORK, &ring, &irq);

	if (!r)
		return;
	copy_comm(r->comm, parent);
	r->arg[0] = parent->pid;
	r->arg[1] = child->pid;
	copy_comm(r->str, child);
	trace_commit(ring, irq);
}

void __trace_sched_process_exec(const struct task *p, const char *filename)
{
	struct trace_ring *ring;
	unsigned long irq;
	struct trace_record *r = trace_reserve(TRACE_SCHED_PROCESS_EXEC, &ring, &irq);

	if (!r)
		return;
	ksnprintf(r->str, sizeof(r->str), "%s", filename);
	r->arg[0] = p->pid;
	r->arg[1] = p->pid; /* old_pid: a thread that is not the leader would differ in Linux */
	trace_commit(ring, irq);
}

void __trace_sched_process_exit(const struct task *p)
{
	struct trace_ring *ring;
	unsigned long irq;
	struct trace_record *r = trace_reserve(TRACE_SCHED_PROCESS_EXIT, &ring, &irq);

	if (!r)
		return;
	copy_comm(r->str, p);
	r->arg[0] = p->pid;
	r->arg[1] = task_prio(p);
	trace_commit(ring, irq);
}

void __trace_cpu_idle(u32 state, u32 cpu)
{
	struct trace_ring *ring;
	unsigned long irq;
	struct trace_record *r = trace_reserve(TRACE_CPU_IDLE, &ring, &irq);

	if (!r)
		return;
	r->arg[0] = (s32)state;
	r->arg[1] = (s32)cpu;
	trace_commit(ring, irq);
}

void __trace_sched_select(const struct task *p, u32 prev_cpu, u32 this_cpu, u32 target,
			  const char *sd_level, enum trace_select_reason reason)
{
	struct trace_ring *ring;
	unsigned long irq;
	struct trace_record *r = trace_reserve(TRACE_SCHED_SELECT, &ring, &irq);

	if (!r)
		return;
	r->arg[0] = p->pid;
	r->arg[1] = (s32)prev_cpu;
	r->arg[2] = (s32)this_cpu;
	r->arg[3] = (s32)target;
	r->arg[4] = (s32)reason;
	copy_name(r->str, sizeof(r->str), sd_level ? sd_level : "none");
	trace_commit(ring, irq);
}

void __trace_sched_balance(u32 cpu, const char *domain, int idle_type, long imbalance, int busiest,
			   int moved, enum trace_balance_result result)
{
	struct trace_ring *ring;
	unsigned long irq;
	struct trace_record *r = trace_reserve(TRACE_SCHED_BALANCE, &ring, &irq);

	if (!r)
		return;
	r->arg[0] = (s32)cpu;
	r->arg[1] = idle_type;
	r->arg[2] = imbalance > 0x7fffffffL ? 0x7fffffff : (s32)imbalance;
	r->arg[3] = busiest;
	r->arg[4] = moved;
	r->arg[5] = (s32)result;
	copy_name(r->str, sizeof(r->str), domain ? domain : "none");
	trace_commit(ring, irq);
}

void __trace_sched_topology(u32 generation, u32 nr_cpus, u32 nr_levels)
{
	struct trace_ring *ring;
	unsigned long irq;
	struct trace_record *r = trace_reserve(TRACE_SCHED_TOPOLOGY, &ring, &irq);

	if (!r)
		return;
	r->arg[0] = (s32)generation;
	r->arg[1] = (s32)nr_cpus;
	r->arg[2] = (s32)nr_levels;
	trace_commit(ring, irq);
}

void __trace_sched_watchdog(const char *kind, u32 cpu, const struct task *p, u64 ms)
{
	struct trace_ring *ring;
	unsigned long irq;
	struct trace_record *r = trace_reserve(TRACE_SCHED_WATCHDOG, &ring, &irq);

	if (!r)
		return;
	r->arg[0] = (s32)cpu;
	r->arg[1] = p ? p->pid : -1;
	r->arg[2] = ms > 0x7fffffffULL ? 0x7fffffff : (s32)ms;
	/* str: "<kind> <comm>", split again at dump time */
	ksnprintf(r->str, sizeof(r->str), "%s %s", kind, p ? p->comm : "-");
	trace_commit(ring, irq);
}

/*
 * One record per TRACE_AFFINITY_CPUS CPUs of the mask: the first always
 * (cpus_allowed=, which replaces what a reader knew), then each later chunk
 * that allows a CPU (cpus_allowed_more=, added to it). The kernel's 256
 * CPUs take one record; the simulator's larger builds may take more.
 */
void __trace_sched_affinity(const struct task *p)
{
	const u8 *bits = (const u8 *)p->cpus_allowed.bits;

	for (u32 base = 0; base < MAX_CPUS; base += TRACE_AFFINITY_CPUS) {
		u32 bytes = (MAX_CPUS - base < TRACE_AFFINITY_CPUS ? MAX_CPUS - base :
								     TRACE_AFFINITY_CPUS) /
			    8;
		struct trace_ring *ring;
		unsigned long irq;
		struct trace_record *r;
		bool any = false;

		for (u32 i = 0; i < bytes; i++)
			any |= bits[base / 8 + i] != 0;
		if (base && !any)
			continue;
		r = trace_reserve(TRACE_SCHED_AFFINITY, &ring, &irq);
		if (!r)
			return;
		r->arg[0] = p->pid;
		r->arg[1] = (s32)base;
		memset(r->str, 0, sizeof(r->str));
		memcpy(r->str, bits + base / 8, bytes);
		trace_commit(ring, irq);
	}
}

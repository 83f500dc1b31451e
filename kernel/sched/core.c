/*
 * The scheduler core: per-CPU runqueues, schedule() and the context
 * switch, wake-ups, the first wake-up of a new task, the tick, and each
 * CPU's idle loop. The policies live in the classes (fair.c, rr.c,
 * stop.c, idle.c), reached only through struct sched_class; tasks are
 * made and reaped in task.c, timed sleeps in timed_wait.c. This file only
 * moves tasks between "running", "queued" and "sleeping" and keeps the
 * books.
 *
 * A switch hands the runqueue lock from prev to next: prev takes it in
 * schedule(), next releases it in finish_task_switch() (a new thread, in
 * kthread_entry). Every lock in the kernel is taken with interrupts off,
 * so an interrupt never finds a lock held on its own CPU; that is what
 * makes preemption at interrupt exit safe.
 */
#include "sched/sched.h"

#include <arch/addr_space.h>
#include <arch/context.h>
#include <arch/cpu.h>
#include <arch/smp.h>
#include <arch/time.h>

#include "cmdline.h"
#include "lib/errno.h"
#include "lib/printf.h"
#include "lib/string.h"
#include "mm/heap.h"
#include "mm/page_alloc.h"
#include "printk.h"
#include "sched/stop.h"
#include "sched/topology.h"
#include "sched/wait.h"
#include "trace/trace.h"

static struct rq *runqueues[MAX_CPUS];
static u32 nr_rqs;
static bool sched_running; /* sched_init() done: ticks and interrupt exits may schedule */

/* ---------------------------------------------------------------- runqueues */

struct rq *cpu_rq(u32 cpu)
{
	return cpu < nr_rqs ? runqueues[cpu] : NULL;
}

struct rq *this_rq(void)
{
	return runqueues[arch_cpu_id()];
}

u32 sched_nr_cpus(void)
{
	return nr_rqs;
}

struct task *current_task(void)
{
	struct arch_context *ctx = arch_current_context();

	/*
	 * Nothing switched to yet: this CPU still runs the code that booted
	 * it, which is its idle task and never moves to another CPU.
	 */
	if (!ctx)
		return this_rq()->idle;
	return container_of(ctx, struct task, ctx);
}

void update_rq_clock(struct rq *rq)
{
	u64 now = arch_clock_ns();

	if ((s64)(now - rq->clock) > 0) {
		rq->clock = now;
		rq->clock_task = now;
	}
}

void resched_curr(struct rq *rq)
{
	if (rq->need_resched)
		return;
	rq->need_resched = true;
	if (rq->cpu != arch_cpu_id())
		arch_send_reschedule(rq->cpu);
}

bool idle_cpu(u32 cpu)
{
	struct rq *rq = cpu_rq(cpu);

	return rq && rq->curr == rq->idle && rq->nr_running == 0;
}

void double_rq_lock(struct rq *a, struct rq *b)
{
	if (a == b) {
		spin_lock(&a->lock);
	} else if (a->cpu < b->cpu) {
		spin_lock(&a->lock);
		spin_lock(&b->lock);
	} else {
		spin_lock(&b->lock);
		spin_lock(&a->lock);
	}
}

void double_rq_unlock(struct rq *a, struct rq *b)
{
	spin_unlock(&a->lock);
	if (a != b)
		spin_unlock(&b->lock);
}

static void note_queued(struct rq *rq, struct task *p)
{
	p->stats.last_queued = rq->clock;
}

/*
 * p stops waiting on rq (it is picked, or it leaves the queue): the wait since it
 * was queued goes to run_delay, p's and rq's. Leaving counts as Linux's
 * sched_info_dequeue does, so a queued task the balancer moves keeps the wait it had
 * on the old queue (charged there) and starts a new stretch on the new one.
 */
static void note_wait_ended(struct rq *rq, struct task *p)
{
	if (p->stats.last_queued) {
		u64 wait = rq->clock > p->stats.last_queued ? rq->clock - p->stats.last_queued : 0;

		p->stats.run_delay += wait;
		rq->stats.run_delay += wait;
		p->stats.last_queued = 0;
	}
}

/* p starts running: the wait since it was queued is run_delay. */
static void note_picked(struct rq *rq, struct task *p)
{
	note_wait_ended(rq, p);
	p->stats.pcount++;
	rq->stats.pcount++;
}

void rq_update_avg_idle(struct rq *rq)
{
	u64 max = 2 * sysctl_sched_migration_cost, delta;

	if (!rq->idle_stamp)
		return;
	delta = rq->clock - rq->idle_stamp;
	if (delta > max)
		rq->avg_idle = max;
	else
		rq->avg_idle += (u64)(((s64)delta - (s64)rq->avg_idle) >> 3);
	rq->idle_stamp = 0;
}

void activate_task(struct rq *rq, struct task *p, int flags)
{
	assert_rq_held(rq);
	p->sched_class->enqueue_task(rq, p, flags);
	p->on_rq = 1;
	rq->nr_running++;
	note_queued(rq, p);
}

void deactivate_task(struct rq *rq, struct task *p, int flags)
{
	assert_rq_held(rq);
	p->sched_class->dequeue_task(rq, p, flags);
	p->on_rq = 0;
	rq->nr_running--;
	note_wait_ended(rq, p);
}

/*
 * Every migration is counted on the destination runqueue. A wake-up calls
 * this before it takes any rq lock while the balancer holds dst's, so the
 * count is an atomic add; migrations are rare next to switches.
 */
static void set_task_cpu(struct task *p, u32 cpu)
{
	if (p->cpu == cpu)
		return;
	if (p->sched_class->migrate_task_rq)
		p->sched_class->migrate_task_rq(p, cpu);
	trace_sched_migrate_task(p, cpu);
	p->nr_migrations++;
	__atomic_fetch_add(&cpu_rq(cpu)->stats.nr_migrations, 1, __ATOMIC_RELAXED);
	p->cpu = cpu;
}

static void check_preempt_curr(struct rq *rq, struct task *p, int wake_flags)
{
	if (rq->curr == rq->idle || p->sched_class->rank < rq->curr->sched_class->rank)
		resched_curr(rq); /* a higher class always preempts a lower one */
	else if (p->sched_class == rq->curr->sched_class && p->sched_class->check_preempt_curr)
		p->sched_class->check_preempt_curr(rq, p, wake_flags);
}

void move_queued_task(struct rq *src, struct rq *dst, struct task *p)
{
	assert_rq_held(src);
	assert_rq_held(dst);
	deactivate_task(src, p, 0);
	set_task_cpu(p, dst->cpu);
	activate_task(dst, p, 0);
	sched_event_record(dst, SCHED_EV_MIGRATE, p->pid, 0, src->cpu);
	check_preempt_curr(dst, p, 0); /* an idle dst must notice, whatever p's class */
}

/* ---------------------------------------------------------------- classes */

extern const struct sched_class *const __start_sched_classes[], *const __stop_sched_classes[];

const struct sched_class *sched_class_list[SCHED_CLASSES_MAX + 3];
const struct sched_class *sched_default_class = &fair_sched_class;
const struct sched_class *sched_failed_classes[SCHED_CLASSES_MAX];
u32 sched_nr_failed;

static const char *sched_class_name = "fair";

/*
 * sched=NAME must name a registered class: a misspelt or unknown one (such
 * as sched=eevdf, which is sched_fair=eevdf) is refused here, naming the
 * classes there are, rather than quietly running fair.
 */
static int set_class_option(const char *value, size_t len)
{
	const struct sched_class *const *c;
	char names[96];
	size_t used = 0;

	for (c = __start_sched_classes; c < __stop_sched_classes; c++)
		if ((*c)->name && strlen((*c)->name) == len && memcmp((*c)->name, value, len) == 0) {
			sched_class_name = (*c)->name;
			return 0;
		}
	names[0] = '\0';
	for (c = __start_sched_classes; c < __stop_sched_classes; c++)
		if ((*c)->name && used < sizeof(names))
			used += (size_t)ksnprintf(names + used, sizeof(names) - used, "%s%s",
						  used ? ", " : "", (*c)->name);
	pr_warn("cmdline: bad value '%s' for 'sched': no such scheduling class (registered: %s), "
		"keeping '%s'\n",
		value, names, sched_class_name);
	return 1;
}
BOOT_OPTION_STRING_FN(sched, "sched", &sched_class_name, set_class_option,
		      "the scheduling class of new tasks: fair (CFS), or another registered class (rr)");

const struct sched_class *sched_class_find(const char *name)
{
	const struct sched_class *class;

	for_each_class (class)
		if (class != &stop_sched_class && class != &idle_sched_class &&
		    strcmp(class->name, name) == 0)
			return class;
	return NULL;
}

/* The name of a required operation class lacks, or NULL if it has them all. */
static const char *sched_class_missing(const struct sched_class *class)
{
	if (!class->enqueue_task)
		return "enqueue_task";
	if (!class->dequeue_task)
		return "dequeue_task";
	if (!class->pick_next_task)
		return "pick_next_task";
	if (!class->put_prev_task)
		return "put_prev_task";
	return NULL;
}

u32 sched_classes_setup(const struct sched_class *const *classes, u32 n)
{
	u32 nr = 0, refused = 0;

	sched_class_list[nr++] = &stop_sched_class;
	for (u32 k = 0; k < n; k++) {
		const struct sched_class *c = classes[k];
		const char *missing = c->name ? sched_class_missing(c) : "name";
		u32 i;

		if (missing) {
			pr_err("sched: class '%s' has no %s operation: not registered\n",
			       c->name ? c->name : "?", missing);
			refused++;
			continue;
		}
		if (nr > SCHED_CLASSES_MAX) {
			pr_err("sched: class '%s': more than %u classes: not registered\n", c->name,
			       SCHED_CLASSES_MAX);
			refused++;
			continue;
		}
		for (i = nr++; i > 1 && sched_class_list[i - 1]->rank > c->rank; i--)
			sched_class_list[i] = sched_class_list[i - 1];
		sched_class_list[i] = c;
	}
	sched_class_list[nr++] = &idle_sched_class;
	sched_class_list[nr] = NULL;
	return refused;
}

/* stop, then the registered classes by rank, then idle; sched= picks the default. */
static void sched_classes_init(void)
{
	const struct sched_class *chosen;

	sched_classes_setup(__start_sched_classes,
			    (u32)(__stop_sched_classes - __start_sched_classes));
	chosen = sched_class_find(sched_class_name);
	if (!chosen) {
		pr_warn("sched: no class '%s'; new tasks use fair\n", sched_class_name);
		chosen = &fair_sched_class;
	}
	sched_default_class = chosen;
	pr_info("scheduling classes:");
	for (u32 i = 0; sched_class_list[i]; i++)
		pr_cont(" %s", sched_class_list[i]->name);
	pr_cont("; new tasks: %s\n", chosen->name);
}

/* ---------------------------------------------------------------- switching */

/*
 * In next's context after a switch: release the lock prev took and settle
 * prev. A dead prev has run for the last time: its own reference goes,
 * which frees it unless a reaper or a lookup still holds one.
 */
static void finish_task_switch(struct rq *rq, struct task *prev)
{
	bool dead = prev->state == TASK_DEAD;

	__atomic_store_n(&prev->on_cpu, 0, __ATOMIC_RELEASE);
	spin_unlock(&rq->lock);
	if (dead) {
		if (prev->sched_class->task_dead)
			prev->sched_class->task_dead(prev);
		task_put(prev); /* before the wake-up: a reaper then holds the last reference */
		wake_up_all(&task_exit_wq);
	}
}

static struct task *pick_next_task(struct rq *rq)
{
	const struct sched_class *class;

	for_each_class (class) {
		struct task *p;

		if (unlikely(sched_nr_failed) && sched_class_failed(class))
			continue; /* the stall watchdog gave up on it */
		p = class->pick_next_task(rq);

		if (p)
			return p;
	}
	return rq->idle; /* not reached: the idle class always has a task */
}

/* rq is about to idle: each class in rank order may pull work, until one has. */
static void balance_newidle(struct rq *rq)
{
	const struct sched_class *class;

	for_each_class (class) {
		if (class->balance)
			class->balance(rq, SCHED_BALANCE_NEWIDLE); /* may drop the lock */
		if (rq->nr_running > rq->nr_throttled)
			break;
	}
}

struct task *sched_pick_next(struct rq *rq, bool preempt)
{
	struct task *prev = rq->curr, *next;
	u64 *switch_count = &prev->stats.nr_involuntary_switches;

	assert_rq_held(rq);
	update_rq_clock(rq);
	rq->last_schedule = rq->clock;
	rq->stats.sched_count++;
	/*
	 * A preempted task stays queued whatever its state: it may be between
	 * setting TASK_INTERRUPTIBLE and testing its wait condition, and the
	 * wake-up it waits for may already have come (Linux's PREEMPT_ACTIVE).
	 */
	if (!preempt && prev->state != TASK_RUNNING && prev != rq->idle) {
		deactivate_task(rq, prev, DEQUEUE_SLEEP);
		prev->stats.last_blocked = rq->clock;
		switch_count = &prev->stats.nr_voluntary_switches;
	}
	if (rq->nr_running == rq->nr_throttled) /* nothing it may run queued */
		balance_newidle(rq);
	prev->sched_class->put_prev_task(rq, prev);
	next = pick_next_task(rq);
	if (sched_feat(SCHED_VERIFY))
		sched_verify_pick(rq, prev, next);
	next->exec_start = rq->clock_task; /* its run time counts from here */
	next->prev_sum_exec_runtime = next->sum_exec_runtime;
	rq->need_resched = false;
	if (next == rq->idle)
		rq->stats.sched_goidle++;
	if (next == prev)
		return next;
	if (prev != rq->idle)
		(*switch_count)++; /* as Linux: only a real switch counts, not a pick of prev again */
	note_picked(rq, next);
	if (prev->on_rq && prev != rq->idle)
		note_queued(rq, prev); /* preempted, still runnable: from now on it waits (Linux's sched_info_switch) */
	rq->nr_switches++;
	sched_event_record(rq, SCHED_EV_SWITCH, prev->pid, next->pid, 0);
	trace_sched_switch(prev, next, preempt);
	rq->curr = next;
	rq->prev_task = prev;
	__atomic_store_n(&next->on_cpu, 1, __ATOMIC_RELAXED);
	return next;
}

/*
 * The heart of it: with interrupts off and rq->lock held, do the books
 * (sched_pick_next) and switch to the task picked.
 */
static void __schedule(bool preempt)
{
	unsigned long flags = arch_irq_save();
	struct rq *rq = this_rq();
	struct task *prev = rq->curr, *next;

	spin_lock(&rq->lock);
	next = sched_pick_next(rq, preempt);
	if (next == prev) {
		spin_unlock(&rq->lock);
		arch_irq_restore(flags);
		return;
	}
	if (next->mm != prev->mm)
		arch_mm_activate(next->mm); /* NULL: kernel-only tables, nothing of a dying process kept */
	arch_context_switch(&prev->ctx, &next->ctx);
	/* Back in prev, switched to by someone holding this (possibly another) CPU's rq lock. */
	rq = this_rq();
	finish_task_switch(rq, rq->prev_task);
	arch_irq_restore(flags);
}

void schedule(void)
{
	__schedule(false);
}

void preempt_schedule_irq(void)
{
	struct rq *rq;

	if (!sched_running)
		return;
	rq = this_rq();
	if (rq->need_resched && rq->curr != rq->idle && !rq->curr->preempt_count)
		__schedule(true);
}

void preempt_disable(void)
{
	current_task()->preempt_count++;
}

void preempt_enable(void)
{
	struct task *t = current_task();

	if (--t->preempt_count == 0 && this_rq()->need_resched && t != this_rq()->idle)
		__schedule(true);
}

/* ---------------------------------------------------------------- wake-ups */

static u32 select_task_rq(struct task *p, int sd_flag, int wake_flags)
{
	u32 cpu = p->sched_class->select_task_rq ?
			  p->sched_class->select_task_rq(p, sd_flag, wake_flags) :
			  p->cpu;

	/* A class's answer must be an allowed, online CPU; otherwise fall back like Linux does. */
	if (cpu >= nr_rqs || !cpumask_test_cpu(cpu, &p->cpus_allowed) || !arch_cpu_online(cpu)) {
		for (u32 c = 0; c < nr_rqs; c++)
			if (cpumask_test_cpu(c, &p->cpus_allowed) && arch_cpu_online(c))
				return c;
		return 0;
	}
	return cpu;
}

static bool try_to_wake_up(struct task *p, int wake_flags)
{
	unsigned long flags = spin_lock_irqsave(&p->pi_lock);
	u32 this_cpu = arch_cpu_id(), cpu, prev_cpu;
	struct rq *rq;
	bool woken = false;

	if (p->state == TASK_RUNNING || p->state == TASK_DEAD)
		goto out;
	trace_sched_waking(p, p->cpu);
	/*
	 * Still on its queue (between setting its state and schedule()): just
	 * mark it running, under its rq lock so schedule() sees it. The common
	 * case, a task already off its queue, takes no lock here: on_rq drops
	 * to 0 only under the rq lock and never rises while we hold pi_lock.
	 */
	if (__atomic_load_n(&p->on_rq, __ATOMIC_ACQUIRE)) {
		rq = task_rq(p);
		spin_lock(&rq->lock);
		if (p->on_rq) {
			p->state = TASK_RUNNING;
			trace_sched_wakeup(p, p->cpu);
			spin_unlock(&rq->lock);
			woken = true;
			goto out;
		}
		spin_unlock(&rq->lock);
	}
	/* Off its queue but maybe still switching out on its old CPU: wait for that. */
	while (__atomic_load_n(&p->on_cpu, __ATOMIC_ACQUIRE))
		arch_cpu_relax();

	if (p->sched_class->task_waking)
		p->sched_class->task_waking(p);
	prev_cpu = p->cpu;
	cpu = select_task_rq(p, SD_BALANCE_WAKE, wake_flags);
	if (cpu != p->cpu) {
		wake_flags |= WF_MIGRATED;
		p->stats.nr_wakeups_migrate++;
	}
	set_task_cpu(p, cpu);
	rq = cpu_rq(cpu);
	spin_lock(&rq->lock);
	update_rq_clock(rq);
	activate_task(rq, p, ENQUEUE_WAKEUP | ENQUEUE_WAKING);
	p->state = TASK_RUNNING;
	trace_sched_wakeup(p, cpu);
	sched_event_record(rq, SCHED_EV_WAKEUP, p->pid, 0,
			   (wake_flags & WF_MIGRATED) ? prev_cpu : cpu);
	check_preempt_curr(rq, p, wake_flags);
	rq_update_avg_idle(rq);
	rq->stats.ttwu_count++;
	if (cpu == this_cpu) {
		rq->stats.ttwu_local++;
		p->stats.nr_wakeups_local++;
	} else {
		p->stats.nr_wakeups_remote++;
	}
	spin_unlock(&rq->lock);
	p->stats.nr_wakeups++;
	if (wake_flags & WF_SYNC)
		p->stats.nr_wakeups_sync++;
	woken = true;
out:
	spin_unlock_irqrestore(&p->pi_lock, flags);
	return woken;
}

bool wake_up_task(struct task *t, bool sync)
{
	return try_to_wake_up(t, sync ? WF_SYNC : 0);
}

static void wake_up_new_task(struct task *p)
{
	unsigned long flags = spin_lock_irqsave(&p->pi_lock);
	u32 cpu = select_task_rq(p, SD_BALANCE_FORK, 0);
	struct rq *rq;

	p->cpu = cpu; /* relative vruntime from task_fork: no migration to account */
	rq = cpu_rq(cpu);
	spin_lock(&rq->lock);
	update_rq_clock(rq);
	activate_task(rq, p, 0);
	p->state = TASK_RUNNING;
	trace_sched_wakeup_new(p, cpu);
	check_preempt_curr(rq, p, WF_FORK);
	spin_unlock(&rq->lock);
	spin_unlock_irqrestore(&p->pi_lock, flags);
}

/* ---------------------------------------------------------------- tasks */

void sched_task_init(struct task *t, const char *name, int nice)
{
	t->state = TASK_RUNNING;
	t->sched_class = sched_default_class;
	t->nice = nice < NICE_MIN ? NICE_MIN : nice > NICE_MAX ? NICE_MAX : nice;
	t->policy = SCHED_NORMAL;
	t->rt_priority = 0;
	t->pi_lock = (struct spinlock)SPINLOCK_INIT;
	cpumask_clear(&t->cpus_allowed);
	for (u32 c = 0; c < nr_rqs; c++)
		cpumask_set_cpu(c, &t->cpus_allowed);
	t->nr_cpus_allowed = nr_rqs;
	for (size_t i = 0; i < TASK_COMM_LEN - 1 && name[i]; i++)
		t->comm[i] = name[i];
	set_load_weight(t);
	if (t->sched_class->task_init)
		t->sched_class->task_init(t);
}

void schedule_tail(void)
{
	struct rq *rq = this_rq();

	finish_task_switch(rq, rq->prev_task);
}

void task_wake_new(struct task *t)
{
	if (unlikely(sched_nr_failed) && sched_class_failed(t->sched_class))
		sched_watchdog_new_task(t);
	if (t->sched_class->task_fork)
		t->sched_class->task_fork(t);
	wake_up_new_task(t);
}

void task_yield(void)
{
	unsigned long flags = arch_irq_save();
	struct rq *rq = this_rq();

	spin_lock(&rq->lock);
	rq->stats.yld_count++;
	if (rq->curr->sched_class->yield_task)
		rq->curr->sched_class->yield_task(rq);
	spin_unlock(&rq->lock);
	arch_irq_restore(flags);
	__schedule(false);
}

/*
 * Locks t's runqueue for a change to t: pi_lock keeps wake-ups away, and
 * the re-check catches the balancer moving t (it holds only rq locks)
 * between reading t->cpu and taking the lock.
 */
static struct rq *task_rq_lock(struct task *t, unsigned long *flags)
{
	*flags = spin_lock_irqsave(&t->pi_lock);
	for (;;) {
		struct rq *rq = task_rq(t);

		spin_lock(&rq->lock);
		if (rq == task_rq(t))
			return rq;
		spin_unlock(&rq->lock);
	}
}

u64 task_sched_runtime(struct task *t)
{
	unsigned long flags;
	struct rq *rq = task_rq_lock(t, &flags);
	u64 ns;

	if (task_running(rq, t)) {
		update_rq_clock(rq);
		if (t->sched_class->update_curr)
			t->sched_class->update_curr(rq); /* charge the time since its last accounting */
	}
	ns = t->sum_exec_runtime;
	spin_unlock(&rq->lock);
	spin_unlock_irqrestore(&t->pi_lock, flags);
	return ns;
}

void set_task_nice(struct task *t, int nice)
{
	unsigned long flags;
	struct rq *rq = task_rq_lock(t, &flags);
	int old = t->nice;

	nice = nice < NICE_MIN ? NICE_MIN : nice > NICE_MAX ? NICE_MAX : nice;
	if (t->on_rq)
		t->sched_class->dequeue_task(rq, t, 0);
	t->nice = nice;
	set_load_weight(t);
	if (t->on_rq) {
		t->sched_class->enqueue_task(rq, t, 0);
		if (t->sched_class->prio_changed)
			t->sched_class->prio_changed(rq, t, old);
	}
	spin_unlock(&rq->lock);
	spin_unlock_irqrestore(&t->pi_lock, flags);
}

void __sched_setclass(struct rq *rq, struct task *p, const struct sched_class *class)
{
	const struct sched_class *old = p->sched_class;
	bool queued = p->on_rq, running = task_running(rq, p);

	assert_rq_held(rq);
	if (old == class)
		return;
	update_rq_clock(rq);
	if (queued)
		old->dequeue_task(rq, p, 0);
	if (running)
		old->put_prev_task(rq, p); /* charges it up to now; its accounting goes on */
	if (old->switched_from)
		old->switched_from(rq, p);
	memset(p->class_priv, 0, sizeof(p->class_priv));
	p->sched_class = class;
	if (class->task_init)
		class->task_init(p);
	if (queued)
		class->enqueue_task(rq, p, 0);
	if (class->switched_to)
		class->switched_to(rq, p);
	if (queued && !running)
		check_preempt_curr(rq, p, 0);
}

void sched_setclass(struct task *p, const struct sched_class *class)
{
	unsigned long flags;
	struct rq *rq = task_rq_lock(p, &flags);

	__sched_setclass(rq, p, class);
	spin_unlock(&rq->lock);
	spin_unlock_irqrestore(&p->pi_lock, flags);
}

int set_cpus_allowed(struct task *t, const struct cpumask *mask)
{
	unsigned long flags;
	u32 n = 0, dest = MAX_CPUS;
	int err;

	for (u32 c = 0; c < nr_rqs; c++) {
		if (cpumask_test_cpu(c, mask)) {
			n++;
			if (dest == MAX_CPUS && arch_cpu_online(c))
				dest = c;
		}
	}
	if (dest == MAX_CPUS)
		return -EINVAL;
	flags = spin_lock_irqsave(&t->pi_lock);
	t->migration_pending = true;
	t->cpus_allowed = *mask;
	t->nr_cpus_allowed = n;
	spin_unlock_irqrestore(&t->pi_lock, flags);
	trace_sched_affinity(t);
	if (cpumask_test_cpu(task_cpu(t), mask)) {
		t->migration_pending = false;
		return 0;
	}
	/*
	 * Queued or running on a CPU it may no longer use: move it now, as
	 * Linux's set_cpus_allowed_ptr() does (a running task through its
	 * CPU's stopper). A sleeping task is placed by its next wake-up, which
	 * honours the new mask.
	 */
	err = migrate_running_task(t, dest);
	t->migration_pending = false;
	return err;
}

/* ---------------------------------------------------------------- tick and idle */

void scheduler_tick(u32 cpu)
{
	struct rq *rq = cpu_rq(cpu);
	const struct sched_class *class;
	struct task *curr;

	if (!sched_running || !rq)
		return;
	spin_lock(&rq->lock);
	update_rq_clock(rq);
	curr = rq->curr;
	if (curr != rq->idle && curr->sched_class->task_tick)
		curr->sched_class->task_tick(rq, curr);
	update_cpu_load(rq);
	spin_unlock(&rq->lock);
	/* Periodic balancing runs whatever runs here, idle and stopper included (as in Linux). */
	for_each_class (class)
		if (class->balance)
			class->balance(rq, SCHED_BALANCE_TICK);
	sched_watchdog_tick(rq);
}

void sched_idle_loop(void)
{
	struct rq *rq = this_rq();
	bool idling = false; /* cpu_idle: one enter and one exit per idle stretch, not per tick */

	for (;;) {
		arch_irq_disable();
		sched_topology_quiescent(rq->cpu);
		if (!rq->need_resched) {
			if (!idling)
				trace_cpu_idle(TRACE_IDLE_HLT, rq->cpu);
			idling = true;
			arch_wait_for_interrupt(); /* sti; hlt: no wake-up slips between */
			continue;
		}
		if (idling)
			trace_cpu_idle(TRACE_IDLE_EXIT, rq->cpu);
		idling = false;
		arch_irq_enable();
		__schedule(false);
	}
}

/* ---------------------------------------------------------------- set-up */

static struct task *idle_task_create(u32 cpu)
{
	struct task *t = kzalloc(sizeof(*t));

	if (!t)
		return NULL;
	sched_task_init(t, "swapper", 0);
	t->sched_class = &idle_sched_class;
	t->cpu = cpu;
	t->on_cpu = 1;
	cpumask_clear(&t->cpus_allowed);
	cpumask_set_cpu(cpu, &t->cpus_allowed);
	t->nr_cpus_allowed = 1;
	ksnprintf(t->comm, sizeof(t->comm), "swapper/%u", cpu); /* as in Linux */
	t->pid = 0;
	return t;
}

int sched_init(const struct machine *m)
{
	const struct sched_class *class;

	sched_classes_init();
	for (u32 cpu = 0; cpu < m->nr_cpus; cpu++) {
		struct rq *rq = kzalloc(sizeof(*rq));

		if (!rq)
			return -ENOMEM;
		rq->lock = (struct spinlock)SPINLOCK_INIT;
		rq->cpu = cpu;
		rq->cpu_power = SCHED_POWER_SCALE;
		rq->avg_idle = rq_initial_avg_idle();
		for_each_class (class)
			if (class->rq_init)
				class->rq_init(rq);
		rq->idle = idle_task_create(cpu);
		if (!rq->idle)
			return -ENOMEM;
		rq->curr = rq->idle;
		runqueues[cpu] = rq;
	}
	nr_rqs = m->nr_cpus;
	sched_update_tunables(m->nr_cpus);
	sched_running = true;
	return 0;
}

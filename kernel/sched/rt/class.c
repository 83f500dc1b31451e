/*
 * The real-time class: SCHED_FIFO and SCHED_RR as Linux runs them, ranked
 * above fair. Each CPU has one FIFO list per priority (1..99) and a bitmap
 * of the non-empty ones; the first task of the highest list runs. A FIFO
 * task runs until it blocks, yields or a higher priority comes; an RR task
 * also goes to the tail of its list when its slice (sched_rr_timeslice_ms)
 * is used up. Throttling keeps a runaway task from taking a CPU for good:
 * in every sched_rt_period_us the class may run sched_rt_runtime_us on a
 * CPU (Linux's 950000 of 1000000, each CPU on its own, as with Linux's
 * RT_RUNTIME_SHARE off); past that it picks nothing until the period ends.
 * Placement between CPUs is in push.c, the system calls' side in policy.c.
 */
#include "sched/rt/rt.h"

#include <arch/smp.h>

#include "cmdline.h"
#include "mm/heap.h"
#include "panic.h"
#include "printk.h"
#include "sched/sched.h"

#define NSEC_PER_USEC 1000ULL
#define NSEC_PER_MSEC 1000000ULL

s64 sysctl_sched_rt_runtime_us = 950000;
BOOT_OPTION_INT(
	sched_rt_runtime_us, "sched_rt_runtime_us", &sysctl_sched_rt_runtime_us, -1, 1000000000,
	"real-time tasks may run this long per period on each CPU; -1: no limit (no throttling)");
s64 sysctl_sched_rt_period_us = 1000000;
BOOT_OPTION_INT(sched_rt_period_us, "sched_rt_period_us", &sysctl_sched_rt_period_us, 1000,
		1000000000, "the period of real-time throttling");
s64 sysctl_sched_rr_timeslice_ms = 100;
BOOT_OPTION_INT(sched_rr_timeslice_ms, "sched_rr_timeslice_ms", &sysctl_sched_rr_timeslice_ms, 1,
		1000000, "the time slice of a SCHED_RR task");

static struct rt_rq *rt_rqs[MAX_CPUS];

struct rt_rq *rt_rq_of(u32 cpu)
{
	return rt_rqs[cpu];
}

static struct rt_rq *rt_rq(struct rq *rq)
{
	return rt_rqs[rq->cpu];
}

struct rt_task *rt_task_of(struct task *p)
{
	return sched_task_priv(p, struct rt_task);
}

static struct task *task_of_node(struct list_head *node)
{
	return sched_priv_task(list_entry(node, struct rt_task, run_list));
}

u32 rt_task_prio(const struct task *p)
{
	u32 prio = READ_ONCE(p->rt_priority);

	/* sched=rt gives new tasks this class with priority 0: they run at the lowest. */
	return prio < RT_PRIO_MIN ? RT_PRIO_MIN : prio > RT_PRIO_MAX ? RT_PRIO_MAX : prio;
}

u64 sched_rr_timeslice_ns(void)
{
	return (u64)sysctl_sched_rr_timeslice_ms * NSEC_PER_MSEC;
}

/* The runtime allowed per period in ns, or 0 for no limit. */
static u64 rt_runtime_ns(void)
{
	s64 runtime = sysctl_sched_rt_runtime_us, period = sysctl_sched_rt_period_us;

	if (runtime < 0 || runtime >= period)
		return 0;
	return (u64)runtime * NSEC_PER_USEC;
}

static u64 rt_period_ns(void)
{
	return (u64)sysctl_sched_rt_period_us * NSEC_PER_USEC;
}

/* ---------------------------------------------------------------- the queue */

static u32 highest_prio(const struct rt_rq *r)
{
	if (r->bitmap[1])
		return 64 + 63 - (u32)__builtin_clzll(r->bitmap[1]);
	if (r->bitmap[0])
		return 63 - (u32)__builtin_clzll(r->bitmap[0]);
	return 0;
}

static void queue_add(struct rt_rq *r, struct rt_task *rt, bool head)
{
	if (head)
		list_add(&rt->run_list, &r->queue[rt->prio]);
	else
		list_add_tail(&rt->run_list, &r->queue[rt->prio]);
	r->bitmap[rt->prio / 64] |= 1ULL << (rt->prio % 64);
	WRITE_ONCE(r->highest, highest_prio(r));
}

static void queue_del(struct rt_rq *r, struct rt_task *rt)
{
	list_del(&rt->run_list);
	list_init(&rt->run_list);
	if (list_empty(&r->queue[rt->prio]))
		r->bitmap[rt->prio / 64] &= ~(1ULL << (rt->prio % 64));
	WRITE_ONCE(r->highest, highest_prio(r));
}

/* Throttled tasks stay counted in rq->nr_running; the core learns how many it cannot run. */
static void note_throttled(struct rq *rq, struct rt_rq *r)
{
	rq->nr_throttled = r->throttled ? r->nr_running : 0;
}

static void rq_init_rt(struct rq *rq)
{
	struct rt_rq *r = kzalloc(sizeof(*r));

	if (!r)
		panic("rt: no memory for cpu%u's queue", rq->cpu);
	for (u32 i = 0; i < RT_LEVELS; i++)
		list_init(&r->queue[i]);
	rt_rqs[rq->cpu] = r;
}

static void enqueue_task_rt(struct rq *rq, struct task *p, int flags)
{
	struct rt_rq *r = rt_rq(rq);
	struct rt_task *rt = rt_task_of(p);

	rt->prio = rt_task_prio(p);
	queue_add(r, rt, flags & ENQUEUE_HEAD);
	rt->queued = true;
	WRITE_ONCE(r->nr_running, r->nr_running + 1);
	note_throttled(rq, r);
}

static void dequeue_task_rt(struct rq *rq, struct task *p, int flags)
{
	struct rt_rq *r = rt_rq(rq);
	struct rt_task *rt = rt_task_of(p);

	if (!rt->queued)
		return;
	queue_del(r, rt);
	rt->queued = false;
	WRITE_ONCE(r->nr_running, r->nr_running - 1);
	note_throttled(rq, r);
}

/* sched_yield: to the tail of its list; schedule() follows. */
static void yield_task_rt(struct rq *rq)
{
	struct rt_task *rt = rt_task_of(rq->curr);

	if (rt->queued) {
		queue_del(rt_rq(rq), rt);
		queue_add(rt_rq(rq), rt, false);
	}
}

static void check_preempt_curr_rt(struct rq *rq, struct task *p, int wake_flags)
{
	if (rt_task_of(p)->prio > rt_task_of(rq->curr)->prio)
		resched_curr(rq);
}

static struct task *pick_next_task_rt(struct rq *rq)
{
	struct rt_rq *r = rt_rq(rq);
	u32 prio;

	if (!r->nr_running || r->throttled)
		return NULL;
	prio = highest_prio(r);
	r->curr_rt = true;
	return task_of_node(r->queue[prio].next);
}

/* ---------------------------------------------------------------- time */

/*
 * The period timer, run lazily (from the class's accounting and from every
 * tick of the CPU): each whole period gone by gives back one period's
 * runtime, as Linux's do_sched_rt_period_timer, and ends a throttle once
 * what is left is below the runtime. rq lock held.
 */
static void rt_period_refresh(struct rq *rq, struct rt_rq *r)
{
	u64 period = rt_period_ns(), runtime = rt_runtime_ns(), n, back;

	if (rq->clock - r->period_start < period)
		return;
	n = (rq->clock - r->period_start) / period;
	r->period_start += n * period;
	back = runtime ? n * runtime : r->rt_time;
	r->rt_time = r->rt_time > back ? r->rt_time - back : 0;
	if (r->throttled && (!runtime || r->rt_time < runtime)) {
		r->throttled = false;
		note_throttled(rq, r);
		if (r->nr_running)
			resched_curr(rq); /* its tasks come back ahead of fair */
	}
}

/* The running RR task p used its slice: a fresh one, behind its equals. */
static void rr_slice_over(struct rq *rq, struct task *p)
{
	struct rt_rq *r = rt_rq(rq);
	struct rt_task *rt = rt_task_of(p);

	rt->time_slice = sched_rr_timeslice_ns();
	if (rt->queued && r->queue[rt->prio].next != r->queue[rt->prio].prev) {
		queue_del(r, rt);
		queue_add(r, rt, false);
		resched_curr(rq);
	}
}

/* Charges rq->curr (p, ours): its slice, the CPU's period budget, the throttle. */
static void account(struct rq *rq, struct task *p)
{
	struct rt_rq *r = rt_rq(rq);
	struct rt_task *rt = rt_task_of(p);
	u64 ran = update_curr_common(rq), runtime = rt_runtime_ns();

	rt_period_refresh(rq, r);
	if (!ran)
		return;
	if (p->policy != SCHED_FIFO) { /* RR, or a task sched=rt gave the class */
		rt->time_slice = ran >= rt->time_slice ? 0 : rt->time_slice - ran;
		if (!rt->time_slice)
			rr_slice_over(rq, p);
	}
	r->rt_time += ran;
	if (runtime && !r->throttled && r->rt_time > runtime) {
		r->throttled = true;
		r->nr_throttles++;
		note_throttled(rq, r);
		if (r->nr_throttles == 1)
			pr_warn("rt: cpu%u: throttling: real-time tasks ran %llu us of %lld us\n",
				rq->cpu, (unsigned long long)(r->rt_time / NSEC_PER_USEC),
				(long long)sysctl_sched_rt_period_us);
		resched_curr(rq);
	}
}

static void put_prev_task_rt(struct rq *rq, struct task *prev)
{
	account(rq, prev);
	rt_rq(rq)->curr_rt = false;
}

static void update_curr_rt(struct rq *rq)
{
	account(rq, rq->curr);
}

static void task_tick_rt(struct rq *rq, struct task *p)
{
	account(rq, p);
}

/* ---------------------------------------------------------------- joining and leaving */

static void task_init_rt(struct task *p)
{
	struct rt_task *rt = rt_task_of(p);

	list_init(&rt->run_list);
	rt->time_slice = sched_rr_timeslice_ns();
	rt->prio = rt_task_prio(p);
	rt->queued = false;
}

/* p joined while running: it is the class's current; a higher queued priority preempts it. */
static void switched_to_rt(struct rq *rq, struct task *p)
{
	struct rt_rq *r = rt_rq(rq);

	if (!task_running(rq, p))
		return;
	r->curr_rt = true;
	if (r->throttled || highest_prio(r) > rt_task_of(p)->prio)
		resched_curr(rq);
}

struct task *rt_waiting_task(struct rq *rq, u32 cpu, u32 above)
{
	struct rt_rq *r = rt_rq(rq);
	u32 looked = 0, top = highest_prio(r);
	/* The task rq picks next (it is about to preempt there) stays. */
	struct task *next = top && !r->throttled ? task_of_node(r->queue[top].next) : NULL;

	for (u32 prio = top; prio > above && prio >= RT_PRIO_MIN; prio--) {
		struct list_head *pos;

		if (!(r->bitmap[prio / 64] & (1ULL << (prio % 64))))
			continue;
		for (pos = r->queue[prio].next; pos != &r->queue[prio] && looked < 64;
		     pos = pos->next, looked++) {
			struct task *p = task_of_node(pos);

			bool fits = cpu < MAX_CPUS ? cpumask_test_cpu(cpu, &p->cpus_allowed) :
						     p->nr_cpus_allowed > 1;

			if (p != next && !task_running(rq, p) && fits &&
			    !READ_ONCE(p->migration_pending))
				return p;
		}
	}
	return NULL;
}

static struct task *waiter_for_rt(struct rq *rq, u32 cpu, u32 max)
{
	struct task *p = rt_waiting_task(rq, cpu, 0);

	(void)max; /* rt_waiting_task looks at 64 tasks at most */
	/* A throttled queue's tasks may not run anywhere this period: not a wasted CPU. */
	return rt_rq(rq)->throttled ? NULL : p;
}

/* ---------------------------------------------------------------- placement and balancing */

/*
 * Where p wakes (or starts): its own CPU unless that runs a task of equal
 * or higher real-time priority, then the lowest CPU below p (push.c).
 */
static u32 select_task_rq_rt(struct task *p, int sd_flag, int wake_flags)
{
	u32 cpu = task_cpu(p), target;

	if (p->nr_cpus_allowed < 2 && cpumask_test_cpu(cpu, &p->cpus_allowed))
		return cpu;
	if (cpumask_test_cpu(cpu, &p->cpus_allowed) && rt_cpu_level(cpu) < 1 + rt_task_prio(p))
		return cpu;
	target = rt_find_lowest_cpu(p, cpu);
	return target < MAX_CPUS ? target : cpu;
}

/*
 * The tick: the period timer's work (even when no task of ours runs, so
 * a throttle ends), then push waiting tasks away and pull higher ones in.
 * New-idle: pull. No lock held at the tick; rq->lock held at new-idle,
 * dropped while pulling (interrupts stay off).
 */
static void balance_rt(struct rq *rq, enum sched_balance_why why)
{
	if (why == SCHED_BALANCE_NEWIDLE) {
		spin_unlock(&rq->lock);
		rt_pull_tasks(rq);
		spin_lock(&rq->lock);
		return;
	}
	spin_lock(&rq->lock);
	rt_period_refresh(rq, rt_rq(rq));
	spin_unlock(&rq->lock);
	rt_push_tasks(rq);
	rt_pull_tasks(rq);
}

/* ---------------------------------------------------------------- the watchdog's view */

#define RT_DUMP_MAX 32

static void dump_rt(struct rq *rq)
{
	struct rt_rq *r = rt_rq(rq);
	u32 shown = 0;

	pr_emerg("rt: cpu%u: %u tasks, highest priority %u, %s, %llu us run this period, "
		 "throttled %llu times\n",
		 rq->cpu, r->nr_running, r->highest, r->throttled ? "throttled" : "not throttled",
		 (unsigned long long)(r->rt_time / NSEC_PER_USEC),
		 (unsigned long long)r->nr_throttles);
	for (u32 prio = RT_PRIO_MAX; prio >= RT_PRIO_MIN && shown < RT_DUMP_MAX; prio--) {
		struct list_head *pos = r->queue[prio].next;

		for (; pos != &r->queue[prio] && shown < RT_DUMP_MAX; pos = pos->next, shown++) {
			struct task *p = task_of_node(pos);

			pr_emerg("rt:   %s %s:%d prio %u %s, %llu us of its slice left\n",
				 task_running(rq, p) ? "running" : "queued", p->comm, p->pid, prio,
				 p->policy == SCHED_FIFO ? "FIFO" : "RR",
				 (unsigned long long)(rt_task_of(p)->time_slice / NSEC_PER_USEC));
		}
	}
	if (shown == RT_DUMP_MAX)
		pr_emerg("rt:   ... (listing cut at %u)\n", RT_DUMP_MAX);
}

/* For sched_verify: rq's real-time tasks, throttled ones included (they stay in nr_running). */
static u32 nr_queued_rt(const struct rq *rq)
{
	const struct rt_rq *r = rt_rq_of(rq->cpu);

	return r ? r->nr_running : 0;
}

const struct sched_class rt_sched_class = {
	.name = "rt",
	.rank = 50,
	.rq_init = rq_init_rt,
	.enqueue_task = enqueue_task_rt,
	.dequeue_task = dequeue_task_rt,
	.yield_task = yield_task_rt,
	.check_preempt_curr = check_preempt_curr_rt,
	.pick_next_task = pick_next_task_rt,
	.put_prev_task = put_prev_task_rt,
	.select_task_rq = select_task_rq_rt,
	.update_curr = update_curr_rt,
	.task_tick = task_tick_rt,
	.task_init = task_init_rt,
	.switched_to = switched_to_rt,
	.balance = balance_rt,
	.waiter_for = waiter_for_rt,
	.nr_queued = nr_queued_rt,
	.dump = dump_rt,
};
SCHED_CLASS_REGISTER(rt_sched_class);

/*
 * A round-robin class, the shape of a lab's first scheduler and the proof
 * that a policy is one file and one registration (`sched=rr` gives it to
 * every new task). Each CPU keeps a FIFO of runnable tasks; the one at the
 * head runs for RR_SLICE_NS (counted in ticks), then goes to the tail.
 * Nice values, sleeper credit and load balancing are deliberately absent:
 * a waking task is queued on the CPU it last ran on (if still allowed),
 * and a new task on the least loaded allowed CPU. It ranks below fair, so
 * CFS tasks (if any) run first.
 */
#include <arch/cpu.h>
#include <arch/smp.h>

#include "lib/list.h"
#include "printk.h"
#include "sched/sched.h"

#define RR_SLICE_NS 10000000ULL /* 10 ms: a few ticks at any hz */

/* This class's part of each runqueue, kept here rather than in struct rq. */
static struct rr_rq {
	struct list_head queue; /* runnable tasks but the running one, by run_list */
	u32 nr;			/* tasks of this class on the CPU, the running one included */
} rr_rqs[MAX_CPUS];

/* This class's state of each of its tasks, in the task's class slot. */
struct rr_task {
	struct list_head run_list; /* in rr_rq.queue while waiting */
	u64 slice_left;		   /* ns left of its slice */
	bool queued;		   /* enqueued in the class (running or waiting) */
};

static struct rr_rq *rr_rq(struct rq *rq)
{
	return &rr_rqs[rq->cpu];
}

static struct rr_task *rr_task(struct task *p)
{
	return sched_task_priv(p, struct rr_task);
}

static struct task *rr_task_of(struct list_head *node)
{
	return sched_priv_task(list_entry(node, struct rr_task, run_list));
}

static void rq_init_rr(struct rq *rq)
{
	struct rr_rq *r = rr_rq(rq);

	list_init(&r->queue);
	r->nr = 0;
}

static void enqueue_task_rr(struct rq *rq, struct task *p, int flags)
{
	struct rr_rq *r = rr_rq(rq);
	struct rr_task *rt = rr_task(p);

	/* LAB 1 BEGIN enqueue */
	list_add_tail(&rt->run_list, &r->queue);
	rt->queued = true;
	r->nr++;
	/* LAB 1 SKELETON
	TODO: p joins the tail of the FIFO; mark it queued and count it in r->nr.
	(void)r;
	(void)rt;
	   LAB 1 END */
}

static void dequeue_task_rr(struct rq *rq, struct task *p, int flags)
{
	struct rr_rq *r = rr_rq(rq);
	struct rr_task *rt = rr_task(p);

	/* LAB 1 BEGIN dequeue */
	if (!list_empty(&rt->run_list)) {
		list_del(&rt->run_list);
		list_init(&rt->run_list);
	}
	rt->queued = false;
	r->nr--;
	/* LAB 1 SKELETON
	TODO: off the FIFO if waiting on it; no longer queued.
	(void)r;
	(void)rt;
	   LAB 1 END */
}

static void yield_task_rr(struct rq *rq)
{
	/* LAB 1 BEGIN yield */
	/* put_prev_task sends it to the tail */
	rr_task(rq->curr)->slice_left = 0;
	/* LAB 1 SKELETON
	TODO: make rq->curr go to the back of the line when schedule() puts it.
	(void)rq;
	   LAB 1 END */
}

static void check_preempt_curr_rr(struct rq *rq, struct task *p, int wake_flags)
{
	/* Round-robin: a wake-up waits its turn. */
}

static struct task *pick_next_task_rr(struct rq *rq)
{
	struct rr_rq *r = rr_rq(rq);
	struct rr_task *rt;
	struct task *p;

	/* LAB 1 BEGIN pick */
	if (list_empty(&r->queue))
		return NULL;
	p = rr_task_of(r->queue.next);
	rt = rr_task(p);
	list_del(&rt->run_list); /* the running task is off the FIFO */
	list_init(&rt->run_list);
	if (!rt->slice_left)
		rt->slice_left = RR_SLICE_NS;
	return p;
	/* LAB 1 SKELETON
	TODO: take the FIFO's head off it; a fresh slice if it has none.
	TODO: rr_task_of() turns the head's list node into its task.
	(void)rr_task_of;
	(void)r;
	(void)rt;
	(void)p;
	return NULL;
	   LAB 1 END */
}

/* Charges rq->curr (p) through the core's accounting and takes the time off its slice. */
static void account(struct rq *rq, struct task *p)
{
	struct rr_task *rt = rr_task(p);
	u64 ran = update_curr_common(rq);

	rt->slice_left = ran >= rt->slice_left ? 0 : rt->slice_left - ran;
}

static void put_prev_task_rr(struct rq *rq, struct task *prev)
{
	struct rr_task *rt = rr_task(prev);

	account(rq, prev);
	if (!rt->queued) /* dequeued (sleeping, or leaving the class) */
		return;
	/* Still runnable: first in line if its slice is not spent (a higher class cut in), else last. */
	if (rt->slice_left)
		list_add(&rt->run_list, &rr_rq(rq)->queue);
	else
		list_add_tail(&rt->run_list, &rr_rq(rq)->queue);
}

static void update_curr_rr(struct rq *rq)
{
	account(rq, rq->curr);
}

static void task_tick_rr(struct rq *rq, struct task *p)
{
	account(rq, p);
	/* LAB 1 BEGIN tick */
	if (!rr_task(p)->slice_left && !list_empty(&rr_rq(rq)->queue))
		resched_curr(rq);
	/* LAB 1 SKELETON
	TODO: once p's slice is spent and someone waits, ask for a reschedule.
	   LAB 1 END */
}

static u32 select_task_rq_rr(struct task *p, int sd_flag, int wake_flags)
{
	u32 best = MAX_CPUS, best_nr = ~0U;

	if (sd_flag != SD_BALANCE_FORK && cpumask_test_cpu(task_cpu(p), &p->cpus_allowed))
		return task_cpu(p);
	for (u32 cpu = 0; cpu < sched_nr_cpus(); cpu++) {
		struct rq *rq = cpu_rq(cpu);

		if (!cpumask_test_cpu(cpu, &p->cpus_allowed) || !arch_cpu_online(cpu))
			continue;
		if (READ_ONCE(rq->nr_running) < best_nr) {
			best_nr = READ_ONCE(rq->nr_running);
			best = cpu;
		}
	}
	return best < MAX_CPUS ? best : task_cpu(p);
}

/* A task joins the class (new, or moved here): off the FIFO, a full slice ahead. */
static void task_init_rr(struct task *p)
{
	struct rr_task *rt = rr_task(p);

	list_init(&rt->run_list);
	rt->slice_left = RR_SLICE_NS;
	rt->queued = false;
}

/* p moved here while running: it is the class's current, so off the FIFO enqueue put it on. */
static void switched_to_rr(struct rq *rq, struct task *p)
{
	struct rr_task *rt = rr_task(p);

	if (task_running(rq, p) && !list_empty(&rt->run_list)) {
		list_del(&rt->run_list);
		list_init(&rt->run_list);
	}
}

#define RR_DUMP_MAX 32

extern const struct sched_class rr_sched_class;

/* The stall watchdog's view of this CPU's FIFO: the running task and each waiting one, in order. */
static void dump_rr(struct rq *rq)
{
	struct rr_rq *r = rr_rq(rq);
	struct list_head *pos = r->queue.next;
	u32 shown = 0;

	pr_emerg("rr: cpu%u: %u tasks of the class (the running one included)\n", rq->cpu, r->nr);
	if (rq->curr->sched_class == &rr_sched_class)
		pr_emerg("rr:   running %s:%d, %llu us of its slice left\n", rq->curr->comm,
			 rq->curr->pid, (unsigned long long)(rr_task(rq->curr)->slice_left / 1000));
	for (; pos != &r->queue && shown < RR_DUMP_MAX; pos = pos->next, shown++) {
		struct rr_task *rt = list_entry(pos, struct rr_task, run_list);
		struct task *p = sched_priv_task(rt);

		pr_emerg("rr:   queued %s:%d, %llu us of its slice left\n", p->comm, p->pid,
			 (unsigned long long)(rt->slice_left / 1000));
	}
	if (pos != &r->queue)
		pr_emerg("rr:   ... (listing cut at %u)\n", RR_DUMP_MAX);
}

const struct sched_class rr_sched_class = {
	.name = "rr",
	.rank = 200,
	.rq_init = rq_init_rr,
	.enqueue_task = enqueue_task_rr,
	.dequeue_task = dequeue_task_rr,
	.yield_task = yield_task_rr,
	.check_preempt_curr = check_preempt_curr_rr,
	.pick_next_task = pick_next_task_rr,
	.put_prev_task = put_prev_task_rr,
	.select_task_rq = select_task_rq_rr,
	.update_curr = update_curr_rr,
	.task_tick = task_tick_rr,
	.task_init = task_init_rr,
	.switched_to = switched_to_rr,
	.dump = dump_rr,
};
SCHED_CLASS_REGISTER(rr_sched_class);

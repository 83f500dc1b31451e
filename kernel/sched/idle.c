/*
 * The idle class: each CPU's idle task, picked when no other class has a
 * task. It is never queued; it just stands in as rq->curr.
 */
#include "sched/sched.h"

#include "panic.h"

static void enqueue_task_idle(struct rq *rq, struct task *p, int flags)
{
	panic("sched: idle task %s enqueued", p->comm);
}

static void dequeue_task_idle(struct rq *rq, struct task *p, int flags)
{
	panic("sched: idle task %s dequeued", p->comm);
}

static struct task *pick_next_task_idle(struct rq *rq)
{
	return rq->idle;
}

static void put_prev_task_idle(struct rq *rq, struct task *prev)
{
}

static void check_preempt_curr_idle(struct rq *rq, struct task *p, int wake_flags)
{
	resched_curr(rq);
}

static u32 select_task_rq_idle(struct task *p, int sd_flag, int wake_flags)
{
	return p->cpu;
}

const struct sched_class idle_sched_class = {
	.name = "idle",
	.rank = 1000,
	.enqueue_task = enqueue_task_idle,
	.dequeue_task = dequeue_task_idle,
	.check_preempt_curr = check_preempt_curr_idle,
	.pick_next_task = pick_next_task_idle,
	.put_prev_task = put_prev_task_idle,
	.select_task_rq = select_task_rq_idle,
};

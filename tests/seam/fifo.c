/*
 * fifo: a minimal first-in, first-out class kept under tests/, outside the
 * kernel proper, to prove that a policy is one file and one registration
 * line. The seam build links it in (tests/boot/run.py's seam-proof test,
 * or `make BUILD=build/seam EXTRA_KERNEL_C="tests/seam/fifo.c
 * tests/seam/prev_idle.c"`) and `sched=fifo` gives it every new task.
 *
 * Each CPU keeps one queue of runnable tasks in arrival order. The task at
 * the head runs until it blocks, yields (to the tail) or exits: there is no
 * time slice, the tick does nothing and a waking fifo task never preempts
 * a running one. Rank 150, between fair (100) and idle: fair tasks, if any,
 * run first, and a task the stopper or fair class takes the CPU from goes
 * back to the head of the queue. Placement is the fair class's, so
 * sched_select= chooses it; there is no load balancing, nice is ignored.
 *
 * When it works: programs that block often (pipes, futexes, wait, sleep)
 * or have at most as many runnable tasks as CPUs -- the user test
 * programs, batch jobs. When it does not: a task that spins waiting for
 * another that is queued behind it on the same CPU never lets it run, and
 * that CPU hangs (issue 11's watchdog would catch it); a CPU-bound task
 * keeps every task queued behind it waiting, however long; and since
 * nothing balances, tasks stay where placement put them even while other
 * CPUs go idle.
 */
#include "lib/list.h"
#include "sched/sched.h"
#include "sched/select.h"

/* Per task, in the task's class slot. */
struct fifo_task {
	struct list_head node; /* in its CPU's queue while waiting; empty while running */
	bool queued;	       /* enqueued in the class: waiting or running */
	bool yielded;	       /* put_prev_task sends it to the tail, not back to the head */
};

/* Per CPU: the waiting tasks, oldest first. */
static struct list_head fifo_queue[MAX_CPUS];

static struct fifo_task *fifo_task(struct task *p)
{
	return sched_task_priv(p, struct fifo_task);
}

static void rq_init_fifo(struct rq *rq)
{
	list_init(&fifo_queue[rq->cpu]);
}

static void task_init_fifo(struct task *p)
{
	list_init(&fifo_task(p)->node);
}

/* A running task is off the queue: put_prev_task files it when it stops. */
static void enqueue_task_fifo(struct rq *rq, struct task *p, int flags)
{
	struct fifo_task *f = fifo_task(p);

	f->queued = true;
	if (!task_running(rq, p) && list_empty(&f->node))
		list_add_tail(&f->node, &fifo_queue[rq->cpu]);
}

static void dequeue_task_fifo(struct rq *rq, struct task *p, int flags)
{
	struct fifo_task *f = fifo_task(p);

	f->queued = false;
	if (!list_empty(&f->node)) {
		list_del(&f->node);
		list_init(&f->node);
	}
}

static void yield_task_fifo(struct rq *rq)
{
	fifo_task(rq->curr)->yielded = true;
}

static struct task *pick_next_task_fifo(struct rq *rq)
{
	struct list_head *q = &fifo_queue[rq->cpu];
	struct fifo_task *f;

	if (list_empty(q))
		return NULL;
	f = list_entry(q->next, struct fifo_task, node);
	list_del(&f->node);
	list_init(&f->node);
	return sched_priv_task(f);
}

static void put_prev_task_fifo(struct rq *rq, struct task *prev)
{
	struct fifo_task *f = fifo_task(prev);

	update_curr_common(rq);
	if (f->queued && list_empty(&f->node)) {
		if (f->yielded)
			list_add_tail(&f->node, &fifo_queue[rq->cpu]);
		else
			list_add(&f->node, &fifo_queue[rq->cpu]); /* a higher class cut in */
	}
	f->yielded = false;
}

static void update_curr_fifo(struct rq *rq)
{
	update_curr_common(rq);
}

const struct sched_class fifo_sched_class = {
	.name = "fifo",
	.rank = 150,
	.rq_init = rq_init_fifo,
	.task_init = task_init_fifo,
	.enqueue_task = enqueue_task_fifo,
	.dequeue_task = dequeue_task_fifo,
	.yield_task = yield_task_fifo,
	.pick_next_task = pick_next_task_fifo,
	.put_prev_task = put_prev_task_fifo,
	.select_task_rq = select_task_rq_fair,
	.update_curr = update_curr_fifo,
};
SCHED_CLASS_REGISTER(fifo_sched_class);

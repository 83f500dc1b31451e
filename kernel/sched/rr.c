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
#include <arch/time.h>

#include "lib/list.h"
#include "printk.h"
#include "sched/sched.h"

#define RR_SLICE_NS 10000000ULL /* 10 ms: a few ticks at any hz */

/* This class's part of each runqueue, kept here rather than in struct rq. */
static struct rr_rq {
	struct list_head queue; /* runnable tasks but the running one, by run_list */
	u32 nr;			/* tasks of this class on the CPU, the running one included */
} rr_rqs[MAX_CPUS];

static struct rr_rq *rr_rq(struct rq *rq)
{
	struct rr_rq *r = &rr_rqs[rq->cpu];

	if (!r->queue.next)
		list_init(&r->queue); /* first use: zeroed static memory */
	return r;
}

static void enqueue_task_rr(struct rq *rq, struct task *p, int flags)
{
	struct rr_rq *r = rr_rq(rq);

	list_add_tail(&p->run_list, &r->queue);
	p->rr_queued = true;
	r->nr++;
}

static void dequeue_task_rr(struct rq *rq, struct task *p, int flags)
{
	struct rr_rq *r = rr_rq(rq);

	if (!list_empty(&p->run_list)) {
		list_del(&p->run_list);
		list_init(&p->run_list);
	}
	p->rr_queued = false;
	r->nr--;
}

static void yield_task_rr(struct rq *rq)
{
	rq->curr->rr_slice_left = 0; /* put_prev_task sends it to the tail */
}

static void check_preempt_curr_rr(struct rq *rq, struct task *p, int wake_flags)
{
	/* Round-robin: a wake-up waits its turn. */
}

static struct task *pick_next_task_rr(struct rq *rq)
{
	struct rr_rq *r = rr_rq(rq);
	struct task *p;

	if (list_empty(&r->queue))
		return NULL;
	p = list_entry(r->queue.next, struct task, run_list);
	list_del(&p->run_list); /* the running task is off the FIFO */
	list_init(&p->run_list);
	if (!p->rr_slice_left)
		p->rr_slice_left = RR_SLICE_NS;
	p->se.exec_start = arch_clock_ns();
	return p;
}

static void account(struct task *p)
{
	u64 now = arch_clock_ns(), ran = now - p->se.exec_start;

	p->se.sum_exec_runtime += ran;
	p->se.exec_start = now;
	p->rr_slice_left = ran >= p->rr_slice_left ? 0 : p->rr_slice_left - ran;
}

static void put_prev_task_rr(struct rq *rq, struct task *prev)
{
	account(prev);
	if (!prev->rr_queued) /* dequeued (sleeping, or leaving the class) */
		return;
	/* Still runnable: first in line if its slice is not spent (a higher class cut in), else last. */
	if (prev->rr_slice_left)
		list_add(&prev->run_list, &rr_rq(rq)->queue);
	else
		list_add_tail(&prev->run_list, &rr_rq(rq)->queue);
}

static void update_curr_rr(struct rq *rq)
{
	account(rq->curr);
}

static void task_tick_rr(struct rq *rq, struct task *p)
{
	account(p);
	if (!p->rr_slice_left && !list_empty(&rr_rq(rq)->queue))
		resched_curr(rq);
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

static void task_fork_rr(struct task *p)
{
	list_init(&p->run_list);
	p->rr_slice_left = RR_SLICE_NS;
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
			 rq->curr->pid, (unsigned long long)(rq->curr->rr_slice_left / 1000));
	for (; pos != &r->queue && shown < RR_DUMP_MAX; pos = pos->next, shown++) {
		struct task *p = list_entry(pos, struct task, run_list);

		pr_emerg("rr:   queued %s:%d, %llu us of its slice left\n", p->comm, p->pid,
			 (unsigned long long)(p->rr_slice_left / 1000));
	}
	if (pos != &r->queue)
		pr_emerg("rr:   ... (listing cut at %u)\n", RR_DUMP_MAX);
}

const struct sched_class rr_sched_class = {
	.name = "rr",
	.rank = 200,
	.enqueue_task = enqueue_task_rr,
	.dequeue_task = dequeue_task_rr,
	.yield_task = yield_task_rr,
	.check_preempt_curr = check_preempt_curr_rr,
	.pick_next_task = pick_next_task_rr,
	.put_prev_task = put_prev_task_rr,
	.select_task_rq = select_task_rq_rr,
	.update_curr = update_curr_rr,
	.task_tick = task_tick_rr,
	.task_fork = task_fork_rr,
	.dump = dump_rr,
};
SCHED_CLASS_REGISTER(rr_sched_class);

/*
 * The per-CPU stopper: a kernel thread per CPU ("migration/N", as in
 * Linux) in the stop class, which sits above fair, so once woken it
 * preempts whatever runs on its CPU. It runs queued functions there:
 * active balancing (balance.c) and moving a running task
 * (migrate_running_task). A preempted task is queued, not running, and
 * can then be moved like any other with move_queued_task().
 *
 * The class holds one task per CPU and needs no queue: a flag says
 * whether the stopper is runnable. The stopper runs a function to its end
 * and is never preempted: no class is above it and nothing else in its
 * class can wake.
 */
#include "sched/stop.h"

#include <arch/cpu.h>
#include <arch/smp.h>

#include "lib/errno.h"
#include "lib/printf.h"
#include "printk.h"

struct stop_work {
	void (*fn)(void *arg);
	void *arg;
};

struct cpu_stopper {
	struct spinlock lock; /* guards the ring */
	struct task *task;    /* the thread, from its creation */
	struct rq *rq;	      /* its runqueue: a stopper of an older sched_init() is not used */
	bool ready;	      /* set (release) once task is in the stop class */
	bool queued;	      /* runnable in the stop class; the rq lock guards it */
	u32 head, tail;	      /* pending work: [head, tail), free-running */
	struct stop_work work[STOP_WORK_SLOTS];
};

static struct cpu_stopper stoppers[MAX_CPUS];

void (*stop_wait_hook)(u32 cpu);

struct task *cpu_stopper_task(u32 cpu)
{
	if (cpu >= MAX_CPUS || !__atomic_load_n(&stoppers[cpu].ready, __ATOMIC_ACQUIRE) ||
	    stoppers[cpu].rq != cpu_rq(cpu))
		return NULL;
	return stoppers[cpu].task;
}

/* ---------------------------------------------------------------- the class */

static void enqueue_task_stop(struct rq *rq, struct task *p, int flags)
{
	struct cpu_stopper *st = &stoppers[rq->cpu];

	if (p != st->task)
		pr_err("sched: %s enqueued in the stop class of cpu%u\n", p->comm, rq->cpu);
	st->queued = true;
}

static void dequeue_task_stop(struct rq *rq, struct task *p, int flags)
{
	stoppers[rq->cpu].queued = false;
}

static struct task *pick_next_task_stop(struct rq *rq)
{
	struct cpu_stopper *st = &stoppers[rq->cpu];

	return st->queued && st->rq == rq ? st->task : NULL;
}

static void put_prev_task_stop(struct rq *rq, struct task *prev)
{
}

/* The only task of the class on rq is the stopper itself: nothing to preempt. */
static void check_preempt_curr_stop(struct rq *rq, struct task *p, int wake_flags)
{
}

/* A stopper never leaves its CPU. */
static u32 select_task_rq_stop(struct task *p, int sd_flag, int wake_flags)
{
	return task_cpu(p);
}

const struct sched_class stop_sched_class = {
	.name = "stop",
	.rank = 0,
	.enqueue_task = enqueue_task_stop,
	.dequeue_task = dequeue_task_stop,
	.check_preempt_curr = check_preempt_curr_stop,
	.pick_next_task = pick_next_task_stop,
	.put_prev_task = put_prev_task_stop,
	.select_task_rq = select_task_rq_stop,
};

/* ---------------------------------------------------------------- the thread */

u32 stop_cpu_run_work(u32 cpu)
{
	struct cpu_stopper *st = &stoppers[cpu];
	u32 done = 0;

	for (;;) {
		unsigned long flags = spin_lock_irqsave(&st->lock);
		struct stop_work w;

		if (st->head == st->tail) {
			spin_unlock_irqrestore(&st->lock, flags);
			return done;
		}
		w = st->work[st->head % STOP_WORK_SLOTS];
		st->head++;
		spin_unlock_irqrestore(&st->lock, flags);
		w.fn(w.arg);
		done++;
	}
}

/*
 * Sleeps until work is queued, runs it, and again. The state is set under
 * the ring's lock, so work queued after the test finds the stopper either
 * still running or marked asleep, and the waker's wake_up_task() sees it.
 */
static void stopper_thread(void *arg)
{
	struct cpu_stopper *st = arg;
	u32 cpu = (u32)(st - stoppers);

	for (;;) {
		unsigned long flags = spin_lock_irqsave(&st->lock);
		bool empty = st->head == st->tail;

		if (empty)
			current_task()->state = TASK_INTERRUPTIBLE;
		spin_unlock_irqrestore(&st->lock, flags);
		if (empty)
			schedule();
		else
			stop_cpu_run_work(cpu);
	}
}

/*
 * kthread_create_on_cpu() makes a fair task and wakes it; move it into the
 * stop class. Not yet running (the usual case): it goes to sleep before
 * its first instruction -- its loop starts with a check for work anyway.
 * Already running: it changes class in place and will sleep by itself.
 */
static void stopper_adopt(struct task *p)
{
	unsigned long flags = spin_lock_irqsave(&p->pi_lock);
	struct rq *rq = task_rq(p); /* pinned: the balancer never moves it */

	spin_lock(&rq->lock);
	update_rq_clock(rq);
	if (p->on_rq && !task_running(rq, p)) {
		deactivate_task(rq, p, DEQUEUE_SLEEP);
		p->state = TASK_INTERRUPTIBLE;
	}
	__sched_setclass(rq, p, &stop_sched_class);
	spin_unlock(&rq->lock);
	spin_unlock_irqrestore(&p->pi_lock, flags);
}

int stop_machine_init(void)
{
	for (u32 cpu = 0; cpu < sched_nr_cpus() && cpu < MAX_CPUS; cpu++) {
		struct cpu_stopper *st = &stoppers[cpu];
		char name[TASK_COMM_LEN];
		struct task *p;

		*st = (struct cpu_stopper){ .lock = SPINLOCK_INIT };
		ksnprintf(name, sizeof(name), "migration/%u", cpu);
		p = kthread_create_on_cpu(stopper_thread, st, name, 0, cpu);
		if (!p)
			return -ENOMEM;
		st->task = p; /* enqueue_task_stop checks it */
		st->rq = cpu_rq(cpu);
		stopper_adopt(p);
		__atomic_store_n(&st->ready, true, __ATOMIC_RELEASE);
	}
	return 0;
}

int stop_one_cpu(u32 cpu, void (*fn)(void *arg), void *arg)
{
	struct task *p = cpu_stopper_task(cpu);
	struct cpu_stopper *st;
	unsigned long flags;
	struct rq *rq;

	if (!p || !cpu_rq(cpu))
		return -ENODEV;
	st = &stoppers[cpu];
	flags = spin_lock_irqsave(&st->lock);
	if (st->tail - st->head >= STOP_WORK_SLOTS) {
		spin_unlock_irqrestore(&st->lock, flags);
		return -EBUSY;
	}
	st->work[st->tail % STOP_WORK_SLOTS] = (struct stop_work){ fn, arg };
	st->tail++;
	spin_unlock_irqrestore(&st->lock, flags);

	wake_up_task(p, false);
	/* The core's wake-up preempts only an idle CPU or within a class: preempt across. */
	rq = cpu_rq(cpu);
	flags = spin_lock_irqsave(&rq->lock);
	if (rq->curr != p)
		resched_curr(rq);
	spin_unlock_irqrestore(&rq->lock, flags);
	return 0;
}

/* ---------------------------------------------------------------- migration */

/* Tries before migrate_running_task gives up on a task that keeps moving. */
#define MIGRATE_TRIES 4

struct migration_req {
	struct task *p;
	u32 dest_cpu;
	int result;
	int done;
};

/*
 * Locks p's runqueue and dst's (p->pi_lock held). The balancer moves a
 * queued task holding only the two runqueue locks, so p's CPU is read
 * again once its lock is held, as Linux's task_rq_lock() does.
 */
static struct rq *lock_task_rq_and(struct task *p, struct rq *dst)
{
	for (;;) {
		struct rq *src = task_rq(p);

		double_rq_lock(src, dst);
		if (src == task_rq(p))
			return src;
		double_rq_unlock(src, dst);
	}
}

/*
 * One attempt: 0 when p is at dest_cpu, sleeping (its wake-up will place
 * it) or has just been moved (queued, not running); 1 with *running_on set
 * when p runs there and a stopper must preempt it first; -EINVAL when
 * dest_cpu is not allowed.
 */
static int try_migrate(struct task *p, u32 dest_cpu, u32 *running_on)
{
	unsigned long flags = spin_lock_irqsave(&p->pi_lock);
	struct rq *dst = cpu_rq(dest_cpu), *src;
	int ret = 0;

	if (!cpumask_test_cpu(dest_cpu, &p->cpus_allowed)) {
		spin_unlock_irqrestore(&p->pi_lock, flags);
		return -EINVAL;
	}
	src = lock_task_rq_and(p, dst);
	if (src != dst && p->on_rq) {
		if (task_running(src, p)) {
			*running_on = src->cpu;
			ret = 1;
		} else {
			update_rq_clock(src);
			update_rq_clock(dst);
			move_queued_task(src, dst, p);
		}
	}
	double_rq_unlock(src, dst);
	spin_unlock_irqrestore(&p->pi_lock, flags);
	return ret;
}

/* In the stopper of the CPU p was running on: p is queued now, or gone elsewhere. */
static void migration_stop(void *arg)
{
	struct migration_req *req = arg;
	u32 running_on;

	req->result = try_migrate(req->p, req->dest_cpu, &running_on);
	__atomic_store_n(&req->done, 1, __ATOMIC_RELEASE);
}

/* Waits for cpu's stopper: on that CPU by letting it run, elsewhere by spinning. */
static void wait_for_stopper(u32 cpu)
{
	if (stop_wait_hook)
		stop_wait_hook(cpu);
	else if (cpu == arch_cpu_id())
		schedule();
	else
		arch_cpu_relax();
}

int migrate_running_task(struct task *p, u32 dest_cpu)
{
	if (dest_cpu >= sched_nr_cpus() || !arch_cpu_online(dest_cpu))
		return -EINVAL;
	for (int tries = 0; tries < MIGRATE_TRIES; tries++) {
		struct migration_req req = { .p = p, .dest_cpu = dest_cpu };
		u32 cpu = 0;
		int ret = try_migrate(p, dest_cpu, &cpu);

		if (ret <= 0)
			return ret;
		ret = stop_one_cpu(cpu, migration_stop, &req);
		if (ret)
			return ret;
		while (!__atomic_load_n(&req.done, __ATOMIC_ACQUIRE))
			wait_for_stopper(cpu);
		if (req.result <= 0)
			return req.result;
	}
	return -EAGAIN;
}

/*
 * Policies to classes: what sched_setscheduler(2) and sched_setattr(2)
 * change in the scheduler. SCHED_FIFO and SCHED_RR are the real-time
 * class (class.c); SCHED_NORMAL, SCHED_BATCH and SCHED_IDLE the class new
 * tasks get (fair, unless sched= chose another), which reads the policy
 * when it weighs a task.
 */
#include "sched/rt/rt.h"

#include "lib/errno.h"
#include "lib/string.h"
#include "sched/sched.h"

/* p's pi_lock and runqueue lock (interrupts off), as core.c's task_rq_lock. */
static struct rq *lock_task(struct task *p, unsigned long *flags)
{
	*flags = spin_lock_irqsave(&p->pi_lock);
	for (;;) {
		struct rq *rq = task_rq(p);

		spin_lock(&rq->lock);
		if (rq == task_rq(p))
			return rq;
		spin_unlock(&rq->lock);
	}
}

static void unlock_task(struct task *p, struct rq *rq, unsigned long flags)
{
	spin_unlock(&rq->lock);
	spin_unlock_irqrestore(&p->pi_lock, flags);
}

/* The class a task leaving the real-time policies goes to. */
static const struct sched_class *normal_class(void)
{
	const struct sched_class *class = READ_ONCE(sched_default_class);

	return class == &rt_sched_class ? &fair_sched_class : class;
}

/*
 * p of the class gets a new priority (both locks held). Linux's rule for
 * its place: a raise goes to the tail of the new list, a lowering to the
 * head, and then the CPU is told if the order of who runs changed.
 */
static void rt_change_prio(struct rq *rq, struct task *p, u32 prio)
{
	u32 old = rt_task_of(p)->prio;
	bool queued = rt_task_of(p)->queued;

	p->rt_priority = prio;
	if (prio == old)
		return;
	if (queued)
		rt_sched_class.dequeue_task(rq, p, 0);
	if (queued)
		rt_sched_class.enqueue_task(rq, p, prio < old ? ENQUEUE_HEAD : 0);
	if (!queued)
		return;
	if (task_running(rq, p)) {
		if (prio < old && rt_rq_of(rq->cpu)->highest > prio)
			resched_curr(rq); /* lowered below a waiting task */
	} else if (rq->curr->sched_class != &rt_sched_class || prio > rt_task_of(rq->curr)->prio) {
		resched_curr(rq);
	}
}

int sched_setscheduler_task(struct task *t, int policy, u32 prio)
{
	const struct sched_class *class;
	unsigned long flags;
	struct rq *rq;

	if (policy == SCHED_FIFO || policy == SCHED_RR) {
		if (prio < RT_PRIO_MIN || prio > RT_PRIO_MAX)
			return -EINVAL;
	} else if (policy == SCHED_NORMAL || policy == SCHED_BATCH || policy == SCHED_IDLE) {
		if (prio)
			return -EINVAL;
	} else {
		return -EINVAL;
	}
	rq = lock_task(t, &flags);
	class = t->sched_class;
	if (class == &stop_sched_class || class == &idle_sched_class) {
		unlock_task(t, rq, flags);
		return -EPERM;
	}
	if (sched_policy_rt((u32)policy)) {
		WRITE_ONCE(t->policy, (u32)policy);
		if (class == &rt_sched_class) {
			rt_change_prio(rq, t, prio);
		} else {
			t->rt_priority = prio; /* read by the class's task_init and enqueue */
			__sched_setclass(rq, t, &rt_sched_class);
		}
		unlock_task(t, rq, flags);
		return 0;
	}
	if (class == &rt_sched_class)
		__sched_setclass(rq, t, normal_class());
	t->rt_priority = 0;
	WRITE_ONCE(t->policy, (u32)policy);
	unlock_task(t, rq, flags);
	set_task_nice(t, READ_ONCE(t->nice)); /* the fair class weighs SCHED_IDLE apart */
	return 0;
}

void sched_fork_policy(struct task *t, const struct task *parent)
{
	u32 policy = READ_ONCE(parent->policy), prio = READ_ONCE(parent->rt_priority);

	t->policy = policy;
	t->rt_priority = sched_policy_rt(policy) ? prio : 0;
	if (!sched_policy_rt(policy) || t->sched_class == &rt_sched_class)
		return;
	/* Not yet visible: no lock needed, and nothing is queued to move. */
	memset(t->class_priv, 0, sizeof(t->class_priv));
	t->sched_class = &rt_sched_class;
	rt_sched_class.task_init(t);
}

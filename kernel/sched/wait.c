/* Wait queues: the sleep/wake-up handshake other subsystems build on. */
#include "sched/wait.h"

#include <arch/time.h>

#include "sched/task.h"

void wait_queue_init(struct wait_queue *wq)
{
	wq->lock = (struct spinlock)SPINLOCK_INIT;
	list_init(&wq->waiters);
}

void wait_prepare_state(struct wait_queue *wq, struct waiter *w, long state)
{
	unsigned long flags = spin_lock_irqsave(&wq->lock);

	if (!w->task) {
		w->task = current_task();
		list_add_tail(&w->node, &wq->waiters);
	}
	w->task->state = state;
	spin_unlock_irqrestore(&wq->lock, flags);
}

void wait_prepare(struct wait_queue *wq, struct waiter *w)
{
	wait_prepare_state(wq, w, TASK_UNINTERRUPTIBLE);
}

void wait_finish(struct wait_queue *wq, struct waiter *w)
{
	unsigned long flags = spin_lock_irqsave(&wq->lock);

	if (w->task) {
		w->task->state = TASK_RUNNING;
		list_del(&w->node);
	}
	spin_unlock_irqrestore(&wq->lock, flags);
}

unsigned int wake_up_all_sync(struct wait_queue *wq, bool sync)
{
	unsigned long flags = spin_lock_irqsave(&wq->lock);
	struct list_head *pos;
	unsigned int n = 0;

	list_for_each (pos, &wq->waiters)
		n += wake_up_task(list_entry(pos, struct waiter, node)->task, sync);
	spin_unlock_irqrestore(&wq->lock, flags);
	return n;
}

/* Armed wait timers, each on its owner's stack; CPU 0's tick fires the due ones. */
static struct spinlock timer_lock = SPINLOCK_INIT;
static struct list_head armed_timers = LIST_HEAD_INIT(armed_timers);

void wait_timer_arm(struct wait_timer *t, u64 deadline_ns)
{
	unsigned long flags;

	t->task = current_task();
	t->deadline_ns = deadline_ns;
	t->fired = false;
	flags = spin_lock_irqsave(&timer_lock);
	list_add_tail(&t->node, &armed_timers);
	spin_unlock_irqrestore(&timer_lock, flags);
}

bool wait_timer_fired(struct wait_timer *t)
{
	/* The lock's exchange orders the caller's state store before this load. */
	unsigned long flags = spin_lock_irqsave(&timer_lock);
	bool fired = t->fired;

	spin_unlock_irqrestore(&timer_lock, flags);
	return fired;
}

void wait_timer_disarm(struct wait_timer *t)
{
	unsigned long flags = spin_lock_irqsave(&timer_lock);

	if (!t->fired)
		list_del(&t->node);
	spin_unlock_irqrestore(&timer_lock, flags);
}

void wait_timeouts_tick(void)
{
	u64 now = arch_clock_ns();
	struct list_head *pos, *tmp;

	spin_lock(&timer_lock);
	list_for_each_safe (pos, tmp, &armed_timers) {
		struct wait_timer *t = list_entry(pos, struct wait_timer, node);

		if ((s64)(now - t->deadline_ns) >= 0) {
			list_del(&t->node);
			t->fired = true;
			wake_up_task(t->task, false);
		}
	}
	spin_unlock(&timer_lock);
}

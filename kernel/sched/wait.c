/* Wait queues: the sleep/wake-up handshake other subsystems build on. */
#include "sched/wait.h"

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

/* Sleeping locks: try under the spinlock, else sleep until the holder lets go. */
#include "ipc/sleeplock.h"

#include "sched/task.h"

void sleeplock_init(struct sleeplock *l)
{
	l->lock = (struct spinlock)SPINLOCK_INIT;
	l->held = false;
	wait_queue_init(&l->wq);
}

static bool try_take(struct sleeplock *l)
{
	unsigned long flags = spin_lock_irqsave(&l->lock);
	bool got = !l->held;

	l->held = true;
	spin_unlock_irqrestore(&l->lock, flags);
	return got;
}

void sleeplock_acquire(struct sleeplock *l)
{
	while (!try_take(l)) {
		struct waiter w = { .task = NULL };

		/* Queued and asleep before held is tested: a release's wake-up cannot slip by. */
		wait_prepare(&l->wq, &w);
		if (sleeplock_held(l))
			schedule();
		wait_finish(&l->wq, &w);
	}
}

void sleeplock_release(struct sleeplock *l)
{
	unsigned long flags = spin_lock_irqsave(&l->lock);

	l->held = false;
	spin_unlock_irqrestore(&l->lock, flags);
	/* Always through the queue's lock: its atomic exchange orders held before the waiter check.
	 */
	wake_up_all(&l->wq);
}

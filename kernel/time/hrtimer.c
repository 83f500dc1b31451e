/*
 * High-resolution timers (hrtimer.h). Each CPU has a queue: a red-black
 * tree of pending timers keyed by expiry, leftmost cached, under a lock
 * of its own. The CPU's one-shot hardware timer (arch_timer_program) is
 * kept armed for the leftmost timer; its interrupt pops every timer that
 * is due, runs the callbacks with the lock dropped and arms the hardware
 * for the next one. The periodic scheduler tick is a timer like the
 * others (kernel/tick.c), so ticks come as before while a sleep of 1 ms
 * ends 1 ms later, not at the tick after.
 *
 * With "nohighres" the hardware is armed for the tick only and due timers
 * run at the tick: the old, tick-granular behaviour, kept for comparison.
 *
 * The wait timers of sched/wait.h (sleep, poll, select and futex
 * timeouts) are built on these at the end of this file.
 */
#include "time/hrtimer.h"

#include <arch/smp.h>
#include <arch/time.h>

#include "cmdline.h"
#include "lib/compiler.h"
#include "lib/spinlock.h"
#include "machine.h"
#include "sched/task.h"
#include "sched/wait.h"

struct hrtimer_base {
	struct spinlock lock;
	struct rb_root_cached queue;
	struct hrtimer *running; /* whose callback runs now (lock dropped) */
	struct hrtimer *tick;	 /* the periodic tick, once started */
	bool started;		 /* the hardware follows this queue */
	u64 fired;
};

static struct hrtimer_base bases[MAX_CPUS];

static bool nohighres;
BOOT_OPTION_BOOL(nohighres, "nohighres", &nohighres,
		 "end timers (sleeps, timeouts) at the next tick, not at their deadline");

bool hrtimer_highres(void)
{
	return !nohighres;
}

static struct hrtimer_base *this_base(void)
{
	return &bases[arch_cpu_id()];
}

static bool expires_before(const struct rb_node *a, const struct rb_node *b)
{
	return rb_entry(a, struct hrtimer, node)->expires <
	       rb_entry(b, struct hrtimer, node)->expires;
}

/* The deadline the hardware should fire at next; base->lock held. 0: none. */
static u64 next_event(struct hrtimer_base *b)
{
	struct rb_node *first;

	if (nohighres && b->tick)
		return b->tick->expires;
	first = rb_first_cached(&b->queue);
	return first ? rb_entry(first, struct hrtimer, node)->expires : 0;
}

/* Arms this CPU's hardware for b's next event; b is this CPU's base, lock held. */
static void reprogram(struct hrtimer_base *b)
{
	u64 next = next_event(b);

	if (b->started && next)
		arch_timer_program(next);
}

void hrtimer_init(struct hrtimer *t, hrtimer_fn fn)
{
	RB_CLEAR_NODE(&t->node);
	t->expires = 0;
	t->fn = fn;
	t->base = NULL;
}

bool hrtimer_pending(const struct hrtimer *t)
{
	return !RB_EMPTY_NODE(&READ_ONCE(t)->node);
}

/* Removes t from its queue; b->lock held. Returns whether it was queued. */
static bool dequeue(struct hrtimer_base *b, struct hrtimer *t)
{
	if (RB_EMPTY_NODE(&t->node))
		return false;
	rb_erase_cached(&t->node, &b->queue);
	RB_CLEAR_NODE(&t->node);
	return true;
}

bool hrtimer_cancel(struct hrtimer *t)
{
	for (;;) {
		struct hrtimer_base *b = READ_ONCE(t->base);
		unsigned long flags;
		bool was, running;

		if (!b)
			return false;
		flags = spin_lock_irqsave(&b->lock);
		if (b != READ_ONCE(t->base)) {
			/* Moved to another queue meanwhile (by its owner): look there. */
			spin_unlock_irqrestore(&b->lock, flags);
			continue;
		}
		was = dequeue(b, t);
		running = b->running == t;
		/*
		 * Leaving the hardware armed for a timer no longer queued costs one
		 * early interrupt that finds nothing due, cheaper than reaching
		 * into another CPU's timer.
		 */
		spin_unlock_irqrestore(&b->lock, flags);
		if (!running)
			return was;
		/* Its callback runs on another CPU (which may requeue it): wait, then look again. */
		while (READ_ONCE(b->running) == t)
			arch_cpu_relax();
	}
}

void hrtimer_start(struct hrtimer *t, u64 expires_ns)
{
	struct hrtimer_base *b;
	unsigned long flags;

	hrtimer_cancel(t);
	flags = arch_irq_save(); /* no migration between choosing the queue and arming it */
	b = this_base();
	spin_lock(&b->lock);
	t->expires = expires_ns;
	WRITE_ONCE(t->base, b);
	if (rb_add_cached(&t->node, &b->queue, expires_before))
		reprogram(b);
	spin_unlock(&b->lock);
	arch_irq_restore(flags);
}

void hrtimer_cpu_start(unsigned int cpu, struct hrtimer *tick)
{
	struct hrtimer_base *b = &bases[cpu];
	unsigned long flags = spin_lock_irqsave(&b->lock);

	b->tick = tick;
	b->started = true;
	reprogram(b);
	spin_unlock_irqrestore(&b->lock, flags);
}

void hrtimer_interrupt(unsigned int cpu)
{
	struct hrtimer_base *b = &bases[cpu];
	struct rb_node *first;

	spin_lock(&b->lock);
	while ((first = rb_first_cached(&b->queue))) {
		struct hrtimer *t = rb_entry(first, struct hrtimer, node);
		u64 now = arch_clock_ns();
		enum hrtimer_restart r;

		if (t->expires > now)
			break;
		dequeue(b, t);
		WRITE_ONCE(b->running, t);
		b->fired++;
		spin_unlock(&b->lock);
		r = t->fn(t);
		spin_lock(&b->lock);
		/* Requeued unless someone started it elsewhere meanwhile (it is theirs now). */
		if (r == HRTIMER_RESTART && RB_EMPTY_NODE(&t->node) && t->base == b)
			rb_add_cached(&t->node, &b->queue, expires_before);
		WRITE_ONCE(b->running, NULL);
	}
	reprogram(b);
	spin_unlock(&b->lock);
}

u64 hrtimer_fired_count(unsigned int cpu)
{
	return cpu < MAX_CPUS ? READ_ONCE(bases[cpu].fired) : 0;
}

/* ---------------------------------------------------------------- wait timers */

static enum hrtimer_restart wait_timer_expired(struct hrtimer *h)
{
	struct wait_timer *t = container_of(h, struct wait_timer, timer);

	__atomic_store_n(&t->fired, true, __ATOMIC_SEQ_CST);
	wake_up_task(t->task, false);
	return HRTIMER_NORESTART;
}

void wait_timer_arm(struct wait_timer *t, u64 deadline_ns)
{
	t->task = current_task();
	t->deadline_ns = deadline_ns;
	t->fired = false;
	hrtimer_init(&t->timer, wait_timer_expired);
	hrtimer_start(&t->timer, deadline_ns);
}

bool wait_timer_fired(struct wait_timer *t)
{
	/* The full fence orders the caller's state store before this load. */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	return __atomic_load_n(&t->fired, __ATOMIC_SEQ_CST);
}

void wait_timer_disarm(struct wait_timer *t)
{
	hrtimer_cancel(&t->timer);
}

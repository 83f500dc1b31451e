/*
 * A deliberately broken scheduling class, for the stall watchdog's boot
 * test (never part of the kernel proper): linked in by
 *
 *	make BUILD=build/broken EXTRA_KERNEL_C=tests/seam/broken.c
 *
 * and chosen with `sched=broken`. It is a per-CPU FIFO that works for new
 * tasks and breaks on wake-ups, as `broken_mode=` says:
 *
 *   forget  (default) a woken task's enqueue is dropped: the task is
 *           queued as far as the core knows, and on no list of the class;
 *   nopick  a woken task is queued on a second list that pick never
 *           looks at.
 *
 * Either way a woken task never runs again until the stall watchdog gives
 * up on the class and moves its tasks to fair.
 */
#include <arch/cpu.h>
#include <arch/smp.h>
#include <arch/time.h>

#include "cmdline.h"
#include "lib/list.h"
#include "lib/string.h"
#include "printk.h"
#include "sched/sched.h"

static const char *const modes[] = { "forget", "nopick", NULL };
static const char *broken_mode = "forget";
BOOT_OPTION_STRING(broken_mode, "broken_mode", &broken_mode, modes,
		   "tests/seam/broken.c: how the broken class loses woken tasks (forget, nopick)");

static struct broken_rq {
	struct list_head queue;	  /* tasks pick will return, in order */
	struct list_head ignored; /* nopick: queued, never picked */
	u32 nr;			  /* tasks the class was given, the lost ones included */
} broken_rqs[MAX_CPUS];

/* Per task, in the class slot of struct task. */
struct broken_task {
	struct list_head node; /* on one of broken_rq's lists, or on none */
};

extern const struct sched_class broken_sched_class;

static struct list_head *node_of(struct task *p)
{
	return &sched_task_priv(p, struct broken_task)->node;
}

static struct task *task_of_node(struct list_head *node)
{
	return sched_priv_task(list_entry(node, struct broken_task, node));
}

static struct broken_rq *broken_rq(struct rq *rq)
{
	struct broken_rq *b = &broken_rqs[rq->cpu];

	if (!b->queue.next) {
		list_init(&b->queue);
		list_init(&b->ignored);
	}
	return b;
}

static void enqueue_task_broken(struct rq *rq, struct task *p, int flags)
{
	struct broken_rq *b = broken_rq(rq);

	b->nr++;
	if (!(flags & ENQUEUE_WAKEUP))
		list_add_tail(node_of(p), &b->queue);
	else if (strcmp(broken_mode, "nopick") == 0)
		list_add_tail(node_of(p), &b->ignored);
	/* forget: on no list at all */
}

static void dequeue_task_broken(struct rq *rq, struct task *p, int flags)
{
	struct broken_rq *b = broken_rq(rq);

	if (!list_empty(node_of(p))) {
		list_del(node_of(p));
		list_init(node_of(p));
	}
	b->nr--;
}

static void check_preempt_curr_broken(struct rq *rq, struct task *p, int wake_flags)
{
}

static struct task *pick_next_task_broken(struct rq *rq)
{
	struct broken_rq *b = broken_rq(rq);
	struct task *p;

	if (list_empty(&b->queue))
		return NULL;
	p = task_of_node(b->queue.next);
	list_del(node_of(p));
	list_init(node_of(p));
	return p;
}

static void put_prev_task_broken(struct rq *rq, struct task *prev)
{
	if (prev->on_rq && prev != rq->idle)
		list_add_tail(node_of(prev), &broken_rq(rq)->queue); /* preempted: to the tail */
}

static void task_tick_broken(struct rq *rq, struct task *p)
{
	if (!list_empty(&broken_rq(rq)->queue))
		resched_curr(rq);
}

static void task_init_broken(struct task *p)
{
	list_init(node_of(p));
}

static void dump_broken(struct rq *rq)
{
	struct broken_rq *b = broken_rq(rq);
	u32 listed = 0, ignored = 0;
	struct list_head *pos;

	list_for_each (pos, &b->queue)
		if (++listed > 1000)
			break;
	list_for_each (pos, &b->ignored)
		if (++ignored > 1000)
			break;
	pr_emerg("broken: cpu%u: given %u tasks, %u on the pick list, %u on the ignored list "
		 "(mode %s)\n",
		 rq->cpu, b->nr, listed, ignored, broken_mode);
}

const struct sched_class broken_sched_class = {
	.name = "broken",
	.rank = 150,
	.enqueue_task = enqueue_task_broken,
	.dequeue_task = dequeue_task_broken,
	.check_preempt_curr = check_preempt_curr_broken,
	.pick_next_task = pick_next_task_broken,
	.put_prev_task = put_prev_task_broken,
	.task_tick = task_tick_broken,
	.task_init = task_init_broken,
	.dump = dump_broken,
};
SCHED_CLASS_REGISTER(broken_sched_class);

/*
 * Where tasks come from and where they go (task.h): pid allocation, the
 * list of every task, kernel threads' creation, references, exit and
 * reaping. Kept apart from core.c, which only schedules: a task is made
 * here, handed to the scheduler by task_wake_new(), and given back by
 * its last switch away (finish_task_switch drops its own reference).
 * User processes (kernel/proc) build their threads on task_create().
 */
#include "sched/task.h"

#include <arch/context.h>
#include <arch/cpu.h>
#include <arch/smp.h>

#include "mm/heap.h"
#include "mm/page_alloc.h"
#include "sched/sched.h"
#include "sched/wait.h"
#include "trace/trace.h"

#define STACK_ORDER 2 /* TASK_STACK_SIZE */
_Static_assert((4096 << STACK_ORDER) == TASK_STACK_SIZE, "task stack size");

static struct spinlock tasks_lock = SPINLOCK_INIT; /* all_tasks, next_pid, pid_one_taken */
void (*task_free_hook)(struct task *t);
static struct list_head all_tasks = LIST_HEAD_INIT(all_tasks);

struct wait_queue task_exit_wq = WAIT_QUEUE_INIT(task_exit_wq);
static int next_pid = 2; /* 1 is init's: the first user process asks for it */
static bool pid_one_taken;

/* ---------------------------------------------------------------- pids and the task list */

static void register_task(struct task *t, int pid)
{
	unsigned long flags = spin_lock_irqsave(&tasks_lock);

	if (pid == 1 && !pid_one_taken) {
		t->pid = 1;
		pid_one_taken = true;
	} else {
		t->pid = next_pid++;
	}
	list_add_tail(&t->all_tasks, &all_tasks);
	spin_unlock_irqrestore(&tasks_lock, flags);
}

void sched_for_each_task(void (*fn)(struct task *p, void *arg), void *arg)
{
	unsigned long flags = spin_lock_irqsave(&tasks_lock);
	struct list_head *pos;

	list_for_each (pos, &all_tasks)
		fn(list_entry(pos, struct task, all_tasks), arg);
	spin_unlock_irqrestore(&tasks_lock, flags);
}

/* ---------------------------------------------------------------- creation */

/* First code of every new task: finish the switch that started it, then run. */
static void kthread_entry(void *arg)
{
	struct task *t = arg;

	schedule_tail();
	arch_irq_enable();
	t->thread_fn(t->thread_arg);
	task_exit(0);
}

struct task *task_create(void (*fn)(void *arg), void *arg, const char *name, int nice,
			 const struct cpumask *allowed, int pid)
{
	struct task *t = kzalloc(sizeof(*t));

	if (!t)
		return NULL;
	t->stack = alloc_pages(STACK_ORDER);
	if (!t->stack) {
		kfree(t);
		return NULL;
	}
	sched_task_init(t, name, nice);
	if (allowed) {
		u32 n = 0;

		cpumask_clear(&t->cpus_allowed);
		for (u32 c = 0; c < sched_nr_cpus(); c++)
			if (cpumask_test_cpu(c, allowed)) {
				cpumask_set_cpu(c, &t->cpus_allowed);
				n++;
			}
		t->nr_cpus_allowed = n;
	}
	t->refs = 1; /* its own, dropped after its last switch away */
	t->thread_fn = fn;
	t->thread_arg = arg;
	t->cpu = arch_cpu_id();
	arch_context_init(&t->ctx, (u8 *)t->stack + TASK_STACK_SIZE, kthread_entry, t);
	register_task(t, pid);
	/* Only masks narrower than the machine: a fork's full mask says nothing new. */
	if (allowed && t->nr_cpus_allowed < sched_nr_cpus())
		trace_sched_affinity(t);
	return t;
}

struct task *kthread_create_on_cpu(void (*fn)(void *arg), void *arg, const char *name, int nice,
				   u32 cpu)
{
	struct cpumask one = CPUMASK_EMPTY;
	bool pinned = cpu < sched_nr_cpus();
	struct task *t;

	if (pinned)
		cpumask_set_cpu(cpu, &one);
	t = task_create(fn, arg, name, nice, pinned ? &one : NULL, 0);
	if (!t)
		return NULL;
	task_get(t); /* the creator's, for task_reap */
	task_wake_new(t);
	return t;
}

struct task *kthread_create(void (*fn)(void *arg), void *arg, const char *name, int nice)
{
	return kthread_create_on_cpu(fn, arg, name, nice, MAX_CPUS);
}

/* ---------------------------------------------------------------- references, exit, reaping */

void task_get(struct task *t)
{
	__atomic_add_fetch(&t->refs, 1, __ATOMIC_RELAXED);
}

void task_put(struct task *t)
{
	unsigned long flags;

	if (__atomic_sub_fetch(&t->refs, 1, __ATOMIC_ACQ_REL))
		return;
	flags = spin_lock_irqsave(&tasks_lock);
	list_del(&t->all_tasks);
	spin_unlock_irqrestore(&tasks_lock, flags);
	if (task_free_hook)
		task_free_hook(t);
	free_pages(t->stack, STACK_ORDER);
	kfree(t);
}

void task_exit(int code)
{
	struct task *t = current_task();

	trace_sched_process_exit(t);
	t->exit_code = code;
	arch_irq_disable();
	t->state = TASK_DEAD;
	schedule(); /* finish_task_switch, in the next task, drops our own reference */
	for (;;)    /* a dead task is never picked again */
		arch_halt();
}

int task_reap(struct task *t)
{
	int code;

	/* Dead, switched away for good, and its own reference gone: ours is the last. */
	wait_event(&task_exit_wq, t->state == TASK_DEAD &&
					  !__atomic_load_n(&t->on_cpu, __ATOMIC_ACQUIRE) &&
					  __atomic_load_n(&t->refs, __ATOMIC_ACQUIRE) == 1);
	code = t->exit_code;
	task_put(t);
	return code;
}

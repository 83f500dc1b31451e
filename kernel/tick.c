/*
 * Where arch code calls into the scheduler: the timer tick, interrupt exit,
 * an AP's idle entry, and what a fault report wants to know of the task.
 */
#include <arch/smp.h>

#include "fs/console.h"
#include "sched/sched.h"
#include "sched/topology.h"
#include "sched/wait.h"

void kernel_timer_tick(unsigned int cpu)
{
	scheduler_tick(cpu);
	/* A tick is outside every topology reader on this CPU: old generations may go. */
	sched_topology_quiescent(cpu);
	if (cpu == 0) {
		wait_timeouts_tick(); /* poll and timed-sleep deadlines */
		console_poll_input(); /* bytes typed on the console */
	}
}

void kernel_irq_exit(void)
{
	preempt_schedule_irq();
}

void kernel_ap_idle(void)
{
	sched_idle_loop();
}

const void *kernel_current_task_stack(void)
{
	struct rq *rq = sched_nr_cpus() ? this_rq() : NULL;

	return rq && rq->curr ? rq->curr->stack : NULL;
}

const char *kernel_current_task_name(int *pid)
{
	struct rq *rq = sched_nr_cpus() ? this_rq() : NULL;

	if (!rq || !rq->curr)
		return NULL;
	*pid = rq->curr->pid;
	return rq->curr->comm;
}

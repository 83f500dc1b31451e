/*
 * Where arch code calls into the scheduler: the timer interrupt and the
 * periodic tick emulated on each CPU's high-resolution timer queue,
 * interrupt exit, an AP's idle entry, and what a fault report wants to
 * know of the task.
 */
#include <arch/smp.h>
#include <arch/time.h>

#include "fs/console.h"
#include "lib/compiler.h"
#include "sched/sched.h"
#include "sched/topology.h"
#include "time/hrtimer.h"

static struct hrtimer tick_timers[MAX_CPUS];
static u64 tick_period_ns;
static u64 tick_counts[MAX_CPUS];

u64 kernel_tick_count(unsigned int cpu)
{
	return cpu < MAX_CPUS ? READ_ONCE(tick_counts[cpu]) : 0;
}

static void timer_tick(unsigned int cpu)
{
	WRITE_ONCE(tick_counts[cpu], tick_counts[cpu] + 1);
	scheduler_tick(cpu);
	/* A tick is outside every topology reader on this CPU: old generations may go. */
	sched_topology_quiescent(cpu);
	if (cpu == 0)
		console_poll_input(); /* bytes typed on the console */
}

static enum hrtimer_restart tick_expired(struct hrtimer *t)
{
	u64 now = arch_clock_ns();

	timer_tick((unsigned int)(t - tick_timers));
	/* One period on; periods missed in a long stall are skipped, not run in a burst. */
	t->expires += tick_period_ns;
	if (t->expires <= now)
		t->expires += ((now - t->expires) / tick_period_ns + 1) * tick_period_ns;
	return HRTIMER_RESTART;
}

void kernel_timer_start(unsigned int cpu, u64 tick_ns)
{
	tick_period_ns = tick_ns;
	hrtimer_init(&tick_timers[cpu], tick_expired);
	hrtimer_start(&tick_timers[cpu], arch_clock_ns() + tick_ns);
	hrtimer_cpu_start(cpu, &tick_timers[cpu]);
}

void kernel_timer_interrupt(unsigned int cpu)
{
	hrtimer_interrupt(cpu);
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

/*
 * Real-time tasks between CPUs, so that the highest-priority runnable
 * tasks are the ones running: Linux's cpupri search and push/pull.
 *
 * Each CPU has a level (rt_cpu_level): idle, running fair work, or the
 * priority at the top of its real-time queue. A task of priority p may go
 * to a CPU whose level is below 1 + p. A waking task goes to the lowest
 * such CPU if its own CPU runs an equal or higher priority (class.c's
 * select_task_rq); a task left waiting behind a higher one is pushed to
 * the lowest such CPU at the next tick; a CPU whose level drops (it goes
 * idle, or at its tick) pulls the highest waiting task of another CPU that
 * is above it. Levels are read without locks, as Linux's cpupri is; every
 * move re-checks under both runqueue locks before it is made.
 */
#include "sched/rt/rt.h"

#include <arch/cpu.h>
#include <arch/smp.h>

#include "sched/sched.h"
#include "sched/topology.h"

#define RT_MOVES_PER_CALL 4 /* bounds each tick's and each new-idle pass's work */

u32 rt_cpu_level(u32 cpu)
{
	struct rq *rq = cpu_rq(cpu);
	struct rt_rq *r = rt_rq_of(cpu);
	u32 highest = READ_ONCE(r->highest);

	if (READ_ONCE(r->throttled))
		return highest ? RT_LEVEL_NONE : RT_LEVEL_NORMAL;
	if (highest)
		return 1 + highest;
	if (READ_ONCE(rq->nr_running) || READ_ONCE(rq->curr) != rq->idle)
		return RT_LEVEL_NORMAL;
	return RT_LEVEL_IDLE;
}

u32 rt_find_lowest_cpu(struct task *p, u32 near)
{
	u32 limit = 1 + rt_task_prio(p), lowest = limit, first = MAX_CPUS, n = sched_nr_cpus();
	struct cpumask candidates = CPUMASK_EMPTY;
	const struct sched_domain *sd;
	struct sched_topology *t;
	u32 this_cpu = arch_cpu_id(), found = MAX_CPUS;

	for (u32 cpu = 0; cpu < n; cpu++) {
		u32 level;

		if (!cpumask_test_cpu(cpu, &p->cpus_allowed) || !arch_cpu_online(cpu))
			continue;
		level = rt_cpu_level(cpu);
		if (level < lowest) {
			lowest = level;
			cpumask_clear(&candidates);
			first = cpu;
		}
		if (level == lowest && level < limit)
			cpumask_set_cpu(cpu, &candidates);
	}
	if (first == MAX_CPUS)
		return MAX_CPUS;
	if (cpumask_test_cpu(task_cpu(p), &candidates))
		return task_cpu(p); /* its cache is there */
	/* The nearest candidate to `near`, level by level up its domains (Linux's find_lowest_rq). */
	t = sched_topology_read_begin(this_cpu);
	for_each_domain (t, near, sd) {
		if (cpumask_test_cpu(this_cpu, &candidates) &&
		    cpumask_test_cpu(this_cpu, sd_span(sd))) {
			found = this_cpu;
			break;
		}
		for (u32 cpu = 0; cpu < n; cpu++)
			if (cpumask_test_cpu(cpu, &candidates) && cpumask_test_cpu(cpu, sd_span(sd))) {
				found = cpu;
				break;
			}
		if (found < MAX_CPUS)
			break;
	}
	sched_topology_read_end(this_cpu);
	if (found < MAX_CPUS)
		return found;
	for (u32 cpu = 0; cpu < n; cpu++)
		if (cpumask_test_cpu(cpu, &candidates))
			return cpu;
	return MAX_CPUS;
}

/*
 * Moves the highest task waiting on src that may run on dst and is above
 * dst's level, if any; both locks held. Returns it moved or not.
 */
static bool move_one(struct rq *src, struct rq *dst)
{
	u32 level = rt_cpu_level(dst->cpu);
	struct task *p;

	if (level == RT_LEVEL_NONE)
		return false;
	p = rt_waiting_task(src, dst->cpu, level > RT_LEVEL_NORMAL ? level - 1 : 0);
	if (!p)
		return false;
	update_rq_clock(src);
	update_rq_clock(dst);
	move_queued_task(src, dst, p); /* preempts dst's current if p is above it */
	return true;
}

/* Tasks of ours waiting on cpu's queue (queued, not running), read without the lock. */
static u32 nr_waiting(u32 cpu)
{
	struct rt_rq *r = rt_rq_of(cpu);
	u32 queued = READ_ONCE(r->nr_running), running = READ_ONCE(r->curr_rt) ? 1 : 0;

	return queued > running ? queued - running : 0;
}

u32 rt_push_tasks(struct rq *rq)
{
	u32 moved = 0;

	while (moved < RT_MOVES_PER_CALL && nr_waiting(rq->cpu)) {
		struct task *p;
		u32 target;
		bool ok;

		spin_lock(&rq->lock);
		p = rt_waiting_task(rq, MAX_CPUS, 0);
		target = p ? rt_find_lowest_cpu(p, rq->cpu) : MAX_CPUS;
		spin_unlock(&rq->lock);
		if (target >= MAX_CPUS || target == rq->cpu)
			break;
		double_rq_lock(rq, cpu_rq(target));
		ok = move_one(rq, cpu_rq(target));
		double_rq_unlock(rq, cpu_rq(target));
		if (!ok)
			break;
		rt_rq_of(rq->cpu)->nr_pushed++;
		moved++;
	}
	return moved;
}

u32 rt_pull_tasks(struct rq *rq)
{
	u32 moved = 0, n = sched_nr_cpus();

	for (u32 src = 0; src < n && moved < RT_MOVES_PER_CALL; src++) {
		u32 level = rt_cpu_level(rq->cpu), top;
		bool ok;

		if (src == rq->cpu || level == RT_LEVEL_NONE || !nr_waiting(src))
			continue;
		/* Nothing on src's queue can be above us: skip without its lock. */
		top = READ_ONCE(rt_rq_of(src)->highest);
		if (1 + top <= level)
			continue;
		double_rq_lock(rq, cpu_rq(src));
		ok = move_one(cpu_rq(src), rq);
		double_rq_unlock(rq, cpu_rq(src));
		if (ok) {
			rt_rq_of(rq->cpu)->nr_pulled++;
			moved++;
			src--; /* src may have more */
		}
	}
	return moved;
}

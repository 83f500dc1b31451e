/*
 * prev_idle: a placement variant that lives outside the kernel proper, one
 * file and one registration line, to prove the seam. The seam build links
 * it in (tests/boot/run.py's seam-proof test, or by hand:
 *
 *	make BUILD=build/seam EXTRA_KERNEL_C="tests/seam/fifo.c tests/seam/prev_idle.c"
 *
 * ) and sched_select=prev_idle chooses it.
 *
 * Every placement (wake-up, fork, exec) goes to the task's previous CPU if
 * it is idle, else to the first idle CPU the task may use that shares the
 * previous CPU's last-level cache, else back to the previous CPU. No load
 * is compared and no domain above the LLC is looked at.
 *
 * When it works: wake-ups of a few tasks per LLC, which stay cache-warm
 * and find an idle sibling at once. When it does not: it never spreads
 * work to another LLC or node on its own (fork puts every child beside
 * its parent), so a busy LLC stays busy until the load balancer moves
 * tasks -- and under a class with no balancing (sched=fifo) nothing does;
 * and it ignores waker/wakee affinity, so a pipe pair across packages
 * stays apart.
 */
#include "sched/select.h"

static u32 select_prev_idle(const struct sched_topology *t, struct task *p, int sd_flag, bool sync,
			    u32 this_cpu)
{
	u32 prev = task_cpu(p), cpu;
	struct sched_domain *llc;

	if (cpu_allowed(p, prev) && idle_cpu(prev))
		return prev;
	llc = sd_llc(t, prev);
	if (llc)
		for_each_cpu (cpu, sd_span(llc))
			if (cpu_allowed(p, cpu) && idle_cpu(cpu))
				return cpu;
	return prev;
}

static const struct sched_placement prev_idle_placement = {
	.name = "prev_idle",
	.select_task_rq = select_prev_idle,
};
SCHED_PLACEMENT_REGISTER(prev_idle_placement);

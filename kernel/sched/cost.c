/* Timing select_task_rq_fair() call by call: see cost.h. */
#include "sched/cost.h"

#include <arch/cpu.h>
#include <arch/time.h>

#include "lib/string.h"
#include "sched/select.h"

u64 cost_median(u64 *v, u32 n)
{
	/* Insertion sort: n is a few thousand, once per figure. */
	for (u32 i = 1; i < n; i++) {
		u64 x = v[i];
		u32 j = i;

		for (; j > 0 && v[j - 1] > x; j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
	return n ? v[n / 2] : 0;
}

u64 select_cost_median(struct task *p, const struct sched_placement *v, int sd_flag, int wake_flags,
		       u32 samples, u32 *chosen)
{
	static u64 cycles[COST_SAMPLES_MAX];
	const char *saved = sched_select;
	unsigned long flags;
	u32 cpu = 0;

	if (samples > COST_SAMPLES_MAX)
		samples = COST_SAMPLES_MAX;
	sched_select_set(v->name, strlen(v->name));
	flags = spin_lock_irqsave(&p->pi_lock);
	for (u32 i = 0; i < samples; i++) {
		u64 start = arch_cycles();

		cpu = select_task_rq_fair(p, sd_flag, wake_flags);
		cycles[i] = arch_cycles() - start;
	}
	spin_unlock_irqrestore(&p->pi_lock, flags);
	sched_select_set(saved, strlen(saved));
	if (chosen)
		*chosen = cpu;
	return cost_median(cycles, samples);
}

/*
 * `sched_cost`: measures, on the machine it boots on, what a placement
 * decision and a context switch cost, and prints RESULT lines
 * (docs/architecture.md, "Talking to the host") for tools to read:
 *
 *   RESULT name=select_task_rq variant=stock case=wake_llc value=N unit=cycles
 *   RESULT name=context_switch value=N unit=ns
 *
 * Cycles are TSC ticks; under QEMU's -icount every guest nanosecond is
 * 2^shift instructions' worth, so ns figures convert to instruction counts.
 * The machine is otherwise idle: the figures are path lengths, not load.
 */
#include <arch/cpu.h>
#include <arch/smp.h>
#include <arch/time.h>

#include "cmdline.h"
#include "machine_boot.h"
#include "printk.h"
#include "sched/cost.h"
#include "sched/cost_bench.h"
#include "sched/select.h"
#include "sched/wait.h"

#define SELECT_SAMPLES 2001
#define SWITCH_ROUNDS  20000

static bool sched_cost;
BOOT_OPTION_BOOL(sched_cost, "sched_cost", &sched_cost,
		 "measure select_task_rq and context-switch costs at the end of boot (RESULT lines)");

static u64 cycles_to_ns(u64 cycles)
{
	u64 hz = arch_tsc_hz();

	/* The medians are small: no 128-bit division (the kernel has no libgcc). */
	return hz ? cycles * 1000000 / (hz / 1000) : 0;
}

static struct wait_queue parked_wq = WAIT_QUEUE_INIT(parked_wq);
static volatile bool unpark;

static void park(void *arg)
{
	wait_event(&parked_wq, READ_ONCE(unpark));
}

/* The first CPU of another package than cpu's, or MAX_CPUS. */
static u32 cpu_in_other_package(u32 cpu)
{
	const struct machine *m = machine_current();

	for (u32 c = 0; c < sched_nr_cpus(); c++)
		if (m->cpu[c].package != m->cpu[cpu].package && arch_cpu_online(c))
			return c;
	return MAX_CPUS;
}

/* The first other CPU sharing cpu's LLC but not its core, or MAX_CPUS. */
static u32 cpu_in_same_llc(u32 cpu)
{
	const struct machine *m = machine_current();

	for (u32 c = 0; c < sched_nr_cpus(); c++)
		if (m->cpu[c].llc == m->cpu[cpu].llc && m->cpu[c].core != m->cpu[cpu].core &&
		    arch_cpu_online(c))
			return c;
	return MAX_CPUS;
}

static void measure_select(const char *name, u32 prev, int sd_flag, int wake_flags)
{
	const struct sched_placement *v;
	struct cpumask all = CPUMASK_EMPTY;
	struct task *p;

	if (prev == MAX_CPUS) {
		pr_info("sched_cost: case %s needs another package or LLC: skipped\n", name);
		return;
	}
	unpark = false;
	p = kthread_create_on_cpu(park, NULL, "cost-parked", 0, prev);
	if (!p)
		return;
	while (READ_ONCE(p->on_rq)) /* until it sleeps on prev */
		sched_sleep_ns(1000000);
	cpumask_set_range(&all, 0, sched_nr_cpus());
	set_cpus_allowed(p, &all);
	for (u32 i = 0; (v = sched_placement_at(i)); i++) {
		u32 chosen;
		u64 cycles = select_cost_median(p, v, sd_flag, wake_flags, SELECT_SAMPLES, &chosen);

		pr_info("RESULT name=select_task_rq variant=%s case=%s this_cpu=%u prev_cpu=%u chose=%u samples=%u ns=%llu value=%llu unit=cycles\n",
			v->name, name, arch_cpu_id(), prev, chosen, SELECT_SAMPLES,
			(unsigned long long)cycles_to_ns(cycles), (unsigned long long)cycles);
	}
	WRITE_ONCE(unpark, true);
	wake_up_all(&parked_wq);
	task_reap(p);
}

struct ping_pong {
	struct wait_queue wq;
	volatile int turn;
	u32 rounds;
};

static struct ping_pong pp;
static struct pair {
	int me;
} pp_sides[2];

static void ping_pong_side(void *arg)
{
	struct pair *s = arg;

	for (u32 i = 0; i < pp.rounds; i++) {
		wait_event(&pp.wq, READ_ONCE(pp.turn) == s->me);
		WRITE_ONCE(pp.turn, 1 - s->me);
		wake_up_all_sync(&pp.wq, true);
	}
}

/* Two threads on one CPU hand a turn back and forth: each hand-over is one switch. */
static void measure_switch(u32 cpu)
{
	struct task *t[2];
	u64 start_ns, start_cycles, ns, cycles, switches = 2ULL * SWITCH_ROUNDS;

	pp = (struct ping_pong){ .turn = 0, .rounds = SWITCH_ROUNDS };
	wait_queue_init(&pp.wq);
	start_ns = arch_clock_ns();
	start_cycles = arch_cycles();
	for (int i = 0; i < 2; i++) {
		pp_sides[i].me = i;
		t[i] = kthread_create_on_cpu(ping_pong_side, &pp_sides[i], "cost-pingpong", 0, cpu);
	}
	for (int i = 0; i < 2; i++)
		if (t[i])
			task_reap(t[i]);
	ns = arch_clock_ns() - start_ns;
	cycles = arch_cycles() - start_cycles;
	if (!t[0] || !t[1])
		return;
	pr_info("RESULT name=context_switch cpu=%u switches=%llu value=%llu unit=ns\n", cpu,
		(unsigned long long)switches, (unsigned long long)(ns / switches));
	pr_info("RESULT name=context_switch cpu=%u switches=%llu value=%llu unit=cycles\n", cpu,
		(unsigned long long)switches, (unsigned long long)(cycles / switches));
}

/* On CPU 0, pinned: "this CPU" must stay the same across the cases. */
static void cost_thread(void *arg)
{
	u32 self = arch_cpu_id();

	pr_info("sched_cost: measuring on cpu%u, %u CPUs, sched_select=%s\n", self, sched_nr_cpus(),
		sched_select);
	measure_select("wake_sync_llc", cpu_in_same_llc(self), SD_BALANCE_WAKE, WF_SYNC);
	measure_select("wake_sync_remote", cpu_in_other_package(self), SD_BALANCE_WAKE, WF_SYNC);
	measure_select("wake_local", self, SD_BALANCE_WAKE, 0);
	measure_select("fork", self, SD_BALANCE_FORK, 0);
	measure_switch(sched_nr_cpus() > 1 ? 1 : 0);
}

void sched_cost_run(void)
{
	struct task *t;

	if (!sched_cost)
		return;
	t = kthread_create_on_cpu(cost_thread, NULL, "sched-cost", 0, 0);
	if (t)
		task_reap(t);
}

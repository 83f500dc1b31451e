/*
 * The scheduler test machine (see sched_sim.h): fake RAM for the heap,
 * runqueues from the core's sched_init(), kernel threads from
 * kthread_create(), and schedule() replayed without the context switch.
 */
#include <stdio.h>
#include <string.h>

#include "fake_arch.h"
#include "mm/heap.h"
#include "mm/memmap.h"
#include "mm/page_alloc.h"
#include "sched_sim.h"
#include "unit.h"

#define SIM_RAM	     (32ULL << 20)
#define SIM_START_NS 1000000000ULL

static struct machine sim_machine;
static struct memmap sim_memmap;
static u64 saved_features;

void sim_start(u32 nr_cpus)
{
	const struct mem_entry ram[] = { { 0, SIM_RAM, MEM_USABLE } };

	/* The RAM of an earlier sim stays mapped: the core's task list may still point into it. */
	fake_ram_init(SIM_RAM);
	fake_console_reset();
	memmap_init(&sim_memmap, ram, 1);
	ck_assert_int_eq(page_alloc_init(&sim_memmap), 0);
	heap_init();

	memset(&sim_machine, 0, sizeof(sim_machine));
	sim_machine.nr_cpus = nr_cpus;
	sim_machine.nr_nodes = 1;
	for (u32 cpu = 0; cpu < nr_cpus; cpu++) {
		sim_machine.cpu[cpu].apic_id = cpu;
		sim_machine.cpu[cpu].core = cpu;
	}
	sim_machine.distance[0][0] = LOCAL_DISTANCE;

	fake_clock_ns = SIM_START_NS;
	fake_cpu_id = 0;
	saved_features = sched_features_mask;
	ck_assert_int_eq(sched_feat_set("SCHED_VERIFY", strlen("SCHED_VERIFY")), 0);
	ck_assert_int_eq(sched_init(&sim_machine), 0);
	for (u32 cpu = 0; cpu < nr_cpus; cpu++)
		update_rq_clock(cpu_rq(cpu));
}

void sim_stop(void)
{
	const char *log = fake_console_text();

	ck_assert_int_eq(sim_verify_all(), 0);
	if (strstr(log, "sched:"))
		ck_abort_msg("the scheduler complained:\n%s", strstr(log, "sched:"));
	sched_features_mask = saved_features;
}

static void sim_thread(void *arg)
{
	(void)arg;
}

struct task *sim_task(const char *name, int nice, u32 cpu)
{
	struct task *p;

	fake_cpu_id = cpu;
	p = kthread_create_on_cpu(sim_thread, NULL, name, nice, cpu);
	ck_assert_ptr_nonnull(p);
	ck_assert_uint_eq(task_cpu(p), cpu);
	fake_cpu_id = 0;
	return p;
}

/* __schedule() in core.c: the core's own books (sched_pick_next), then the switch as a no-op. */
void sim_schedule(u32 cpu)
{
	struct rq *rq = cpu_rq(cpu);
	struct task *prev = rq->curr, *next;
	u32 saved = fake_cpu_id;

	fake_cpu_id = cpu;
	spin_lock(&rq->lock);
	next = sched_pick_next(rq, false);
	ck_assert_ptr_nonnull(next);
	if (next != prev)
		prev->on_cpu = 0; /* finish_task_switch: prev's context is saved */
	spin_unlock(&rq->lock);
	fake_cpu_id = saved;
}

void sim_tick(u32 cpu)
{
	fake_cpu_id = cpu;
	scheduler_tick(cpu);
	fake_cpu_id = 0;
}

void sim_tick_all(void)
{
	u32 n = sched_nr_cpus();

	fake_clock_ns += SIM_TICK_NS;
	for (u32 cpu = 0; cpu < n; cpu++)
		sim_tick(cpu);
	for (u32 cpu = 0; cpu < n; cpu++)
		if (cpu_rq(cpu)->need_resched)
			sim_schedule(cpu);
}

void sim_run(u64 ns)
{
	for (u64 t = 0; t < ns; t += SIM_TICK_NS)
		sim_tick_all();
}

void sim_sleep(struct task *p)
{
	ck_assert_ptr_eq(sim_curr(task_cpu(p)), p);
	p->state = TASK_INTERRUPTIBLE;
	sim_schedule(task_cpu(p));
}

void sim_wake(struct task *p)
{
	fake_cpu_id = 0;
	ck_assert(wake_up_task(p, false));
}

int sim_verify_all(void)
{
	int failed = 0;

	for (u32 cpu = 0; cpu < sched_nr_cpus(); cpu++)
		failed += fair_verify(cpu_rq(cpu)) != 0;
	return failed;
}

void sim_feature(const char *name, bool on)
{
	char buf[48];

	snprintf(buf, sizeof(buf), "%s%s", on ? "" : "NO_", name);
	ck_assert_int_eq(sched_feat_set(buf, strlen(buf)), 0);
}

u64 sim_random(void)
{
	static u64 state = 0x9e3779b97f4a7c15ULL;

	state ^= state << 13;
	state ^= state >> 7;
	state ^= state << 17;
	return state;
}

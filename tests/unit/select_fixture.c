/*
 * The placement tests' machine (select_fixture.h): the topology tests'
 * fake RAM and machine grids, the core's runqueues, and host-allocated
 * tasks that only placement ever looks at.
 */
#include "select_fixture.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "fake_arch.h"
#include "sched/balance_map.h"
#include "sched/load.h"
#include "topo_machines.h"

#define FX_RAM	     (64UL << 20)
#define FX_MAX_TASKS 64

static struct machine *fx_m;
static struct task *runner[MAX_CPUS]; /* each CPU's current task when busy */
static struct task *tasks[FX_MAX_TASKS];
static u32 nr_tasks;

/* The placement options at their defaults: stock, 3.8.13. */
static void fx_reset_placement(void)
{
	ck_assert_int_eq(sched_select_set("stock", 5), 0);
	ck_assert_int_eq(sched_idle_sibling_set("3.8.13", 6), 0);
}

const struct sched_placement *fx_variant(enum sched_select_variant v)
{
	const char *name = v == SCHED_SELECT_SBM ? "sbm" : "stock";
	const struct sched_placement *p = sched_placement_find(name, strlen(name));

	ck_assert_msg(p, "placement variant %s not registered", name);
	return p;
}

static struct task *new_task(int nice)
{
	struct task *p = calloc(1, sizeof(*p));

	ck_assert_ptr_nonnull(p);
	p->state = TASK_INTERRUPTIBLE;
	p->sched_class = &fair_sched_class;
	p->nice = nice;
	p->policy = SCHED_NORMAL;
	set_load_weight(p);
	for (u32 cpu = 0; cpu < fx_m->nr_cpus; cpu++)
		cpumask_set_cpu(cpu, &p->cpus_allowed);
	p->nr_cpus_allowed = fx_m->nr_cpus;
	return p;
}

void fx_start_machine(u32 packages, u32 cores, u32 threads, u8 distance)
{
	topo_test_start(FX_RAM);
	fx_m = machine_grid(packages, cores, threads, packages);
	machine_set_nodes(fx_m, packages, distance);
	ck_assert_int_eq(sched_init(fx_m), 0);
	fx_rebuild(NULL);
	for (u32 cpu = 0; cpu < fx_m->nr_cpus; cpu++) {
		runner[cpu] = new_task(0);
		runner[cpu]->state = TASK_RUNNING;
		runner[cpu]->cpu = cpu;
		fx_idle(cpu);
	}
	nr_tasks = 0;
	fake_cpu_id = 0;
	fx_reset_placement();
}

void fx_start(void)
{
	fx_start_machine(FX_PACKAGES, FX_CORES, FX_THREADS, FX_NEAR);
}

void fx_stop(void)
{
	for (u32 cpu = 0; cpu < fx_m->nr_cpus; cpu++)
		free(runner[cpu]);
	for (u32 i = 0; i < nr_tasks; i++)
		free(tasks[i]);
	nr_tasks = 0;
	free(fx_m);
	fx_m = NULL;
	fx_reset_placement();
	topo_test_stop();
}

struct machine *fx_machine(void)
{
	return fx_m;
}

void fx_rebuild(const struct cpumask *online)
{
	ck_assert_int_eq(sched_topology_rebuild(fx_m, online), 0);
}

struct sched_topology *fx_topo(void)
{
	return sched_topology_current();
}

void fx_idle(u32 cpu)
{
	struct rq *rq = cpu_rq(cpu);

	rq->curr = rq->idle;
	rq->nr_running = 0;
	rq->load.weight = 0;
	for (int i = 0; i < CPU_LOAD_IDX_MAX; i++)
		rq->cpu_load[i] = 0;
}

void fx_load(u32 cpu, u32 nr, unsigned long weight, unsigned long curr_weight)
{
	struct rq *rq = cpu_rq(cpu);

	if (!nr) {
		fx_idle(cpu);
		return;
	}
	runner[cpu]->load.weight = curr_weight;
	rq->curr = runner[cpu];
	rq->nr_running = nr;
	rq->load.weight = weight;
	for (int i = 0; i < CPU_LOAD_IDX_MAX; i++)
		rq->cpu_load[i] = weight;
}

void fx_busy(u32 cpu, u32 nr)
{
	fx_load(cpu, nr, nr * NICE_0_LOAD, NICE_0_LOAD);
}

void fx_busy_all(u32 nr)
{
	for (u32 cpu = 0; cpu < fx_m->nr_cpus; cpu++)
		fx_busy(cpu, nr);
}

struct sched_domain *fx_affine_sd(u32 cpu, u32 prev)
{
	struct sched_domain *sd = sbm_affine_sd(fx_topo(), cpu, prev);

	ck_assert_ptr_nonnull(sd);
	return sd;
}

struct task *fx_task(u32 prev, int nice)
{
	struct task *p = new_task(nice);

	ck_assert_uint_lt(nr_tasks, FX_MAX_TASKS);
	tasks[nr_tasks++] = p;
	p->cpu = prev;
	return p;
}

void fx_allow(struct task *p, u64 mask)
{
	cpumask_clear(&p->cpus_allowed);
	p->nr_cpus_allowed = 0;
	for (u32 cpu = 0; cpu < 64; cpu++) {
		if (mask >> cpu & 1) {
			cpumask_set_cpu(cpu, &p->cpus_allowed);
			p->nr_cpus_allowed++;
		}
	}
}

u32 fx_place(enum sched_select_variant variant, struct task *p, u32 this_cpu, int sd_flag,
	     int wake_flags)
{
	const struct sched_placement *v = fx_variant(variant);
	u32 cpu;

	ck_assert_int_eq(sched_select_set(v->name, strlen(v->name)), 0);
	fake_cpu_id = this_cpu;
	cpu = select_task_rq_fair(p, sd_flag, wake_flags);
	fake_cpu_id = 0;
	return cpu;
}

u64 fx_rand(u64 *state)
{
	u64 x = *state ? *state : 0x9e3779b97f4a7c15ULL;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return x * 0x2545f4914f6cdd1dULL;
}

/*
 * The balancer's test machine (balance_sim.h): sched_sim.h's simulated
 * CPUs with a published topology, tasks free to move, and the stopper
 * played by hand.
 */
#include "balance_sim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_arch.h"
#include "sched/balance_modern.h"
#include "sched/stop.h"
#include "unit.h"

static struct machine *machine;
struct task *bsim_tasks[BSIM_MAX_TASKS];
u32 bsim_nr_tasks;

void bsim_start(struct machine *m)
{
	sched_topology_reset_for_tests();
	sim_start(m->nr_cpus);
	machine = m;
	bsim_nr_tasks = 0;
}

void bsim_publish(void)
{
	ck_assert_int_eq(sched_topology_rebuild(machine, NULL), 0);
}

void bsim_start_balancer(struct machine *m, const char *balancer)
{
	bsim_start(m);
	ck_assert_int_eq(sched_balance_set(balancer, strlen(balancer)), 0);
}

void bsim_stop(void)
{
	ck_assert_int_eq(sched_balance_set("3.8", 3), 0);
	sim_stop();
	sched_topology_reset_for_tests();
	free(machine);
	stop_wait_hook = NULL;
}

struct task *bsim_task(u32 cpu)
{
	struct cpumask all = CPUMASK_EMPTY;
	char name[16];

	ck_assert_uint_lt(bsim_nr_tasks, BSIM_MAX_TASKS);
	snprintf(name, sizeof(name), "t%u", bsim_nr_tasks);
	bsim_tasks[bsim_nr_tasks] = sim_task(name, 0, cpu);
	cpumask_set_range(&all, 0, sched_nr_cpus());
	ck_assert_int_eq(set_cpus_allowed(bsim_tasks[bsim_nr_tasks], &all), 0);
	return bsim_tasks[bsim_nr_tasks++];
}

void bsim_pin(struct task *p, u32 cpu)
{
	struct cpumask mask = CPUMASK_EMPTY;

	cpumask_set_cpu(cpu, &mask);
	ck_assert_int_eq(set_cpus_allowed(p, &mask), 0);
}

void bsim_tick_and_balance(void)
{
	u32 n = sched_nr_cpus();

	fake_clock_ns += SIM_TICK_NS;
	for (u32 cpu = 0; cpu < n; cpu++) {
		sim_tick(cpu);
		fake_cpu_id = cpu;
		trigger_balance_fair(cpu_rq(cpu));
		fake_cpu_id = 0;
	}
	for (u32 cpu = 0; cpu < n; cpu++)
		if (cpu_rq(cpu)->need_resched)
			sim_schedule(cpu);
}

void bsim_tick_all(void)
{
	u32 n = sched_nr_cpus();

	fake_clock_ns += SIM_TICK_NS;
	for (u32 cpu = 0; cpu < n; cpu++)
		sim_tick(cpu);
	for (u32 cpu = 0; cpu < n; cpu++) {
		struct task *st = cpu_stopper_task(cpu);

		if (!cpu_rq(cpu)->need_resched)
			continue;
		sim_schedule(cpu);
		if (st && sim_curr(cpu) == st) {
			fake_cpu_id = cpu;
			stop_cpu_run_work(cpu);
			fake_cpu_id = 0;
			st->state = TASK_INTERRUPTIBLE;
			sim_schedule(cpu);
		}
	}
}

void bsim_expect_even_spread(struct machine *m, const char *balancer)
{
	bsim_start_balancer(m, balancer);
	for (int i = 0; i < BSIM_NR_TASKS; i++)
		bsim_task(0);
	sim_schedule(0);
	ck_assert_int_eq(stop_machine_init(), 0);
	bsim_publish();
	ck_assert_str_eq(bsim_spread(), "10/0/0/0");
	for (u64 t = 0; t < BSIM_SETTLE_NS; t += SIM_TICK_NS)
		bsim_tick_all();
	ck_assert_str_eq(bsim_spread(), "3/3/2/2");
	/* Stable: tasks may still trade places, the spread does not change. */
	for (u64 t = 0; t < BSIM_SETTLE_NS / 4; t += SIM_TICK_NS) {
		bsim_tick_all();
		ck_assert_str_eq(bsim_spread(), "3/3/2/2");
	}
	ck_assert_int_eq(sim_verify_all(), 0);
	bsim_stop();
}

/* Queue lengths, longest first, as "3/3/2/2". */
const char *bsim_spread(void)
{
	static char buf[64];
	u32 nr[MAX_CPUS], n = sched_nr_cpus();
	size_t len = 0;

	for (u32 i = 0; i < n; i++)
		nr[i] = cpu_rq(i)->nr_running;
	for (u32 i = 0; i < n; i++)
		for (u32 j = i + 1; j < n; j++)
			if (nr[j] > nr[i]) {
				u32 tmp = nr[i];

				nr[i] = nr[j];
				nr[j] = tmp;
			}
	buf[0] = '\0';
	for (u32 i = 0; i < n; i++)
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%u", i ? "/" : "", nr[i]);
	return buf;
}

/* The base domain of cpu in the current generation (the test holds no read section: nothing
 * rebuilds). */
struct sched_domain *bsim_base_sd(u32 cpu)
{
	struct sched_domain *sd = cpu_sd(sched_topology_current(), cpu);

	ck_assert_ptr_nonnull(sd);
	return sd;
}

/* cpu's domain of the named level. */
struct sched_domain *bsim_sd_named(u32 cpu, const char *name)
{
	struct sched_domain *sd;

	for (sd = bsim_base_sd(cpu); sd; sd = sd->parent)
		if (!strcmp(sd->name, name))
			return sd;
	ck_abort_msg("cpu%u has no %s domain", cpu, name);
	return NULL;
}

int bsim_balance_on(u32 cpu, struct sched_domain *sd, enum cpu_idle_type idle)
{
	bool cont;
	int moved;

	fake_cpu_id = cpu;
	sched_topology_read_begin(cpu);
	moved = load_balance(cpu, sd, idle, &cont);
	sched_topology_read_end(cpu);
	fake_cpu_id = 0;
	return moved;
}

void bsim_switch_on(u32 cpu)
{
	sim_schedule(cpu);
}

void bsim_run_stopper(u32 cpu)
{
	struct task *st = cpu_stopper_task(cpu);
	u32 saved = fake_cpu_id;

	ck_assert_ptr_nonnull(st);
	ck_assert(cpu_rq(cpu)->need_resched);
	bsim_switch_on(cpu);
	ck_assert_ptr_eq(sim_curr(cpu), st);
	fake_cpu_id = cpu;
	ck_assert_uint_ge(stop_cpu_run_work(cpu), 1);
	fake_cpu_id = saved;
	st->state = TASK_INTERRUPTIBLE;
	bsim_switch_on(cpu);
	ck_assert_ptr_ne(sim_curr(cpu), st);
}

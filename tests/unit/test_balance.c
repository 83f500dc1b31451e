/*
 * Host tests of load balancing (kernel/sched/balance.c, balance_find.c):
 * the real core, fair class and balancer on the simulated machine of
 * balance_sim.h -- spreading, affinity, cache hotness, the
 * find_busiest_group() decisions, new-idle balancing and the lb_ counters.
 */
#include <string.h>

#include "balance_sim.h"
#include "fake_arch.h"
#include "sched/load.h"
#include "unit.h"

/* ---------------------------------------------------------------- spreading */

/* Ten nice-0 tasks forked on CPU 0 end up 3/3/2/2, and stay so (balance_sim.c). */
START_TEST(test_evens_10_tasks_on_4_cpus_one_llc)
{
	bsim_expect_even_spread(machine_grid(1, 4, 1, 1), "3.8");
}
END_TEST

/* Two packages of two cores in one node: MC pairs under a NODE level. */
START_TEST(test_evens_10_tasks_on_4_cpus_two_packages)
{
	bsim_expect_even_spread(machine_grid(2, 2, 1, 1), "3.8");
}
END_TEST

/* Two cores of two threads: SMT pairs under MC, capacity 1 per core. */
START_TEST(test_evens_10_tasks_on_4_cpus_smt)
{
	bsim_expect_even_spread(machine_grid(1, 2, 2, 1), "3.8");
}
END_TEST

/* -------------------------------------------------------------- affinity */

START_TEST(test_pinned_tasks_never_move)
{
	bsim_start(machine_grid(2, 2, 1, 1));
	for (int i = 0; i < BSIM_NR_TASKS; i++)
		bsim_task(0);
	for (int i = 0; i < 4; i++)
		bsim_pin(bsim_tasks[i], 0);
	sim_schedule(0);
	bsim_publish();
	for (u64 t = 0; t < BSIM_SETTLE_NS; t += SIM_TICK_NS) {
		bsim_tick_and_balance();
		for (int i = 0; i < 4; i++)
			ck_assert_uint_eq(task_cpu(bsim_tasks[i]), 0);
	}
	/* The six others spread over CPUs 1-3; CPU 0 keeps at least its four. */
	ck_assert_uint_ge(cpu_rq(0)->nr_running, 4);
	for (u32 cpu = 1; cpu < 4; cpu++)
		ck_assert_uint_ge(cpu_rq(cpu)->nr_running, 1);
	bsim_stop();
}
END_TEST

/* Nothing may move: the pass counts as balanced and backs off past max_interval. */
START_TEST(test_all_pinned_backs_off)
{
	struct sched_domain *sd;

	bsim_start(machine_grid(1, 4, 1, 1));
	for (int i = 0; i < 3; i++)
		bsim_pin(bsim_task(0), 0);
	sim_schedule(0);
	bsim_publish();
	sd = bsim_base_sd(1);
	for (int i = 0; i < 10; i++)
		ck_assert_int_eq(bsim_balance_on(1, sd, CPU_IDLE), 0);
	ck_assert_uint_eq(cpu_rq(0)->nr_running, 3);
	ck_assert_uint_gt(sd->balance_interval, sd->max_interval);
	ck_assert_uint_le(sd->balance_interval, 512);
	ck_assert_uint_eq(sd->stats.lb_balanced[CPU_IDLE], 10);
	ck_assert_uint_eq(sd->nr_balance_failed, 0);
	bsim_stop();
}
END_TEST

/* ----------------------------------------------------------- cache hotness */

/*
 * A task that ran just now stays while balancing has failed no more than
 * cache_nice_tries times in a row, and then goes (counted as hot-gained).
 */
START_TEST(test_cache_hot_task_waits_for_nice_tries)
{
	struct task *hot;
	struct sched_domain *sd;

	bsim_start(machine_grid(1, 4, 1, 1));
	bsim_task(0);
	bsim_task(0);
	sim_schedule(0);
	hot = sim_curr(0) == bsim_tasks[0] ? bsim_tasks[1] : bsim_tasks[0]; /* the one waiting */
	bsim_publish();
	hot->exec_start = cpu_rq(0)->clock_task; /* it ran until now: the clock stays put */
	sd = bsim_base_sd(1);
	ck_assert_uint_ge(sd->cache_nice_tries, 1);
	for (u32 i = 0; i <= sd->cache_nice_tries; i++) {
		ck_assert_int_eq(bsim_balance_on(1, sd, CPU_IDLE), 0);
		ck_assert_uint_eq(task_cpu(hot), 0);
		ck_assert_uint_eq(sd->nr_balance_failed, i + 1);
	}
	ck_assert_int_eq(bsim_balance_on(1, sd, CPU_IDLE), 1);
	ck_assert_uint_eq(task_cpu(hot), 1);
	ck_assert_uint_eq(sd->stats.lb_hot_gained[CPU_IDLE], 1);
	ck_assert_uint_eq(sd->stats.lb_failed[CPU_IDLE], sd->cache_nice_tries + 1);
	ck_assert_uint_eq(sd->nr_balance_failed, 0);
	bsim_stop();
}
END_TEST

/* The same task cold (it ran more than the migration cost ago) goes at once. */
START_TEST(test_cache_cold_task_moves_at_once)
{
	struct task *cold;

	bsim_start(machine_grid(1, 4, 1, 1));
	bsim_task(0);
	bsim_task(0);
	sim_schedule(0);
	cold = sim_curr(0) == bsim_tasks[0] ? bsim_tasks[1] : bsim_tasks[0];
	bsim_publish();
	cold->exec_start = cpu_rq(0)->clock_task - 2 * sysctl_sched_migration_cost;
	ck_assert_int_eq(bsim_balance_on(1, bsim_base_sd(1), CPU_IDLE), 1);
	ck_assert_uint_eq(task_cpu(cold), 1);
	ck_assert_uint_eq(bsim_base_sd(1)->stats.lb_hot_gained[CPU_IDLE], 0);
	bsim_stop();
}
END_TEST

/* ------------------------------------------------------ find_busiest_group */

/* Queues n nice-0 tasks on each CPU, with a settled load history. */
static void load_cpus(const u32 *n)
{
	for (u32 cpu = 0; cpu < sched_nr_cpus(); cpu++) {
		for (u32 i = 0; i < n[cpu]; i++)
			bsim_task(cpu);
		sim_schedule(cpu);
	}
	bsim_publish();
	for (u32 cpu = 0; cpu < sched_nr_cpus(); cpu++)
		for (int i = 0; i < CPU_LOAD_IDX_MAX; i++)
			cpu_rq(cpu)->cpu_load[i] = cpu_rq(cpu)->load.weight;
}

/*
 * A busy CPU with 4 tasks next to one with 5: 100 * 5120 <= 125 * 4096, so
 * within imbalance_pct -- balanced. Next to one with 6 it is not.
 */
START_TEST(test_busiest_group_within_imbalance_pct_is_balanced)
{
	const u32 n[4] = { 5, 4, 4, 4 };
	unsigned long imbalance = 1;
	struct sched_domain *sd;

	bsim_start(machine_grid(1, 4, 1, 1));
	load_cpus(n);
	sd = bsim_base_sd(1);
	ck_assert_uint_eq(sd->imbalance_pct, 125);
	ck_assert_ptr_null(balance_find_busiest_group(1, sd, CPU_NOT_IDLE, &imbalance));
	ck_assert_uint_eq(imbalance, 0);
	bsim_stop();
}
END_TEST

START_TEST(test_busiest_group_beyond_imbalance_pct)
{
	const u32 n[4] = { 6, 4, 4, 4 };
	unsigned long imbalance = 0;
	struct sched_group *sg;

	bsim_start(machine_grid(1, 4, 1, 1));
	load_cpus(n);
	sg = balance_find_busiest_group(1, bsim_base_sd(1), CPU_NOT_IDLE, &imbalance);
	ck_assert_ptr_nonnull(sg);
	ck_assert(cpumask_test_cpu(0, &sg->cpus));
	/* Domain average 4608: CPU 1 may take 512, less than a task, so fix_small_imbalance gives
	 * one task. */
	ck_assert_uint_eq(imbalance, NICE_0_LOAD);
	bsim_stop();
}
END_TEST

/* An idle CPU leaves alone a group with no more tasks than CPUs. */
START_TEST(test_idle_cpu_leaves_a_group_at_capacity)
{
	const u32 n[4] = { 1, 0, 1, 1 };
	unsigned long imbalance = 1;

	bsim_start(machine_grid(1, 4, 1, 1));
	load_cpus(n);
	ck_assert_ptr_null(balance_find_busiest_group(1, bsim_base_sd(1), CPU_IDLE, &imbalance));
	ck_assert_int_eq(bsim_balance_on(1, bsim_base_sd(1), CPU_IDLE), 0);
	ck_assert_uint_eq(bsim_base_sd(1)->stats.lb_nobusyg[CPU_IDLE], 1);
	bsim_stop();
}
END_TEST

/*
 * Two packages of two single-core LLCs in one node: MC is degenerate, PKG
 * (SD_PREFER_SIBLING) pairs the cores of a package, NODE holds both
 * packages. A task on each core of package 0, package 1 idle.
 */
static struct machine *two_packages_of_two_llcs(void)
{
	struct machine *m = machine_new();

	for (u32 cpu = 0; cpu < 4; cpu++)
		machine_add_cpu(m, cpu / 2, cpu % 2, 0, cpu, 0);
	return m;
}

/*
 * PREFER_SIBLING: seen from the idle package, the busy one counts as able
 * to run one task only, so its second task is worth moving -- though it
 * runs no more tasks than it has CPUs. Without the flag on the child level
 * the same load is balanced.
 */
START_TEST(test_prefer_sibling_spreads_to_the_idle_package)
{
	const u32 n[4] = { 1, 1, 0, 0 };
	struct sched_domain *node;
	struct sched_group *sg;
	unsigned long imbalance = 0;

	bsim_start(two_packages_of_two_llcs());
	load_cpus(n);
	node = bsim_sd_named(2, "NODE");
	ck_assert_ptr_nonnull(node->child);
	ck_assert(node->child->flags & SD_PREFER_SIBLING);
	sg = balance_find_busiest_group(2, node, CPU_IDLE, &imbalance);
	ck_assert_ptr_nonnull(sg);
	ck_assert(cpumask_test_cpu(0, &sg->cpus) && cpumask_test_cpu(1, &sg->cpus));
	ck_assert_uint_eq(imbalance, NICE_0_LOAD);
	/* The test owns this generation: try it without the flag. */
	node->child->flags &= ~SD_PREFER_SIBLING;
	ck_assert_ptr_null(balance_find_busiest_group(2, node, CPU_IDLE, &imbalance));
	node->child->flags |= SD_PREFER_SIBLING;
	bsim_stop();
}
END_TEST

/*
 * group_imb: within imbalance_pct (100 * 2560 <= 125 * 2048) a group is
 * still pulled from when its queues differ by more than a task -- in
 * practice because affinity keeps its tasks from spreading inside it.
 * The same group load spread evenly inside is left alone.
 */
START_TEST(test_group_imbalance_forces_a_pull)
{
	const u32 unbalanced[4] = { 5, 0, 2, 2 }, even[4] = { 3, 2, 2, 2 };
	unsigned long imbalance = 0;
	struct sched_group *sg;

	bsim_start(machine_grid(2, 2, 1, 1));
	load_cpus(unbalanced);
	sg = balance_find_busiest_group(2, bsim_sd_named(2, "NODE"), CPU_NOT_IDLE, &imbalance);
	ck_assert_ptr_nonnull(sg);
	ck_assert(cpumask_test_cpu(0, &sg->cpus));
	ck_assert_uint_eq(imbalance, NICE_0_LOAD);
	bsim_stop();

	bsim_start(machine_grid(2, 2, 1, 1));
	load_cpus(even);
	ck_assert_ptr_null(
		balance_find_busiest_group(2, bsim_sd_named(2, "NODE"), CPU_NOT_IDLE, &imbalance));
	bsim_stop();
}
END_TEST

/*
 * find_busiest_queue() weighs, it does not count: in the busy package,
 * CPU 0 runs three nice-5 tasks (3 x 335), CPU 1 two nice-0 ones (2 x
 * 1024). Idle CPU 2 balancing the NODE level pulls from CPU 1, the heavier
 * queue, though CPU 0's is the longer.
 */
START_TEST(test_busiest_queue_is_the_heaviest_not_the_longest)
{
	const int nice[5] = { 5, 5, 5, 0, 0 };
	const u32 on[5] = { 0, 0, 0, 1, 1 };
	struct cpumask all = CPUMASK_EMPTY;

	bsim_start(machine_grid(2, 2, 1, 1));
	cpumask_set_range(&all, 0, 4);
	for (u32 i = 0; i < 5; i++) {
		struct task *p = sim_task(i < 3 ? "light" : "heavy", nice[i], on[i]);

		ck_assert_int_eq(set_cpus_allowed(p, &all), 0);
		bsim_tasks[bsim_nr_tasks++] = p;
	}
	sim_schedule(0);
	sim_schedule(1);
	bsim_publish();
	for (u32 cpu = 0; cpu < 4; cpu++)
		for (int i = 0; i < CPU_LOAD_IDX_MAX; i++)
			cpu_rq(cpu)->cpu_load[i] = cpu_rq(cpu)->load.weight;
	for (u32 i = 0; i < 5; i++) /* all cache-cold */
		bsim_tasks[i]->exec_start = cpu_rq(on[i])->clock_task -
					    2 * sysctl_sched_migration_cost;
	ck_assert_uint_eq(weighted_cpuload(0), 3 * 335);
	ck_assert_uint_eq(weighted_cpuload(1), 2 * NICE_0_LOAD);
	ck_assert_int_ge(bsim_balance_on(2, bsim_sd_named(2, "NODE"), CPU_IDLE), 1);
	ck_assert_msg(cpu_rq(0)->nr_running == 3 && cpu_rq(1)->nr_running == 1,
		      "pulled from the wrong queue: CPU 0 (3 x nice 5) has %u tasks, CPU 1 (2 x nice 0) "
		      "%u; expected 3 and 1 (the busiest queue is the one of most weighted load)",
		      cpu_rq(0)->nr_running, cpu_rq(1)->nr_running);
	bsim_stop();
}
END_TEST

/* --------------------------------------------------------- pulling for a sibling */

/*
 * Two cores of two threads, CPUs {0,1} and {2,3}; tasks allowed on CPUs 1
 * and 2 only: one on CPU 1, two on CPU 2 (one running, one waiting).
 * Returns the waiting one.
 */
static struct task *three_on_cpus_1_and_2(void)
{
	struct cpumask mask = CPUMASK_EMPTY;
	struct task *waiting;

	bsim_start(machine_grid(1, 2, 2, 1));
	bsim_task(1);
	bsim_task(2);
	bsim_task(2);
	cpumask_set_range(&mask, 1, 3);
	for (u32 i = 0; i < 3; i++)
		ck_assert_int_eq(set_cpus_allowed(bsim_tasks[i], &mask), 0);
	sim_schedule(1);
	sim_schedule(2);
	bsim_publish();
	waiting = sim_curr(2) == bsim_tasks[1] ? bsim_tasks[2] : bsim_tasks[1];
	waiting->exec_start = cpu_rq(2)->clock_task - 2 * sysctl_sched_migration_cost; /* cold */
	return waiting;
}

/*
 * Idle CPU 0 balances the MC level for its core: the waiting task may not
 * run on CPU 0, so it goes to CPU 1, the other CPU of CPU 0's group
 * (LBF_SOME_PINNED). CPU 1 is busy and will not look at its queue before
 * its own next tick, so the balancer must ask it to reschedule, as 3.8's
 * load_balance() does when it moved load for another CPU; then the newcomer,
 * at CPU 1's min_vruntime, runs there.
 */
START_TEST(test_pull_for_another_cpu_of_the_group_reschedules_it)
{
	struct task *waiting = three_on_cpus_1_and_2(), *running = sim_curr(1);

	ck_assert(!cpu_rq(1)->need_resched);
	ck_assert_int_eq(bsim_balance_on(0, bsim_sd_named(0, "MC"), CPU_IDLE), 1);
	ck_assert_uint_eq(task_cpu(waiting), 1);
	ck_assert_uint_eq(cpu_rq(0)->nr_running, 0);
	ck_assert(cpu_rq(1)->need_resched);
	sim_schedule(1);
	ck_assert_ptr_eq(sim_curr(1), waiting);
	ck_assert_ptr_ne(running, waiting);
	bsim_stop();
}
END_TEST

static void tick_at(u32 cpu, u64 ns)
{
	fake_clock_ns = ns;
	sim_tick(cpu);
	for (u32 c = 0; c < sched_nr_cpus(); c++)
		if (cpu_rq(c)->need_resched)
			sim_schedule(c);
}

/*
 * The same three tasks over 2 s of 4 ms ticks, the CPUs' ticks in the
 * order a 16-CPU boot under icount gave them: CPU 1's, then idle CPU 0's
 * and idle CPU 3's (each pulls the waiting task to its busy sibling), then
 * CPU 2's. The waiting task spends only the 0.15 ms between the idle CPUs'
 * ticks on CPU 1, never at CPU 1's tick; unless the pulls reschedule CPU 1,
 * its task runs alone for good and the other two share CPU 2 (500, 250 and
 * 250 per mille). Each must get a third of the time, within 5%.
 */
START_TEST(test_three_tasks_on_two_cores_share_evenly)
{
	const u64 period = 4000000, settle = 100000000, measure = 2000000000;
	u64 start[3], share[3], total = 0, t0;

	three_on_cpus_1_and_2();
	t0 = fake_clock_ns;
	for (u64 t = 0; t < settle + measure; t += period) {
		if (t == settle)
			for (u32 i = 0; i < 3; i++)
				start[i] = task_sched_runtime(bsim_tasks[i]);
		tick_at(1, t0 + t + 1200000);
		tick_at(0, t0 + t + 1600000);
		tick_at(3, t0 + t + 1750000);
		tick_at(2, t0 + t + 3500000);
	}
	fake_clock_ns = t0 + settle + measure;
	for (u32 i = 0; i < 3; i++) {
		share[i] = task_sched_runtime(bsim_tasks[i]) - start[i];
		total += share[i];
	}
	for (u32 i = 0; i < 3; i++) {
		share[i] = share[i] * 1000 / total;
		ck_assert_msg(share[i] >= 333 * 95 / 100 && share[i] <= 333 * 105 / 100,
			      "task %u got %llu per mille (ideal 333)", i,
			      (unsigned long long)share[i]);
	}
	bsim_stop();
}
END_TEST

/* ---------------------------------------------------------------- new-idle */

START_TEST(test_newidle_pulls_one_task)
{
	struct rq *rq;

	bsim_start(machine_grid(1, 4, 1, 1));
	for (int i = 0; i < 4; i++)
		bsim_task(0);
	sim_schedule(0);
	bsim_publish();
	rq = cpu_rq(1);
	rq->avg_idle = rq_initial_avg_idle();
	fake_cpu_id = 1;
	spin_lock(&rq->lock);
	update_rq_clock(rq);
	idle_balance_fair(rq);
	spin_unlock(&rq->lock);
	fake_cpu_id = 0;
	ck_assert_uint_eq(cpu_rq(1)->nr_running, 1);
	ck_assert_uint_eq(cpu_rq(0)->nr_running, 3);
	ck_assert_uint_eq(rq->idle_stamp, 0); /* it pulled: not idle after all */
	ck_assert_uint_eq(bsim_base_sd(1)->stats.lb_gained[CPU_NEWLY_IDLE], 1);
	ck_assert_uint_eq(bsim_base_sd(1)->nr_balance_failed, 0);
	bsim_stop();
}
END_TEST

/*
 * One task even when the imbalance is worth four: eight tasks on CPU 0 of
 * two packages, CPU 2 newly idle. Its own package has nothing; the NODE
 * level's imbalance is half of package 0's 8192 over two CPUs, but a CPU
 * going idle takes one task and runs it rather than hold both queue locks
 * for more (the periodic balancer moves the rest).
 */
START_TEST(test_newidle_pulls_one_task_of_a_larger_imbalance)
{
	unsigned long imbalance = 0;
	struct rq *rq;

	bsim_start(machine_grid(2, 2, 1, 1));
	for (int i = 0; i < 8; i++)
		bsim_task(0);
	sim_schedule(0);
	bsim_publish();
	ck_assert_ptr_nonnull(balance_find_busiest_group(2, bsim_sd_named(2, "NODE"),
							 CPU_NEWLY_IDLE, &imbalance));
	ck_assert_uint_ge(imbalance, 2 * NICE_0_LOAD);
	rq = cpu_rq(2);
	rq->avg_idle = rq_initial_avg_idle();
	fake_cpu_id = 2;
	spin_lock(&rq->lock);
	update_rq_clock(rq);
	idle_balance_fair(rq);
	spin_unlock(&rq->lock);
	fake_cpu_id = 0;
	ck_assert_msg(cpu_rq(2)->nr_running == 1,
		      "newly idle CPU 2 pulled %u tasks of an imbalance of %lu: expected 1 (a newly idle "
		      "CPU stops after one task)",
		      cpu_rq(2)->nr_running, imbalance);
	ck_assert_uint_eq(cpu_rq(0)->nr_running, 7);
	bsim_stop();
}
END_TEST

/* Short idle periods on average: new-idle balancing is not worth it. */
START_TEST(test_newidle_skipped_when_avg_idle_short)
{
	struct rq *rq;

	bsim_start(machine_grid(1, 4, 1, 1));
	for (int i = 0; i < 4; i++)
		bsim_task(0);
	sim_schedule(0);
	bsim_publish();
	rq = cpu_rq(1);
	rq->avg_idle = sysctl_sched_migration_cost / 2;
	fake_cpu_id = 1;
	spin_lock(&rq->lock);
	update_rq_clock(rq);
	idle_balance_fair(rq);
	spin_unlock(&rq->lock);
	fake_cpu_id = 0;
	ck_assert_uint_eq(cpu_rq(1)->nr_running, 0);
	ck_assert_uint_eq(rq->idle_stamp, rq->clock);
	ck_assert_uint_eq(bsim_base_sd(1)->stats.lb_count[CPU_NEWLY_IDLE], 0);
	/* A wake-up 2 ms later folds the idle period into avg_idle, capped at 2 * migration cost.
	 */
	rq->clock += 2000000;
	rq_update_avg_idle(rq);
	ck_assert_uint_eq(rq->avg_idle, 2 * sysctl_sched_migration_cost);
	ck_assert_uint_eq(rq->idle_stamp, 0);
	bsim_stop();
}
END_TEST

/* ---------------------------------------------------------------- counters */

/*
 * Direct passes from CPUs 1-3 until nothing moves: every pass ends
 * balanced, failed or with tasks moved; the tasks gained are the tasks
 * that migrated; each pass's imbalance is counted.
 */
START_TEST(test_counters_add_up)
{
	u64 succeeded[CPU_MAX_IDLE_TYPES] = { 0 }, moved = 0, migrations = 0;
	u64 count = 0, balanced = 0, failed = 0, gained = 0, nobusy = 0;

	bsim_start(machine_grid(2, 2, 1, 1));
	for (int i = 0; i < BSIM_NR_TASKS; i++)
		bsim_task(0);
	sim_schedule(0);
	bsim_publish();
	for (int round = 0; round < 50; round++) {
		/* A tick first: cpu_load[] is what the busy and idle indexes read. */
		fake_clock_ns += SIM_TICK_NS;
		for (u32 cpu = 0; cpu < 4; cpu++) {
			/*
			 * Only the calls below may balance, so that every lb_count is
			 * accounted: keep the tick's periodic balancing and new-idle
			 * balancing (fair's hooks) out of this test.
			 */
			cpu_rq(cpu)->next_balance = fake_clock_ns +
						    (1ULL << 50); /* wrap-safe "never" */
			cpu_rq(cpu)->avg_idle = 0;
			sim_tick(cpu);
		}
		for (u32 cpu = 0; cpu < 4; cpu++) {
			struct sched_domain *sd;

			for (sd = bsim_base_sd(cpu); sd; sd = sd->parent) {
				enum cpu_idle_type idle = idle_cpu(cpu) ? CPU_IDLE : CPU_NOT_IDLE;
				int n = bsim_balance_on(cpu, sd, idle);

				moved += (u64)n;
				succeeded[idle] += n > 0;
			}
		}
		for (u32 cpu = 0; cpu < 4; cpu++)
			if (cpu_rq(cpu)->need_resched)
				sim_schedule(cpu);
	}
	ck_assert_str_eq(bsim_spread(), "3/3/2/2");
	for (u32 cpu = 0; cpu < 4; cpu++) {
		for (struct sched_domain *sd = bsim_base_sd(cpu); sd; sd = sd->parent) {
			const struct sched_domain_stats *s = &sd->stats;

			for (int i = 0; i < CPU_MAX_IDLE_TYPES; i++) {
				ck_assert_uint_le(s->lb_nobusyg[i] + s->lb_nobusyq[i],
						  s->lb_balanced[i]);
				ck_assert_uint_le(s->lb_hot_gained[i], s->lb_gained[i]);
				count += s->lb_count[i];
				balanced += s->lb_balanced[i];
				failed += s->lb_failed[i];
				gained += s->lb_gained[i];
				nobusy += s->lb_nobusyg[i] + s->lb_nobusyq[i];
			}
		}
	}
	for (u32 i = 0; i < bsim_nr_tasks; i++)
		migrations += bsim_tasks[i]->nr_migrations;
	ck_assert_uint_eq(count, balanced + failed + succeeded[CPU_IDLE] + succeeded[CPU_NOT_IDLE]);
	ck_assert_uint_eq(gained, moved);
	ck_assert_uint_eq(gained, migrations);
	ck_assert_uint_ge(gained, 7); /* at least 10 -> 3: seven left CPU 0 */
	ck_assert_uint_gt(nobusy, 0);
	bsim_stop();
}
END_TEST

Suite *balance_suite(void)
{
	Suite *s = suite_create("balance");
	TCase *spread = tcase_create("spread");
	TCase *rules = tcase_create("rules");

	tcase_set_timeout(spread, 60);
	tcase_add_test(spread, test_evens_10_tasks_on_4_cpus_one_llc);
	tcase_add_test(spread, test_evens_10_tasks_on_4_cpus_two_packages);
	tcase_add_test(spread, test_evens_10_tasks_on_4_cpus_smt);
	tcase_add_test(spread, test_pinned_tasks_never_move);
	tcase_add_test(spread, test_counters_add_up);
	suite_add_tcase(s, spread);

	tcase_add_test(rules, test_all_pinned_backs_off);
	tcase_add_test(rules, test_cache_hot_task_waits_for_nice_tries);
	tcase_add_test(rules, test_cache_cold_task_moves_at_once);
	tcase_add_test(rules, test_busiest_group_within_imbalance_pct_is_balanced);
	tcase_add_test(rules, test_busiest_group_beyond_imbalance_pct);
	tcase_add_test(rules, test_idle_cpu_leaves_a_group_at_capacity);
	tcase_add_test(rules, test_prefer_sibling_spreads_to_the_idle_package);
	tcase_add_test(rules, test_group_imbalance_forces_a_pull);
	tcase_add_test(rules, test_busiest_queue_is_the_heaviest_not_the_longest);
	tcase_add_test(rules, test_pull_for_another_cpu_of_the_group_reschedules_it);
	tcase_add_test(spread, test_three_tasks_on_two_cores_share_evenly);
	tcase_add_test(rules, test_newidle_pulls_one_task);
	tcase_add_test(rules, test_newidle_pulls_one_task_of_a_larger_imbalance);
	tcase_add_test(rules, test_newidle_skipped_when_avg_idle_short);
	suite_add_tcase(s, rules);
	return s;
}

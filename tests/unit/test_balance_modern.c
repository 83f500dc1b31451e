/*
 * Host tests of the modern load balancer (kernel/sched/balance_modern*.c,
 * sched_balance=modern): group classification from crafted sums, the
 * migration type and amount find_busiest_group() chooses for crafted
 * loads on a 2-socket SMT machine, and whole runs of the real core, fair
 * class, PELT and balancer on balance_sim.h's machines: ten tasks on four
 * CPUs end 3/3/2/2, and tasks take a core each before sharing one.
 */
#include <string.h>

#include "balance_sim.h"
#include "fake_arch.h"
#include "sched/balance_modern.h"
#include "sched/pelt.h"
#include "sched/stop.h"
#include "unit.h"

/* ---------------------------------------------------------------- classification */

static struct sg_mlb_stats group(u32 weight, u32 nr, unsigned long util, unsigned long runnable)
{
	return (struct sg_mlb_stats){
		.group_weight = weight,
		.group_capacity = weight * SCHED_CAPACITY_SCALE,
		.sum_nr_running = nr,
		.sum_h_nr_running = nr,
		.group_util = util,
		.group_runnable = runnable,
	};
}

START_TEST(test_classify_crafted_groups)
{
	struct sg_mlb_stats sgs;

	/* One task on two CPUs: room. */
	sgs = group(2, 1, 600, 600);
	ck_assert_int_eq(modern_group_classify(117, false, &sgs), group_has_spare);
	/* Two busy tasks on two CPUs: nobody waits, no room. */
	sgs = group(2, 2, 2000, 2000);
	ck_assert_int_eq(modern_group_classify(117, false, &sgs), group_fully_busy);
	/* Two tasks, not much running yet, but waiting a lot (runnable above capacity). */
	sgs = group(2, 2, 1500, 2600);
	ck_assert_int_eq(modern_group_classify(117, false, &sgs), group_fully_busy);
	/* Three on two, utilisation at capacity: overloaded. */
	sgs = group(2, 3, 2040, 2040);
	ck_assert_int_eq(modern_group_classify(117, false, &sgs), group_overloaded);
	/* Three on two by runnable time alone. */
	sgs = group(2, 3, 1000, 2600);
	ck_assert_int_eq(modern_group_classify(117, false, &sgs), group_overloaded);
	/* Three on two that only just woke (no history): still has spare capacity. */
	sgs = group(2, 3, 100, 100);
	ck_assert_int_eq(modern_group_classify(117, false, &sgs), group_has_spare);
	/* Affinity trouble below beats everything but overload. */
	sgs = group(2, 2, 2000, 2000);
	ck_assert_int_eq(modern_group_classify(117, true, &sgs), group_imbalanced);
	sgs = group(2, 3, 2040, 2040);
	ck_assert_int_eq(modern_group_classify(117, true, &sgs), group_overloaded);
	/* An SMT core with two tasks, seen by an idle CPU. */
	sgs = group(2, 2, 2000, 2000);
	sgs.smt_balance = true;
	ck_assert_int_eq(modern_group_classify(110, false, &sgs), group_smt_balance);
	/* imbalance_pct decides at the edge: util 1800 of 2048 is busy at 117, not at 110. */
	sgs = group(2, 2, 1800, 1800);
	ck_assert_int_eq(modern_group_classify(117, false, &sgs), group_fully_busy);
	ck_assert_int_eq(modern_group_classify(110, false, &sgs), group_has_spare);
}
END_TEST

START_TEST(test_imbalance_pct_by_level)
{
	bsim_start(machine_grid(2, 2, 2, 1));
	bsim_publish();
	ck_assert_uint_eq(modern_imbalance_pct(bsim_sd_named(0, "SMT")), 110);
	ck_assert_uint_eq(modern_imbalance_pct(bsim_sd_named(0, "MC")), 117);
	ck_assert_uint_eq(modern_imbalance_pct(bsim_sd_named(0, "MC")->parent), 125);
	bsim_stop();
}
END_TEST

/* ------------------------------------------------- decisions on crafted loads */

/*
 * The 2-socket SMT machine: 2 packages x 2 cores x 2 threads. Tasks are
 * pinned where the test puts them and their CPU's PELT sums are written
 * by hand (PELT itself is off here, so nothing overwrites them).
 */
static void craft(const u32 *tasks_per_cpu, u32 nr_cpus, unsigned long util_per_task)
{
	bsim_start(machine_grid(2, 2, 2, 1));
	for (u32 cpu = 0; cpu < nr_cpus; cpu++) {
		for (u32 i = 0; i < tasks_per_cpu[cpu]; i++)
			bsim_pin(bsim_task(cpu), cpu);
		cpu_rq(cpu)->cfs.pelt.avg.load_avg = tasks_per_cpu[cpu] * NICE_0_LOAD;
		cpu_rq(cpu)->cfs.pelt.avg.runnable_avg = tasks_per_cpu[cpu] * util_per_task;
		cpu_rq(cpu)->cfs.pelt.avg.util_avg = MIN(tasks_per_cpu[cpu] * util_per_task,
							 SCHED_CAPACITY_SCALE);
	}
	for (u32 cpu = 0; cpu < nr_cpus; cpu++)
		sim_schedule(cpu);
	bsim_publish();
}

/* The top (package) level of cpu: MC's parent. */
static struct sched_domain *pkg_level(u32 cpu)
{
	return bsim_sd_named(cpu, "MC")->parent;
}

/* Three tasks on CPU 0, seen from idle CPU 4 in the other package: move one task. */
START_TEST(test_spare_vs_spare_moves_tasks)
{
	const u32 nr[8] = { 3 };
	struct sched_group *sg;
	enum migration_type type;
	long imb;

	craft(nr, 8, 1024);
	sg = modern_balance_find_busiest_group(4, pkg_level(4), CPU_IDLE, &imb, &type);
	ck_assert_ptr_nonnull(sg);
	ck_assert(cpumask_test_cpu(0, sg_span(sg)));
	ck_assert_int_eq(type, migrate_task);
	ck_assert_int_eq(imb, 1); /* (3 - 0) / 2 */
	/* Busy CPUs leave a group that is not overloaded to idle ones. */
	ck_assert_ptr_null(modern_balance_find_busiest_group(0, bsim_sd_named(0, "MC"),
							     CPU_NOT_IDLE, &imb, &type));
	bsim_stop();
}
END_TEST

/* Package 0 overloaded (6 on 4), package 1 with room (1 on 4): fill our spare utilisation. */
START_TEST(test_overloaded_vs_spare_moves_util)
{
	const u32 nr[8] = { 2, 2, 1, 1, 1 };
	struct sched_group *sg;
	enum migration_type type;
	long imb;

	craft(nr, 8, 1024);
	sg = modern_balance_find_busiest_group(5, pkg_level(5), CPU_IDLE, &imb, &type);
	ck_assert_ptr_nonnull(sg);
	ck_assert(cpumask_test_cpu(0, sg_span(sg)));
	ck_assert_int_eq(type, migrate_util);
	ck_assert_int_eq(imb, 4 * 1024 - 1024);
	/* Inside package 0, core 1 (2 tasks) has no room itself: load is what moves there. */
	sg = modern_balance_find_busiest_group(2, bsim_sd_named(2, "MC"), CPU_IDLE, &imb, &type);
	ck_assert_ptr_nonnull(sg);
	ck_assert(cpumask_test_cpu(0, sg_span(sg)));
	ck_assert_int_eq(type, migrate_load);
	bsim_stop();
}
END_TEST

/* Both packages without room (6 on 4 against 4 on 4): move load towards the average. */
START_TEST(test_overloaded_vs_busy_moves_load)
{
	const u32 nr[8] = { 2, 2, 1, 1, 1, 1, 1, 1 };
	struct sched_group *sg;
	enum migration_type type;
	long imb;

	craft(nr, 8, 1024);
	sg = modern_balance_find_busiest_group(4, pkg_level(4), CPU_NOT_IDLE, &imb, &type);
	ck_assert_ptr_nonnull(sg);
	ck_assert(cpumask_test_cpu(0, sg_span(sg)));
	ck_assert_int_eq(type, migrate_load);
	/* avg_load 1536 (busiest), 1024 (local), 1280 (domain): min(256, 256) * 4096 / 1024. */
	ck_assert_int_eq(imb, 1024);
	/* Within package 0, core 0 (4 tasks) is the busiest seen from core 1 (2 tasks). */
	sg = modern_balance_find_busiest_group(2, bsim_sd_named(2, "MC"), CPU_NOT_IDLE, &imb, &type);
	ck_assert_ptr_nonnull(sg);
	ck_assert(cpumask_test_cpu(0, sg_span(sg)));
	ck_assert_int_eq(type, migrate_load);
	bsim_stop();
}
END_TEST

/* An SMT core running two tasks, the other core idle: one task, counted as smt balance. */
START_TEST(test_smt_core_with_two_tasks)
{
	const u32 nr[8] = { 1, 1 };
	struct sched_group *sg;
	enum migration_type type;
	long imb;

	craft(nr, 8, 1024);
	sg = modern_balance_find_busiest_group(2, bsim_sd_named(2, "MC"), CPU_IDLE, &imb, &type);
	ck_assert_ptr_nonnull(sg);
	ck_assert(cpumask_test_cpu(0, sg_span(sg)) && cpumask_test_cpu(1, sg_span(sg)));
	ck_assert_int_eq(type, migrate_task);
	ck_assert_int_eq(imb, 1);
	/* One task per core is balanced at MC: nothing to do for CPU 3 once CPU 2 has one. */
	bsim_stop();
}
END_TEST

/* ------------------------------------------------------------------ whole runs */

static void modern_start(struct machine *m)
{
	bsim_start_balancer(m, "modern");
	ck_assert(sched_pelt_enabled);
}

START_TEST(test_modern_evens_10_tasks_on_4_cpus_one_llc)
{
	bsim_expect_even_spread(machine_grid(1, 4, 1, 1), "modern");
}
END_TEST

START_TEST(test_modern_evens_10_tasks_on_4_cpus_two_packages)
{
	bsim_expect_even_spread(machine_grid(2, 2, 1, 1), "modern");
}
END_TEST

START_TEST(test_modern_evens_10_tasks_on_4_cpus_smt)
{
	bsim_expect_even_spread(machine_grid(1, 2, 2, 1), "modern");
}
END_TEST

/* Tasks on each core of cpu's machine, indexed by the first CPU of the core's SMT span. */
static void count_per_core(u32 *per_core, u32 n)
{
	memset(per_core, 0, n * sizeof(*per_core));
	for (u32 cpu = 0; cpu < n; cpu++) {
		struct sched_domain *smt = bsim_sd_named(cpu, "SMT");

		per_core[cpumask_first(sd_span(smt))] += cpu_rq(cpu)->cfs.nr_running;
	}
}

/*
 * Four tasks forked on CPU 0 of the 2-socket SMT machine (4 cores, 8
 * threads) end one per core -- two per package -- and never two on one
 * core while a core is idle, once settled.
 */
START_TEST(test_modern_one_task_per_core_before_two)
{
	u32 per_core[8], n;

	modern_start(machine_grid(2, 2, 2, 1));
	for (int i = 0; i < 4; i++)
		bsim_task(0);
	sim_schedule(0);
	ck_assert_int_eq(stop_machine_init(), 0);
	bsim_publish();
	n = sched_nr_cpus();
	ck_assert_uint_eq(n, 8);
	for (u64 t = 0; t < BSIM_SETTLE_NS; t += SIM_TICK_NS)
		bsim_tick_all();
	for (u64 t = 0; t < BSIM_SETTLE_NS / 4; t += SIM_TICK_NS) {
		u32 cores = 0;

		bsim_tick_all();
		count_per_core(per_core, n);
		for (u32 c = 0; c < n; c++) {
			ck_assert_uint_le(per_core[c], 1);
			cores += per_core[c];
		}
		ck_assert_uint_eq(cores, 4);
	}
	bsim_stop();
}
END_TEST

/* Two tasks on the two threads of core 0, core 1 idle: the stopper pushes one over. */
START_TEST(test_modern_smt_spread_two_tasks)
{
	u32 per_core[4];

	modern_start(machine_grid(1, 2, 2, 1));
	bsim_task(0);
	bsim_task(1);
	sim_schedule(0);
	sim_schedule(1);
	ck_assert_int_eq(stop_machine_init(), 0);
	bsim_publish();
	for (u64 t = 0; t < BSIM_SETTLE_NS / 4; t += SIM_TICK_NS)
		bsim_tick_all();
	count_per_core(per_core, 4);
	for (u32 c = 0; c < 4; c++)
		ck_assert_uint_le(per_core[c], 1);
	ck_assert_uint_ge(bsim_sd_named(2, "MC")->stats.alb_pushed +
				  bsim_sd_named(3, "MC")->stats.alb_pushed,
			  1);
	bsim_stop();
}
END_TEST

/*
 * New-idle balancing: CPU 1's last task sleeps while CPU 0 has three. It
 * pulls one only when its average idle period is longer than what
 * balancing its base level has cost, and not at all when no CPU runs more
 * than one task.
 */
static u32 newidle_pulls(u64 avg_idle_ns, u64 cost_ns, u32 on_cpu0, u64 *passes)
{
	struct task *mine;
	struct sched_domain *sd;
	u32 got;

	modern_start(machine_grid(1, 4, 1, 1));
	for (u32 i = 0; i < on_cpu0; i++)
		bsim_task(0);
	mine = bsim_task(1);
	sim_schedule(0);
	sim_schedule(1);
	bsim_publish();
	sd = bsim_base_sd(1);
	for (struct sched_domain *d = sd; d; d = d->parent)
		modern_set_newidle_cost(d, 1, cost_ns);
	cpu_rq(1)->avg_idle = avg_idle_ns;
	sim_sleep(mine);
	got = cpu_rq(1)->nr_running;
	*passes = 0;
	for (struct sched_domain *d = sd; d; d = d->parent)
		*passes += d->stats.lb_count[CPU_NEWLY_IDLE];
	bsim_stop();
	return got;
}

START_TEST(test_newidle_gated_by_avg_idle)
{
	u64 passes;

	ck_assert_uint_eq(newidle_pulls(2000000, 1000000, 3, &passes), 1);
	ck_assert_uint_eq(passes, 1);
	/* Idle periods shorter than a pass costs: no pass at all. */
	ck_assert_uint_eq(newidle_pulls(500000, 1000000, 3, &passes), 0);
	ck_assert_uint_eq(passes, 0);
	/* Nobody runs two tasks: nothing to pull, no pass either. */
	ck_assert_uint_eq(newidle_pulls(2000000, 0, 1, &passes), 0);
	ck_assert_uint_eq(passes, 0);
}
END_TEST

/* The option: two names, and anything else refused with the current choice kept. */
START_TEST(test_balance_option)
{
	ck_assert(!sched_balance_modern);
	ck_assert_int_eq(sched_balance_set("modern", 6), 0);
	ck_assert(sched_balance_modern && sched_pelt_enabled);
	ck_assert_int_eq(sched_balance_set("5.5", 3), -1);
	ck_assert(sched_balance_modern);
	ck_assert_int_eq(sched_balance_set("3.8", 3), 0);
	ck_assert(!sched_balance_modern && !sched_pelt_enabled);
}
END_TEST

Suite *balance_modern_suite(void)
{
	Suite *s = suite_create("balance_modern");
	TCase *tc = tcase_create("classify");
	TCase *runs = tcase_create("runs");

	tcase_add_test(tc, test_classify_crafted_groups);
	tcase_add_test(tc, test_imbalance_pct_by_level);
	tcase_add_test(tc, test_spare_vs_spare_moves_tasks);
	tcase_add_test(tc, test_overloaded_vs_spare_moves_util);
	tcase_add_test(tc, test_overloaded_vs_busy_moves_load);
	tcase_add_test(tc, test_smt_core_with_two_tasks);
	tcase_add_test(tc, test_balance_option);
	tcase_add_test(tc, test_newidle_gated_by_avg_idle);
	suite_add_tcase(s, tc);
	tcase_add_test(runs, test_modern_evens_10_tasks_on_4_cpus_one_llc);
	tcase_add_test(runs, test_modern_evens_10_tasks_on_4_cpus_two_packages);
	tcase_add_test(runs, test_modern_evens_10_tasks_on_4_cpus_smt);
	tcase_add_test(runs, test_modern_one_task_per_core_before_two);
	tcase_add_test(runs, test_modern_smt_spread_two_tasks);
	suite_add_tcase(s, runs);
	return s;
}

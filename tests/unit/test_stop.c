/*
 * Host tests of the per-CPU stopper (kernel/sched/stop.c) and what runs on
 * it: active balancing of a running task and migrate_running_task(). The
 * host has no context switch, so the tests play the stopper by hand
 * (bsim_run_stopper) when it has been asked to preempt.
 */
#include "balance_sim.h"
#include "fake_arch.h"
#include "lib/errno.h"
#include "sched/stop.h"
#include "unit.h"

/*
 * CPU 0 runs a task that may move and holds two that may not. Pulling
 * fails; after cache_nice_tries + 2 failures CPU 1 asks CPU 0's stopper to
 * push the running task, which it does once it has preempted it.
 */
START_TEST(test_active_balance_pushes_the_running_task)
{
	struct task *runner;
	struct sched_domain *sd;
	u32 passes = 0;

	bsim_start(machine_grid(1, 4, 1, 1));
	runner = bsim_task(0);
	sim_schedule(0);
	bsim_pin(bsim_task(0), 0);
	bsim_pin(bsim_task(0), 0);
	ck_assert_int_eq(stop_machine_init(), 0);
	ck_assert_uint_eq(cpu_rq(0)->nr_running, 3); /* the stoppers sleep */
	bsim_publish();
	sd = bsim_base_sd(1);
	cpu_rq(0)->need_resched = false;
	while (!cpu_rq(0)->need_resched) {
		ck_assert_int_eq(bsim_balance_on(1, sd, CPU_IDLE), 0);
		ck_assert_uint_lt(++passes, 10);
	}
	ck_assert_uint_eq(passes, sd->cache_nice_tries + 3);
	ck_assert_uint_eq(sd->nr_balance_failed, sd->cache_nice_tries + 1);
	ck_assert_uint_eq(task_cpu(runner), 0);
	bsim_run_stopper(0);
	ck_assert_uint_eq(task_cpu(runner), 1);
	ck_assert_uint_eq(sd->stats.alb_count, 1);
	ck_assert_uint_eq(sd->stats.alb_pushed, 1);
	ck_assert_uint_eq(sd->stats.alb_failed, 0);
	ck_assert_uint_eq(cpu_rq(0)->nr_running, 2);
	bsim_stop();
}
END_TEST

/*
 * Two tasks on the two threads of core 0, core 1 idle: the core is over
 * its capacity of one, but each thread's queue holds a lone running task
 * that no pull can take. After cache_nice_tries + 2 failed passes CPU 2
 * has one pushed over by the stopper of the busiest thread.
 */
START_TEST(test_active_balance_of_a_lone_task_on_a_busy_core)
{
	struct task *a, *b;
	struct sched_domain *mc;
	u32 passes = 0;

	bsim_start(machine_grid(1, 2, 2, 1));
	a = bsim_task(0);
	b = bsim_task(1);
	sim_schedule(0);
	sim_schedule(1);
	ck_assert_int_eq(stop_machine_init(), 0);
	bsim_publish();
	mc = bsim_sd_named(2, "MC");
	cpu_rq(0)->need_resched = cpu_rq(1)->need_resched = false;
	while (!cpu_rq(0)->need_resched && !cpu_rq(1)->need_resched) {
		ck_assert_int_eq(bsim_balance_on(2, mc, CPU_IDLE), 0);
		ck_assert_uint_lt(++passes, 10);
	}
	ck_assert_uint_eq(passes, mc->cache_nice_tries + 3);
	ck_assert_uint_eq(mc->stats.lb_failed[CPU_IDLE], passes);
	bsim_run_stopper(cpu_rq(0)->need_resched ? 0 : 1);
	ck_assert(task_cpu(a) == 2 || task_cpu(b) == 2);
	ck_assert_uint_eq(mc->stats.alb_pushed, 1);
	ck_assert_uint_eq(cpu_rq(2)->nr_running, 1);
	bsim_stop();
}
END_TEST

/* The same with both tasks pinned: no push, and the domain backs off as for pinned tasks. */
START_TEST(test_no_active_balance_of_a_pinned_runner)
{
	struct sched_domain *mc;

	bsim_start(machine_grid(1, 2, 2, 1));
	bsim_pin(bsim_task(0), 0);
	bsim_pin(bsim_task(1), 1);
	sim_schedule(0);
	sim_schedule(1);
	ck_assert_int_eq(stop_machine_init(), 0);
	bsim_publish();
	mc = bsim_sd_named(2, "MC");
	cpu_rq(0)->need_resched = cpu_rq(1)->need_resched = false;
	for (int i = 0; i < 10; i++)
		ck_assert_int_eq(bsim_balance_on(2, mc, CPU_IDLE), 0);
	ck_assert(!cpu_rq(0)->need_resched && !cpu_rq(1)->need_resched);
	ck_assert_uint_eq(mc->stats.alb_count, 0);
	ck_assert_uint_gt(mc->balance_interval, mc->max_interval);
	bsim_stop();
}
END_TEST

static void play_stopper(u32 cpu)
{
	bsim_run_stopper(cpu);
}

START_TEST(test_migrate_running_task)
{
	struct task *runner, *queued;

	bsim_start(machine_grid(1, 4, 1, 1));
	runner = bsim_task(0);
	sim_schedule(0);
	queued = bsim_task(0);
	ck_assert_int_eq(stop_machine_init(), 0);
	bsim_publish();
	stop_wait_hook = play_stopper;
	/* Queued: moved at once, no stopper. */
	ck_assert_int_eq(migrate_running_task(queued, 3), 0);
	ck_assert_uint_eq(task_cpu(queued), 3);
	/* Running: CPU 0's stopper preempts it and moves it. */
	fake_cpu_id = 2;
	ck_assert_int_eq(migrate_running_task(runner, 2), 0);
	fake_cpu_id = 0;
	ck_assert_uint_eq(task_cpu(runner), 2);
	ck_assert_ptr_eq(sim_curr(0), cpu_rq(0)->idle);
	/* Not allowed there, or no such CPU. */
	bsim_pin(runner, 2);
	ck_assert_int_eq(migrate_running_task(runner, 1), -EINVAL);
	ck_assert_int_eq(migrate_running_task(runner, 4), -EINVAL);
	ck_assert_uint_eq(task_cpu(runner), 2);
	bsim_stop();
}
END_TEST

Suite *stop_suite(void)
{
	Suite *s = suite_create("stop");
	TCase *tc = tcase_create("stopper");

	tcase_add_test(tc, test_active_balance_pushes_the_running_task);
	tcase_add_test(tc, test_active_balance_of_a_lone_task_on_a_busy_core);
	tcase_add_test(tc, test_no_active_balance_of_a_pinned_runner);
	tcase_add_test(tc, test_migrate_running_task);
	suite_add_tcase(s, tc);
	return s;
}

/*
 * Host tests of schedstat (kernel/sched/stats.c): the version 15 report,
 * Linux's hex masks, the wasted-CPU figure, the per-CPU migration
 * totals and run_delay across a balancer move (core.c), on balance_sim.h's
 * machine.
 */
#include <string.h>

#include "balance_sim.h"
#include "fake_arch.h"
#include "sched/stats.h"
#include "unit.h"

/*
 * Runs on a simulated machine although it needs none: the core's
 * sched_yield() stands in for libc's in the host build, and LeakSanitizer
 * calls it at exit, which needs runqueues.
 */
START_TEST(test_schedstat_mask_hex)
{
	struct cpumask m = CPUMASK_EMPTY;
	char buf[128];

	bsim_start(machine_grid(1, 4, 1, 1));
	cpumask_set_range(&m, 0, 4);
	schedstat_mask_hex(buf, sizeof(buf), &m, 4);
	ck_assert_str_eq(buf, "f");
	cpumask_set_range(&m, 0, 40);
	schedstat_mask_hex(buf, sizeof(buf), &m, 40);
	ck_assert_str_eq(buf, "ff,ffffffff");
	cpumask_clear(&m);
	cpumask_set_cpu(0, &m);
	cpumask_set_cpu(63, &m);
	schedstat_mask_hex(buf, sizeof(buf), &m, 64);
	ck_assert_str_eq(buf, "80000000,00000001");
	schedstat_mask_hex(buf, sizeof(buf), &m, 8);
	ck_assert_str_eq(buf, "01");
	bsim_stop();
}
END_TEST

/* Counts the space-separated fields of the console line that starts with prefix. */
static int fields_of_line(const char *log, const char *prefix)
{
	const char *line = strstr(log, prefix);
	int fields = 0;

	ck_assert_ptr_nonnull(line);
	for (const char *c = line; *c && *c != '\n'; c++)
		if (*c != ' ' && (c == line || c[-1] == ' '))
			fields++;
	return fields;
}

START_TEST(test_schedstat_print_version_15)
{
	const char *log;

	bsim_start(machine_grid(2, 2, 1, 1));
	for (int i = 0; i < BSIM_NR_TASKS; i++)
		bsim_task(0);
	sim_schedule(0);
	bsim_publish();
	for (int i = 0; i < 100; i++)
		bsim_tick_and_balance();
	fake_console_reset();
	schedstat_print();
	log = fake_console_text();
	ck_assert_ptr_nonnull(strstr(log, "version 15\n"));
	ck_assert_ptr_nonnull(strstr(log, "timestamp "));
	/* cpuN and 9 fields; domainN, the span and 3 * 8 + 12 counters. */
	ck_assert_int_eq(fields_of_line(log, "cpu3 "), 10);
	ck_assert_int_eq(fields_of_line(log, "domain0 3 "), 2 + 3 * 8 + 12);
	ck_assert_ptr_nonnull(strstr(log, "domain1 f "));
	ck_assert_ptr_nonnull(strstr(log, "wasted cpu0 "));
	bsim_stop();
}
END_TEST

/* ---------------------------------------------------------------- wasted CPU */

START_TEST(test_wasted_idle_time)
{
	struct rq *rq1;

	bsim_start(machine_grid(1, 4, 1, 1));
	for (int i = 0; i < 3; i++)
		bsim_task(0);
	sim_schedule(0);
	bsim_publish();
	rq1 = cpu_rq(1);
	schedstat_account_wasted(rq1, fake_clock_ns);
	schedstat_account_wasted(rq1, fake_clock_ns + SIM_TICK_NS);
	ck_assert_uint_eq(rq1->stats.wasted_idle_ns, SIM_TICK_NS);
	/* Waiters that may not run on CPU 1 waste nothing there. */
	for (u32 i = 0; i < bsim_nr_tasks; i++)
		bsim_pin(bsim_tasks[i], 0);
	schedstat_account_wasted(rq1, fake_clock_ns + 2 * SIM_TICK_NS);
	ck_assert_uint_eq(rq1->stats.wasted_idle_ns, SIM_TICK_NS);
	/* A busy CPU wastes nothing either. */
	schedstat_account_wasted(cpu_rq(0), fake_clock_ns + 3 * SIM_TICK_NS);
	schedstat_account_wasted(cpu_rq(0), fake_clock_ns + 4 * SIM_TICK_NS);
	ck_assert_uint_eq(cpu_rq(0)->stats.wasted_idle_ns, 0);
	bsim_stop();
}
END_TEST

/* ---------------------------------------------------------------- migrations */

static u64 rq_migrations(u32 cpu)
{
	return cpu_rq(cpu)->stats.nr_migrations;
}

START_TEST(test_migrations_counted_on_destination)
{
	struct task *w, *s;
	const char *log;

	bsim_start(machine_grid(1, 4, 1, 1));
	w = bsim_task(0);
	s = bsim_task(1);
	bsim_publish();
	/* Forking onto a CPU is placement, not a migration. */
	for (u32 cpu = 0; cpu < 4; cpu++)
		ck_assert_uint_eq(rq_migrations(cpu), 0);

	/* The balancer's move of a waiting task: counted on the destination only. */
	ck_assert(!task_running(cpu_rq(0), w));
	double_rq_lock(cpu_rq(0), cpu_rq(2));
	move_queued_task(cpu_rq(0), cpu_rq(2), w);
	double_rq_unlock(cpu_rq(0), cpu_rq(2));
	ck_assert_uint_eq(rq_migrations(2), 1);
	ck_assert_uint_eq(rq_migrations(0), 0);

	/* A wake-up on the task's own CPU moves nothing; one onto another CPU does. */
	sim_schedule(1);
	sim_sleep(s);
	bsim_pin(s, 1);
	sim_wake(s);
	ck_assert_uint_eq(rq_migrations(1), 0);
	sim_schedule(1);
	sim_sleep(s);
	bsim_pin(s, 3);
	sim_wake(s);
	ck_assert_uint_eq(task_cpu(s), 3);
	ck_assert_uint_eq(rq_migrations(3), 1);
	ck_assert_uint_eq(rq_migrations(1), 0);
	ck_assert_uint_eq(w->nr_migrations + s->nr_migrations, 2);

	/* The report's Fulcrum-only lines, after the version 15 ones. */
	fake_console_reset();
	schedstat_print();
	log = fake_console_text();
	ck_assert_ptr_nonnull(strstr(log, "migrations cpu0 0\n"));
	ck_assert_ptr_nonnull(strstr(log, "migrations cpu2 1\n"));
	ck_assert_ptr_nonnull(strstr(log, "migrations cpu3 1\n"));
	ck_assert(strstr(log, "wasted cpu3 ") < strstr(log, "migrations cpu0 "));
	bsim_stop();
}
END_TEST

/* ---------------------------------------------------------------- run_delay */

/*
 * A queued task the balancer moves keeps the wait it had on its old queue: the
 * part before the move is charged to the old runqueue, the rest to the new one,
 * and the task's run_delay is the whole wait from enqueue to pick (Linux adds the
 * wait at dequeue, sched_info_dequeue). Before the fix the first part was lost.
 */
START_TEST(test_run_delay_survives_a_move)
{
	struct rq *src, *dst;
	struct task *w;
	u64 queued, before_src, before_dst;

	bsim_start(machine_grid(1, 4, 1, 1));
	w = bsim_task(0);
	bsim_task(1);
	bsim_publish();
	src = cpu_rq(0);
	dst = cpu_rq(2);
	ck_assert(!task_running(src, w));
	queued = w->stats.last_queued;
	ck_assert_uint_ne(queued, 0);
	ck_assert_uint_eq(w->stats.run_delay, 0);
	before_src = src->stats.run_delay;
	before_dst = dst->stats.run_delay;

	fake_clock_ns += 3 * SIM_TICK_NS; /* waits 3 ticks on CPU 0 */
	double_rq_lock(src, dst);
	update_rq_clock(src);
	update_rq_clock(dst);
	move_queued_task(src, dst, w);
	double_rq_unlock(src, dst);
	ck_assert_uint_eq(src->stats.run_delay - before_src, src->clock - queued);
	ck_assert_uint_eq(w->stats.last_queued, dst->clock);

	fake_clock_ns += 2 * SIM_TICK_NS; /* and 2 more on CPU 2 before it runs */
	sim_schedule(2);
	ck_assert_ptr_eq(dst->curr, w);
	ck_assert_uint_eq(w->stats.last_queued, 0);
	ck_assert_uint_eq(w->stats.run_delay, dst->clock - queued);
	ck_assert_uint_ge(w->stats.run_delay, 5 * SIM_TICK_NS);
	ck_assert_uint_eq((src->stats.run_delay - before_src) + (dst->stats.run_delay - before_dst),
			  w->stats.run_delay);
	bsim_stop();
}
END_TEST

/* Tasks the balancer spreads from CPU 0: the queues' totals match the tasks' own counts. */
START_TEST(test_migrations_total_matches_tasks)
{
	u64 total = 0, moved = 0;

	bsim_start(machine_grid(1, 4, 1, 1));
	for (int i = 0; i < BSIM_NR_TASKS; i++)
		bsim_task(0);
	sim_schedule(0);
	bsim_publish();
	for (u64 t = 0; t < BSIM_SETTLE_NS; t += SIM_TICK_NS)
		bsim_tick_and_balance();
	for (u32 cpu = 0; cpu < 4; cpu++) {
		total += rq_migrations(cpu);
		/* Every task on CPUs 1-3 got there by a migration. */
		if (cpu)
			ck_assert_uint_ge(rq_migrations(cpu), cpu_rq(cpu)->nr_running);
	}
	for (u32 i = 0; i < bsim_nr_tasks; i++)
		moved += bsim_tasks[i]->nr_migrations;
	ck_assert_uint_eq(total, moved);
	ck_assert_uint_ge(total, 7); /* at least 10 -> 3 on CPU 0 */
	bsim_stop();
}
END_TEST

Suite *schedstat_suite(void)
{
	Suite *s = suite_create("schedstat");
	TCase *tc = tcase_create("schedstat");

	tcase_add_test(tc, test_schedstat_mask_hex);
	tcase_add_test(tc, test_schedstat_print_version_15);
	tcase_add_test(tc, test_wasted_idle_time);
	tcase_add_test(tc, test_migrations_counted_on_destination);
	tcase_add_test(tc, test_migrations_total_matches_tasks);
	tcase_add_test(tc, test_run_delay_survives_a_move);
	suite_add_tcase(s, tc);
	return s;
}

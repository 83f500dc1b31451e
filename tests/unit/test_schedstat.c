/*
 * Host tests of schedstat (kernel/sched/stats.c): the version 15 report,
 * Linux's hex masks, and the wasted-CPU figure, on balance_sim.h's machine.
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

Suite *schedstat_suite(void)
{
	Suite *s = suite_create("schedstat");
	TCase *tc = tcase_create("schedstat");

	tcase_add_test(tc, test_schedstat_mask_hex);
	tcase_add_test(tc, test_schedstat_print_version_15);
	tcase_add_test(tc, test_wasted_idle_time);
	suite_add_tcase(s, tc);
	return s;
}

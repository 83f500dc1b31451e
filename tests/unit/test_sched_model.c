/*
 * Host tests of sched_model= (kernel/sched/model.c) and of Linux 6.12's
 * select_idle_sibling with SIS_UTIL (kernel/sched/select_sis_util.c): what
 * each model sets, single options winning on either side of it, and the
 * scan depth that the LLC's utilisation allows, on the placement tests'
 * machine (select_fixture).
 */
#include "cmdline.h"
#include "sched/balance_modern.h"
#include "sched/fair_internal.h"
#include "sched/features.h"
#include "sched/model.h"
#include "sched/pelt.h"
#include "select_fixture.h"
#include "unit.h"

/* Back to the default model and every option it sets. */
static void model_reset(void)
{
	ck_assert_int_eq(cmdline_parse("sched_model=linux-3.8"), 0);
	ck_assert_str_eq(sched_fair_mode, "cfs");
	ck_assert(!sched_balance_modern && !sched_pelt_enabled);
	ck_assert_str_eq(sched_idle_sibling, "3.8.13");
	ck_assert_uint_eq(sched_busy_factor_get(), 0);
}

START_TEST(test_model_6_12_sets_everything)
{
	char buf[160];

	ck_assert_int_eq(cmdline_parse("sched_model=linux-6.12"), 0);
	ck_assert_str_eq(sched_model, "linux-6.12");
	ck_assert_str_eq(sched_fair_mode, "eevdf");
	ck_assert(sched_balance_modern && sched_pelt_enabled);
	ck_assert_str_eq(sched_select, "stock");
	ck_assert_str_eq(sched_idle_sibling, "6.12");
	ck_assert_uint_eq(sched_busy_factor_get(), 16);
	sched_model_describe(buf, sizeof(buf));
	ck_assert_str_eq(buf, "fair=eevdf balance=modern pelt=on select=stock idle_sibling=6.12 "
			      "busy_factor=16");
	ck_assert_int_eq(sched_model_overrides(buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "");
	model_reset();
	ck_assert_str_eq(sched_model, "linux-3.8");
	ck_assert_int_eq(sched_model_overrides(buf, sizeof(buf)), 0);
}
END_TEST

/* A single option wins over the model whether it comes before or after it. */
START_TEST(test_single_options_override_in_any_order)
{
	char buf[160];

	ck_assert_int_eq(cmdline_parse("sched_fair=cfs sched_model=linux-6.12 sched-busy-factor=4"),
			 0);
	ck_assert_str_eq(sched_fair_mode, "cfs");
	ck_assert(sched_balance_modern);
	ck_assert_uint_eq(sched_busy_factor_get(), 4);
	ck_assert_int_eq(sched_model_overrides(buf, sizeof(buf)), 2);
	ck_assert_str_eq(buf, "sched_fair=cfs sched_busy_factor=4");
	model_reset();

	ck_assert_int_eq(cmdline_parse("sched_model=linux-6.12 sched_balance=3.8 "
				       "sched_idle_sibling=3.8.0"),
			 0);
	ck_assert_str_eq(sched_fair_mode, "eevdf");
	ck_assert(!sched_balance_modern && !sched_pelt_enabled);
	ck_assert_str_eq(sched_idle_sibling, "3.8.0");
	ck_assert_int_eq(sched_model_overrides(buf, sizeof(buf)), 2);
	ck_assert_str_eq(buf, "sched_balance=3.8 sched_idle_sibling=3.8.0");
	model_reset();

	/* The 3.8 model after 6.12's options keeps them too. */
	ck_assert_int_eq(cmdline_parse("sched_fair=eevdf sched_model=linux-3.8"), 0);
	ck_assert_str_eq(sched_fair_mode, "eevdf");
	ck_assert_int_eq(cmdline_parse("sched_fair=cfs"), 0);
	/* Words after a bare "--" are init's, not options: the model sets sched_fair. */
	ck_assert_int_eq(cmdline_parse("sched_model=linux-6.12 -- sched_fair=cfs"), 0);
	ck_assert_str_eq(sched_fair_mode, "eevdf");
	model_reset();
}
END_TEST

START_TEST(test_unknown_model_is_refused)
{
	ck_assert_int_eq(cmdline_parse("sched_model=linux-2.6"), 1);
	ck_assert_str_eq(sched_model, "linux-3.8");
	ck_assert_str_eq(sched_fair_mode, "cfs");
	/* A name matches whole words' names only, '-' and '_' alike. */
	cmdline_parse_options("sched-fair=cfs x=\"/bin/x sched_select=sbm\"", NULL, 0);
	ck_assert(cmdline_names_option("sched_fair"));
	ck_assert(!cmdline_names_option("sched_fai"));
	ck_assert(!cmdline_names_option("sched_select"));
}
END_TEST

/* ---------------------------------------------------- SIS_UTIL's scan depth */

/* Every CPU of the LLC at util, in PELT's scale (0..1024). */
static void set_util(u32 nr, unsigned long util)
{
	for (u32 cpu = 0; cpu < nr; cpu++)
		cpu_rq(cpu)->cfs.pelt.avg.util_avg = util;
}

/*
 * One package of 4 cores, no SMT: the LLC is CPUs 0-3, imbalance_pct 117.
 * Target 0 and prev 0 busy, so the answer comes from the scan.
 */
START_TEST(test_sis_util_depth_follows_llc_util)
{
	struct sched_topology *t;
	struct task *p;

	fx_stop();
	fx_start_machine(1, 4, 1, FX_NEAR);
	t = fx_topo();
	p = fx_task(0, 0);
	ck_assert_int_eq(sched_idle_sibling_set("6.12", 4), 0);
	fx_busy(0, 1);
	fx_busy(1, 1);
	fx_busy(2, 1);
	/* Idle cache: depth 4 (every CPU), the scan from CPU 1 reaches idle CPU 3. */
	set_util(4, 0);
	ck_assert_uint_eq(select_idle_sibling(t, p, 0, 0), 3);
	/*
	 * Mean util 512: x^2 pct^2 / (10000 * 1024) = 350, depth (1024 - 350) *
	 * 4 / 1024 = 2: CPUs 1 and 2 only, so idle CPU 3 is not seen...
	 */
	set_util(4, 512);
	ck_assert_uint_eq(select_idle_sibling(t, p, 0, 0), 0);
	/* ...while an idle CPU 2 is. */
	fx_idle(2);
	fx_busy(3, 1);
	ck_assert_uint_eq(select_idle_sibling(t, p, 0, 0), 2);
	/* Mean util 768: 788, depth 0: no scan at all, target. */
	set_util(4, 768);
	ck_assert_uint_eq(select_idle_sibling(t, p, 0, 0), 0);
	/* Without SIS_UTIL the scan is never cut short. */
	ck_assert_int_eq(sched_feat_set("NO_SIS_UTIL", 11), 0);
	ck_assert_uint_eq(select_idle_sibling(t, p, 0, 0), 2);
	ck_assert_int_eq(sched_feat_set("SIS_UTIL", 8), 0);
	set_util(4, 0);
	ck_assert_int_eq(sched_idle_sibling_set("3.8.13", 6), 0);
}
END_TEST

/* On 2 sockets x 2 cores x 2 threads: an idle core first, else prev's idle sibling thread. */
START_TEST(test_sis_util_idle_core_then_prev_sibling)
{
	struct sched_topology *t = fx_topo();
	struct task *p = fx_task(0, 0);

	ck_assert_int_eq(sched_idle_sibling_set("6.12", 4), 0);
	for (u32 cpu = 0; cpu < FX_NR_CPUS; cpu++)
		cpu_rq(cpu)->cfs.pelt.avg.util_avg = 0;
	ck_assert_uint_eq(select_idle_sibling(t, p, 0, 0), 0); /* idle target */
	fx_busy(0, 1);
	/* Core [2 3] wholly idle: it wins over target's idle sibling 1. */
	ck_assert_uint_eq(select_idle_sibling(t, p, 0, 0), 2);
	/* No idle core: prev's (0's) idle sibling thread. */
	fx_busy(3, 1);
	ck_assert_uint_eq(select_idle_sibling(t, p, 0, 0), 1);
	/* prev 2 on the busy core, idle, and cache-affine: prev itself. */
	p->cpu = 2;
	ck_assert_uint_eq(select_idle_sibling(t, p, 0, 0), 2);
	/* Nothing idle in socket 0's LLC: target, never a CPU of the other socket. */
	fx_busy(1, 1);
	fx_busy(2, 1);
	ck_assert_uint_eq(select_idle_sibling(t, p, 0, 0), 0);
	ck_assert_int_eq(sched_idle_sibling_set("3.8.13", 6), 0);
}
END_TEST

Suite *sched_model_suite(void)
{
	Suite *s = suite_create("sched_model");
	TCase *tc = tcase_create("model");
	TCase *sis = tcase_create("sis_util");

	tcase_add_test(tc, test_model_6_12_sets_everything);
	tcase_add_test(tc, test_single_options_override_in_any_order);
	tcase_add_test(tc, test_unknown_model_is_refused);
	suite_add_tcase(s, tc);
	tcase_add_checked_fixture(sis, fx_start, fx_stop);
	tcase_set_timeout(sis, 60);
	tcase_add_test(sis, test_sis_util_depth_follows_llc_util);
	tcase_add_test(sis, test_sis_util_idle_core_then_prev_sibling);
	suite_add_tcase(s, sis);
	return s;
}

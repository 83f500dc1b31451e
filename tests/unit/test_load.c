/*
 * Host tests of kernel/sched/load.c: the nice weight tables, the weighted
 * time delta every vruntime update goes through, the latency tunables and
 * their log2 CPU scaling with the boot options, and the cpu_load[]
 * history with its missed-tick decay.
 */
#include <stdio.h>
#include <string.h>

#include "cmdline.h"
#include "sched/load.h"
#include "sched_sim.h"
#include "unit.h"

#define MS 1000000ULL
#define US 1000ULL

typedef unsigned __int128 u128;

START_TEST(test_weights)
{
	struct task p = { .policy = SCHED_NORMAL };
	struct load_weight lw = { 0, 0 };

	ck_assert_int_eq(prio_to_weight[20], NICE_0_LOAD);
	for (int i = 0; i < 40; i++) {
		/* Each inverse is 2^32 / weight, to within one. */
		s64 w = prio_to_weight[i], err = (s64)prio_to_wmult[i] * w - (s64)(1LL << 32);

		ck_assert_int_le(err < 0 ? -err : err, w);
		/* One nice level is a weight factor of about 1.25. */
		if (i > 0)
			ck_assert(prio_to_weight[i - 1] * 100 >= prio_to_weight[i] * 119 &&
				  prio_to_weight[i - 1] * 100 <= prio_to_weight[i] * 131);
	}
	p.nice = -20;
	set_load_weight(&p);
	ck_assert_uint_eq(p.load.weight, 88761);
	ck_assert_uint_eq(p.load.inv_weight, 48388);
	p.nice = 19;
	set_load_weight(&p);
	ck_assert_uint_eq(p.load.weight, 15);
	p.policy = SCHED_IDLE;
	set_load_weight(&p);
	ck_assert_uint_eq(p.load.weight, 3);
	ck_assert_uint_eq(p.load.inv_weight, 1431655765);

	update_load_add(&lw, 1024);
	ck_assert_uint_eq(calc_delta_mine(1000, 1024, &lw), 1000);
	ck_assert_uint_eq(lw.inv_weight, 4194304); /* cached on use */
	update_load_add(&lw, 1024);
	ck_assert_uint_eq(lw.inv_weight, 0); /* a new sum: recompute */
	ck_assert_uint_eq(calc_delta_mine(1000, 1024, &lw), 500);
	update_load_sub(&lw, 1024);
	ck_assert_uint_eq(lw.inv_weight, 0);
}
END_TEST

/* 3.8's calc_delta_mine written out plainly in 128-bit arithmetic. */
static u64 reference_calc_delta(u64 delta, unsigned long weight, unsigned long lw_weight)
{
	u128 inv = lw_weight >= (1ULL << 32) ? 1 :
		   lw_weight == 0	     ? 1ULL << 32 :
					       (1ULL << 32) / lw_weight;
	u128 tmp = weight > 1 ? (u128)delta * weight : delta;

	if (tmp > (1ULL << 32))
		tmp = ((((tmp + (1 << 15)) >> 16) * inv) + (1 << 15)) >> 16;
	else
		tmp = (tmp * inv + (1ULL << 31)) >> 32;
	return tmp > (u128)INT64_MAX ? (u64)INT64_MAX : (u64)tmp;
}

START_TEST(test_calc_delta_mine)
{
	static const u64 edge_deltas[] = { 0,	       1,	   2,	       1000,
					   4194303,    4194304,	   1ULL << 32, (1ULL << 32) + 1,
					   1ULL << 40, 1ULL << 62, ~0ULL };
	int checked = 0;

	for (int i = 0; i < 200000; i++) {
		unsigned long weight = (unsigned long)prio_to_weight[sim_random() % 40];
		unsigned long lw_weight = 0;
		u64 delta;
		struct load_weight lw;

		/* A queue of 1..16 tasks, or a single entity, or the odd ends. */
		for (u64 n = 1 + sim_random() % 16; n; n--)
			lw_weight += (unsigned long)prio_to_weight[sim_random() % 40];
		if (i % 7 == 0)
			lw_weight = weight;
		if (i % 101 == 0)
			lw_weight = i % 202 ? 3 : 1;
		if (i % 13 == 0)
			weight = NICE_0_LOAD;
		delta = i < (int)ARRAY_SIZE(edge_deltas) ? edge_deltas[i] :
							   sim_random() >> (sim_random() % 64);
		lw = (struct load_weight){ lw_weight, 0 };

		u64 got = calc_delta_mine(delta, weight, &lw);

		ck_assert_uint_eq(got, reference_calc_delta(delta, weight, lw_weight));
		/*
		 * And close to the exact quotient: the truncated inverse loses at
		 * most lw/2^32 of it, the pre-shift 2^-16.
		 */
		if (delta < (1ULL << 50) && lw_weight > 1) {
			u128 exact = (u128)delta * weight / lw_weight;
			u128 slack = exact * lw_weight / (1ULL << 32) + exact / (1 << 16) + 1;

			if (exact > (u128)INT64_MAX) { /* clamped */
				ck_assert_uint_eq(got, INT64_MAX);
				continue;
			}
			ck_assert_msg((u128)got + slack >= exact && (u128)got <= exact + slack,
				      "%llu * %lu / %lu = %llu, exact %llu",
				      (unsigned long long)delta, weight, lw_weight,
				      (unsigned long long)got, (unsigned long long)exact);
			checked++;
		}
	}
	ck_assert_int_gt(checked, 100000);
}
END_TEST

START_TEST(test_tunables_scale_with_log2_cpus)
{
	static const struct {
		u32 cpus;
		u64 latency, min_gran, wakeup_gran;
	} expect[] = {
		{ 1, 6 * MS, 750 * US, 1 * MS },   { 2, 12 * MS, 1500 * US, 2 * MS },
		{ 3, 12 * MS, 1500 * US, 2 * MS }, { 4, 18 * MS, 2250 * US, 3 * MS },
		{ 7, 18 * MS, 2250 * US, 3 * MS }, { 8, 24 * MS, 3 * MS, 4 * MS },
		{ 64, 24 * MS, 3 * MS, 4 * MS },
	};

	for (size_t i = 0; i < ARRAY_SIZE(expect); i++) {
		sched_update_tunables(expect[i].cpus);
		ck_assert_uint_eq(sysctl_sched_latency, expect[i].latency);
		ck_assert_uint_eq(sysctl_sched_min_granularity, expect[i].min_gran);
		ck_assert_uint_eq(sysctl_sched_wakeup_granularity, expect[i].wakeup_gran);
		ck_assert_uint_eq(sysctl_sched_migration_cost, 500 * US); /* never scaled */
		ck_assert_uint_eq(sched_nr_latency, 8);
	}

	/* Mike Galbraith's aim7 knobs (normalised): period stretches past 3 tasks. */
	ck_assert_int_eq(cmdline_parse(
				 "sched_latency_ns=24000000 sched_min_granularity_ns=8000000 "
				 "sched_wakeup_granularity_ns=10000000 sched_migration_cost_ns=0"),
			 0);
	sched_update_tunables(1);
	ck_assert_uint_eq(sysctl_sched_latency, 24 * MS);
	ck_assert_uint_eq(sysctl_sched_min_granularity, 8 * MS);
	ck_assert_uint_eq(sysctl_sched_wakeup_granularity, 10 * MS);
	ck_assert_uint_eq(sysctl_sched_migration_cost, 0);
	ck_assert_uint_eq(sched_nr_latency, 3);
	sched_update_tunables(2);
	ck_assert_uint_eq(sysctl_sched_latency, 48 * MS);
	ck_assert_uint_eq(sched_nr_latency, 3);
	/* Outside Linux's bounds: refused with a warning, the value stays. */
	ck_assert_int_eq(cmdline_parse("sched_latency_ns=99999 sched_wakeup_granularity_ns=1000000001"),
			 2);
	sched_update_tunables(1);
	ck_assert_uint_eq(sysctl_sched_latency, 24 * MS);
	ck_assert_uint_eq(sysctl_sched_wakeup_granularity, 10 * MS);
}
END_TEST

/* ---------------------------------------------------------------- cpu_load[] */

START_TEST(test_cpu_load_step)
{
	struct rq rq;
	unsigned long ref[CPU_LOAD_IDX_MAX] = { 0 };
	/* After the first tick of a 0 -> 1024 step: (0 * (2^i - 1) + 1024 + 2^i - 1) / 2^i. */
	static const unsigned long first_tick[CPU_LOAD_IDX_MAX] = { 1024, 512, 256, 128, 64 };
	int reached = -1;

	memset(&rq, 0, sizeof(rq));
	for (int tick = 0; tick < 300; tick++) {
		unsigned long load = tick < 100 ? 1024 : 0;
		unsigned long before[CPU_LOAD_IDX_MAX];

		memcpy(before, rq.cpu_load, sizeof(before));
		rq.load.weight = load;
		update_cpu_load(&rq);
		ref[0] = load;
		for (int i = 1; i < CPU_LOAD_IDX_MAX; i++) {
			unsigned long scale = 1UL << i, in = load > ref[i] ? load + scale - 1 : load;

			ref[i] = (ref[i] * (scale - 1) + in) >> i;
		}
		for (int i = 0; i < CPU_LOAD_IDX_MAX; i++) {
			ck_assert_uint_eq(rq.cpu_load[i], ref[i]);
			/* A step moves every index the same way, the longer ones more slowly. */
			if (tick < 100)
				ck_assert_uint_ge(rq.cpu_load[i], before[i]);
			else
				ck_assert_uint_le(rq.cpu_load[i], before[i]);
			if (i > 0 && tick < 100)
				ck_assert_uint_le(rq.cpu_load[i], rq.cpu_load[i - 1]);
		}
		if (tick == 0)
			for (int i = 0; i < CPU_LOAD_IDX_MAX; i++)
				ck_assert_uint_eq(rq.cpu_load[i], first_tick[i]);
		if (reached < 0 && rq.cpu_load[4] == 1024)
			reached = tick;
	}
	/* Rounding up on the way up reaches the load itself, and down reaches 0. */
	ck_assert_int_ge(reached, 0);
	ck_assert_int_lt(reached, 100);
	for (int i = 0; i < CPU_LOAD_IDX_MAX; i++)
		ck_assert_uint_eq(rq.cpu_load[i], 0);
}
END_TEST

START_TEST(test_cpu_load_missed_ticks)
{
	static const unsigned long zero_after[CPU_LOAD_IDX_MAX] = { 0, 8, 32, 64, 128 };

	for (int idx = 1; idx < CPU_LOAD_IDX_MAX; idx++) {
		for (unsigned long missed = 0; missed < 140; missed++) {
			unsigned long got = decay_load_missed(1UL << 20, missed, idx);
			double exact = (double)(1UL << 20);

			for (unsigned long k = 0; k < missed; k++)
				exact = exact * (double)((1 << idx) - 1) / (double)(1 << idx);
			if (missed >= zero_after[idx]) {
				ck_assert_uint_eq(got, 0);
				continue;
			}
			/* 7-bit factors: within 2% of the true power, or 1/128 of the start. */
			ck_assert_msg((double)got <= exact * 1.02 + 8192 &&
					      (double)got >= exact * 0.98 - 8192,
				      "idx %d missed %lu: %lu vs %.0f", idx, missed, got, exact);
		}
	}
	/* Index 1 halves exactly: a late update equals the ticks one by one. */
	struct rq a, b;

	memset(&a, 0, sizeof(a));
	a.cpu_load[1] = 1000;
	b = a;
	update_cpu_load_pending(&a, 0, 5);
	for (int t = 0; t < 5; t++)
		update_cpu_load_pending(&b, 0, 1);
	ck_assert_uint_eq(a.cpu_load[1], b.cpu_load[1]);
	ck_assert_uint_eq(a.cpu_load[1], 1000 >> 5);
}
END_TEST

START_TEST(test_load_readers)
{
	sim_start(1);
	struct rq *rq = sim_rq(0);

	rq->load.weight = 2048;
	rq->nr_running = 2;
	rq->cpu_load[0] = 1024;
	rq->cpu_load[1] = 4096;
	ck_assert_uint_eq(weighted_cpuload(0), 2048);
	ck_assert_uint_eq(source_load(0, 0), 2048);
	ck_assert_uint_eq(source_load(0, 1), 1024); /* cpu_load[idx - 1], the smaller */
	ck_assert_uint_eq(target_load(0, 1), 2048);
	ck_assert_uint_eq(source_load(0, 2), 2048);
	ck_assert_uint_eq(target_load(0, 2), 4096);
	ck_assert_uint_eq(cpu_avg_load_per_task(0), 1024);
	ck_assert_uint_eq(power_of(0), SCHED_POWER_SCALE);
	sim_feature("LB_BIAS", false);
	ck_assert_uint_eq(source_load(0, 1), 2048);
	ck_assert_uint_eq(target_load(0, 2), 2048);
	rq->nr_running = 0;
	ck_assert_uint_eq(cpu_avg_load_per_task(0), 0);
	rq->load.weight = 0;
	sim_stop();
}
END_TEST

Suite *load_suite(void)
{
	Suite *s = suite_create("load");
	TCase *tc = tcase_create("load");

	tcase_add_test(tc, test_weights);
	tcase_add_test(tc, test_calc_delta_mine);
	tcase_add_test(tc, test_tunables_scale_with_log2_cpus);
	tcase_add_test(tc, test_cpu_load_step);
	tcase_add_test(tc, test_cpu_load_missed_ticks);
	tcase_add_test(tc, test_load_readers);
	suite_add_tcase(s, tc);
	return s;
}

/*
 * Host tests of task placement (kernel/sched/select.c, select_sbm.c, the
 * registry in placement.c) on a 2-socket SMT machine built by the real
 * topology builder: wake_affine, select_idle_sibling and find_idlest_group
 * choose as Linux 3.8 would for crafted loads, the stock and balance-map
 * variants agree wherever Wang's v3 says they must, over many random
 * loads, and differ where it says they differ, and the registry offers,
 * refuses and switches variants by name.
 *
 * The machine (FX_NEAR: one node per socket, SLIT 21):
 *
 *   NUMA (level 4)  [ 0  1  2  3 | 4  5  6  7 ]   groups: the two sockets
 *   MC   (level 1)  [ 0  1 | 2  3 ]               groups: the cores
 *   SMT  (level 0)  [ 0 | 1 ]                     groups: the threads
 */
#include <stdio.h>
#include <string.h>

#include "cmdline.h"
#include "fake_arch.h"
#include "lib/errno.h"
#include "sched/balance_map.h"
#include "sched/load.h"
#include "select_fixture.h"
#include "topo_machines.h"
#include "unit.h"

#define WAKE  SD_BALANCE_WAKE
#define FORK  SD_BALANCE_FORK
#define EXEC  SD_BALANCE_EXEC
#define STOCK SCHED_SELECT_STOCK
#define SBM   SCHED_SELECT_SBM

/*
 * Non-sync wake-up onto a CPU running one nice-0 task, for a nice-0 wakee:
 * affine iff 100 * (1024 + 1024) <= I * L_prev, I = 100 + (pct - 100) / 2.
 */
#define AFFINE_MIN_PREV_LOAD_MC	 1829 /* I = 112: ceil(204800 / 112) */
#define AFFINE_MIN_PREV_LOAD_SMT 1951 /* I = 105: ceil(204800 / 105) */

/* Random rounds per machine in the stock-vs-sbm comparison. */
#define RANDOM_ROUNDS 4000

static const enum sched_select_variant variants[] = { STOCK, SBM };

/* Places p in both variants; both must give want. */
static void expect_both(struct task *p, u32 this_cpu, int sd_flag, int wake_flags, u32 want)
{
	for (size_t v = 0; v < 2; v++)
		ck_assert_msg(fx_place(variants[v], p, this_cpu, sd_flag, wake_flags) == want,
			      "%s: CPU%u, want CPU%u", v ? "sbm" : "stock",
			      fx_place(variants[v], p, this_cpu, sd_flag, wake_flags), want);
}

/* ------------------------------------------------------------ wake_affine */

START_TEST(test_sync_wake_from_lone_waker_is_affine)
{
	struct task *p = fx_task(4, 0);

	fx_busy_all(1);
	/* CPU 0 runs only the waker: L_this' = 1024 - 1024 = 0, balanced. */
	ck_assert(wake_affine(fx_affine_sd(0, 4), p, 0, true));
	ck_assert_uint_eq(p->stats.nr_wakeups_affine_attempts, 0); /* 3.8: sync early return */
	ck_assert_uint_eq(p->stats.nr_wakeups_affine, 0);
	/* The same loads without sync: 100 * 2048 > 112 * 1024, and 2048 > 1024 per task. */
	ck_assert(!wake_affine(fx_affine_sd(0, 4), p, 0, false));
	ck_assert_uint_eq(p->stats.nr_wakeups_affine_attempts, 1);
	ck_assert_uint_eq(p->stats.nr_wakeups_affine, 0);

	/* Whole placements: no idle CPU near the waker, so p lands on it; else on an idle core. */
	expect_both(p, 0, WAKE, WF_SYNC, 0);
	expect_both(p, 0, WAKE, 0, 4);
	fx_idle(2);
	fx_idle(3);
	expect_both(p, 0, WAKE, WF_SYNC, 2);
}
END_TEST

START_TEST(test_non_sync_wake_onto_busy_cpu_needs_two_on_prev)
{
	struct task *p = fx_task(4, 0), *q = fx_task(1, 0);

	fx_busy_all(1);
	ck_assert(!wake_affine(fx_affine_sd(0, 4), p, 0, false));
	fx_busy(4, 2);
	ck_assert(wake_affine(fx_affine_sd(0, 4), p, 0, false));
	ck_assert_uint_eq(p->stats.nr_wakeups_affine, 1);
	ck_assert_uint_eq(fx_affine_sd(0, 4)->stats.ttwu_move_affine, 1);
	expect_both(p, 0, WAKE, 0, 0);

	/* The boundary at the NUMA level (imbalance_pct 125), then at SMT (110). */
	fx_load(4, 2, AFFINE_MIN_PREV_LOAD_MC - 1, NICE_0_LOAD);
	ck_assert(!wake_affine(fx_affine_sd(0, 4), p, 0, false));
	fx_load(4, 2, AFFINE_MIN_PREV_LOAD_MC, NICE_0_LOAD);
	ck_assert(wake_affine(fx_affine_sd(0, 4), p, 0, false));
	fx_load(1, 2, AFFINE_MIN_PREV_LOAD_SMT - 1, NICE_0_LOAD);
	ck_assert_int_eq(fx_affine_sd(0, 1)->level, SD_LV_SMT);
	ck_assert(!wake_affine(fx_affine_sd(0, 1), q, 0, false));
	fx_load(1, 2, AFFINE_MIN_PREV_LOAD_SMT, NICE_0_LOAD);
	ck_assert(wake_affine(fx_affine_sd(0, 1), q, 0, false));
	ck_assert_uint_eq(fx_affine_sd(0, 1)->stats.ttwu_move_affine, 1);
}
END_TEST

/*
 * The third clause: CPU 0 runs the waker (1024) and a nice-19 task (15),
 * so L_this' = 15 after the sync discount and its average task weighs
 * 1039 / 2 = 519. Not balanced against a prev of 100 (100 * 1039 > 112 *
 * 100), yet 15 <= 100 and 15 + 100 <= 519: affine, counted as an attempt.
 */
START_TEST(test_wake_affine_average_task_rule)
{
	struct task *p = fx_task(4, 0);

	fx_load(0, 2, NICE_0_LOAD + 15, NICE_0_LOAD);
	fx_load(4, 1, 100, 100);
	ck_assert(wake_affine(fx_affine_sd(0, 4), p, 0, true));
	ck_assert_uint_eq(p->stats.nr_wakeups_affine_attempts, 1);
	ck_assert_uint_eq(p->stats.nr_wakeups_affine, 1);
	fx_load(4, 1, 600, 600); /* 15 + 600 > 519 */
	ck_assert(!wake_affine(fx_affine_sd(0, 4), p, 0, true));
	fx_load(4, 1, 10, 10); /* 15 > 10 */
	ck_assert(!wake_affine(fx_affine_sd(0, 4), p, 0, true));
	ck_assert_uint_eq(p->stats.nr_wakeups_affine_attempts, 3);
}
END_TEST

START_TEST(test_idle_waker_cpu_is_affine)
{
	struct task *p = fx_task(4, 0);

	fx_busy(4, 1);
	ck_assert(wake_affine(fx_affine_sd(0, 4), p, 0, false)); /* L_this = 0 */
	ck_assert_uint_eq(p->stats.nr_wakeups_affine, 1);
	expect_both(p, 0, WAKE, 0, 0);
}
END_TEST

/* The sbm oops (linux-scheduler-facts.md 16): wake_affine(NULL) is an answer here, not a crash. */
START_TEST(test_seeds_000_wake_affine_null_domain)
{
	struct task *p = fx_task(4, 0);

	ck_assert(!wake_affine(NULL, p, 0, true));
	ck_assert(!wake_affine(NULL, p, 0, false));
	ck_assert_uint_eq(p->stats.nr_wakeups_affine_attempts, 0);
}
END_TEST

/* ---------------------------------------------------- select_idle_sibling */

START_TEST(test_idle_sibling_idle_target_and_prev)
{
	struct sched_topology *t = fx_topo();
	struct task *p = fx_task(2, 0);

	ck_assert_uint_eq(select_idle_sibling(t, p, 0, 0), 0); /* idle target */
	fx_busy(0, 1);
	fx_busy(3, 1);
	/* prev 2 is idle and shares target 0's LLC: prev, before the scan's idle thread 1. */
	ck_assert_uint_eq(select_idle_sibling(t, p, 0, 0), 2);
	/* An idle prev on the other socket is not taken: target, nothing idle near it. */
	p->cpu = 4;
	fx_busy(1, 1);
	fx_busy(2, 1);
	ck_assert_uint_eq(select_idle_sibling(t, p, 0, 0), 0);
}
END_TEST

START_TEST(test_idle_sibling_prefers_idle_core_then_thread)
{
	struct sched_topology *t = fx_topo();
	struct task *p = fx_task(0, 0);

	fx_busy(0, 1);
	/* MC: core [0 1] holds target, core [2 3] is wholly idle. */
	ck_assert_uint_eq(select_idle_sibling(t, p, 0, 0), 2);
	/* No idle core: SMT level, target's idle sibling thread. */
	fx_busy(2, 1);
	ck_assert_uint_eq(select_idle_sibling(t, p, 0, 0), 1);
	fx_busy(1, 1);
	ck_assert_uint_eq(select_idle_sibling(t, p, 0, 0), 0);
	/* The first CPU p may use of the idle group. */
	fx_idle(2);
	fx_allow(p, 0x08 | 0x01);
	ck_assert_uint_eq(select_idle_sibling(t, p, 0, 0), 3);
}
END_TEST

/*
 * Groups holding target are skipped by 3.8.13, not by 3.8.0. Observable
 * when target is idle but p may not use it: core [0 1] is wholly idle.
 */
START_TEST(test_idle_sibling_skips_target_group)
{
	struct sched_topology *t = fx_topo();
	struct task *p = fx_task(4, 0);

	fx_allow(p, 0xfe);
	ck_assert_uint_eq(select_idle_sibling(t, p, 0, 0), 2);
	ck_assert_int_eq(sched_idle_sibling_set("3.8.0", 5), 0);
	ck_assert_uint_eq(select_idle_sibling(t, p, 0, 0), 1);
}
END_TEST

/* 3.8.0 returns prev only when it is the target; 3.8.13 takes any idle cache-sharing prev. */
START_TEST(test_idle_sibling_3_8_0_form)
{
	struct sched_topology *t = fx_topo();
	struct task *p = fx_task(2, 0);

	for (u32 cpu = 0; cpu < 4; cpu++)
		fx_busy(cpu, 1);
	fx_idle(2);
	ck_assert_uint_eq(select_idle_sibling(t, p, 0, 0), 2);
	ck_assert(cmdline_parse("sched_idle_sibling=3.8.0") == 0);
	ck_assert_str_eq(sched_idle_sibling, "3.8.0");
	ck_assert_uint_eq(select_idle_sibling(t, p, 0, 0), 0);
	ck_assert_uint_eq(select_idle_sibling(t, p, 0, 2), 2); /* target == prev, idle */
}
END_TEST

/* linux-scheduler-facts.md 12: a waker on p's own CPU never asks wake_affine; search from prev. */
START_TEST(test_prev_is_this_cpu_skips_wake_affine)
{
	struct task *p = fx_task(0, 0);

	fx_busy_all(1);
	fx_idle(1);
	expect_both(p, 0, WAKE, 0, 1);
	expect_both(p, 0, WAKE, WF_SYNC, 1);
	/* A non-sync wake_affine(0 vs 0) would have counted an attempt (and refused). */
	ck_assert_uint_eq(p->stats.nr_wakeups_affine_attempts, 0);
	for (struct sched_domain *sd = cpu_sd(fx_topo(), 0); sd; sd = sd->parent)
		ck_assert_uint_eq(sd->stats.ttwu_move_affine, 0);
}
END_TEST

/*
 * Seed 003, the same wake-ups with sched_features=WAKE_AFFINE_ON_PREV, the
 * order before Suresh Siddha's check. CPU 0 runs the waker and was p's last
 * CPU; its sibling CPU 1 is idle. Non-sync, wake_affine weighs CPU 0
 * against itself (100 * 2048 > 112 * 1024), refuses, and p stays on the
 * busy thread with no idle search: CPU 0, where 3.8 gives CPU 1. Sync, the
 * waker's discount makes it agree, and both search from CPU 0: CPU 1.
 * A waker elsewhere is not affected.
 */
START_TEST(test_wake_affine_on_prev_feature)
{
	const char *on = "WAKE_AFFINE_ON_PREV", *off = "NO_WAKE_AFFINE_ON_PREV";
	u64 saved = sched_features_mask;
	struct task *p = fx_task(0, 0), *q = fx_task(4, 0);

	ck_assert(!sched_feat(WAKE_AFFINE_ON_PREV)); /* 3.8's default */
	fx_busy_all(1);
	fx_idle(1);
	ck_assert_uint_eq(fx_place(STOCK, p, 0, WAKE, 0), 1);
	ck_assert_int_eq(sched_feat_set(on, strlen(on)), 0);
	ck_assert_uint_eq(fx_place(STOCK, p, 0, WAKE, 0), 0);
	ck_assert_uint_eq(p->stats.nr_wakeups_affine_attempts, 1);
	ck_assert_uint_eq(p->stats.nr_wakeups_affine, 0);
	ck_assert_uint_eq(fx_place(STOCK, p, 0, WAKE, WF_SYNC), 1);
	ck_assert_uint_eq(fx_place(SBM, p, 0, WAKE, 0), 1); /* the balance map keeps the check */
	/* The waker on CPU 0, q last on CPU 4 (busy, the other socket): 3.8's answer either way. */
	fx_idle(5);
	ck_assert_uint_eq(fx_place(STOCK, q, 0, WAKE, 0), 5);
	ck_assert_int_eq(sched_feat_set(off, strlen(off)), 0);
	ck_assert_uint_eq(fx_place(STOCK, q, 0, WAKE, 0), 5);
	ck_assert_uint_eq(fx_place(STOCK, p, 0, WAKE, 0), 1);
	sched_features_mask = saved;
}
END_TEST

/* -------------------------------------------------------- find_idlest_* */

/* A socket of four SMT cores: the MC domain of CPU 0 has four groups. */
START_TEST(test_find_idlest_group_least_loaded)
{
	struct sched_domain *mc;
	struct sched_group *sg;
	struct task *p;

	fx_stop();
	fx_start_machine(1, 4, 2, FX_NEAR);
	mc = cpu_sd(fx_topo(), 0)->parent;
	ck_assert_str_eq(mc->name, "MC");
	p = fx_task(0, 0);
	fx_busy(0, 1);
	fx_busy(1, 1); /* local [0 1]: 2048 */
	fx_busy(2, 2); /*       [2 3]: 2048 */
	fx_busy(4, 1); /*       [4 5]: 1024, the least */
	fx_busy(6, 1);
	fx_busy(7, 2); /*       [6 7]: 3072 */
	sg = find_idlest_group(mc, p, 0, 0);
	ck_assert_ptr_nonnull(sg);
	ck_assert_uint_eq(cpumask_first(&sg->cpus), 4);
	ck_assert_int_eq(find_idlest_cpu(sg, p, 0), 5);
	/* Fork: [4 5], CPU 5; at SMT the idle 5 is lighter than 4, so it stays. */
	expect_both(p, 0, FORK, 0, 5);

	/* Groups p may not use are not candidates, however idle. */
	fx_allow(p, 0x03 | 0xc0);
	sg = find_idlest_group(mc, p, 0, 0);
	ck_assert_ptr_null(sg); /* [6 7] is 3072: the local 2048 is lighter */
	/* A local group p may not use keeps nothing local (Linux left that to its fallback). */
	fx_allow(p, 0xc0);
	ck_assert_uint_eq(cpumask_first(&find_idlest_group(mc, p, 0, 0)->cpus), 6);
	ck_assert_int_eq(find_idlest_cpu(find_idlest_group(mc, p, 0, 0), p, 0), 6);
}
END_TEST

/*
 * NUMA level of CPU 0: two sockets of power 2356. The remote socket holds
 * 1000, avg 1000 * 1024 / 2356 = 434; the local one leaves only when
 * 100 * avg_local >= 112 * 434 = 48608: avg 487, from a load of 1121.
 */
START_TEST(test_find_idlest_group_stays_local_within_margin)
{
	struct sched_domain *numa = sbm_sd(fx_topo(), 0, SBM_FORK_TYPE, SD_LV_NUMA);
	struct task *p = fx_task(0, 0);

	ck_assert_ptr_nonnull(numa);
	fx_load(4, 1, 1000, 1000);
	fx_load(0, 1, 1120, 1120);
	ck_assert_ptr_null(find_idlest_group(numa, p, 0, 0));
	fx_load(0, 1, 1121, 1121);
	ck_assert_uint_eq(cpumask_first(&find_idlest_group(numa, p, 0, 0)->cpus), 4);
}
END_TEST

/*
 * Fork from CPU 0 running one task, the rest idle. NUMA: socket 1 is
 * lighter; its idlest CPU, 4 (first of a tie). From 4's MC: the first
 * other core of equal load wins (0 is not below 112% of 0), [6 7], CPU 6;
 * then at SMT, 7. 3.8's tie rules spread a fork to the far corner.
 */
START_TEST(test_fork_spreads_to_other_socket)
{
	struct task *p = fx_task(0, 0);

	fx_busy(0, 1);
	for (size_t v = 0; v < 2; v++) {
		struct sched_topology *t;

		fx_rebuild(NULL); /* counters start at 0 in each generation */
		t = fx_topo();
		ck_assert_uint_eq(fx_place(variants[v], p, 0, FORK, 0), 7);
		/* One pushing step per level, each on the domain of the CPU it started from. */
		ck_assert_uint_eq(domain_at(t, 0, SD_LV_NUMA)->stats.sbf_pushed, 1);
		ck_assert_uint_eq(domain_at(t, 4, SD_LV_MC)->stats.sbf_pushed, 1);
		ck_assert_uint_eq(domain_at(t, 6, SD_LV_SMT)->stats.sbf_pushed, 1);
		ck_assert_uint_eq(domain_at(t, 0, SD_LV_NUMA)->stats.sbf_count, 1);
		ck_assert_uint_eq(domain_at(t, 0, SD_LV_NUMA)->stats.sbe_count, 0);
	}
	expect_both(p, 0, EXEC, 0, 7);
	ck_assert_uint_eq(domain_at(fx_topo(), 0, SD_LV_NUMA)->stats.sbe_pushed, 2);
	/* Both sockets equally loaded: stay local, the other core, its far thread. */
	fx_busy(4, 1);
	expect_both(p, 0, FORK, 0, 3);
	ck_assert_uint_eq(domain_at(fx_topo(), 0, SD_LV_NUMA)->stats.sbf_balanced, 2);
	ck_assert_uint_eq(domain_at(fx_topo(), 0, SD_LV_MC)->stats.sbf_pushed, 2);
}
END_TEST

START_TEST(test_affinity_respected)
{
	struct task *p = fx_task(5, 0), *q = fx_task(4, 0);

	fx_busy_all(1);
	fx_allow(p, 1u << 5);
	for (int flag = 0; flag < 3; flag++)
		expect_both(p, 0, (int[]){ WAKE, FORK, EXEC }[flag], WF_SYNC, 5);
	/* q's mask changed while it slept: prev 4 and the waker's CPU 0 are both out. */
	fx_allow(q, 0x0c);
	fx_idle(3);
	for (size_t v = 0; v < 2; v++) {
		u32 cpu = fx_place(variants[v], q, 0, WAKE, WF_SYNC);

		ck_assert(cpu == 2 || cpu == 3);
		ck_assert_uint_eq(fx_place(variants[v], q, 0, FORK, 0), 3);
	}
}
END_TEST

/* ---------------------------------------------------- stock against sbm */

/* Random loads: each CPU idle or running 1-3 tasks of nice -5..5. */
static void random_loads(u64 *rng)
{
	for (u32 cpu = 0; cpu < FX_NR_CPUS; cpu++) {
		u32 nr = (u32)(fx_rand(rng) % 4);
		unsigned long weight = 0, curr = 0;

		for (u32 i = 0; i < nr; i++) {
			curr = (unsigned long)prio_to_weight[15 + fx_rand(rng) % 11];
			weight += curr;
		}
		fx_load(cpu, nr, weight, curr);
	}
}

/*
 * Many random placements in both variants. They must agree on every fork
 * and exec, and on every wake-up with an affine domain (the waker's CPU
 * allowed, a wake-affine domain spanning it and prev). Returns how many
 * wake-ups differed; each must be one without an affine domain, where
 * stock leaves p on prev and sbm runs select_idle_sibling(prev).
 */
static u32 compare_variants(u64 seed)
{
	static const int flags[] = { WAKE, WAKE, FORK, EXEC };
	struct task *p = fx_task(0, 0);
	u64 rng = seed;
	u32 differ = 0;

	for (u32 round = 0; round < RANDOM_ROUNDS; round++) {
		u32 this_cpu = (u32)(fx_rand(&rng) % FX_NR_CPUS), prev, stock, sbm;
		int flag = flags[fx_rand(&rng) % 4], wf = fx_rand(&rng) % 2 ? WF_SYNC : 0;
		bool affine;

		p->cpu = prev = (u32)(fx_rand(&rng) % FX_NR_CPUS);
		p->nice = (int)(fx_rand(&rng) % 11) - 5;
		set_load_weight(p);
		fx_allow(p, fx_rand(&rng) % 4 ? 0xff : fx_rand(&rng) % 255 + 1);
		random_loads(&rng);

		stock = fx_place(STOCK, p, this_cpu, flag, wf);
		sbm = fx_place(SBM, p, this_cpu, flag, wf);
		ck_assert(cpumask_test_cpu(stock, &p->cpus_allowed));
		ck_assert(cpumask_test_cpu(sbm, &p->cpus_allowed));
		affine = cpumask_test_cpu(this_cpu, &p->cpus_allowed) &&
			 sbm_affine_sd(fx_topo(), this_cpu, prev);
		if (flag != WAKE || affine) {
			ck_assert_msg(stock == sbm,
				      "seed %llu round %u: flag %d CPU%u prev %u: %u vs %u",
				      (unsigned long long)seed, round, flag, this_cpu, prev, stock,
				      sbm);
		} else if (stock != sbm) {
			differ++;
			/* stock did not search: prev (if p may still use it)... */
			if (cpumask_test_cpu(prev, &p->cpus_allowed))
				ck_assert_uint_eq(stock, prev);
			/* ...sbm did, because prev was busy: an idle CPU of prev's LLC. */
			ck_assert(idle_cpu(sbm));
			ck_assert(fx_topo()->cpu[sbm].llc_id == fx_topo()->cpu[prev].llc_id);
		}
	}
	return differ;
}

/* Every pair of CPUs has an affine domain here: only wakers p may not run on can differ. */
START_TEST(test_stock_and_sbm_agree_random)
{
	for (u64 seed = 1; seed <= 4; seed++)
		compare_variants(seed);
}
END_TEST

/* Far nodes: wake-ups across sockets have no affine domain, and there the variants part. */
START_TEST(test_stock_and_sbm_random_far_nodes)
{
	u32 differ = 0;

	fx_stop();
	fx_start_machine(FX_PACKAGES, FX_CORES, FX_THREADS, FX_FAR);
	for (u64 seed = 1; seed <= 4; seed++)
		differ += compare_variants(seed);
	ck_assert_uint_gt(differ, 0);
}
END_TEST

/*
 * Where v3 says they differ. Nodes beyond RECLAIM_DISTANCE: CPU 0 has no
 * wake-affine domain holding CPU 4. Stock finds no affine_sd and, with no
 * SD_BALANCE_WAKE anywhere, returns prev as it is -- onto busy CPU 4 --
 * while sbm's wake-up still runs select_idle_sibling(4): idle thread 5.
 */
START_TEST(test_variants_differ_without_affine_domain)
{
	struct task *p;

	fx_stop();
	fx_start_machine(FX_PACKAGES, FX_CORES, FX_THREADS, FX_FAR);
	p = fx_task(4, 0);
	fx_busy_all(1);
	fx_idle(5);
	ck_assert_ptr_null(sbm_affine_sd(fx_topo(), 0, 4));
	ck_assert_uint_eq(fx_place(STOCK, p, 0, WAKE, WF_SYNC), 4);
	ck_assert_uint_eq(fx_place(SBM, p, 0, WAKE, WF_SYNC), 5);
	/* Within a socket they agree again: SMT-affine, refused, no idle CPU near 1. */
	p->cpu = 1;
	expect_both(p, 0, WAKE, 0, 1);
}
END_TEST

/* The same on the near machine when p may not run on the waker's CPU (no want_affine). */
START_TEST(test_variants_differ_when_waker_cpu_not_allowed)
{
	struct task *p = fx_task(4, 0);

	fx_busy_all(1);
	fx_idle(6);
	fx_idle(7);
	fx_allow(p, 0xf0);
	ck_assert_uint_eq(fx_place(STOCK, p, 0, WAKE, 0), 4);
	ck_assert_uint_eq(fx_place(SBM, p, 0, WAKE, 0), 6);
}
END_TEST

/* ------------------------------------------------- generations and NULLs */

/*
 * A rebuild between two placements: the second reads the new generation
 * (the nodes moved apart: CPU 4 is no longer wake-affine to CPU 0), and
 * neither placement keeps a read section open, so the old generation is
 * freed once every CPU passes a quiescent point.
 */
START_TEST(test_rebuild_between_placements)
{
	struct cpumask online = CPUMASK_EMPTY;
	struct task *p = fx_task(4, 0);
	u64 gen = fx_topo()->gen;

	fx_busy_all(1);
	expect_both(p, 0, WAKE, WF_SYNC, 0);
	machine_set_nodes(fx_machine(), FX_PACKAGES, FX_FAR);
	fx_rebuild(NULL);
	ck_assert_uint_eq(fx_topo()->gen, gen + 1);
	ck_assert_uint_eq(sched_topology_pending(), 1);
	expect_both(p, 0, WAKE, WF_SYNC, 4);

	/*
	 * Socket 1 goes offline. p, last on 4, wakes on the nearest CPU it may
	 * use, the first of socket 0 (as select_fallback_rq would pick); a fork
	 * from 0 now tops out at MC: the idle CPU 2.
	 */
	cpumask_set_range(&online, 0, 4);
	fx_rebuild(&online);
	fx_idle(2);
	expect_both(p, 0, WAKE, WF_SYNC, 0);
	expect_both(p, 0, FORK, 0, 2);
	for (u32 cpu = 0; cpu < FX_NR_CPUS; cpu++)
		sched_topology_quiescent(cpu);
	ck_assert_uint_eq(sched_topology_pending(), 0);
}
END_TEST

/*
 * NULL map entries. Far nodes and only CPUs 0-4 online: CPU 4 is alone in
 * its node, with no SMT, MC or wake-affine domain and a NUMA domain that
 * balances neither fork nor exec: every entry of its map is NULL. Then a
 * generation with CPU 0 alone (no domains at all), then the empty one.
 */
START_TEST(test_null_map_entries_do_not_crash)
{
	struct cpumask online = CPUMASK_EMPTY;
	struct task *p = fx_task(0, 0), *q = fx_task(4, 0);
	struct sched_topology *t;

	machine_set_nodes(fx_machine(), FX_PACKAGES, FX_FAR);
	cpumask_set_range(&online, 0, 5);
	fx_rebuild(&online);
	t = fx_topo();
	ck_assert_ptr_null(sbm_affine_sd(t, 4, 4));
	ck_assert_ptr_null(sbm_affine_sd(t, 4, 0));
	ck_assert_ptr_null(sd_llc(t, 4));
	ck_assert_int_eq(sbm_top_level(t, 4, SBM_FORK_TYPE), -1);
	fx_busy_all(1);
	expect_both(p, 4, WAKE, WF_SYNC, 0);
	expect_both(q, 0, WAKE, WF_SYNC, 4);
	expect_both(q, 4, WAKE, WF_SYNC, 4);
	expect_both(q, 4, FORK, 0, 4);
	expect_both(q, 4, EXEC, 0, 4);

	cpumask_clear(&online);
	cpumask_set_cpu(0, &online);
	fx_rebuild(&online);
	ck_assert_ptr_null(cpu_sd(fx_topo(), 0));
	expect_both(p, 0, WAKE, 0, 0);
	expect_both(p, 0, FORK, 0, 0);
	expect_both(q, 0, WAKE, 0, 0); /* prev 4 is not in this generation */

	/* Before any build: every accessor answers NULL; p stays where it was. */
	sched_topology_reset_for_tests();
	ck_assert_uint_eq(fx_topo()->gen, 0);
	expect_both(q, 0, WAKE, WF_SYNC, 4);
	expect_both(q, 0, FORK, 0, 0);
}
END_TEST

START_TEST(test_boot_options)
{
	const struct sched_placement *stock = fx_variant(STOCK), *sbm = fx_variant(SBM);

	ck_assert_ptr_eq(sched_placement_cur, stock);
	ck_assert_int_eq(cmdline_parse("sched_select=sbm"), 0);
	ck_assert_ptr_eq(sched_placement_cur, sbm);
	ck_assert_str_eq(sched_select, "sbm");
	ck_assert_int_eq(cmdline_parse("sched_select=cfs"), 1); /* not registered: unchanged */
	ck_assert_ptr_eq(sched_placement_cur, sbm);
	ck_assert_int_eq(cmdline_parse("sched_select=stock sched_idle_sibling=3.8.0"), 0);
	ck_assert_ptr_eq(sched_placement_cur, stock);
	ck_assert_str_eq(sched_idle_sibling, "3.8.0");
	ck_assert_ptr_eq(sched_idle_sibling_cur, sched_idle_sibling_find("3.8.0", 5));
	ck_assert_int_eq(cmdline_parse("sched_idle_sibling=3.9"), 1);
	ck_assert_str_eq(sched_idle_sibling, "3.8.0");
}
END_TEST

/* -------------------------------------------------------------- registry */

/*
 * A variant of this file's own, registered as any variant is, with one
 * line: it counts its calls and sends every task to PROBE_CPU.
 */
#define PROBE_CPU 5
static u32 probe_calls;

static u32 select_probe(const struct sched_topology *t, struct task *p, int sd_flag, bool sync,
			u32 this_cpu)
{
	probe_calls++;
	return PROBE_CPU;
}

static const struct sched_placement probe_placement = {
	.name = "unit_probe",
	.select_task_rq = select_probe,
};
SCHED_PLACEMENT_REGISTER(probe_placement);

/* One registered without its required operation: never offered. */
static const struct sched_placement incomplete_placement = { .name = "unit_incomplete" };
SCHED_PLACEMENT_REGISTER(incomplete_placement);

/* The registry lists every complete variant once, each found by its name, and nothing else. */
START_TEST(test_registry_finds_every_variant)
{
	static const char *const expected[] = { "stock", "sbm", "unit_probe" };
	const struct sched_placement *v;
	bool seen[ARRAY_SIZE(expected)] = { false };
	u32 n = 0;

	for (u32 i = 0; (v = sched_placement_at(i)); i++, n++) {
		bool known = false;

		ck_assert_ptr_nonnull(v->select_task_rq);
		ck_assert_ptr_eq(sched_placement_find(v->name, strlen(v->name)), v);
		for (u32 k = 0; k < ARRAY_SIZE(expected); k++) {
			if (strcmp(v->name, expected[k]) == 0) {
				ck_assert_msg(!seen[k], "variant %s listed twice", v->name);
				seen[k] = known = true;
			}
		}
		ck_assert_msg(known, "unexpected variant %s", v->name);
	}
	ck_assert_uint_eq(n, ARRAY_SIZE(expected));
	ck_assert_ptr_eq(sched_placement_find("stock", 5), &stock_placement);
	ck_assert_ptr_null(sched_placement_find("unit_incomplete", 15));
	ck_assert_ptr_null(sched_placement_find("sb", 2));   /* a prefix is not a name */
	ck_assert_ptr_null(sched_placement_find("sbmx", 4)); /* nor a longer word */
	ck_assert_ptr_eq(sched_idle_sibling_find("3.8.13", 6), &idle_sibling_3_8_13);
	ck_assert_ptr_nonnull(sched_idle_sibling_find("3.8.0", 5));
	ck_assert_ptr_null(sched_idle_sibling_find("3.8", 3));
}
END_TEST

/* An unknown name: one warning listing the registered names, the variant kept. */
START_TEST(test_unknown_variant_rejected_with_names)
{
	char names[128], want[256];

	sched_placement_names(names, sizeof(names));
	ck_assert_ptr_nonnull(strstr(names, "stock"));
	ck_assert_ptr_nonnull(strstr(names, "sbm"));
	ck_assert_ptr_null(strstr(names, "unit_incomplete"));
	snprintf(want, sizeof(want),
		 "cmdline: bad value 'eevdf' for 'sched_select' (registered: %s), keeping 'stock'\n",
		 names);
	fake_console_reset();
	ck_assert_int_eq(cmdline_parse("sched_select=eevdf"), 1);
	ck_assert_ptr_nonnull(strstr(fake_console_text(), want));
	ck_assert_ptr_eq(strchr(fake_console_text(), '\n') + 1, /* one line: the warning */
			 fake_console_text() + strlen(fake_console_text()));
	ck_assert_ptr_eq(sched_placement_cur, &stock_placement);
	ck_assert_str_eq(sched_select, "stock");

	/* The run-time path (the sysctl) refuses quietly, with -EINVAL. */
	fake_console_reset();
	ck_assert_int_eq(sched_select_set("unit_incomplete", 15), -EINVAL);
	ck_assert_int_eq(sched_select_set("", 0), -EINVAL);
	ck_assert_str_eq(fake_console_text(), "");
	ck_assert_ptr_eq(sched_placement_cur, &stock_placement);
}
END_TEST

/* Switching the variant at run time changes the function select_task_rq_fair() calls. */
START_TEST(test_switching_variant_changes_function_called)
{
	struct task *p = fx_task(0, 0);

	probe_calls = 0;
	ck_assert_uint_eq(select_task_rq_fair(p, WAKE, 0), 0); /* stock: idle prev */
	ck_assert_uint_eq(probe_calls, 0);
	ck_assert_int_eq(sched_select_set("unit_probe", 10), 0);
	ck_assert_str_eq(sched_select, "unit_probe");
	ck_assert_uint_eq(select_task_rq_fair(p, WAKE, 0), PROBE_CPU);
	ck_assert_uint_eq(select_task_rq_fair(p, FORK, 0), PROBE_CPU);
	ck_assert_uint_eq(probe_calls, 2);
	ck_assert_int_eq(sched_select_set("stock", 5), 0);
	ck_assert_uint_eq(select_task_rq_fair(p, WAKE, 0), 0);
	ck_assert_uint_eq(probe_calls, 2);

	/* The answer is still made allowed: p may not use PROBE_CPU's package. */
	fx_allow(p, 0x0f);
	ck_assert_int_eq(sched_select_set("unit_probe", 10), 0);
	ck_assert_uint_lt(select_task_rq_fair(p, WAKE, 0), 4);
	ck_assert_uint_eq(probe_calls, 3);
}
END_TEST

Suite *select_suite(void)
{
	Suite *s = suite_create("select");
	TCase *tc = tcase_create("select");

	tcase_add_checked_fixture(tc, fx_start, fx_stop);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_sync_wake_from_lone_waker_is_affine);
	tcase_add_test(tc, test_non_sync_wake_onto_busy_cpu_needs_two_on_prev);
	tcase_add_test(tc, test_wake_affine_average_task_rule);
	tcase_add_test(tc, test_idle_waker_cpu_is_affine);
	tcase_add_test(tc, test_seeds_000_wake_affine_null_domain);
	tcase_add_test(tc, test_idle_sibling_idle_target_and_prev);
	tcase_add_test(tc, test_idle_sibling_prefers_idle_core_then_thread);
	tcase_add_test(tc, test_idle_sibling_skips_target_group);
	tcase_add_test(tc, test_idle_sibling_3_8_0_form);
	tcase_add_test(tc, test_prev_is_this_cpu_skips_wake_affine);
	tcase_add_test(tc, test_wake_affine_on_prev_feature);
	tcase_add_test(tc, test_find_idlest_group_least_loaded);
	tcase_add_test(tc, test_find_idlest_group_stays_local_within_margin);
	tcase_add_test(tc, test_fork_spreads_to_other_socket);
	tcase_add_test(tc, test_affinity_respected);
	tcase_add_test(tc, test_stock_and_sbm_agree_random);
	tcase_add_test(tc, test_stock_and_sbm_random_far_nodes);
	tcase_add_test(tc, test_variants_differ_without_affine_domain);
	tcase_add_test(tc, test_variants_differ_when_waker_cpu_not_allowed);
	tcase_add_test(tc, test_rebuild_between_placements);
	tcase_add_test(tc, test_null_map_entries_do_not_crash);
	tcase_add_test(tc, test_boot_options);
	tcase_add_test(tc, test_registry_finds_every_variant);
	tcase_add_test(tc, test_unknown_variant_rejected_with_names);
	tcase_add_test(tc, test_switching_variant_changes_function_called);
	suite_add_tcase(s, tc);
	return s;
}

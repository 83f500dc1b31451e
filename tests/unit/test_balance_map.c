/*
 * Host tests of the schedule balance map (kernel/sched/balance_map.c): each
 * entry must be what select_task_rq_fair()'s domain walk would find, checked
 * against an independent brute-force walk over spans for every CPU pair, and
 * against what the machine description says about each pair.
 */
#include <stdlib.h>

#include "sched/balance_map.h"
#include "sched/topology.h"
#include "topo_machines.h"
#include "unit.h"

#define MiB (1024 * 1024UL)

static void setup(void)
{
	topo_test_start(64 * MiB);
}

static void teardown(void)
{
	topo_test_stop();
}

/* The stock walk's affine_sd: the lowest load-balancing, wake-affine domain of cpu holding prev. */
static struct sched_domain *walk_affine(const struct sched_topology *t, u32 cpu, u32 prev)
{
	struct sched_domain *sd;

	for_each_domain (t, cpu, sd)
		if ((sd->flags & SD_LOAD_BALANCE) && (sd->flags & SD_WAKE_AFFINE) &&
		    cpumask_test_cpu(prev, &sd->span))
			return sd;
	return NULL;
}

/* The stock walk's sd for a balance flag: the highest domain carrying it. */
static struct sched_domain *walk_top(const struct sched_topology *t, u32 cpu, u32 flag)
{
	struct sched_domain *sd, *top = NULL;

	for_each_domain (t, cpu, sd)
		if ((sd->flags & SD_LOAD_BALANCE) && (sd->flags & flag))
			top = sd;
	return top;
}

static const u32 type_flag[SBM_MAX_TYPE] = { SD_BALANCE_EXEC, SD_BALANCE_FORK, SD_BALANCE_WAKE };

/* Every CPU's map against the walk, for every type, level and CPU pair. */
static void expect_map_is_the_walk(const struct sched_topology *t)
{
	u32 cpu, other;

	for_each_cpu (cpu, &t->online) {
		for (int type = 0; type < SBM_MAX_TYPE; type++) {
			struct sched_domain *top = walk_top(t, cpu, type_flag[type]);
			struct sched_domain *sd;

			ck_assert_ptr_eq(sbm_sd(t, cpu, type, sbm_top_level(t, cpu, type)), top);
			ck_assert_int_eq(sbm_top_level(t, cpu, type), top ? top->level : -1);
			for (int l = 0; l < (int)t->nr_levels; l++) {
				sd = domain_at(t, cpu, l);
				if (sd && !(sd->flags & type_flag[type]))
					sd = NULL;
				ck_assert_ptr_eq(sbm_sd(t, cpu, type, l), sd);
			}
		}
		for (other = 0; other < t->nr_cpus; other++)
			ck_assert_msg(sbm_affine_sd(t, cpu, other) == walk_affine(t, cpu, other),
				      "CPU%u affine map for CPU%u", cpu, other);
	}
}

START_TEST(test_default_machine_every_pair)
{
	struct machine *m = machine_grid(2, 2, 2, 2);
	struct sched_topology *t;

	ck_assert_int_eq(sched_topology_build(m, NULL, &t), 0);
	for (u32 a = 0; a < 8; a++) {
		struct sched_domain *smt = cpu_sd(t, a), *mc = smt->parent, *numa = mc->parent;

		ck_assert_ptr_eq(sbm_sd(t, a, SBM_EXEC_TYPE, SD_LV_SMT), smt);
		ck_assert_ptr_eq(sbm_sd(t, a, SBM_EXEC_TYPE, SD_LV_MC), mc);
		ck_assert_ptr_null(sbm_sd(t, a, SBM_EXEC_TYPE, SD_LV_PKG));
		ck_assert_ptr_null(sbm_sd(t, a, SBM_EXEC_TYPE, SD_LV_NODE));
		ck_assert_ptr_eq(sbm_sd(t, a, SBM_EXEC_TYPE, SD_LV_NUMA), numa);
		ck_assert_ptr_eq(sbm_sd(t, a, SBM_FORK_TYPE, SD_LV_NUMA), numa);
		ck_assert_int_eq(sbm_top_level(t, a, SBM_EXEC_TYPE), SD_LV_NUMA);
		ck_assert_int_eq(sbm_top_level(t, a, SBM_FORK_TYPE), SD_LV_NUMA);
		/* No level has SD_BALANCE_WAKE: v3 never balances on wake-up. */
		ck_assert_int_eq(sbm_top_level(t, a, SBM_WAKE_TYPE), -1);
		for (int l = 0; l < 5; l++)
			ck_assert_ptr_null(sbm_sd(t, a, SBM_WAKE_TYPE, l));

		for (u32 b = 0; b < 8; b++) {
			struct sched_domain *want = a / 2 == b / 2 ? smt :
						    a / 4 == b / 4 ? mc :
								     numa;

			ck_assert_msg(sbm_affine_sd(t, a, b) == want, "affine %u -> %u", a, b);
		}
	}
	expect_map_is_the_walk(t);
	sched_topology_free(t);
	free(m);
}
END_TEST

/* Nodes more than RECLAIM_DISTANCE apart have no wake-affine domain, nor exec/fork balancing. */
START_TEST(test_far_nodes)
{
	struct machine *m = machine_grid(2, 2, 2, 2);
	struct sched_topology *t;

	machine_set_nodes(m, 2, 40);
	ck_assert_int_eq(sched_topology_build(m, NULL, &t), 0);
	ck_assert_uint_eq(t->levels[SD_LV_NUMA].distance, 40);
	ck_assert_ptr_nonnull(domain_at(t, 0, SD_LV_NUMA));
	ck_assert_ptr_null(sbm_affine_sd(t, 0, 4));
	ck_assert_ptr_null(sbm_affine_sd(t, 7, 1));
	ck_assert_ptr_eq(sbm_affine_sd(t, 0, 3), cpu_sd(t, 0)->parent);
	ck_assert_int_eq(sbm_top_level(t, 0, SBM_EXEC_TYPE), SD_LV_MC);
	ck_assert_ptr_null(sbm_sd(t, 0, SBM_FORK_TYPE, SD_LV_NUMA));
	expect_map_is_the_walk(t);
	sched_topology_free(t);
	free(m);
}
END_TEST

/*
 * 256 CPUs: 8 packages x 16 cores x 2 threads, a node per package, the
 * nodes on a ring with SLIT 10 + 6 per hop (16, 22, 28, 34): four NUMA
 * levels whose groups overlap, the last beyond RECLAIM_DISTANCE.
 */
static u32 ring_hops(u32 a, u32 b)
{
	u32 d = (a - b + 8) % 8;

	return d > 4 ? 8 - d : d;
}

START_TEST(test_256_cpus_every_pair)
{
	struct machine *m = machine_grid(8, 16, 2, 8);
	struct sched_topology *t;
	u32 a, b;

	for (u32 i = 0; i < 8; i++)
		for (u32 j = 0; j < 8; j++)
			m->distance[i][j] = (u8)(10 + 6 * ring_hops(i, j));
	ck_assert_uint_eq(m->nr_cpus, 256);
	ck_assert_int_eq(sched_topology_build(m, NULL, &t), 0); /* validated as it is built */
	ck_assert_int_eq(sched_topology_validate(t), 0);
	ck_assert_uint_eq(t->nr_levels, SD_LV_NUMA + 4);
	ck_assert_str_eq(chain_str(t, 0), "0:SMT 1:MC 4:NUMA 5:NUMA 6:NUMA 7:NUMA");
	ck_assert_str_eq(chain_str(t, 255), "0:SMT 1:MC 4:NUMA 5:NUMA 6:NUMA 7:NUMA");
	ck_assert_str_eq(mask_str(&domain_at(t, 0, SD_LV_NUMA)->span), "0-63,224-255");
	ck_assert_str_eq(mask_str(&domain_at(t, 100, SD_LV_NUMA + 1)->span), "32-191");

	for (a = 0; a < 256; a++) {
		for (b = 0; b < 256; b++) {
			u32 hops = ring_hops(a / 32, b / 32);
			struct sched_domain *got = sbm_affine_sd(t, a, b);
			int want_level;

			/* Independently: from the machine, which level first holds both. */
			if (a / 2 == b / 2)
				want_level = SD_LV_SMT;
			else if (a / 32 == b / 32)
				want_level = SD_LV_MC;
			else if (10 + 6 * hops <= RECLAIM_DISTANCE)
				want_level = SD_LV_NUMA + (int)hops - 1;
			else
				want_level = -1;
			ck_assert_msg(got == walk_affine(t, a, b), "CPU%u -> CPU%u: not the walk's",
				      a, b);
			if (want_level < 0) {
				ck_assert_msg(!got, "CPU%u -> CPU%u: affine beyond reclaim", a, b);
				continue;
			}
			ck_assert_msg(got && got->level == want_level,
				      "CPU%u -> CPU%u: level %d, want %d", a, b,
				      got ? got->level : -1, want_level);
			ck_assert(cpumask_test_cpu(a, &got->span) && cpumask_test_cpu(b, &got->span));
			ck_assert(!got->child || !cpumask_test_cpu(b, &got->child->span));
		}
	}
	expect_map_is_the_walk(t);
	sched_topology_free(t);
	free(m);
}
END_TEST

Suite *balance_map_suite(void)
{
	Suite *s = suite_create("balance_map");
	TCase *tc = tcase_create("balance_map");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_default_machine_every_pair);
	tcase_add_test(tc, test_far_nodes);
	tcase_add_test(tc, test_256_cpus_every_pair);
	suite_add_tcase(s, tc);
	return s;
}

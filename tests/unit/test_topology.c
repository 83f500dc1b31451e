/*
 * Host tests of the domain builder (kernel/sched/topology*.c) on synthetic
 * machines: levels, spans, groups and power, flags and parameters,
 * degenerate levels, the checks catching broken builds, and the printing.
 */
#include <stdlib.h>
#include <string.h>

#include "cmdline.h"
#include "fake_arch.h"
#include "lib/errno.h"
#include "sched/balance_map.h"
#include "sched/topology.h"
#include "topo_machines.h"
#include "unit.h"

#define MiB (1024 * 1024UL)

#define SMT_POWER 589 /* 1024 * (1178 / 2) >> 10 */
#define FLAGS_SMT                                                                   \
	(SD_LOAD_BALANCE | SD_BALANCE_NEWIDLE | SD_BALANCE_EXEC | SD_BALANCE_FORK | \
	 SD_WAKE_AFFINE | SD_SHARE_CPUCAPACITY | SD_SHARE_PKG_RESOURCES)
#define FLAGS_MC                                                                    \
	(SD_LOAD_BALANCE | SD_BALANCE_NEWIDLE | SD_BALANCE_EXEC | SD_BALANCE_FORK | \
	 SD_WAKE_AFFINE | SD_SHARE_PKG_RESOURCES)
#define FLAGS_PKG                                                                   \
	(SD_LOAD_BALANCE | SD_BALANCE_NEWIDLE | SD_BALANCE_EXEC | SD_BALANCE_FORK | \
	 SD_WAKE_AFFINE | SD_PREFER_SIBLING)
#define FLAGS_FAR  (SD_LOAD_BALANCE | SD_BALANCE_NEWIDLE | SD_SERIALIZE | SD_OVERLAP | SD_NUMA)
#define FLAGS_NEAR (FLAGS_FAR | SD_BALANCE_EXEC | SD_BALANCE_FORK | SD_WAKE_AFFINE)

static void setup(void)
{
	topo_test_start(32 * MiB);
}

static void teardown(void)
{
	topo_test_stop();
}

static struct sched_topology *build(const struct machine *m)
{
	struct sched_topology *t;

	ck_assert_int_eq(sched_topology_build(m, NULL, &t), 0);
	ck_assert_ptr_nonnull(t);
	return t;
}

START_TEST(test_one_cpu)
{
	struct machine *m = machine_grid(1, 1, 1, 1);
	struct sched_topology *t = build(m);

	ck_assert_uint_eq(t->nr_cpus, 1);
	ck_assert_uint_eq(t->nr_levels, 4); /* no NUMA level on one node */
	ck_assert_ptr_null(cpu_sd(t, 0));   /* alone: nothing to balance */
	ck_assert_ptr_null(sd_llc(t, 0));
	ck_assert_uint_eq(t->cpu[0].llc_id, 0);
	ck_assert_uint_eq(t->cpu[0].llc_size, 1);
	ck_assert_ptr_null(sbm_affine_sd(t, 0, 0));
	for (int type = 0; type < SBM_MAX_TYPE; type++) {
		ck_assert_int_eq(sbm_top_level(t, 0, type), -1);
		for (int l = 0; l < 4; l++)
			ck_assert_ptr_null(sbm_sd(t, 0, type, l));
	}
	/* Out of range asks are NULL, not faults. */
	ck_assert_ptr_null(cpu_sd(t, 1));
	ck_assert_ptr_null(sbm_sd(t, 0, SBM_EXEC_TYPE, 99));
	ck_assert_ptr_null(sbm_sd(t, 0, SBM_MAX_TYPE, 0));
	ck_assert_ptr_null(sbm_affine_sd(t, 0, 7));
	sched_topology_print_summary(t);
	ck_assert_ptr_nonnull(
		strstr(fake_console_text(),
		       "topology: 1 package, 1 node, 1 core, 1 thread, LLC per package\n"));
	sched_topology_free(t);
	free(m);
}
END_TEST

START_TEST(test_two_threads)
{
	struct machine *m = machine_grid(1, 1, 2, 1);
	struct sched_topology *t = build(m);
	struct sched_domain *sd = cpu_sd(t, 1);

	ck_assert_str_eq(chain_str(t, 0), "0:SMT");
	ck_assert_str_eq(chain_str(t, 1), "0:SMT");
	ck_assert_str_eq(mask_str(&sd->span), "0-1");
	ck_assert_str_eq(groups_str(sd), "1/589 0/589"); /* its own group first */
	ck_assert_str_eq(groups_str(cpu_sd(t, 0)), "0/589 1/589");
	ck_assert_ptr_eq(cpu_sd(t, 0)->groups->next, cpu_sd(t, 1)->groups); /* one shared ring */
	ck_assert_uint_eq(sd->flags, FLAGS_SMT);
	ck_assert_uint_eq(sd->groups->capacity, 1);
	ck_assert_ptr_eq(sbm_affine_sd(t, 0, 1), cpu_sd(t, 0));
	ck_assert_ptr_eq(sbm_affine_sd(t, 1, 0), sd);
	ck_assert_ptr_eq(sd_llc(t, 0), cpu_sd(t, 0));
	ck_assert(cpus_share_cache(t, 0, 1));
	sched_topology_free(t);
	free(m);
}
END_TEST

/* The default QEMU machine: 2 sockets x 2 cores x 2 threads, a node per socket, distance 21. */
START_TEST(test_default_qemu_machine)
{
	struct machine *m = machine_grid(2, 2, 2, 2);
	struct sched_topology *t = build(m);
	struct sched_domain *smt, *mc, *numa;

	ck_assert_uint_eq(t->nr_levels, 5);
	ck_assert_uint_eq(t->levels[SD_LV_NUMA].distance, 21);
	ck_assert_str_eq(chain_str(t, 0), "0:SMT 1:MC 4:NUMA");
	ck_assert_str_eq(chain_str(t, 5), "0:SMT 1:MC 4:NUMA");

	smt = cpu_sd(t, 0);
	mc = smt->parent;
	numa = mc->parent;
	ck_assert_ptr_null(numa->parent);
	ck_assert_ptr_eq(mc->child, smt);
	ck_assert_ptr_eq(numa->child, mc);
	ck_assert_str_eq(mask_str(&smt->span), "0-1");
	ck_assert_str_eq(mask_str(&mc->span), "0-3");
	ck_assert_str_eq(mask_str(&numa->span), "0-7");
	ck_assert_str_eq(groups_str(smt), "0/589 1/589");
	ck_assert_str_eq(groups_str(mc), "0-1/1178 2-3/1178");
	ck_assert_str_eq(groups_str(numa), "0-3/2356 4-7/2356");
	ck_assert_uint_eq(mc->groups->capacity, 1);
	ck_assert_uint_eq(numa->groups->capacity, 2);

	/* PKG (= MC) was dropped and handed its SD_PREFER_SIBLING down to MC. */
	ck_assert_uint_eq(smt->flags, FLAGS_SMT);
	ck_assert_uint_eq(mc->flags, FLAGS_MC | SD_PREFER_SIBLING);
	ck_assert_uint_eq(numa->flags, FLAGS_NEAR);

	/* Linux 3.8's parameters per level. */
	ck_assert_uint_eq(smt->imbalance_pct, 110);
	ck_assert_uint_eq(smt->max_interval, 2);
	ck_assert_uint_eq(smt->smt_gain, 1178);
	ck_assert_uint_eq(smt->cache_nice_tries, 0);
	ck_assert_uint_eq(mc->imbalance_pct, 125);
	ck_assert_uint_eq(mc->min_interval, 1);
	ck_assert_uint_eq(mc->max_interval, 4);
	ck_assert_uint_eq(mc->busy_factor, 64);
	ck_assert_uint_eq(mc->cache_nice_tries, 1);
	ck_assert_uint_eq(mc->busy_idx, 2);
	ck_assert_uint_eq(mc->idle_idx, 0);
	ck_assert_uint_eq(numa->min_interval, 8); /* the span's weight */
	ck_assert_uint_eq(numa->max_interval, 16);
	ck_assert_uint_eq(numa->busy_factor, 32);
	ck_assert_uint_eq(numa->cache_nice_tries, 2);
	ck_assert_uint_eq(numa->busy_idx, 3);
	ck_assert_uint_eq(numa->idle_idx, 2);
	ck_assert_uint_eq(numa->balance_interval, 8);

	/* CPU 5: package 1, core 0, thread 1. Each ring starts at its own group. */
	smt = cpu_sd(t, 5);
	ck_assert_str_eq(mask_str(&smt->span), "4-5");
	ck_assert_str_eq(mask_str(&smt->parent->span), "4-7");
	ck_assert_str_eq(mask_str(&smt->parent->parent->span), "0-7");
	ck_assert_str_eq(groups_str(smt), "5/589 4/589");
	ck_assert_str_eq(groups_str(smt->parent), "4-5/1178 6-7/1178");
	ck_assert_str_eq(groups_str(smt->parent->parent), "4-7/2356 0-3/2356");
	ck_assert_ptr_eq(sd_llc(t, 5), smt->parent);
	ck_assert_uint_eq(t->cpu[5].llc_id, 4);
	ck_assert_uint_eq(t->cpu[5].llc_size, 4);
	ck_assert(cpus_share_cache(t, 5, 7));
	ck_assert(!cpus_share_cache(t, 5, 3));

	/* The MC groups of CPUs 4-7 are one ring, shared. */
	ck_assert_ptr_eq(cpu_sd(t, 4)->parent->groups, smt->parent->groups);
	ck_assert_ptr_eq(cpu_sd(t, 6)->parent->groups, smt->parent->groups->next);

	sched_topology_print_summary(t);
	ck_assert_ptr_nonnull(
		strstr(fake_console_text(),
		       "topology: 2 packages, 2 nodes, 4 cores, 8 threads, LLC per package\n"));
	sched_topology_free(t);
	free(m);
}
END_TEST

/*
 * 4 sockets of 2 nodes each (8 nodes, LLC per node), 4 cores x 2 threads
 * per node. SLIT: 16 to the other node of the socket, 22 to the sockets
 * next to it (a square: 0-1-2-3-0), 32 across the diagonal.
 */
static struct machine *four_socket_eight_node(void)
{
	struct machine *m = machine_new();

	machine_set_nodes(m, 8, 0);
	for (u32 i = 0; i < 8; i++) {
		for (u32 j = 0; j < 8; j++) {
			u32 pi = i / 2, pj = j / 2, apart = (pi - pj + 4) % 4;

			if (i == j)
				m->distance[i][j] = 10;
			else if (pi == pj)
				m->distance[i][j] = 16;
			else
				m->distance[i][j] = apart == 2 ? 32 : 22;
		}
	}
	for (u32 p = 0; p < 4; p++)
		for (u32 c = 0; c < 8; c++)
			for (u32 th = 0; th < 2; th++)
				machine_add_cpu(m, p, c, th, 2 * p + c / 4, 2 * p + c / 4);
	return m;
}

START_TEST(test_four_socket_eight_node)
{
	struct machine *m = four_socket_eight_node();
	struct sched_topology *t = build(m);
	struct sched_domain *sd;

	ck_assert_uint_eq(m->nr_cpus, 64);
	ck_assert_uint_eq(t->nr_levels, SD_LV_NUMA + 3); /* three distinct remote distances */
	ck_assert_uint_eq(t->levels[SD_LV_NUMA].distance, 16);
	ck_assert_uint_eq(t->levels[SD_LV_NUMA + 1].distance, 22);
	ck_assert_uint_eq(t->levels[SD_LV_NUMA + 2].distance, 32);
	ck_assert_uint_eq(t->levels[SD_LV_NUMA].flags, FLAGS_NEAR);
	ck_assert_uint_eq(t->levels[SD_LV_NUMA + 2].flags, FLAGS_FAR); /* beyond RECLAIM_DISTANCE */

	/* NODE and NUMA(16) span the socket, like PKG: both dropped. */
	ck_assert_str_eq(chain_str(t, 0), "0:SMT 1:MC 2:PKG 5:NUMA 6:NUMA");
	ck_assert_str_eq(mask_str(&domain_at(t, 0, SD_LV_MC)->span), "0-7");
	ck_assert_str_eq(mask_str(&domain_at(t, 0, SD_LV_PKG)->span), "0-15");
	ck_assert_str_eq(groups_str(domain_at(t, 0, SD_LV_PKG)), "0-7/4712 8-15/4712");
	sd = domain_at(t, 0, 5);
	ck_assert_str_eq(mask_str(&sd->span), "0-31,48-63"); /* sockets 0, 1 and 3 */
	ck_assert_str_eq(groups_str(sd), "0-15/9424 16-31/9424 48-63/9424");
	ck_assert_uint_eq(sd->min_interval, 48);
	sd = domain_at(t, 0, 6);
	ck_assert_str_eq(mask_str(&sd->span), "0-63");
	/* Overlapping groups: socket 2's view reaches sockets 1 and 3 too. */
	ck_assert_str_eq(groups_str(sd), "0-31,48-63/28272 16-63/28272");
	ck_assert(sd->flags & SD_OVERLAP);
	ck_assert(!(sd->flags & SD_WAKE_AFFINE));

	/* CPU 40: socket 2, node 5. */
	ck_assert_str_eq(chain_str(t, 40), "0:SMT 1:MC 2:PKG 5:NUMA 6:NUMA");
	ck_assert_str_eq(mask_str(&domain_at(t, 40, SD_LV_MC)->span), "40-47");
	ck_assert_str_eq(mask_str(&domain_at(t, 40, SD_LV_PKG)->span), "32-47");
	ck_assert_str_eq(mask_str(&domain_at(t, 40, 5)->span), "16-63");
	ck_assert_str_eq(groups_str(domain_at(t, 40, 5)), "32-47/9424 48-63/9424 16-31/9424");

	sched_topology_print_summary(t);
	ck_assert_ptr_nonnull(strstr(fake_console_text(),
				     "topology: 4 packages, 8 nodes, 32 cores, 64 threads, "
				     "LLC per node\n"));
	sched_topology_free(t);
	free(m);
}
END_TEST

/* A hybrid laptop: two SMT performance cores, four single-thread efficiency cores, one LLC. */
START_TEST(test_hybrid_laptop)
{
	struct machine *m = machine_new();
	struct sched_topology *t;
	struct sched_domain *sd;

	for (u32 c = 0; c < 2; c++)
		for (u32 th = 0; th < 2; th++)
			machine_add_cpu(m, 0, c, th, 0, 0);
	for (u32 c = 2; c < 6; c++)
		machine_add_cpu(m, 0, c, 0, 0, 0);
	t = build(m);

	ck_assert_str_eq(chain_str(t, 0), "0:SMT 1:MC");
	ck_assert_str_eq(chain_str(t, 3), "0:SMT 1:MC");
	ck_assert_str_eq(chain_str(t, 4), "1:MC"); /* no sibling: the SMT level is dropped */
	sd = cpu_sd(t, 4);
	ck_assert_str_eq(mask_str(&sd->span), "0-7");
	ck_assert_str_eq(groups_str(sd), "4/1024 5/1024 6/1024 7/1024 0-1/1178 2-3/1178");
	ck_assert_ptr_eq(cpu_sd(t, 0)->parent->groups, sd->groups->next->next->next->next);
	ck_assert_ptr_eq(sbm_affine_sd(t, 4, 0), sd);
	ck_assert_ptr_eq(sbm_affine_sd(t, 0, 1), cpu_sd(t, 0));
	ck_assert_ptr_eq(sbm_affine_sd(t, 0, 4), cpu_sd(t, 0)->parent);
	ck_assert_ptr_eq(sd_llc(t, 4), sd);
	ck_assert_ptr_eq(sd_llc(t, 0), cpu_sd(t, 0)->parent);
	sched_topology_print_summary(t);
	ck_assert_ptr_nonnull(
		strstr(fake_console_text(),
		       "topology: 1 package, 1 node, 6 cores, 8 threads, LLC per package\n"));
	sched_topology_free(t);
	free(m);
}
END_TEST

/* ---------------------------------------------------------- degenerate levels */

START_TEST(test_degenerate_one_thread_per_core)
{
	struct machine *m = machine_grid(2, 4, 1, 2);
	struct sched_topology *t = build(m);

	ck_assert_str_eq(chain_str(t, 0), "1:MC 4:NUMA");
	ck_assert_str_eq(groups_str(cpu_sd(t, 0)), "0/1024 1/1024 2/1024 3/1024");
	ck_assert_uint_eq(cpu_sd(t, 0)->flags, FLAGS_MC | SD_PREFER_SIBLING);
	ck_assert_ptr_null(sbm_sd(t, 0, SBM_EXEC_TYPE, SD_LV_SMT));
	ck_assert_ptr_eq(sbm_sd(t, 0, SBM_EXEC_TYPE, SD_LV_MC), cpu_sd(t, 0));
	sched_topology_free(t);
	free(m);
}
END_TEST

/* One package per node: NODE repeats PKG (and here PKG repeats MC). */
START_TEST(test_degenerate_package_per_node)
{
	struct machine *m = machine_grid(2, 2, 2, 2);
	struct sched_topology *t = build(m);

	for (u32 cpu = 0; cpu < 8; cpu++) {
		ck_assert_ptr_null(domain_at(t, cpu, SD_LV_PKG));
		ck_assert_ptr_null(domain_at(t, cpu, SD_LV_NODE));
		ck_assert_ptr_null(sbm_sd(t, cpu, SBM_FORK_TYPE, SD_LV_NODE));
	}
	sched_topology_free(t);
	free(m);
}
END_TEST

/* An LLC per core: MC repeats SMT and goes; PKG balances between the cores. */
START_TEST(test_degenerate_llc_per_core)
{
	struct machine *m = machine_new();
	struct sched_topology *t;

	machine_set_nodes(m, 2, 21);
	for (u32 p = 0; p < 2; p++)
		for (u32 c = 0; c < 2; c++)
			for (u32 th = 0; th < 2; th++)
				machine_add_cpu(m, p, c, th, 2 * p + c, p);
	t = build(m);
	ck_assert_str_eq(chain_str(t, 0), "0:SMT 2:PKG 4:NUMA");
	ck_assert_str_eq(groups_str(domain_at(t, 0, SD_LV_PKG)), "0-1/1178 2-3/1178");
	ck_assert_uint_eq(cpu_sd(t, 0)->flags, FLAGS_SMT);
	ck_assert_ptr_eq(sd_llc(t, 0), cpu_sd(t, 0));
	sched_topology_print_summary(t);
	ck_assert_ptr_nonnull(strstr(fake_console_text(), "4 cores, 8 threads, LLC per core\n"));
	sched_topology_free(t);
	free(m);
}
END_TEST

/* No SRAT: two packages in one node. NODE is the level that balances between them. */
START_TEST(test_two_packages_one_node)
{
	struct machine *m = machine_grid(2, 2, 2, 1);
	struct sched_topology *t = build(m);
	struct sched_domain *node;

	ck_assert_uint_eq(t->nr_levels, 4);
	ck_assert_str_eq(chain_str(t, 0), "0:SMT 1:MC 3:NODE");
	node = domain_at(t, 0, SD_LV_NODE);
	ck_assert_str_eq(mask_str(&node->span), "0-7");
	ck_assert_str_eq(groups_str(node), "0-3/2356 4-7/2356");
	ck_assert_uint_eq(node->flags, FLAGS_PKG);
	ck_assert_ptr_eq(sbm_affine_sd(t, 0, 6), node);
	sched_topology_free(t);
	free(m);
}
END_TEST

/* Only some CPUs online: spans hold online CPUs only. */
START_TEST(test_partial_online)
{
	struct machine *m = machine_grid(2, 2, 2, 2);
	struct cpumask online = CPUMASK_EMPTY;
	struct sched_topology *t;

	cpumask_set_range(&online, 0, 5); /* CPUs 0-4: CPU 4 alone in its package */
	ck_assert_int_eq(sched_topology_build(m, &online, &t), 0);
	ck_assert_str_eq(chain_str(t, 4), "4:NUMA");
	ck_assert_str_eq(groups_str(cpu_sd(t, 4)), "4/1024 0-3/2356"); /* no sibling online */
	ck_assert_str_eq(chain_str(t, 1), "0:SMT 1:MC 4:NUMA");
	ck_assert_ptr_null(cpu_sd(t, 5));
	ck_assert_ptr_null(sbm_affine_sd(t, 5, 0));
	ck_assert_ptr_null(sbm_affine_sd(t, 0, 5));
	/* CPU 5's entry is zeroed (llc_id 0, like CPU 0's), yet it shares with none. */
	ck_assert(cpus_share_cache(t, 4, 4));
	ck_assert(!cpus_share_cache(t, 5, 0));
	ck_assert(!cpus_share_cache(t, 0, 5));
	ck_assert(!cpus_share_cache(t, 5, 5));
	sched_topology_free(t);
	free(m);
}
END_TEST

START_TEST(test_bad_machines)
{
	struct machine *m = machine_grid(1, 2, 1, 1);
	struct cpumask online = CPUMASK_EMPTY;
	struct sched_topology *t = (void *)1;

	ck_assert_int_eq(sched_topology_build(m, &online, &t), -EINVAL); /* nothing online */
	ck_assert_ptr_null(t);
	cpumask_set_cpu(2, &online); /* not a CPU of the machine */
	ck_assert_int_eq(sched_topology_build(m, &online, &t), -EINVAL);
	m->cpu[1].node = 3; /* only one node */
	ck_assert_int_eq(sched_topology_build(m, NULL, &t), -EINVAL);
	m->cpu[1].node = 0;
	m->nr_nodes = 0;
	ck_assert_int_eq(sched_topology_build(m, NULL, &t), -EINVAL);
	free(m);
}
END_TEST

/* ------------------------------------------------------------ the checks */

START_TEST(test_validate_catches)
{
	struct machine *m = machine_grid(2, 2, 2, 2);
	struct sched_topology *t = build(m);
	struct sched_domain *mc = cpu_sd(t, 0)->parent;
	struct sched_group *g2 = mc->groups->next;
	struct sched_domain **affine = sbm_map(t, 3)->affine_map; /* the test may break it */
	struct sched_domain *saved_affine = affine[6];

	ck_assert_int_eq(sched_topology_validate(t), 0);

	cpumask_clear_cpu(3, &g2->cpus); /* the groups no longer cover the span */
	fake_console_reset();
	ck_assert_int_eq(sched_topology_validate(t), -EINVAL);
	ck_assert_ptr_nonnull(strstr(fake_console_text(), "groups 0-2 don't span the domain 0-3"));
	cpumask_set_cpu(1, &g2->cpus); /* and CPU 1 is in two groups */
	fake_console_reset();
	ck_assert_int_eq(sched_topology_validate(t), -EINVAL);
	ck_assert_ptr_nonnull(strstr(fake_console_text(), "repeated CPUs: group 1-2"));
	cpumask_clear_cpu(1, &g2->cpus);
	cpumask_set_cpu(3, &g2->cpus);
	ck_assert_int_eq(sched_topology_validate(t), 0);

	cpumask_clear_cpu(1, &mc->span); /* the child's span is no longer inside */
	mc->span_weight--;
	fake_console_reset();
	ck_assert_int_eq(sched_topology_validate(t), -EINVAL);
	ck_assert_ptr_nonnull(strstr(fake_console_text(),
				     "CPU0 level 1 MC: span 0,2-3 does not hold the child's 0-1"));
	cpumask_set_cpu(1, &mc->span);
	mc->span_weight++;

	affine[6] = cpu_sd(t, 3);
	fake_console_reset();
	ck_assert_int_eq(sched_topology_validate(t), -EINVAL);
	ck_assert_ptr_nonnull(strstr(fake_console_text(), "CPU3: affine map entry for CPU6 is wrong"));
	affine[6] = saved_affine;

	g2->next = g2; /* a ring that never comes back to the first group */
	fake_console_reset();
	ck_assert_int_eq(sched_topology_validate(t), -EINVAL);
	ck_assert_ptr_nonnull(strstr(fake_console_text(), "group ring does not close"));
	g2->next = mc->groups;
	ck_assert_int_eq(sched_topology_validate(t), 0);
	sched_topology_free(t);
	free(m);
}
END_TEST

/* sched_busy_factor= sets every level's busy_factor (Linux 5.10+: 16); 0 restores 3.8's 64 and 32. */
START_TEST(test_busy_factor_option)
{
	struct machine *m = machine_grid(2, 2, 2, 2);
	struct sched_topology *t;
	struct sched_domain *sd;

	ck_assert_int_eq(cmdline_parse("sched_busy_factor=16"), 0);
	t = build(m);
	for (sd = cpu_sd(t, 0); sd; sd = sd->parent)
		ck_assert_uint_eq(sd->busy_factor, 16);
	sched_topology_free(t);

	ck_assert_int_eq(cmdline_parse("sched_busy_factor=0"), 0);
	t = build(m);
	sd = cpu_sd(t, 0);
	ck_assert_uint_eq(sd->busy_factor, 64);			/* SMT */
	ck_assert_uint_eq(sd->parent->busy_factor, 64);		/* MC */
	ck_assert_uint_eq(sd->parent->parent->busy_factor, 32); /* NUMA */
	sched_topology_free(t);
	ck_assert_int_eq(cmdline_parse("sched_busy_factor=1025"), 1); /* out of range: kept */
	free(m);
}
END_TEST

/* ---------------------------------------------------------------- printing */

START_TEST(test_debug_listing)
{
	struct machine *m = machine_grid(2, 2, 2, 2);
	const char *out;

	ck_assert_int_eq(cmdline_parse("sched_verbose"), 0);
	ck_assert(sched_debug_enabled);
	fake_console_reset();
	ck_assert_int_eq(sched_topology_rebuild(m, NULL), 0);
	out = fake_console_text();
	ck_assert_ptr_nonnull(strstr(out, "] sched-domain levels (generation 1): "
					  "0:SMT 1:MC 2:PKG 3:NODE 4:NUMA(21)\n"));
	ck_assert_ptr_nonnull(
		strstr(out,
		       "] CPU0 attaching sched-domain(s):\n"
		       "[    0.000000]  domain-0: span=0-1 level=SMT\n"
		       "[    0.000000]   groups: 0:{ span=0 cap=589 }, 1:{ span=1 cap=589 }\n"
		       "[    0.000000]   domain-1: span=0-3 level=MC\n"
		       "[    0.000000]    groups: 0:{ span=0-1 cap=1178 }, 2:{ span=2-3 cap=1178 }\n"
		       "[    0.000000]    domain-2: span=0-7 level=NUMA\n"
		       "[    0.000000]     groups: 0:{ span=0-3 cap=2356 }, 4:{ span=4-7 cap=2356 }\n"
		       "[    0.000000] CPU0 balance map: exec=0:SMT,1:MC,4:NUMA fork=0:SMT,1:MC,4:NUMA "
		       "wake=none\n"
		       "[    0.000000] CPU0 affine map: 0-1 0:SMT, 2-3 1:MC, 4-7 4:NUMA\n"));
	ck_assert_ptr_nonnull(strstr(out, "] CPU5 attaching sched-domain(s):\n"
					  "[    0.000000]  domain-0: span=4-5 level=SMT\n"
					  "[    0.000000]   groups: 5:{ span=5 cap=589 }, 4:{ span=4 "
					  "cap=589 }\n"));
	ck_assert_ptr_nonnull(strstr(out, "] CPU5 affine map: 4-5 0:SMT, 6-7 1:MC, 0-3 4:NUMA\n"));

	ck_assert_int_eq(cmdline_parse("sched_debug=off"), 0);
	ck_assert(!sched_debug_enabled);
	fake_console_reset();
	ck_assert_int_eq(sched_topology_rebuild(m, NULL), 0);
	ck_assert_str_eq(fake_console_text(), "");
	free(m);
}
END_TEST

/* A lone CPU prints Linux's NULL line; full-power groups print no cap. */
START_TEST(test_debug_listing_plain)
{
	struct machine *m = machine_grid(1, 2, 1, 1);
	struct cpumask online = CPUMASK_EMPTY;
	struct sched_topology *t;
	const char *out;

	t = build(m);
	sched_topology_print_debug(t);
	out = fake_console_text();
	ck_assert_ptr_nonnull(strstr(out, "  groups: 0:{ span=0 }, 1:{ span=1 }\n"));
	ck_assert_ptr_nonnull(strstr(out, "CPU1 affine map: 0-1 1:MC\n"));
	sched_topology_free(t);

	cpumask_set_cpu(1, &online);
	ck_assert_int_eq(sched_topology_build(m, &online, &t), 0);
	fake_console_reset();
	sched_topology_print_debug(t);
	out = fake_console_text();
	ck_assert_ptr_nonnull(strstr(out, "] CPU1 attaching NULL sched-domain.\n"));
	ck_assert_ptr_nonnull(strstr(out, "] CPU1 balance map: exec=none fork=none wake=none\n"));
	ck_assert_ptr_nonnull(strstr(out, "] CPU1 affine map: 1 none\n"));
	sched_topology_free(t);
	free(m);
}
END_TEST

Suite *topology_suite(void)
{
	Suite *s = suite_create("topology");
	TCase *tc = tcase_create("build");
	TCase *deg = tcase_create("degenerate");
	TCase *chk = tcase_create("checks and printing");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_one_cpu);
	tcase_add_test(tc, test_two_threads);
	tcase_add_test(tc, test_default_qemu_machine);
	tcase_add_test(tc, test_four_socket_eight_node);
	tcase_add_test(tc, test_hybrid_laptop);
	tcase_add_test(tc, test_partial_online);
	tcase_add_test(tc, test_bad_machines);
	suite_add_tcase(s, tc);

	tcase_add_checked_fixture(deg, setup, teardown);
	tcase_add_test(deg, test_degenerate_one_thread_per_core);
	tcase_add_test(deg, test_degenerate_package_per_node);
	tcase_add_test(deg, test_degenerate_llc_per_core);
	tcase_add_test(deg, test_two_packages_one_node);
	suite_add_tcase(s, deg);

	tcase_add_checked_fixture(chk, setup, teardown);
	tcase_add_test(chk, test_validate_catches);
	tcase_add_test(chk, test_busy_factor_option);
	tcase_add_test(chk, test_debug_listing);
	tcase_add_test(chk, test_debug_listing_plain);
	suite_add_tcase(s, chk);
	return s;
}

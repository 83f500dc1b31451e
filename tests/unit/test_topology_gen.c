/*
 * Host tests of topology generations (kernel/sched/topology_gen.c): a
 * reader's snapshot stays whole across a rebuild until every CPU has passed
 * a quiescent point, then its memory comes back; a failed rebuild (out of
 * memory at any point, or a bad machine) leaves the published one alone.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "fake_arch.h"
#include "lib/errno.h"
#include "mm/heap.h"
#include "mm/page_alloc.h"
#include "sched/balance_map.h"
#include "sched/topology.h"
#include "topo_machines.h"
#include "unit.h"

#define MiB (1024 * 1024UL)

static void setup(void)
{
	topo_test_start(32 * MiB);
}

static void teardown(void)
{
	topo_test_stop();
}

static struct heap_stats stats(void)
{
	struct heap_stats st;

	heap_get_stats(&st);
	return st;
}

static void expect_same_heap(struct heap_stats a, struct heap_stats b)
{
	ck_assert_uint_eq(a.objects, b.objects);
	ck_assert_uint_eq(a.bytes, b.bytes);
	ck_assert_uint_eq(a.large_pages, b.large_pages);
	ck_assert_uint_eq(b.bad_frees, 0);
}

static void quiesce(u32 first, u32 end)
{
	for (u32 cpu = first; cpu < end; cpu++)
		sched_topology_quiescent(cpu);
}

START_TEST(test_never_null)
{
	struct sched_topology *t = sched_topology_current();

	ck_assert_ptr_nonnull(t);
	ck_assert_uint_eq(t->gen, 0);
	ck_assert_ptr_null(cpu_sd(t, 0));
	ck_assert_ptr_null(sbm_affine_sd(t, 0, 1));
	ck_assert_ptr_null(sbm_sd(t, 0, SBM_WAKE_TYPE, 0));
	ck_assert_int_eq(sbm_top_level(t, 0, SBM_EXEC_TYPE), -1);
	ck_assert_ptr_null(sd_llc(t, 0));
	ck_assert(!cpus_share_cache(t, 0, 0));
	quiesce(0, 8); /* nothing to reclaim: fine */
	ck_assert_uint_eq(sched_topology_pending(), 0);
}
END_TEST

/*
 * The sbm oops scenario (linux-scheduler-facts.md 16): a waker holds the current generation while
 * another CPU rebuilds. Its snapshot stays complete (it still passes every
 * check) until the last CPU reports a quiescent point; then the memory
 * comes back to the heap.
 */
START_TEST(test_reader_keeps_snapshot)
{
	struct machine *m = machine_grid(2, 2, 2, 2);
	struct heap_stats before, one;
	struct sched_topology *reader, *now;
	struct sched_domain *affine;

	before = stats();
	ck_assert_int_eq(sched_topology_rebuild(m, NULL), 0);
	one = stats();
	ck_assert_uint_gt(one.large_pages, before.large_pages);
	quiesce(0, 8);

	reader = sched_topology_current();
	ck_assert_uint_eq(reader->gen, 1);
	affine = sbm_affine_sd(reader, 0, 5);
	ck_assert_ptr_nonnull(affine);

	ck_assert_int_eq(sched_topology_rebuild(m, NULL), 0);
	now = sched_topology_current();
	ck_assert_ptr_ne(now, reader);
	ck_assert_uint_eq(now->gen, 2);
	ck_assert_uint_eq(sched_topology_pending(), 1);

	/* Seven of eight CPUs pass a quiescent point: the old one must survive. */
	quiesce(0, 7);
	ck_assert_uint_eq(sched_topology_pending(), 1);
	ck_assert_int_eq(sched_topology_validate(reader), 0);
	ck_assert_ptr_eq(sbm_affine_sd(reader, 0, 5), affine);
	ck_assert_str_eq(mask_str(&affine->span), "0-7");
	ck_assert_uint_gt(stats().large_pages, one.large_pages);

	/* The last one: the old generation goes, and exactly its memory comes back. */
	sched_topology_quiescent(7);
	ck_assert_uint_eq(sched_topology_pending(), 0);
	expect_same_heap(stats(), one);
	ck_assert_ptr_eq(sched_topology_current(), now);
	ck_assert_int_eq(sched_topology_validate(now), 0);
	free(m);
}
END_TEST

/* A quiescent point from before the rebuild does not count. */
START_TEST(test_quiescent_must_follow_publish)
{
	struct machine *m = machine_grid(1, 2, 2, 1);

	ck_assert_int_eq(sched_topology_rebuild(m, NULL), 0);
	quiesce(0, 4);
	ck_assert_int_eq(sched_topology_rebuild(m, NULL), 0);
	ck_assert_int_eq(sched_topology_rebuild(m, NULL), 0); /* two generations waiting */
	ck_assert_uint_eq(sched_topology_pending(), 2);
	quiesce(1, 4); /* CPU 0 never reported since */
	ck_assert_uint_eq(sched_topology_pending(), 2);
	sched_topology_quiescent(0);
	ck_assert_uint_eq(sched_topology_pending(), 0);
	free(m);
}
END_TEST

/* A tick landing inside a read section is not a quiescent point for that CPU. */
START_TEST(test_read_section)
{
	struct machine *m = machine_grid(1, 2, 2, 1);
	struct sched_topology *reader;

	ck_assert_int_eq(sched_topology_rebuild(m, NULL), 0);
	quiesce(0, 4);
	reader = sched_topology_read_begin(2);
	ck_assert_ptr_eq(reader, sched_topology_current());
	ck_assert_ptr_eq(sched_topology_read_begin(2), reader); /* nested */
	ck_assert_int_eq(sched_topology_rebuild(m, NULL), 0);
	quiesce(0, 4); /* CPU 2's "tick" interrupts its reader */
	ck_assert_uint_eq(sched_topology_pending(), 1);
	sched_topology_read_end(2);
	sched_topology_quiescent(2);
	ck_assert_uint_eq(sched_topology_pending(), 1); /* still one level deep */
	ck_assert_int_eq(sched_topology_validate(reader), 0);
	sched_topology_read_end(2);
	sched_topology_quiescent(2);
	ck_assert_uint_eq(sched_topology_pending(), 0);
	sched_topology_read_end(2); /* unbalanced: ignored */
	sched_topology_quiescent(2);
	free(m);
}
END_TEST

/* CPU 7 is unplugged: the old generation waits for it until it says it has stopped. */
START_TEST(test_cpu_offline)
{
	struct machine *m = machine_grid(2, 2, 2, 2);
	struct cpumask online = CPUMASK_EMPTY;
	struct heap_stats st;

	ck_assert_int_eq(sched_topology_rebuild(m, NULL), 0);
	quiesce(0, 8);
	cpumask_set_range(&online, 0, 7);
	ck_assert_int_eq(sched_topology_rebuild(m, &online), 0);
	ck_assert_ptr_null(cpu_sd(sched_topology_current(), 7));
	ck_assert_str_eq(mask_str(&cpu_sd(sched_topology_current(), 6)->span), "4-6");
	quiesce(0, 7);
	ck_assert_uint_eq(sched_topology_pending(), 1); /* CPU 7 may still be mid wake-up */
	sched_topology_cpu_offline(7);
	ck_assert_uint_eq(sched_topology_pending(), 0);

	/* An offline CPU never holds anything up... */
	ck_assert_int_eq(sched_topology_rebuild(m, &online), 0);
	quiesce(0, 7);
	ck_assert_uint_eq(sched_topology_pending(), 0);

	/* ...until it comes back and reports in. */
	sched_topology_quiescent(7);
	ck_assert_int_eq(sched_topology_rebuild(m, NULL), 0);
	quiesce(0, 7);
	ck_assert_uint_eq(sched_topology_pending(), 1);
	sched_topology_quiescent(7);
	ck_assert_uint_eq(sched_topology_pending(), 0);

	/* Many rebuilds with quiescent points between them leak nothing. */
	st = stats();
	for (int i = 0; i < 50; i++) {
		ck_assert_int_eq(sched_topology_rebuild(m, NULL), 0);
		quiesce(0, 8);
	}
	ck_assert_uint_eq(sched_topology_pending(), 0);
	expect_same_heap(stats(), st);
	free(m);
}
END_TEST

START_TEST(test_bad_rebuild_keeps_current)
{
	struct machine *m = machine_grid(2, 2, 2, 2);
	struct sched_topology *t;
	struct heap_stats st;

	ck_assert_int_eq(sched_topology_rebuild(m, NULL), 0);
	t = sched_topology_current();
	st = stats();
	m->cpu[3].node = 9;
	fake_console_reset();
	ck_assert_int_eq(sched_topology_rebuild(m, NULL), -EINVAL);
	ck_assert_ptr_nonnull(strstr(fake_console_text(), "topology: CPU3 on node 9 of 2\n"));
	ck_assert_ptr_nonnull(strstr(fake_console_text(),
				     "topology: rebuild failed (-22), generation 1 stays\n"));
	ck_assert_ptr_eq(sched_topology_current(), t);
	ck_assert_uint_eq(sched_topology_pending(), 0);
	expect_same_heap(stats(), st);
	free(m);
}
END_TEST

/*
 * Out of memory at every point of a build: take all free memory as
 * ballast, then give it back 64 KiB at a time, rebuilding a 256-CPU
 * topology after each step. Every failed attempt returns -ENOMEM and
 * leaves the published generation and the heap exactly as they were;
 * in the end there is room and the rebuild succeeds.
 */
START_TEST(test_oom_everywhere)
{
	enum { MAX_BALLAST = 2048 };
	static void *big[MAX_BALLAST], *small[MAX_BALLAST];
	struct machine *m = machine_grid(8, 16, 2, 8), *m0 = machine_grid(2, 2, 2, 2);
	struct sched_topology *t0;
	struct heap_stats st;
	u32 nbig = 0, nsmall = 0, failures = 0;
	u64 nr_free;
	int err;

	topo_test_stop();
	topo_test_start(4 * MiB);
	ck_assert_int_eq(sched_topology_rebuild(m0, NULL), 0);
	t0 = sched_topology_current();
	quiesce(0, 8);

	while (nbig < MAX_BALLAST && (big[nbig] = alloc_pages(4)))
		nbig++;
	while (nsmall < MAX_BALLAST && (small[nsmall] = alloc_pages(0)))
		nsmall++;
	ck_assert_uint_eq(page_alloc_free_pages(), 0);

	for (;;) {
		st = stats();
		nr_free = page_alloc_free_pages();
		err = sched_topology_rebuild(m, NULL);
		if (!err)
			break;
		ck_assert_int_eq(err, -ENOMEM);
		failures++;
		ck_assert_ptr_eq(sched_topology_current(), t0);
		ck_assert_uint_eq(sched_topology_pending(), 0);
		expect_same_heap(stats(), st);
		ck_assert_uint_eq(page_alloc_free_pages(), nr_free);
		ck_assert_msg(nbig > 0, "no room for a 256-CPU topology in 4 MiB");
		free_pages(big[--nbig], 4);
	}
	ck_assert_uint_ge(failures, 8); /* it failed at many different points */
	ck_assert_ptr_ne(sched_topology_current(), t0);
	ck_assert_uint_eq(sched_topology_current()->nr_cpus, 256);
	quiesce(0, 256);
	ck_assert_uint_eq(sched_topology_pending(), 0);
	while (nbig)
		free_pages(big[--nbig], 4);
	while (nsmall)
		free_pages(small[--nsmall], 0);
	free(m);
	free(m0);
}
END_TEST

/*
 * Real threads: reader "CPUs" walk whole snapshots while a writer rebuilds
 * between two shapes 300 times. A snapshot freed too early would be reused
 * (and zeroed) by the next build under the reader's feet: the walk checks
 * that its generation stays whole from start to end.
 */
enum { NR_READERS = 3, NR_REBUILDS = 300 };

static bool stop_readers;
static unsigned long torn_snapshots, reads;

static bool walk_is_whole(const struct sched_topology *t)
{
	u64 gen = t->gen;
	u32 cpu, other;

	for_each_cpu (cpu, &t->online) {
		const struct sched_domain *sd;

		for_each_domain (t, cpu, sd) {
			const struct sched_group *sg = sd->groups;
			u32 n = 0;

			if (!cpumask_test_cpu(cpu, &sd->span) || !sg)
				return false;
			do {
				if (++n > sd->span_weight || !sg->power)
					return false;
				sg = sg->next;
			} while (sg != sd->groups);
		}
		for (other = 0; other < t->nr_cpus; other++) {
			const struct sched_domain *a = sbm_affine_sd(t, cpu, other);

			if (a && !cpumask_test_cpu(other, &a->span))
				return false;
		}
	}
	return __atomic_load_n(&t->gen, __ATOMIC_RELAXED) == gen && gen != 0;
}

static void *reader(void *arg)
{
	u32 cpu = (u32)(uintptr_t)arg;

	while (!__atomic_load_n(&stop_readers, __ATOMIC_ACQUIRE)) {
		struct sched_topology *t = sched_topology_read_begin(cpu);

		if (t->gen && !walk_is_whole(t))
			__atomic_fetch_add(&torn_snapshots, 1, __ATOMIC_RELAXED);
		__atomic_fetch_add(&reads, 1, __ATOMIC_RELAXED);
		sched_topology_read_end(cpu);
		sched_topology_quiescent(cpu);
	}
	sched_topology_cpu_offline(cpu);
	return NULL;
}

START_TEST(test_smp_readers_and_rebuilds)
{
	struct machine *m = machine_grid(2, 4, 2, 2);
	struct cpumask some = CPUMASK_EMPTY;
	pthread_t th[NR_READERS];
	struct heap_stats st;

	cpumask_set_range(&some, 0, 11);
	/* The writer is CPU 15; CPUs without a reader thread have stopped. */
	for (u32 cpu = NR_READERS; cpu < 16; cpu++)
		sched_topology_cpu_offline(cpu);
	st = stats();
	for (uintptr_t i = 0; i < NR_READERS; i++)
		ck_assert_int_eq(pthread_create(&th[i], NULL, reader, (void *)i), 0);
	for (int i = 0; i < NR_REBUILDS; i++)
		ck_assert_int_eq(sched_topology_rebuild(m, i % 2 ? &some : NULL), 0);
	__atomic_store_n(&stop_readers, true, __ATOMIC_RELEASE);
	for (int i = 0; i < NR_READERS; i++)
		ck_assert_int_eq(pthread_join(th[i], NULL), 0);
	ck_assert_uint_eq(torn_snapshots, 0);
	ck_assert_uint_gt(reads, NR_READERS);
	/* Every CPU is offline now: only the current generation is left. */
	sched_topology_quiescent(15);
	sched_topology_cpu_offline(15);
	ck_assert_uint_eq(sched_topology_pending(), 0);
	ck_assert_uint_gt(stats().large_pages, st.large_pages);
	ck_assert_int_eq(sched_topology_validate(sched_topology_current()), 0);
	free(m);
}
END_TEST

Suite *topology_gen_suite(void)
{
	Suite *s = suite_create("topology_gen");
	TCase *tc = tcase_create("generations");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_never_null);
	tcase_add_test(tc, test_reader_keeps_snapshot);
	tcase_add_test(tc, test_quiescent_must_follow_publish);
	tcase_add_test(tc, test_read_section);
	tcase_add_test(tc, test_cpu_offline);
	tcase_add_test(tc, test_bad_rebuild_keeps_current);
	tcase_add_test(tc, test_oom_everywhere);
	tcase_add_test(tc, test_smp_readers_and_rebuilds);
	suite_add_tcase(s, tc);
	return s;
}

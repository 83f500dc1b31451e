/*
 * Host tests of per-entity load tracking (kernel/sched/pelt.c): the decay
 * table against its formula, the arithmetic of one signal (a 50% duty
 * cycle settles at half of 1024, a sleeper's load halves every 32
 * periods), and the fair class's hooks on the simulated machine (a task's
 * sums follow it from queue to queue).
 */
#include "fake_arch.h"
#include "sched/fair_internal.h"
#include "sched/pelt.h"
#include "sched_sim.h"
#include "unit.h"

/* One PELT period in ns: 1024 units of 1024 ns. */
#define PERIOD_NS (1024ULL * 1024ULL)

/* y = 2^(-1/32) by bisection on y^32 = 1/2 (no libm). */
static long double pelt_y(void)
{
	long double lo = 0.5L, hi = 1.0L;

	for (int i = 0; i < 200; i++) {
		long double mid = (lo + hi) / 2, p = mid;

		for (int k = 0; k < 5; k++)
			p *= p; /* mid^32 */
		if (p < 0.5L)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

START_TEST(test_decay_table_matches_formula)
{
	long double y = pelt_y(), yn = 1.0L;

	for (int n = 0; n < LOAD_AVG_PERIOD; n++, yn *= y) {
		long double want = yn * 4294967296.0L;
		u64 w = want >= 4294967295.0L ? 0xffffffffULL : (u64)want;

		ck_assert_msg(runnable_avg_yN_inv[n] == w, "y^%d: table %#x, formula %#llx", n,
			      runnable_avg_yN_inv[n], (unsigned long long)w);
	}
	/* y^32 is a half and y^64 a quarter (less one: y^0 is stored as 1 - 2^-32). */
	ck_assert_uint_eq(pelt_decay_load(1 << 20, 32), (1 << 19) - 1);
	ck_assert_uint_eq(pelt_decay_load(1 << 20, 64), (1 << 18) - 1);
	ck_assert_uint_eq(pelt_decay_load(1 << 20, 32 * 63 + 1), 0);
}
END_TEST

/* LOAD_AVG_MAX is where adding 1024 per period and decaying by y stops growing. */
START_TEST(test_load_avg_max_is_the_series_limit)
{
	u64 sum = 0, prev = ~0ULL;
	int periods = 0;

	while (sum != prev) {
		prev = sum;
		sum = pelt_decay_load(sum, 1) + PELT_PERIOD;
		periods++;
	}
	ck_assert_uint_eq(sum, LOAD_AVG_MAX);
	ck_assert_int_ge(periods, 340);
	ck_assert_int_le(periods, 350);
}
END_TEST

/* The utilisation a signal shows at now, as a reader syncing it would see it. */
static unsigned long util_at(const struct sched_avg *sa, u64 now)
{
	struct sched_avg copy = *sa;

	pelt_update_sum(&copy, now, 0, 0, false);
	pelt_update_avg(&copy, 1);
	return copy.util_avg;
}

/*
 * A task running the first 16 ms of every 32 ms, updated each ms (ticks):
 * after two seconds its utilisation, averaged over a cycle, is 512 within
 * 1%; it swings above and below (the half-life is about one cycle).
 */
START_TEST(test_half_duty_util_converges_to_512)
{
	struct sched_avg sa = { .last_update_time = 1 };
	u64 now = 1, sum = 0;
	unsigned long lo = ~0UL, hi = 0;
	int samples = 0;

	for (int ms = 0; ms < 2000 + 32; ms++) {
		bool on = (ms % 32) < 16;

		now += 1000000;
		if (pelt_update_sum(&sa, now, on, on, on))
			pelt_update_avg(&sa, 1024);
		if (ms >= 2000) {
			unsigned long u = util_at(&sa, now);

			sum += u;
			samples++;
			lo = MIN(lo, u);
			hi = MAX(hi, u);
		}
	}
	ck_assert_uint_ge(sum / (u64)samples, 507);
	ck_assert_uint_le(sum / (u64)samples, 517);
	ck_assert_uint_lt(lo, 512);
	ck_assert_uint_gt(hi, 512);
}
END_TEST

/* A saturated sleeper: every 32 periods asleep halve its load, until it is gone. */
START_TEST(test_sleeping_load_halves_every_32_periods)
{
	struct sched_avg sa = { .last_update_time = 1 };
	u64 now = 1;
	unsigned long prev;

	for (int p = 0; p < 400; p++) {
		now += PERIOD_NS;
		if (pelt_update_sum(&sa, now, 1, 1, true))
			pelt_update_avg(&sa, 1024);
	}
	ck_assert_uint_ge(sa.load_avg, 1000);
	ck_assert_uint_ge(sa.util_avg, 1000);
	prev = sa.load_avg;
	for (int half = 1; half <= 6; half++) {
		now += 32 * PERIOD_NS;
		ck_assert(pelt_update_sum(&sa, now, 0, 0, false));
		pelt_update_avg(&sa, 1024);
		ck_assert_msg(sa.load_avg >= prev / 2 - 1 && sa.load_avg <= prev / 2 + 1,
			      "after %d x 32 periods: %lu, before %lu", half, sa.load_avg, prev);
		ck_assert_uint_le(sa.util_avg, sa.load_avg + 1);
		prev = sa.load_avg;
	}
	now += 32 * 64 * PERIOD_NS;
	pelt_update_sum(&sa, now, 0, 0, false);
	pelt_update_avg(&sa, 1024);
	ck_assert_uint_eq(sa.load_avg, 0);
}
END_TEST

/* --------------------------------------------------------- through the fair class */

/*
 * The same duty cycle as a real task on the simulated machine: it runs
 * 16 ticks, sleeps 16. Its own signal and its queue's say 512 (1%).
 */
START_TEST(test_half_duty_task_through_fair_class)
{
	struct task *p;
	u64 sum_task = 0, sum_queue = 0;
	int samples = 0;

	sim_start(1);
	sched_pelt_enabled = true;
	p = sim_task("half", 0, 0);
	sim_schedule(0);
	ck_assert_ptr_eq(sim_curr(0), p);
	for (int cycle = 0; cycle < 64 + 1; cycle++) {
		for (int ms = 0; ms < 32; ms++) {
			if (ms == 16)
				sim_sleep(p);
			if (cycle >= 64) {
				u64 now = sim_rq(0)->clock_task;

				sum_task += util_at(&p->pelt, now);
				sum_queue += util_at(&sim_rq(0)->cfs.pelt.avg, now);
				samples++;
			}
			sim_tick_all();
		}
		sim_wake(p);
		if (sim_curr(0) != p)
			sim_schedule(0);
	}
	ck_assert_uint_ge(sum_task / (u64)samples, 507);
	ck_assert_uint_le(sum_task / (u64)samples, 517);
	ck_assert_uint_ge(sum_queue / (u64)samples, 507);
	ck_assert_uint_le(sum_queue / (u64)samples, 517);
	sched_pelt_enabled = false;
	sim_stop();
}
END_TEST

/*
 * A task moved between queues (the balancer's move) takes its sums along:
 * the old queue loses what the new one gains, and the rest stays put.
 */
static void move_detaches_and_attaches(const char *mode)
{
	struct task *a, *b;
	struct rq *rq0, *rq1;
	unsigned long load0, load1, moved;
	unsigned long flags;

	sched_fair_mode = mode;
	sim_start(2);
	sched_pelt_enabled = true;
	a = sim_task("a", 0, 0);
	b = sim_task("b", 0, 0);
	sim_task("c", 0, 1);
	sim_schedule(0);
	sim_schedule(1);
	sim_run(400 * SIM_TICK_NS);
	rq0 = sim_rq(0);
	rq1 = sim_rq(1);
	/* Two tasks sharing CPU 0: each half busy, the queue full. */
	ck_assert_uint_ge(rq0->cfs.pelt.avg.util_avg, 1000);
	ck_assert_uint_ge(a->pelt.util_avg + b->pelt.util_avg, 1000);
	ck_assert_uint_ge(rq0->cfs.pelt.avg.load_avg, 2000);
	struct task *waiting = sim_curr(0) == a ? b : a;

	load0 = rq0->cfs.pelt.avg.load_avg;
	load1 = rq1->cfs.pelt.avg.load_avg;
	moved = waiting->pelt.load_avg;
	ck_assert_uint_ge(moved, 900);
	flags = arch_irq_save();
	double_rq_lock(rq0, rq1);
	move_queued_task(rq0, rq1, waiting);
	double_rq_unlock(rq0, rq1);
	arch_irq_restore(flags);
	ck_assert_uint_eq(task_cpu(waiting), 1);
	ck_assert_uint_ne(waiting->pelt.last_update_time, 0);
	ck_assert_uint_le(rq0->cfs.pelt.avg.load_avg, load0 - moved + 2);
	ck_assert_uint_ge(rq1->cfs.pelt.avg.load_avg, load1 + moved - 2);
	sched_pelt_enabled = false;
	sim_stop();
	sched_fair_mode = "cfs";
}

START_TEST(test_move_detaches_and_attaches)
{
	move_detaches_and_attaches("cfs");
}
END_TEST

/* EEVDF's dequeue and enqueue for a move carry the sums as CFS's do. */
START_TEST(test_move_detaches_and_attaches_eevdf)
{
	move_detaches_and_attaches("eevdf");
}
END_TEST

/* -------------------------------------------------- the same hooks under EEVDF */

/* What the hooks left in the sums at one moment: the task's and its queue's averages. */
struct pelt_snapshot {
	unsigned long task_util, task_load, rq_util, rq_load, rq_runnable;
};

static struct pelt_snapshot snapshot(const struct task *p)
{
	const struct sched_avg *qa = &sim_rq(0)->cfs.pelt.avg;

	return (struct pelt_snapshot){ .task_util = p->pelt.util_avg,
				       .task_load = p->pelt.load_avg,
				       .rq_util = qa->util_avg,
				       .rq_load = qa->load_avg,
				       .rq_runnable = qa->runnable_avg };
}

/*
 * A task alone on CPU 0 runs 16 ms of every 32 ms for 20 cycles; the
 * sums are read straight after its last dequeue (it fell asleep) and its
 * last enqueue (it woke), without any ageing by the reader: only the
 * enqueue and dequeue hooks can have brought them up to date, since an
 * idle CPU has no fair tick. Alone on its CPU the task runs the same in
 * either mode, so the figures must agree.
 */
static void half_duty_at_edges(const char *mode, struct pelt_snapshot *slept,
			       struct pelt_snapshot *woke)
{
	struct task *p;

	sched_fair_mode = mode;
	sim_start(1);
	sched_pelt_enabled = true;
	p = sim_task("half", 0, 0);
	sim_schedule(0);
	for (int cycle = 0; cycle < 20; cycle++) {
		for (int ms = 0; ms < 32; ms++) {
			if (ms == 16) {
				sim_sleep(p);
				*slept = snapshot(p);
			}
			sim_tick_all();
		}
		sim_wake(p);
		*woke = snapshot(p);
		if (sim_curr(0) != p)
			sim_schedule(0);
	}
	sched_pelt_enabled = false;
	sim_stop();
	sched_fair_mode = "cfs";
}

/* Within 1% of the full scale (10 of 1024), and of a nice-0 load. */
static void assert_close(unsigned long eevdf, unsigned long cfs)
{
	ck_assert_uint_le(eevdf, cfs + 10);
	ck_assert_uint_ge(eevdf + 10, cfs);
}

START_TEST(test_eevdf_enqueue_dequeue_track_as_cfs)
{
	struct pelt_snapshot cfs_slept, cfs_woke, ev_slept, ev_woke;

	half_duty_at_edges("cfs", &cfs_slept, &cfs_woke);
	half_duty_at_edges("eevdf", &ev_slept, &ev_woke);
	/* CFS's own figures first, so that the comparison means something. */
	ck_assert_uint_ge(cfs_slept.task_util, 400);
	ck_assert_uint_ge(cfs_slept.rq_util, 400);
	ck_assert_uint_ge(cfs_woke.rq_load, 400);
	assert_close(ev_slept.task_util, cfs_slept.task_util);
	assert_close(ev_slept.task_load, cfs_slept.task_load);
	assert_close(ev_slept.rq_util, cfs_slept.rq_util);
	assert_close(ev_slept.rq_load, cfs_slept.rq_load);
	assert_close(ev_slept.rq_runnable, cfs_slept.rq_runnable);
	assert_close(ev_woke.task_util, cfs_woke.task_util);
	assert_close(ev_woke.task_load, cfs_woke.task_load);
	assert_close(ev_woke.rq_util, cfs_woke.rq_util);
	assert_close(ev_woke.rq_load, cfs_woke.rq_load);
	assert_close(ev_woke.rq_runnable, cfs_woke.rq_runnable);
}
END_TEST

/* With PELT off (the 3.8 balancer) the hooks leave every sum at zero. */
START_TEST(test_off_by_default)
{
	struct task *p;

	sim_start(1);
	ck_assert(!sched_pelt_enabled);
	p = sim_task("p", 0, 0);
	sim_schedule(0);
	sim_run(100 * SIM_TICK_NS);
	ck_assert_uint_eq(sim_rq(0)->cfs.pelt.avg.load_sum, 0);
	ck_assert_uint_eq(p->pelt.util_sum, 0);
	sim_stop();
}
END_TEST

Suite *pelt_suite(void)
{
	Suite *s = suite_create("pelt");
	TCase *tc = tcase_create("pelt");

	tcase_add_test(tc, test_decay_table_matches_formula);
	tcase_add_test(tc, test_load_avg_max_is_the_series_limit);
	tcase_add_test(tc, test_half_duty_util_converges_to_512);
	tcase_add_test(tc, test_sleeping_load_halves_every_32_periods);
	tcase_add_test(tc, test_half_duty_task_through_fair_class);
	tcase_add_test(tc, test_move_detaches_and_attaches);
	tcase_add_test(tc, test_move_detaches_and_attaches_eevdf);
	tcase_add_test(tc, test_eevdf_enqueue_dequeue_track_as_cfs);
	tcase_add_test(tc, test_off_by_default);
	suite_add_tcase(s, tc);
	return s;
}

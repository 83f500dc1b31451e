/*
 * Host tests of the fair class's EEVDF mode (kernel/sched/eevdf.c,
 * sched_fair=eevdf): the real core and class over the fake clock and CPUs
 * (sched_sim), SCHED_VERIFY on throughout, so eevdf_verify() checks V, the
 * augmented minima and the counts at every enqueue, dequeue and pick. One
 * CPU: base slice 0.75 ms, ticks of 1 ms.
 */
#include <stdio.h>
#include <string.h>

#include "fake_arch.h"
#include "sched/fair_internal.h"
#include "sched_sim.h"
#include "unit.h"

#define MS 1000000ULL
#define US 1000ULL

static void eevdf_start(u32 nr_cpus)
{
	sched_fair_mode = "eevdf";
	sim_start(nr_cpus);
}

static void eevdf_stop(void)
{
	sim_stop();
	sched_fair_mode = "cfs";
}

static void run_until_curr(struct task *p)
{
	for (int i = 0; i < 1000 && sim_curr(task_cpu(p)) != p; i++)
		sim_tick_all();
	ck_assert_ptr_eq(sim_curr(task_cpu(p)), p);
}

/* sim_wake(), then the preemption it asked for, at once as at a real interrupt exit. */
static void wake_now(struct task *p)
{
	sim_wake(p);
	if (sim_rq(task_cpu(p))->need_resched)
		sim_schedule(task_cpu(p));
}

/* curr runs one more tick without the reschedule the tick may ask for. */
static void tick_without_resched(u32 cpu)
{
	fake_clock_ns += SIM_TICK_NS;
	sim_tick(cpu);
}

/* ---------------------------------------------------------------- picking */

/*
 * Two equal tasks on one CPU: each 1 ms tick uses up the running task's
 * 0.75 ms request, its next deadline lies beyond the other's, and the other
 * (eligible, earlier deadline) runs: they alternate tick by tick, and
 * their run times never differ by more than one tick.
 */
START_TEST(test_equal_tasks_alternate_by_deadline)
{
	eevdf_start(1);
	struct task *a = sim_task("a", 0, 0), *b = sim_task("b", 0, 0);
	struct task *prev;
	u32 switches = 0;

	sim_schedule(0);
	prev = sim_curr(0);
	for (int tick = 0; tick < 1000; tick++) {
		struct cfs_rq *cfs_rq = &sim_rq(0)->cfs;
		struct task *waiting = sim_curr(0) == a ? b : a;

		/* The runner had the earlier deadline, or the waiter was not eligible. */
		ck_assert(!eevdf_entity_eligible(cfs_rq, &waiting->se) ||
			  (s64)(sim_curr(0)->se.vlag - (s64)waiting->se.deadline) <= 0);
		sim_tick_all();
		if (sim_curr(0) != prev)
			switches++;
		prev = sim_curr(0);
		ck_assert_uint_le(a->sum_exec_runtime > b->sum_exec_runtime ?
					  a->sum_exec_runtime - b->sum_exec_runtime :
					  b->sum_exec_runtime - a->sum_exec_runtime,
				  SIM_TICK_NS);
	}
	printf("eevdf: 2 equal tasks, 1000 ticks: %u switches, runtimes %llu / %llu ms\n", switches,
	       (unsigned long long)(a->sum_exec_runtime / MS),
	       (unsigned long long)(b->sum_exec_runtime / MS));
	ck_assert_uint_eq(switches, 1000);
	eevdf_stop();
}
END_TEST

/* ---------------------------------------------------------------- lag */

/*
 * Zijlstra's example from the EEVDF posting: a task that always runs
 * against one that wants to run burst ms, then sleep burst ms. With its
 * lag kept across the sleep (PLACE_LAG) the second gets half the CPU only
 * while it is runnable: burst of run in 2 * burst, then burst asleep, a
 * third of the time. CFS's sleeper credit (half a latency period with
 * GENTLE_FAIR_SLEEPERS, here 12 ms of a 24 ms latency) lets it run each
 * burst at once on waking: half the time.
 */
#define DUTY_BURST (8 * MS)

static double duty_share(bool eevdf)
{
	struct task *hog, *duty;
	u64 burst_start = 0, woke_at = 0, sleep_until = 0, total;
	bool asleep = false;

	if (eevdf)
		eevdf_start(1);
	else
		sim_start(1);
	ck_assert_int_eq(sched_tunable_set("sched_latency_ns", 24 * MS, 1), 0);
	hog = sim_task("hog", 0, 0);
	duty = sim_task("duty", 0, 0);
	sim_schedule(0);
	/* Settle for a second, then measure over ten. */
	for (int phase = 0; phase < 2; phase++) {
		u64 hog0 = hog->sum_exec_runtime, duty0 = duty->sum_exec_runtime;
		u64 ticks = phase ? 10000 : 1000;

		for (u64 t = 0; t < ticks; t++) {
			sim_tick_all();
			if (asleep && fake_clock_ns >= sleep_until) {
				wake_now(duty);
				asleep = false;
				burst_start = duty->sum_exec_runtime;
				woke_at = fake_clock_ns;
			}
			if (!asleep && sim_curr(0) == duty &&
			    duty->sum_exec_runtime - burst_start >= DUTY_BURST) {
				sim_sleep(duty);
				asleep = true;
				sleep_until = fake_clock_ns + DUTY_BURST;
			}
		}
		(void)woke_at;
		if (phase) {
			total = (hog->sum_exec_runtime - hog0) + (duty->sum_exec_runtime - duty0);
			ck_assert_uint_eq(total, 10000 * MS);
			if (eevdf)
				eevdf_stop();
			else
				sim_stop();
			return (double)(duty->sum_exec_runtime - duty0) / (double)total;
		}
	}
	return 0;
}

START_TEST(test_duty_task_gets_a_third_under_place_lag)
{
	double eevdf = duty_share(true), cfs = duty_share(false);

	printf("eevdf: 100%% vs 50%%-duty (%llu ms bursts): duty share %.4f under EEVDF "
	       "(want 1/3), %.4f under CFS (want 1/2)\n",
	       (unsigned long long)(DUTY_BURST / MS), eevdf, cfs);
	ck_assert(eevdf > 1.0 / 3 - 0.02 && eevdf < 1.0 / 3 + 0.02);
	ck_assert(cfs > 0.5 - 0.02 && cfs < 0.5 + 0.02);
}
END_TEST

/* ---------------------------------------------------------------- preemption */

/*
 * A hog with a 10 ms slice, just picked (its slice protected by
 * RUN_TO_PARITY), and a waker with the shortest slice, 0.1 ms: with
 * PREEMPT_SHORT the waker's earlier deadline wins at once; without, the
 * hog keeps the CPU until its request is used (its protected slice, with
 * RUN_TO_PARITY).
 */
static bool short_waker_preempts(bool preempt_short)
{
	struct task *hog, *w;
	bool preempted;

	eevdf_start(1);
	sim_feature("PREEMPT_SHORT", preempt_short);
	/*
	 * The waker comes back at V exactly, level with the hog: a waker with
	 * credit would make the hog ineligible, and win on that alone.
	 */
	sim_feature("PLACE_LAG", false);
	hog = sim_task("hog", 0, 0);
	w = sim_task("waker", 0, 0);
	ck_assert_uint_eq(sched_set_slice(hog, 10 * MS), 10 * MS);
	ck_assert_uint_eq(sched_set_slice(w, 1), 100 * US);
	sim_schedule(0);
	run_until_curr(w);
	sim_sleep(w);
	sim_run(50 * MS);
	ck_assert_ptr_eq(sim_curr(0), hog);
	sim_schedule(0); /* the hog is picked anew: a fresh protected slice */
	ck_assert_ptr_eq(sim_curr(0), hog);
	ck_assert(!sim_rq(0)->need_resched);
	sim_wake(w);
	preempted = sim_rq(0)->need_resched;
	eevdf_stop();
	return preempted;
}

START_TEST(test_short_slice_waker_preempts)
{
	ck_assert(short_waker_preempts(true));
	ck_assert(!short_waker_preempts(false));
}
END_TEST

/* ---------------------------------------------------------------- delayed dequeue */

/*
 * a runs a tick ahead of b, so it is not eligible, and goes to sleep. With
 * DELAY_DEQUEUE it stays queued (the core sees it asleep) until its turn
 * would come, by which time V has caught up with it: it leaves with lag
 * zero, not the debt it had. Without, it leaves at once with that debt.
 */
static s64 lag_on_leaving(bool delay, bool *was_delayed)
{
	struct task *a, *b;
	struct cfs_rq *cfs_rq;
	s64 lag;

	eevdf_start(1);
	sim_feature("DELAY_DEQUEUE", delay);
	a = sim_task("a", 0, 0);
	b = sim_task("b", 0, 0);
	cfs_rq = &sim_rq(0)->cfs;
	sim_schedule(0);
	run_until_curr(a);
	tick_without_resched(0);
	ck_assert(!eevdf_entity_eligible(cfs_rq, &a->se));
	sim_sleep(a);
	*was_delayed = a->se.sched_delayed;
	ck_assert_int_eq(a->on_rq, 0);
	ck_assert_uint_eq(cfs_rq->nr_delayed, *was_delayed ? 1 : 0);
	ck_assert_uint_eq(cfs_rq->nr_running, 1);
	for (int i = 0; i < 100 && a->se.sched_delayed; i++) {
		/* Burning off: a's lag grows towards zero while b runs. */
		sim_tick_all();
	}
	ck_assert(!a->se.sched_delayed);
	ck_assert_uint_eq(cfs_rq->nr_delayed, 0);
	ck_assert_ptr_eq(sim_curr(0), b);
	lag = a->se.vlag;
	sim_wake(a); /* and it wakes like any sleeper */
	ck_assert_int_eq(a->on_rq, 1);
	eevdf_stop();
	return lag;
}

START_TEST(test_delayed_dequeue_burns_off_negative_lag)
{
	bool delayed;
	s64 with = lag_on_leaving(true, &delayed), without;

	ck_assert(delayed);
	ck_assert_int_eq(with, 0);
	without = lag_on_leaving(false, &delayed);
	ck_assert(!delayed);
	ck_assert_int_lt(without, 0);
	printf("eevdf: a non-eligible sleeper leaves with lag %lld ns under DELAY_DEQUEUE, "
	       "%lld ns without\n",
	       (long long)with, (long long)without);
}
END_TEST

/* A delayed task woken before its turn leaves its old queue first, then wakes normally. */
START_TEST(test_delayed_task_woken_early)
{
	eevdf_start(1);
	struct task *a = sim_task("a", 0, 0), *b = sim_task("b", 0, 0);

	(void)b;
	sim_schedule(0);
	run_until_curr(a);
	tick_without_resched(0);
	sim_sleep(a);
	ck_assert(a->se.sched_delayed);
	sim_wake(a);
	ck_assert(!a->se.sched_delayed);
	ck_assert_int_eq(a->on_rq, 1);
	ck_assert(a->se.on_rq);
	ck_assert_uint_eq(sim_rq(0)->cfs.nr_running, 2);
	ck_assert_int_lt(a->se.vlag, 0); /* the debt it had is kept */
	sim_run(100 * MS);
	eevdf_stop();
}
END_TEST

/* ---------------------------------------------------------------- slices and lag limits */

START_TEST(test_set_slice_clamps)
{
	eevdf_start(1);
	struct task *p = sim_task("p", 0, 0);

	ck_assert_uint_eq(p->se.slice, 750 * US);
	ck_assert_uint_eq(sched_set_slice(p, 1), 100 * US);
	ck_assert(p->se.custom_slice);
	ck_assert_uint_eq(sched_set_slice(p, 5 * MS), 5 * MS);
	ck_assert_uint_eq(sched_set_slice(p, 1000 * MS), 100 * MS);
	ck_assert_uint_eq(sched_set_slice(p, 0), 750 * US);
	ck_assert(!p->se.custom_slice);
	eevdf_stop();
}
END_TEST

/*
 * The lag a task takes away is bounded by two slices (at least a 4 ms
 * tick) in its virtual time: a nice-0 hog that ran alone for a second
 * against a task that then sleeps owes at most 4 ms.
 */
START_TEST(test_lag_is_clamped)
{
	eevdf_start(1);
	struct task *hog = sim_task("hog", 0, 0), *s = sim_task("s", 19, 0);

	sim_schedule(0);
	run_until_curr(s);
	sim_run(1000 * MS);
	run_until_curr(s);
	sim_feature("DELAY_DEQUEUE", false);
	sim_sleep(s);
	/* nice 19 (weight 15): 4 ms of wall time is 4 ms * 1024 / 15 of its virtual time. */
	ck_assert_int_ge(s->se.vlag, -(s64)(4 * MS * 1024 / 15) - 1);
	ck_assert_int_le(s->se.vlag, (s64)(4 * MS * 1024 / 15) + 1);
	(void)hog;
	eevdf_stop();
}
END_TEST

/*
 * Where the clamp bites: a nice -20 task waits out a nice-0 hog's 100 ms
 * slice, while V moves on by about 100 ms * 1024 / (88761 + 1024), some
 * 25 times what two of its slices (at least a 4 ms tick) are worth in its
 * virtual time. Picked at last, it sleeps at once: it leaves with exactly
 * that limit, no more, and no less (a lag of 0 is not clamped, it is lost).
 */
START_TEST(test_lag_clamp_heavy_waiter)
{
	eevdf_start(1);
	struct task *hog = sim_task("hog", 0, 0), *w = sim_task("w", -20, 0);
	struct cfs_rq *cfs_rq = &sim_rq(0)->cfs;
	s64 limit, lag = 0;

	sim_feature("DELAY_DEQUEUE", false);
	ck_assert_uint_eq(sched_set_slice(hog, 100 * MS), 100 * MS);
	limit = (s64)calc_delta_fair(MAX(2 * w->se.slice, 4 * MS), &w->se);
	sim_schedule(0);
	for (int tick = 0; tick < 2000; tick++) {
		sim_tick_all();
		lag = (s64)(eevdf_avg_vruntime(cfs_rq) - w->se.vruntime);
		if (sim_curr(0) == w && lag > 2 * limit)
			break;
	}
	ck_assert_msg(sim_curr(0) == w && lag > 2 * limit,
		      "the nice -20 task never came back with V - v over twice its limit %lld ns "
		      "(last %lld ns): the hog's 100 ms slice was not run out?",
		      (long long)limit, (long long)lag);
	sim_sleep(w);
	ck_assert_msg(w->se.vlag == limit,
		      "nice -20 task left with lag %lld ns, V - v was %lld ns: expected it clamped "
		      "to %lld ns (the larger of two 0.75 ms slices and a 4 ms tick, in its virtual time)",
		      (long long)w->se.vlag, (long long)lag, (long long)limit);
	(void)hog;
	eevdf_stop();
}
END_TEST

/* ---------------------------------------------------------------- checking */

/* A wrong augmented minimum, or key sum, is caught and named. */
START_TEST(test_verify_catches_broken_state)
{
	eevdf_start(1);
	struct task *t[4];
	struct cfs_rq *cfs_rq = &sim_rq(0)->cfs;
	struct sched_entity *root;

	for (int i = 0; i < 4; i++)
		t[i] = sim_task("t", 0, 0);
	(void)t;
	sim_schedule(0);
	sim_run(20 * MS);
	ck_assert_int_eq(eevdf_verify(sim_rq(0)), 0);

	root = timeline_entity(cfs_rq->tasks_timeline.root.node);
	root->min_vruntime += 1;
	fake_console_reset();
	ck_assert_int_ne(eevdf_verify(sim_rq(0)), 0);
	ck_assert_ptr_nonnull(strstr(fake_console_text(), "augmented min_vruntime is wrong"));
	root->min_vruntime -= 1;

	cfs_rq->avg_vruntime += 1;
	fake_console_reset();
	ck_assert_int_ne(eevdf_verify(sim_rq(0)), 0);
	ck_assert_ptr_nonnull(strstr(fake_console_text(), "avg_vruntime is not the weighted sum"));
	cfs_rq->avg_vruntime -= 1;
	fake_console_reset();
	ck_assert_int_eq(eevdf_verify(sim_rq(0)), 0);
	eevdf_stop();
}
END_TEST

/* Two CPUs and the balancer: tasks move, lags travel with them, every check holds. */
START_TEST(test_two_cpus_with_balancing)
{
	eevdf_start(2);
	struct task *t[5];

	for (int i = 0; i < 5; i++) {
		t[i] = sim_task("spin", i % 3 - 1, 0);
		cpumask_set_cpu(1, &t[i]->cpus_allowed);
		t[i]->nr_cpus_allowed = 2;
	}
	sim_schedule(0);
	sim_schedule(1);
	for (int i = 0; i < 2000; i++) {
		sim_tick_all();
		if (i % 97 == 0 && sim_curr(0) != sim_rq(0)->idle)
			sim_sleep(sim_curr(0));
		for (int k = 0; k < 5; k++)
			if (i % 53 == k && !t[k]->on_rq)
				sim_wake(t[k]);
	}
	ck_assert_int_eq(sim_verify_all(), 0);
	eevdf_stop();
}
END_TEST

/* ---------------------------------------------------------------- the reference model (lab 6) */

/*
 * The model every EEVDF decision is checked against here, recomputed from
 * the queued entities (curr included): V is their weight-averaged vruntime,
 * an entity is eligible iff v <= V, and its deadline lies at most one slice
 * of its virtual time, slice * 1024 / w, beyond its vruntime.
 */
struct ref_queue {
	s64 sum, load; /* sum of (v - min_vruntime) * w, sum of w */
};

static struct ref_queue ref_of(struct task **t, int n)
{
	struct cfs_rq *cfs_rq = &sim_rq(0)->cfs;
	struct ref_queue q = { 0, 0 };

	for (int i = 0; i < n; i++) {
		if (!t[i]->se.on_rq)
			continue;
		q.sum += (s64)(t[i]->se.vruntime - cfs_rq->min_vruntime) * (s64)t[i]->se.weight;
		q.load += (s64)t[i]->se.weight;
	}
	return q;
}

static bool ref_eligible(const struct ref_queue *q, struct task *p)
{
	s64 key = (s64)(p->se.vruntime - sim_rq(0)->cfs.min_vruntime);

	return q->sum >= key * q->load;
}

/*
 * Nice -5, 0 and 5 on one CPU for 3 s: at every tick eligibility is v <= V
 * with the running task counted, every deadline is within a slice of its
 * vruntime in that task's virtual time, and a newly picked task is eligible
 * with no eligible waiter of an earlier deadline; CPU time ends in
 * proportion to the weights, within 2%.
 */
START_TEST(test_reference_model_weighted)
{
	static const int nice[3] = { -5, 0, 5 };
	struct task *t[3], *prev;
	u64 total = 0;
	u32 picks = 0;

	eevdf_start(1);
	for (int i = 0; i < 3; i++)
		t[i] = sim_task("w", nice[i], 0);
	sim_schedule(0);
	prev = sim_curr(0);
	for (int tick = 0; tick < 3000; tick++) {
		struct ref_queue q;
		struct task *curr;

		sim_tick_all();
		q = ref_of(t, 3);
		curr = sim_curr(0);
		for (int i = 0; i < 3; i++) {
			u64 vslice = t[i]->se.slice * 1024 / t[i]->se.weight;

			if (eevdf_entity_eligible(&sim_rq(0)->cfs, &t[i]->se) !=
			    ref_eligible(&q, t[i]))
				ck_abort_msg("tick %d: nice %d task %s eligible, the model says %s",
					     tick, nice[i], ref_eligible(&q, t[i]) ? "not" : "is",
					     ref_eligible(&q, t[i]) ? "it is" : "it is not");
			if ((s64)(t[i]->se.deadline - t[i]->se.vruntime) > (s64)vslice + 1)
				ck_abort_msg("tick %d: nice %d task's deadline %lld ns of virtual time past its "
					     "vruntime, more than slice * 1024 / weight = %llu",
					     tick, nice[i],
					     (long long)(t[i]->se.deadline - t[i]->se.vruntime),
					     (unsigned long long)vslice);
		}
		if (curr != prev) {
			picks++;
			if (!ref_eligible(&q, curr))
				ck_abort_msg("tick %d: picked nice %d task is not eligible (v > V)",
					     tick, curr->nice);
			for (int i = 0; i < 3; i++)
				if (t[i] != curr && ref_eligible(&q, t[i]) &&
				    (s64)(t[i]->se.deadline - curr->se.deadline) < 0)
					ck_abort_msg("tick %d: picked nice %d task, but eligible nice %d task has an "
						     "earlier deadline",
						     tick, curr->nice, nice[i]);
		}
		prev = curr;
	}
	for (int i = 0; i < 3; i++)
		total += t[i]->sum_exec_runtime;
	printf("eevdf: nice -5/0/5 for 3 s: %llu/%llu/%llu ms, %u picks\n",
	       (unsigned long long)(t[0]->sum_exec_runtime / MS),
	       (unsigned long long)(t[1]->sum_exec_runtime / MS),
	       (unsigned long long)(t[2]->sum_exec_runtime / MS), picks);
	for (int i = 0; i < 3; i++) {
		double want = (double)total * (double)t[i]->se.weight / (3121 + 1024 + 335);
		double got = (double)t[i]->sum_exec_runtime;

		if (got < want * 0.98 || got > want * 1.02)
			ck_abort_msg("nice %d task got %.0f ms of %.0f, expected %.0f (tolerance 2%%)",
				     nice[i], got / MS, (double)total / MS, want / MS);
	}
	eevdf_stop();
}
END_TEST

/*
 * A task that leaves with lag L (here a debt: it ran a tick past its pick)
 * comes back exactly L from the V that its own arrival makes, not from the
 * V before it: placement inflates the lag by (W + w) / W. Tolerance: 2 ns
 * of rounding.
 */
START_TEST(test_place_keeps_lag)
{
	struct task *t[3];
	struct cfs_rq *cfs_rq;
	s64 lag, after;

	eevdf_start(1);
	sim_feature("DELAY_DEQUEUE", false);
	t[0] = sim_task("a", 0, 0);
	t[1] = sim_task("b", 0, 0);
	t[2] = sim_task("c", -5, 0);
	cfs_rq = &sim_rq(0)->cfs;
	sim_schedule(0);
	sim_run(50 * MS);
	run_until_curr(t[2]);
	tick_without_resched(0);
	sim_sleep(t[2]);
	lag = t[2]->se.vlag;
	ck_assert_msg(lag < -1000, "c left with lag %lld ns, expected a debt", (long long)lag);
	sim_run(10 * MS);
	sim_wake(t[2]);
	after = (s64)(eevdf_avg_vruntime(cfs_rq) - t[2]->se.vruntime);
	printf("eevdf: left with lag %lld ns, placed %lld ns from the new V\n", (long long)lag,
	       (long long)after);
	ck_assert_msg(after - lag <= 2 && lag - after <= 2,
		      "left with lag %lld ns, placed %lld ns from the V after its arrival (tolerance 2 ns)",
		      (long long)lag, (long long)after);
	eevdf_stop();
}
END_TEST

Suite *eevdf_suite(void)
{
	Suite *s = suite_create("eevdf");
	TCase *tc = tcase_create("eevdf");

	tcase_add_test(tc, test_equal_tasks_alternate_by_deadline);
	tcase_add_test(tc, test_duty_task_gets_a_third_under_place_lag);
	tcase_add_test(tc, test_short_slice_waker_preempts);
	tcase_add_test(tc, test_delayed_dequeue_burns_off_negative_lag);
	tcase_add_test(tc, test_delayed_task_woken_early);
	tcase_add_test(tc, test_set_slice_clamps);
	tcase_add_test(tc, test_lag_is_clamped);
	tcase_add_test(tc, test_lag_clamp_heavy_waiter);
	tcase_add_test(tc, test_verify_catches_broken_state);
	tcase_add_test(tc, test_two_cpus_with_balancing);
	tcase_add_test(tc, test_reference_model_weighted);
	tcase_add_test(tc, test_place_keeps_lag);
	tcase_set_timeout(tc, 120);
	suite_add_tcase(s, tc);
	return s;
}

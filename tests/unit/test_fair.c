/*
 * Host tests of the CFS class (kernel/sched/fair.c) and its arithmetic
 * (kernel/sched/load.c): the real code on the core's runqueues, a fake
 * clock and fake CPUs (sched_sim), SCHED_VERIFY on throughout. Figures are
 * 1-CPU tunables unless a test says otherwise: latency 6 ms, minimum
 * granularity 0.75 ms, wake-up granularity 1 ms.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "fake_arch.h"
#include "sched_sim.h"
#include "unit.h"

#define MS 1000000ULL
#define US 1000ULL

#define LATENCY_1CPU	 (6 * MS)
#define WAKEUP_GRAN_1CPU (1 * MS)
#define MIN_GRAN_1CPU	 (750 * US)

static u64 runtime(const struct task *p)
{
	return p->sum_exec_runtime;
}

/* Ticks until p is the running task on its CPU (it must get there within a second). */
static void run_until_curr(struct task *p)
{
	for (int i = 0; i < 1000 && sim_curr(task_cpu(p)) != p; i++)
		sim_tick_all();
	ck_assert_ptr_eq(sim_curr(task_cpu(p)), p);
}

/* A task on CPU 0 that has run and is now asleep there. */
static struct task *sleeper(const char *name, int nice)
{
	struct task *p = sim_task(name, nice, 0);

	run_until_curr(p);
	sim_sleep(p);
	return p;
}

/* ---------------------------------------------------------------- sharing */

/*
 * Equal tasks: at every tick, no task's vruntime is more than one slice
 * (plus the tick that notices it) ahead of another's. Runtimes follow
 * vruntimes, offset by where each task was placed when it started.
 */
#define SHARE_SPREAD_SLACK SIM_TICK_NS

static u64 spread(struct task *const *t, int n, u64 (*key)(const struct task *))
{
	u64 lo = key(t[0]), hi = lo;

	for (int i = 1; i < n; i++) {
		if ((s64)(key(t[i]) - lo) < 0)
			lo = key(t[i]);
		if ((s64)(key(t[i]) - hi) > 0)
			hi = key(t[i]);
	}
	return hi - lo;
}

static u64 vruntime(const struct task *p)
{
	return p->se.vruntime;
}

START_TEST(test_equal_tasks_share_within_a_slice)
{
	struct task *t[3];
	u64 slice = LATENCY_1CPU / 3, start_spread, max_v = 0, max_rt = 0;

	sim_start(1);
	for (int i = 0; i < 3; i++)
		t[i] = sim_task("equal", 0, 0);
	start_spread = spread(t, 3, vruntime);
	sim_schedule(0);
	for (int tick = 0; tick < 3000; tick++) {
		sim_tick_all();
		max_v = MAX(max_v, spread(t, 3, vruntime));
		max_rt = MAX(max_rt, spread(t, 3, runtime));
		ck_assert_uint_le(spread(t, 3, vruntime), slice + SHARE_SPREAD_SLACK);
		ck_assert_uint_le(spread(t, 3, runtime), slice + SHARE_SPREAD_SLACK + start_spread);
	}
	printf("fair: 3 equal tasks, 3 s: max vruntime spread %llu us, runtime spread %llu us "
	       "(slice %llu us, start stagger %llu us); runtimes %llu/%llu/%llu ms\n",
	       (unsigned long long)(max_v / US), (unsigned long long)(max_rt / US),
	       (unsigned long long)(slice / US), (unsigned long long)(start_spread / US),
	       (unsigned long long)(runtime(t[0]) / MS), (unsigned long long)(runtime(t[1]) / MS),
	       (unsigned long long)(runtime(t[2]) / MS));
	sim_stop();
}
END_TEST

#define NICE_SHARE_TOLERANCE 0.02

START_TEST(test_nice_0_vs_5_share)
{
	sim_start(1);
	struct task *a = sim_task("nice0", 0, 0), *b = sim_task("nice5", 5, 0);
	double ratio, want = 1024.0 / 335.0;

	sim_schedule(0);
	sim_run(10000 * MS);
	ratio = (double)runtime(a) / (double)runtime(b);
	printf("fair: nice 0 : nice 5 over 10 s = %.4f (want %.4f = 1024:335, %.3f%% off)\n", ratio,
	       want, 100.0 * (ratio / want - 1));
	ck_assert_uint_eq(runtime(a) + runtime(b), 10000 * MS);
	ck_assert(ratio > want * (1 - NICE_SHARE_TOLERANCE) &&
		  ratio < want * (1 + NICE_SHARE_TOLERANCE));
	sim_stop();
}
END_TEST

/* ---------------------------------------------------------------- placement */

/* How far before min_vruntime a long sleeper is placed when it wakes. */
static s64 long_sleep_credit(struct task *hog, struct task *s)
{
	run_until_curr(s);
	sim_sleep(s);
	sim_run(1000 * MS);
	ck_assert_ptr_eq(sim_curr(0), hog);
	sim_wake(s);
	return (s64)(sim_rq(0)->cfs.min_vruntime - s->se.vruntime);
}

START_TEST(test_sleeper_credit)
{
	sim_start(1);
	struct task *hog = sim_task("hog", 0, 0), *s = sim_task("sleeper", 0, 0);
	u64 before;

	sim_schedule(0);
	ck_assert_int_eq(long_sleep_credit(hog, s), LATENCY_1CPU / 2);
	sim_feature("GENTLE_FAIR_SLEEPERS", false);
	ck_assert_int_eq(long_sleep_credit(hog, s), LATENCY_1CPU);
	sim_feature("GENTLE_FAIR_SLEEPERS", true);

	/*
	 * A short sleeper keeps its own vruntime: no credit to collect. (s
	 * first works off its last credit and runs 3 ms more, so it is not
	 * far behind when it sleeps.)
	 */
	sim_run(100 * MS);
	run_until_curr(s);
	for (int i = 0; i < 3; i++) {
		fake_clock_ns += SIM_TICK_NS;
		sim_tick(0);
	}
	sim_sleep(s);
	sim_tick_all();
	before = s->se.vruntime;
	ck_assert_int_gt((s64)(before - (sim_rq(0)->cfs.min_vruntime - LATENCY_1CPU / 2)), 0);
	sim_wake(s);
	ck_assert_uint_eq(s->se.vruntime, before);
	sim_stop();
}
END_TEST

START_TEST(test_sleeper_credit_scales_with_cpus)
{
	sim_start(4); /* factor 3: latency 18 ms, credit 9 ms */
	struct task *hog = sim_task("hog", 0, 0), *s = sim_task("sleeper", 0, 0);

	ck_assert_uint_eq(sysctl_sched_latency, 18 * MS);
	sim_schedule(0);
	ck_assert_int_eq(long_sleep_credit(hog, s), 9 * MS);
	sim_feature("GENTLE_FAIR_SLEEPERS", false);
	ck_assert_int_eq(long_sleep_credit(hog, s), 18 * MS);
	sim_stop();
}
END_TEST

START_TEST(test_start_debit)
{
	sim_start(1);
	struct task *parent = sim_task("parent", 0, 0), *child;
	u64 min;

	sim_schedule(0);
	sim_run(5 * MS);
	/* One runnable task, the child makes two: period 6 ms, vslice 3 ms. */
	min = sim_rq(0)->cfs.min_vruntime;
	ck_assert_uint_eq(parent->se.vruntime, min);
	child = sim_task("child", 0, 0);
	ck_assert_uint_eq(child->se.vruntime, min + 3 * MS);
	ck_assert(!sim_rq(0)->need_resched); /* it waits its turn */
	/* Three runnable: period 6 ms, vslice 2 ms. */
	child = sim_task("child2", 0, 0);
	ck_assert_uint_eq(child->se.vruntime, min + 2 * MS);
	/* Without START_DEBIT: the parent's vruntime. */
	sim_feature("START_DEBIT", false);
	child = sim_task("child3", 0, 0);
	ck_assert_uint_eq(child->se.vruntime, parent->se.vruntime);
	sim_stop();
}
END_TEST

/* ---------------------------------------------------------------- preemption */

/*
 * Wakes s, asleep on CPU 0 while curr runs, lag ns of vruntime behind curr
 * (time stands still, so update_curr changes nothing); did curr get preempted?
 */
static bool wake_behind(struct task *curr, struct task *s, u64 lag)
{
	ck_assert_ptr_eq(sim_curr(0), curr);
	ck_assert(!sim_rq(0)->need_resched);
	s->se.vruntime = curr->se.vruntime - lag;
	sim_wake(s);
	return sim_rq(0)->need_resched;
}

START_TEST(test_wakeup_preemption_granularity)
{
	sim_start(1);
	struct task *a = sim_task("runner", 0, 0);
	struct task *s0 = sleeper("below", 0), *s1 = sleeper("above", 0);
	struct task *h0 = sleeper("heavy-below", -5), *h1 = sleeper("heavy-above", -5);
	struct task *off = sleeper("no-feature", 0);
	u64 heavy_gran = calc_delta_mine(WAKEUP_GRAN_1CPU, NICE_0_LOAD, &h0->load);

	run_until_curr(a);
	/* Nice 0 wakee: the granularity is 1 ms of its virtual time. */
	ck_assert(!wake_behind(a, s0, WAKEUP_GRAN_1CPU));
	ck_assert(wake_behind(a, s1, WAKEUP_GRAN_1CPU + 1));
	sim_schedule(0);
	ck_assert_ptr_eq(sim_curr(0), s1); /* the wakee runs next (next buddy) */
	sim_sleep(s1);
	run_until_curr(s0);
	sim_sleep(s0);
	ck_assert_ptr_eq(sim_curr(0), a);

	/* Nice -5 wakee: 1 ms * 1024 / 3121 of virtual time suffices. */
	ck_assert_uint_ge(heavy_gran, 328090);
	ck_assert_uint_le(heavy_gran, 328110);
	ck_assert(!wake_behind(a, h0, heavy_gran));
	ck_assert(wake_behind(a, h1, heavy_gran + 1));
	sim_schedule(0);
	ck_assert_ptr_eq(sim_curr(0), h1);
	sim_sleep(h1);
	run_until_curr(h0);
	sim_sleep(h0);
	ck_assert_ptr_eq(sim_curr(0), a);

	/* Without WAKEUP_PREEMPTION nobody preempts, however far behind. */
	sim_feature("WAKEUP_PREEMPTION", false);
	ck_assert(!wake_behind(a, off, LATENCY_1CPU / 2));
	sim_stop();
}
END_TEST

START_TEST(test_wakeup_policies)
{
	sim_start(1);
	struct task *a = sim_task("runner", 0, 0), *batch = sleeper("batch", 0);
	struct task *normal = sleeper("normal", 0);

	run_until_curr(a);
	batch->policy = SCHED_BATCH; /* batch wakees never preempt */
	ck_assert(!wake_behind(a, batch, 2 * MS));
	a->policy = SCHED_IDLE; /* and a SCHED_IDLE runner yields to any normal wakee */
	ck_assert(wake_behind(a, normal, 0));
	a->policy = SCHED_NORMAL;
	sim_stop();
}
END_TEST

/* Ticks CPU 0 every step ns until it must reschedule; returns how long curr ran since picked. */
static u64 run_until_resched(u64 step)
{
	struct task *curr = sim_curr(0);
	u64 ran = 0;

	while (!sim_rq(0)->need_resched && ran < 100 * MS) {
		fake_clock_ns += step;
		sim_tick(0);
		ran = curr->sum_exec_runtime - curr->prev_sum_exec_runtime;
	}
	return ran;
}

START_TEST(test_tick_preemption_after_ideal_slice)
{
	sim_start(1);
	struct task *a = sim_task("a", 0, 0), *b = sim_task("b", 0, 0), *first;

	/* Two tasks: ideal slice 3 ms. Not preempted at 3 ms: at the first tick past it. */
	sim_schedule(0);
	first = sim_curr(0);
	ck_assert_uint_eq(run_until_resched(100 * US), 3 * MS + 100 * US);
	sim_schedule(0);
	ck_assert_ptr_ne(sim_curr(0), first);

	/*
	 * The other rule: after the minimum granularity, curr is preempted if
	 * it is more than a slice of vruntime ahead of the leftmost. b wakes
	 * from a long sleep 3 ms of credit behind a freshly picked a, without
	 * wake-up preemption: a keeps the CPU for exactly 0.75 ms.
	 */
	run_until_curr(b);
	sim_sleep(b);
	sim_run(100 * MS);
	sim_sleep(a);
	sim_wake(a);
	sim_schedule(0);
	ck_assert_ptr_eq(sim_curr(0), a);
	sim_feature("WAKEUP_PREEMPTION", false);
	sim_wake(b);
	ck_assert(!sim_rq(0)->need_resched);
	ck_assert_int_eq((s64)(a->se.vruntime - b->se.vruntime), LATENCY_1CPU / 2);
	ck_assert_uint_eq(run_until_resched(50 * US), MIN_GRAN_1CPU);
	sim_schedule(0);
	ck_assert_ptr_eq(sim_curr(0), b);
	sim_stop();
}
END_TEST

START_TEST(test_yield)
{
	sim_start(1);
	struct task *a = sim_task("a", 0, 0), *b = sim_task("b", 0, 0);
	struct rq *rq = sim_rq(0);

	/*
	 * Forked onto an idle queue, a starts a 6 ms vslice after min_vruntime,
	 * b (a's queue holds one task) 3 ms after: b runs first, 3 ms behind a.
	 */
	sim_schedule(0);
	ck_assert_ptr_eq(sim_curr(0), b);
	ck_assert_int_eq((s64)(a->se.vruntime - b->se.vruntime), 3 * MS);
	/* Yielding at once: a is 3 ms ahead, more than the 1 ms granularity, so b goes on. */
	fair_sched_class.yield_task(rq);
	sim_schedule(0);
	ck_assert_ptr_eq(sim_curr(0), b);
	/* After 2.5 ms a is only 0.5 ms ahead: without a yield b still comes first... */
	fake_clock_ns += 2500 * US;
	sim_tick(0);
	ck_assert(!rq->need_resched);
	sim_schedule(0);
	ck_assert_ptr_eq(sim_curr(0), b);
	/* ...with one, a runs. */
	fair_sched_class.yield_task(rq);
	sim_schedule(0);
	ck_assert_ptr_eq(sim_curr(0), a);
	/* Alone, a yield changes nothing. */
	sim_sleep(a);
	fair_sched_class.yield_task(rq);
	sim_schedule(0);
	ck_assert_ptr_eq(sim_curr(0), b);
	sim_stop();
}
END_TEST

/* ---------------------------------------------------------------- invariants */

/*
 * A queued task's vruntime stays near its queue's min_vruntime: behind by
 * at most a latency of sleeper credit, ahead by what a nice 19 task gains
 * in one run among heavier ones. A second of either means a lost or
 * doubled min_vruntime in the relative-vruntime protocol.
 */
#define VRUNTIME_SANE_WINDOW ((s64)(1000 * MS))

/* Random sleeps, wake-ups, yields, nice changes, forks, affinity changes, migrations: 2 CPUs. */
START_TEST(test_min_vruntime_never_decreases)
{
	struct task *t[8];
	u64 last_min[2];
	int n = 0, steps = 20000;

	sim_start(2);
	for (; n < 4; n++)
		t[n] = sim_task("w", (int)(sim_random() % 10) - 5, (u32)n % 2);
	for (u32 cpu = 0; cpu < 2; cpu++) {
		sim_schedule(cpu);
		last_min[cpu] = sim_rq(cpu)->cfs.min_vruntime;
	}
	for (int step = 0; step < steps; step++) {
		u32 cpu = (u32)(sim_random() % 2);
		struct rq *rq = sim_rq(cpu), *other = sim_rq(!cpu);
		struct task *p = t[sim_random() % (u64)n];

		switch (sim_random() % 9) {
		case 0: /* the running task blocks */
			if (rq->curr != rq->idle)
				sim_sleep(rq->curr);
			break;
		case 1: /* a sleeper wakes, wherever it is allowed */
			if (p->state != TASK_RUNNING)
				sim_wake(p);
			break;
		case 2:
			if (rq->curr != rq->idle) {
				fair_sched_class.yield_task(rq);
				sim_schedule(cpu);
			}
			break;
		case 3:
			set_task_nice(p, (int)(sim_random() % 40) - 20);
			break;
		case 4: /* the balancer moves a waiting task */
			double_rq_lock(rq, other);
			if (p->on_rq && task_cpu(p) == cpu && !task_running(rq, p) &&
			    cpumask_test_cpu(!cpu, &p->cpus_allowed))
				move_queued_task(rq, other, p);
			double_rq_unlock(rq, other);
			break;
		case 5:
			if (n < 8)
				t[n++] = sim_task("fork", 0, cpu);
			break;
		case 6: { /* new affinity: a queued task moves now, a sleeper at its wake-up */
			struct cpumask m = CPUMASK_EMPTY;
			bool running_outside;

			cpumask_set_cpu(cpu, &m);
			if (sim_random() % 2)
				cpumask_set_cpu(!cpu, &m);
			running_outside = task_running(sim_rq(task_cpu(p)), p) &&
					  !cpumask_test_cpu(task_cpu(p), &m);
			/*
			 * Moving a running task needs a stopper thread, which this
			 * simulation lacks: the call fails and the old mask comes back,
			 * or sim_schedule()'s pick check would see p where it may not run.
			 */
			if (running_outside) {
				struct cpumask old = p->cpus_allowed;

				ck_assert_int_eq(set_cpus_allowed(p, &m), -ENODEV);
				ck_assert_int_eq(set_cpus_allowed(p, &old), 0);
				break;
			}
			ck_assert_int_eq(set_cpus_allowed(p, &m), 0);
			if (p->on_rq && !running_outside)
				ck_assert(cpumask_test_cpu(task_cpu(p), &m));
			break;
		}
		default:
			fake_clock_ns += sim_random() % (2 * SIM_TICK_NS);
			sim_tick_all();
			break;
		}
		for (int i = 0; i < n; i++) {
			s64 lag = (s64)(t[i]->se.vruntime - sim_rq(task_cpu(t[i]))->cfs.min_vruntime);

			if (t[i]->on_rq)
				ck_assert_msg(lag > -VRUNTIME_SANE_WINDOW &&
						      lag < VRUNTIME_SANE_WINDOW,
					      "task %d is %lld ns from min_vruntime", i,
					      (long long)lag);
		}
		for (u32 c = 0; c < 2; c++) {
			if (sim_rq(c)->need_resched)
				sim_schedule(c);
			ck_assert(!((s64)(sim_rq(c)->cfs.min_vruntime - last_min[c]) < 0));
			last_min[c] = sim_rq(c)->cfs.min_vruntime;
		}
		ck_assert_int_eq(sim_verify_all(), 0);
	}
	sim_stop();
}
END_TEST

START_TEST(test_verify_catches_corruption)
{
	sim_start(1);
	struct rq *rq = sim_rq(0);

	sim_task("a", 0, 0);
	sim_task("b", 0, 0);
	sim_schedule(0);
	sim_run(10 * MS);
	ck_assert_int_eq(fair_verify(rq), 0);
	rq->cfs.nr_running++;
	ck_assert_int_eq(fair_verify(rq), -EINVAL);
	ck_assert_ptr_nonnull(strstr(fake_console_text(), "nr_running"));
	rq->cfs.nr_running--;
	rq->cfs.min_vruntime -= 1;
	ck_assert_int_eq(fair_verify(rq), -EINVAL);
	ck_assert_ptr_nonnull(strstr(fake_console_text(), "min_vruntime went backwards"));
	rq->cfs.min_vruntime += 1;
	ck_assert_int_eq(fair_verify(rq), 0);
	fake_console_reset();
	sim_stop();
}
END_TEST

/* ---------------------------------------------------------------- across CPUs */

START_TEST(test_relative_vruntime_across_cpus)
{
	sim_start(2);
	struct task *hog = sim_task("hog", 0, 0), *s = sleeper("s", 0), *w = sim_task("w", 0, 0);
	struct cpumask only1 = CPUMASK_EMPTY;
	struct rq *rq0 = sim_rq(0), *rq1 = sim_rq(1);
	s64 lag;

	sim_schedule(1); /* stays idle */
	sim_run(1000 * MS);
	/* CPU 0 has run a second of vruntime, CPU 1 none: the queues' clocks are far apart. */
	ck_assert_uint_gt(rq0->cfs.min_vruntime - rq1->cfs.min_vruntime, 500 * MS);

	/* A waiting task moved by the balancer keeps its distance to min_vruntime. */
	while (sim_curr(0) == w)
		sim_tick_all();
	lag = (s64)(w->se.vruntime - rq0->cfs.min_vruntime);
	cpumask_set_cpu(1, &only1);
	cpumask_set_cpu(0, &only1);
	ck_assert_int_eq(set_cpus_allowed(w, &only1), 0);
	cpumask_clear_cpu(0, &only1);
	double_rq_lock(rq0, rq1);
	u64 min1 = rq1->cfs.min_vruntime;
	move_queued_task(rq0, rq1, w);
	double_rq_unlock(rq0, rq1);
	ck_assert_int_eq((s64)(w->se.vruntime - min1), lag);
	ck_assert_uint_eq(task_cpu(w), 1);

	/* A sleeper woken onto the other CPU lands within a latency of its min_vruntime. */
	ck_assert_int_eq(set_cpus_allowed(s, &only1), 0);
	ck_assert_uint_eq(fair_sched_class.select_task_rq(s, 0, 0), 1);
	sim_wake(s);
	ck_assert_uint_eq(task_cpu(s), 1);
	lag = (s64)(s->se.vruntime - rq1->cfs.min_vruntime);
	ck_assert_int_le(lag, (s64)sysctl_sched_latency);
	ck_assert_int_ge(lag, -(s64)sysctl_sched_latency);
	(void)hog;
	sim_run(100 * MS);
	sim_stop();
}
END_TEST

START_TEST(test_nice_change)
{
	sim_start(1);
	struct task *a = sim_task("a", 0, 0), *b = sim_task("b", 0, 0);
	struct rq *rq = sim_rq(0);
	s64 lag;

	sim_schedule(0);
	ck_assert_ptr_eq(sim_curr(0), b); /* see test_yield */
	/* A waiting task gaining weight keeps its place and may now deserve the CPU. */
	lag = (s64)(a->se.vruntime - rq->cfs.min_vruntime);
	set_task_nice(a, -5);
	ck_assert_int_eq((s64)(a->se.vruntime - rq->cfs.min_vruntime), lag);
	ck_assert_uint_eq(rq->load.weight, 1024 + 3121);
	ck_assert(rq->need_resched);
	sim_schedule(0);
	ck_assert_ptr_eq(sim_curr(0), b); /* still behind a in vruntime */
	/* A waiting task losing weight is no reason to preempt; a running one losing it is. */
	set_task_nice(a, 5);
	ck_assert(!rq->need_resched);
	set_task_nice(b, 2);
	ck_assert(rq->need_resched);
	ck_assert_uint_eq(rq->load.weight, 335 + 655);
	sim_stop();
}
END_TEST

Suite *fair_suite(void)
{
	Suite *s = suite_create("fair");
	TCase *sim = tcase_create("scheduling");

	tcase_add_test(sim, test_equal_tasks_share_within_a_slice);
	tcase_add_test(sim, test_nice_0_vs_5_share);
	tcase_add_test(sim, test_sleeper_credit);
	tcase_add_test(sim, test_sleeper_credit_scales_with_cpus);
	tcase_add_test(sim, test_start_debit);
	tcase_add_test(sim, test_wakeup_preemption_granularity);
	tcase_add_test(sim, test_wakeup_policies);
	tcase_add_test(sim, test_tick_preemption_after_ideal_slice);
	tcase_add_test(sim, test_yield);
	tcase_add_test(sim, test_min_vruntime_never_decreases);
	tcase_add_test(sim, test_verify_catches_corruption);
	tcase_add_test(sim, test_relative_vruntime_across_cpus);
	tcase_add_test(sim, test_nice_change);
	tcase_set_timeout(sim, 60);
	suite_add_tcase(s, sim);
	return s;
}

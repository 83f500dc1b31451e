/*
 * Host tests of the real-time class (kernel/sched/rt/) on the simulated
 * CPUs: FIFO order within a priority and preemption across priorities,
 * SCHED_RR's slices, throttling (a spinner at 99 leaves fair tasks their
 * 5%), the policy calls' checks, and the push/pull decisions on a
 * two-socket machine.
 */
#include "balance_sim.h"
#include "fake_arch.h"
#include "lib/errno.h"
#include "sched/rt/rt.h"
#include "unit.h"

#include <string.h>

#define MS (1000 * 1000ULL)

static s64 saved_runtime;

static void rt_test_begin(s64 runtime_us)
{
	saved_runtime = sysctl_sched_rt_runtime_us;
	sysctl_sched_rt_runtime_us = runtime_us;
}

static void rt_test_end(void)
{
	sysctl_sched_rt_runtime_us = saved_runtime;
}

/* Lets cpu switch if something asked it to. */
static void settle(u32 cpu)
{
	if (cpu_rq(cpu)->need_resched)
		sim_schedule(cpu);
}

/* A task pinned on cpu, then given policy and prio; cpu switches if it must. */
static struct task *rt_task_on(const char *name, u32 cpu, int policy, u32 prio)
{
	struct task *p = sim_task(name, 0, cpu);

	settle(cpu);
	ck_assert_int_eq(sched_setscheduler_task(p, policy, prio), 0);
	settle(cpu);
	return p;
}

/* Lets p run anywhere. */
static void unpin(struct task *p)
{
	struct cpumask all = CPUMASK_EMPTY;

	cpumask_set_range(&all, 0, sched_nr_cpus());
	ck_assert_int_eq(set_cpus_allowed(p, &all), 0);
}

START_TEST(test_fifo_order_and_priorities)
{
	struct task *f, *a, *b, *c, *d;
	u64 fair_ran;

	rt_test_begin(-1);
	sim_start(1);
	f = sim_task("fair", 0, 0);
	settle(0);
	a = rt_task_on("a", 0, SCHED_FIFO, 10);
	b = rt_task_on("b", 0, SCHED_FIFO, 10);
	c = rt_task_on("c", 0, SCHED_FIFO, 10);
	ck_assert_ptr_eq(sim_curr(0), a); /* the first at 10 preempted fair; equals wait */
	d = rt_task_on("d", 0, SCHED_FIFO, 20);
	ck_assert_ptr_eq(sim_curr(0), d); /* a higher priority preempts at once */
	sim_sleep(d);
	ck_assert_ptr_eq(sim_curr(0), a); /* a was preempted: it goes on first */
	fair_ran = f->sum_exec_runtime;
	sim_run(500 * MS);
	ck_assert_ptr_eq(sim_curr(0), a); /* FIFO: no slice */
	sim_sleep(a);
	ck_assert_ptr_eq(sim_curr(0), b);
	sim_wake(a);
	settle(0);
	ck_assert_ptr_eq(sim_curr(0), b); /* an equal priority waking waits, at the tail */
	sim_sleep(b);
	ck_assert_ptr_eq(sim_curr(0), c);
	sim_sleep(c);
	ck_assert_ptr_eq(sim_curr(0), a);
	sim_wake(d);
	settle(0);
	ck_assert_ptr_eq(sim_curr(0), d);
	ck_assert_uint_eq(f->sum_exec_runtime, fair_ran); /* no throttling: fair never ran */
	sim_stop();
	rt_test_end();
}
END_TEST

START_TEST(test_rr_slices_alternate)
{
	struct task *a, *b, *order[10];

	rt_test_begin(-1);
	sim_start(1);
	a = rt_task_on("a", 0, SCHED_RR, 30);
	b = rt_task_on("b", 0, SCHED_RR, 30);
	ck_assert_ptr_eq(sim_curr(0), a);
	for (u32 i = 0; i < 10; i++) {
		sim_run(50 * MS);
		order[i] = sim_curr(0);
		sim_run(50 * MS);
	}
	for (u32 i = 0; i < 10; i++)
		ck_assert_ptr_eq(order[i], i % 2 ? b : a); /* 100 ms each, in turn */
	ck_assert_uint_ge(a->sum_exec_runtime, 495 * MS);
	ck_assert_uint_le(a->sum_exec_runtime, 505 * MS);
	ck_assert_uint_ge(b->sum_exec_runtime, 495 * MS);
	ck_assert_uint_le(b->sum_exec_runtime, 505 * MS);
	sim_stop();
	rt_test_end();
}
END_TEST

START_TEST(test_rr_alone_keeps_the_cpu)
{
	struct task *f, *a;
	u64 fair_ran;

	rt_test_begin(-1);
	sim_start(1);
	f = sim_task("fair", 0, 0);
	settle(0);
	a = rt_task_on("a", 0, SCHED_RR, 1);
	fair_ran = f->sum_exec_runtime;
	sim_run(450 * MS);
	ck_assert_ptr_eq(sim_curr(0), a); /* its slices end with no equal to yield to */
	ck_assert_uint_eq(f->sum_exec_runtime, fair_ran);
	sim_stop();
	rt_test_end();
}
END_TEST

START_TEST(test_throttling_leaves_fair_its_share)
{
	struct task *f, *s;
	u64 fair_ran, spin_ran;

	rt_test_begin(950000);
	sim_start(1);
	f = sim_task("fair", 0, 0);
	settle(0);
	s = rt_task_on("spin99", 0, SCHED_FIFO, 99);
	fair_ran = f->sum_exec_runtime;
	spin_ran = s->sum_exec_runtime;
	sim_run(2000 * MS);
	fair_ran = f->sum_exec_runtime - fair_ran;
	spin_ran = s->sum_exec_runtime - spin_ran;
	/* 50 ms of every second go to fair: two periods, a tick either way. */
	ck_assert_uint_ge(fair_ran, 95 * MS);
	ck_assert_uint_le(fair_ran, 105 * MS);
	ck_assert_uint_ge(spin_ran, 1895 * MS);
	ck_assert_uint_eq(rt_rq_of(0)->nr_throttles, 2);
	ck_assert_uint_eq(cpu_rq(0)->nr_throttled, rt_rq_of(0)->throttled ? 1 : 0);
	sim_stop();
	rt_test_end();
}
END_TEST

START_TEST(test_throttled_cpu_idles_without_complaint)
{
	struct task *s;

	rt_test_begin(500000);
	sim_start(1);
	s = rt_task_on("spin", 0, SCHED_FIFO, 50);
	sim_run(700 * MS); /* throttled after 500 ms; nothing else to run: idle */
	ck_assert(rt_rq_of(0)->throttled);
	ck_assert_ptr_eq(sim_curr(0), cpu_rq(0)->idle);
	ck_assert_uint_eq(cpu_rq(0)->nr_throttled, 1);
	sim_run(400 * MS); /* the next period gives it the CPU back */
	ck_assert_ptr_eq(sim_curr(0), s);
	ck_assert(!rt_rq_of(0)->throttled);
	sim_stop(); /* SCHED_VERIFY's idle check knew the queued task was held back */
	rt_test_end();
}
END_TEST

START_TEST(test_policy_checks_and_leaving)
{
	struct task *a;

	sim_start(1);
	a = sim_task("a", 0, 0);
	settle(0);
	ck_assert_int_eq(sched_setscheduler_task(a, SCHED_FIFO, 0), -EINVAL);
	ck_assert_int_eq(sched_setscheduler_task(a, SCHED_RR, 100), -EINVAL);
	ck_assert_int_eq(sched_setscheduler_task(a, SCHED_NORMAL, 5), -EINVAL);
	ck_assert_int_eq(sched_setscheduler_task(a, 6, 0), -EINVAL); /* SCHED_DEADLINE */
	ck_assert_int_eq(sched_setscheduler_task(cpu_rq(0)->idle, SCHED_FIFO, 1), -EPERM);
	ck_assert_int_eq(sched_setscheduler_task(a, SCHED_RR, 42), 0);
	ck_assert_ptr_eq(a->sched_class, &rt_sched_class);
	ck_assert_uint_eq(a->rt_priority, 42);
	ck_assert_uint_eq(a->policy, SCHED_RR);
	ck_assert_int_eq(sched_setscheduler_task(a, SCHED_FIFO, 7), 0);
	ck_assert_uint_eq(rt_task_of(a)->prio, 7);
	ck_assert_int_eq(sched_setscheduler_task(a, SCHED_BATCH, 0), 0);
	ck_assert_ptr_eq(a->sched_class, &fair_sched_class);
	ck_assert_uint_eq(a->rt_priority, 0);
	ck_assert_uint_eq(a->policy, SCHED_BATCH);
	ck_assert_uint_eq(rt_rq_of(0)->nr_running, 0);
	sim_run(10 * MS);
	ck_assert_ptr_eq(sim_curr(0), a);
	sim_stop();
}
END_TEST

START_TEST(test_lowered_priority_goes_to_the_head)
{
	struct task *a, *b, *c;

	rt_test_begin(-1);
	sim_start(1);
	a = rt_task_on("a", 0, SCHED_FIFO, 30);
	b = rt_task_on("b", 0, SCHED_FIFO, 20);
	c = rt_task_on("c", 0, SCHED_FIFO, 20);
	ck_assert_ptr_eq(sim_curr(0), a);
	ck_assert_int_eq(sched_setscheduler_task(a, SCHED_FIFO, 20), 0);
	settle(0);
	ck_assert_ptr_eq(sim_curr(0), a); /* lowered: at the head of 20, ahead of b and c */
	ck_assert_int_eq(sched_setscheduler_task(c, SCHED_FIFO, 25), 0);
	settle(0);
	ck_assert_ptr_eq(sim_curr(0), c); /* raised above the running task: preempts */
	sim_sleep(c);
	ck_assert_ptr_eq(sim_curr(0), a);
	(void)b;
	sim_stop();
	rt_test_end();
}
END_TEST

START_TEST(test_watchdog_keeps_the_class_for_a_starved_rt_task)
{
	struct task *a, *b;

	rt_test_begin(-1);
	sim_start(1);
	a = rt_task_on("a", 0, SCHED_FIFO, 10);
	b = rt_task_on("b", 0, SCHED_FIFO, 10);
	sim_run(11000 * MS); /* b waits past sched_watchdog_ms (10 s) behind its equal */
	ck_assert_ptr_nonnull(strstr(fake_console_text(), "stalled for"));
	ck_assert_ptr_nonnull(strstr(fake_console_text(), "rt:   queued b:"));
	/* Reported, but FIFO working as meant is no broken class: nothing moves to fair. */
	ck_assert(!sched_class_failed(&rt_sched_class));
	ck_assert_ptr_eq(b->sched_class, &rt_sched_class);
	ck_assert_ptr_eq(sim_curr(0), a);
	fake_console_reset(); /* the report says "sched:", which sim_stop would take for a complaint */
	sim_stop();
	rt_test_end();
}
END_TEST

/* ---------------------------------------------------------------- two sockets */

/*
 * CPUs 0-1 in package 0, 2-3 in package 1 (one node each). rt_begin_2s
 * starts it with the topology published; every task made by the tests is
 * pinned unless unpinned.
 */
static void rt_begin_2s(void)
{
	rt_test_begin(-1);
	bsim_start(machine_grid(2, 2, 1, 2));
	bsim_publish();
}

static void rt_end_2s(void)
{
	bsim_stop();
	rt_test_end();
}

/* A task allowed everywhere that ran on cpu and now sleeps, with policy FIFO at prio. */
static struct task *sleeper(u32 cpu, u32 prio)
{
	struct task *p = sim_task("sleeper", 0, cpu);

	settle(cpu);
	ck_assert_ptr_eq(sim_curr(cpu), p);
	sim_sleep(p);
	unpin(p);
	ck_assert_int_eq(sched_setscheduler_task(p, SCHED_FIFO, prio), 0);
	return p;
}

START_TEST(test_wakeup_goes_to_the_nearest_lower_cpu)
{
	struct task *p;

	rt_begin_2s();
	p = sleeper(0, 40);
	rt_task_on("h0", 0, SCHED_FIFO, 50);
	sim_task("f1", 0, 1);
	sim_task("f2", 0, 2);
	sim_task("f3", 0, 3);
	for (u32 cpu = 1; cpu < 4; cpu++)
		settle(cpu);
	sim_wake(p);
	ck_assert_uint_eq(task_cpu(p), 1); /* fair CPUs everywhere: the same package */
	settle(1);
	ck_assert_ptr_eq(sim_curr(1), p);
	rt_end_2s();
}
END_TEST

START_TEST(test_wakeup_crosses_sockets_when_it_must)
{
	struct task *p;

	rt_begin_2s();
	p = sleeper(0, 40);
	rt_task_on("h0", 0, SCHED_FIFO, 50);
	rt_task_on("h1", 1, SCHED_FIFO, 60);
	sim_task("f2", 0, 2);
	settle(2);
	sim_wake(p);
	ck_assert_uint_eq(task_cpu(p), 3); /* cpu3 idles: the lowest level wins */
	rt_end_2s();
}
END_TEST

START_TEST(test_wakeup_stays_when_everyone_is_higher)
{
	struct task *p;

	rt_begin_2s();
	p = sleeper(0, 40);
	for (u32 cpu = 0; cpu < 4; cpu++)
		rt_task_on("h", cpu, SCHED_FIFO, 40 + cpu); /* 40 on its own CPU: equal is not lower */
	sim_wake(p);
	ck_assert_uint_eq(task_cpu(p), 0);
	rt_end_2s();
}
END_TEST

START_TEST(test_tick_pushes_a_waiting_task)
{
	struct task *p;

	rt_begin_2s();
	rt_task_on("h0", 0, SCHED_FIFO, 50);
	rt_task_on("h1", 1, SCHED_FIFO, 70);
	sim_task("f2", 0, 2);
	sim_task("f3", 0, 3);
	settle(2);
	settle(3);
	p = rt_task_on("p", 0, SCHED_FIFO, 40); /* waits behind h0 */
	unpin(p);
	ck_assert_uint_eq(task_cpu(p), 0);
	ck_assert_ptr_ne(sim_curr(0), p);
	sim_tick_all();
	ck_assert_uint_eq(task_cpu(p), 2); /* cpu1 runs 70: over to the other socket's first */
	ck_assert_ptr_eq(sim_curr(2), p);
	ck_assert_uint_eq(rt_rq_of(0)->nr_pushed, 1);
	rt_end_2s();
}
END_TEST

START_TEST(test_idle_cpu_pulls_a_waiting_task)
{
	struct task *p, *q;
	struct cpumask two = CPUMASK_EMPTY;

	rt_begin_2s();
	rt_task_on("h0", 0, SCHED_FIFO, 50);
	q = rt_task_on("q1", 1, SCHED_FIFO, 60);
	p = rt_task_on("p", 0, SCHED_FIFO, 40); /* waits behind h0 */
	cpumask_set_cpu(0, &two);
	cpumask_set_cpu(1, &two);
	ck_assert_int_eq(set_cpus_allowed(p, &two), 0);
	sim_sleep(q); /* cpu1 goes idle: its new-idle pass pulls p */
	ck_assert_uint_eq(task_cpu(p), 1);
	ck_assert_ptr_eq(sim_curr(1), p);
	ck_assert_uint_eq(rt_rq_of(1)->nr_pulled, 1);
	rt_end_2s();
}
END_TEST

START_TEST(test_no_push_to_higher_cpus)
{
	struct task *p;

	rt_begin_2s();
	rt_task_on("h0", 0, SCHED_FIFO, 50);
	for (u32 cpu = 1; cpu < 4; cpu++)
		rt_task_on("h", cpu, SCHED_FIFO, 60);
	p = rt_task_on("p", 0, SCHED_FIFO, 40);
	unpin(p);
	sim_run(20 * MS);
	ck_assert_uint_eq(task_cpu(p), 0);
	ck_assert_uint_eq(rt_rq_of(0)->nr_pushed, 0);
	rt_end_2s();
}
END_TEST

Suite *rt_suite(void)
{
	Suite *s = suite_create("rt");
	TCase *tc = tcase_create("rt");

	tcase_add_test(tc, test_fifo_order_and_priorities);
	tcase_add_test(tc, test_rr_slices_alternate);
	tcase_add_test(tc, test_rr_alone_keeps_the_cpu);
	tcase_add_test(tc, test_throttling_leaves_fair_its_share);
	tcase_add_test(tc, test_throttled_cpu_idles_without_complaint);
	tcase_add_test(tc, test_policy_checks_and_leaving);
	tcase_add_test(tc, test_lowered_priority_goes_to_the_head);
	tcase_add_test(tc, test_watchdog_keeps_the_class_for_a_starved_rt_task);
	tcase_add_test(tc, test_wakeup_goes_to_the_nearest_lower_cpu);
	tcase_add_test(tc, test_wakeup_crosses_sockets_when_it_must);
	tcase_add_test(tc, test_wakeup_stays_when_everyone_is_higher);
	tcase_add_test(tc, test_tick_pushes_a_waiting_task);
	tcase_add_test(tc, test_idle_cpu_pulls_a_waiting_task);
	tcase_add_test(tc, test_no_push_to_higher_cpus);
	suite_add_tcase(s, tc);
	return s;
}

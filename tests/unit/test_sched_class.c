/*
 * Host tests of the class seam (kernel/sched/sched.h, core.c): a class
 * missing a required operation is refused at registration with a message
 * naming it, the class order follows the ranks, and sched_setclass()
 * moves queued, running and sleeping tasks between fair and rr with each
 * class's books (fair_verify, the rr queue) right afterwards; idle
 * tasks' names, the rq-lock assertions and sched_verify's per-class count.
 */
#include <string.h>

#include "fake_arch.h"
#include "sched/rt/rt.h"
#include "sched_sim.h"
#include "unit.h"

extern const struct sched_class rr_sched_class;

static void nop_enqueue(struct rq *rq, struct task *p, int flags)
{
}

static struct task *nop_pick(struct rq *rq)
{
	return NULL;
}

static void nop_put_prev(struct rq *rq, struct task *prev)
{
}

static bool class_listed(const struct sched_class *class)
{
	for (u32 i = 0; sched_class_list[i]; i++)
		if (sched_class_list[i] == class)
			return true;
	return false;
}

START_TEST(test_class_without_pick_is_refused)
{
	static const struct sched_class broken = {
		.name = "broken",
		.rank = 150,
		.enqueue_task = nop_enqueue,
		.dequeue_task = nop_enqueue,
		.put_prev_task = nop_put_prev,
	};
	static const struct sched_class late = {
		.name = "late",
		.rank = 50,
		.enqueue_task = nop_enqueue,
		.dequeue_task = nop_enqueue,
		.pick_next_task = nop_pick,
		.put_prev_task = nop_put_prev,
	};
	const struct sched_class *classes[] = { &fair_sched_class, &broken, &rr_sched_class, &late };

	fake_console_reset();
	ck_assert_uint_eq(sched_classes_setup(classes, 4), 1);
	ck_assert_ptr_nonnull(
		strstr(fake_console_text(),
		       "class 'broken' has no pick_next_task operation: not registered"));
	ck_assert(!class_listed(&broken));
	/* The rest in rank order between stop and idle. */
	ck_assert_ptr_eq(sched_class_list[0], &stop_sched_class);
	ck_assert_ptr_eq(sched_class_list[1], &late);
	ck_assert_ptr_eq(sched_class_list[2], &fair_sched_class);
	ck_assert_ptr_eq(sched_class_list[3], &rr_sched_class);
	ck_assert_ptr_eq(sched_class_list[4], &idle_sched_class);
	ck_assert_ptr_null(sched_class_list[5]);
	ck_assert_ptr_null(sched_class_find("broken"));
	ck_assert_ptr_eq(sched_class_find("late"), &late);
	fake_console_reset();
}
END_TEST

START_TEST(test_class_without_name_is_refused)
{
	static const struct sched_class nameless = {
		.enqueue_task = nop_enqueue,
		.dequeue_task = nop_enqueue,
		.pick_next_task = nop_pick,
		.put_prev_task = nop_put_prev,
	};
	const struct sched_class *classes[] = { &nameless, &fair_sched_class };

	fake_console_reset();
	ck_assert_uint_eq(sched_classes_setup(classes, 2), 1);
	ck_assert_ptr_nonnull(strstr(fake_console_text(), "has no name operation"));
	ck_assert(!class_listed(&nameless));
	ck_assert(class_listed(&fair_sched_class));
	fake_console_reset();
}
END_TEST

/*
 * A queued (waiting) task, the running one and a sleeper go from fair to
 * rr and back; fair_verify (sim_stop, sim_verify_all) checks the CFS books
 * at each step and the tasks keep running.
 */
START_TEST(test_setclass_moves_tasks_both_ways)
{
	struct task *t[3], *a, *b, *c;
	struct rq *rq;

	sim_start(1);
	rq = cpu_rq(0);
	for (int i = 0; i < 3; i++)
		t[i] = sim_task("t", 0, 0);
	sim_schedule(0);
	a = sim_curr(0);
	sim_sleep(a); /* a sleeps, b runs, c waits */
	b = sim_curr(0);
	c = t[0] != a && t[0] != b ? t[0] : t[1] != a && t[1] != b ? t[1] : t[2];
	ck_assert(a != rq->idle && b != rq->idle && b != a && c->on_rq && !task_running(rq, c));

	sched_setclass(c, &rr_sched_class); /* queued, waiting */
	sched_setclass(b, &rr_sched_class); /* running */
	sched_setclass(a, &rr_sched_class); /* asleep */
	ck_assert_int_eq(sim_verify_all(), 0);
	ck_assert_uint_eq(rq->cfs.nr_running, 0);
	ck_assert_uint_eq(rq->nr_running, 2);
	ck_assert_ptr_eq(b->sched_class, &rr_sched_class);

	/* rr round-robins b and c; a wakes into rr. */
	sim_run(30 * SIM_TICK_NS);
	ck_assert_ptr_eq(sim_curr(0), c);
	sim_wake(a);
	ck_assert_uint_eq(rq->nr_running, 3);

	sched_setclass(a, &fair_sched_class); /* queued, waiting */
	sched_setclass(c, &fair_sched_class); /* running */
	ck_assert_int_eq(sim_verify_all(), 0);
	ck_assert_uint_eq(rq->cfs.nr_running, 2);
	ck_assert_ptr_eq(rq->cfs.curr, &c->se);
	/* Fair outranks rr: a runs next, then c and a share the CPU while b waits. */
	sim_run(200 * SIM_TICK_NS);
	ck_assert_ptr_ne(sim_curr(0), b);
	ck_assert_uint_gt(a->sum_exec_runtime, 50 * SIM_TICK_NS);
	ck_assert_uint_gt(c->sum_exec_runtime, 50 * SIM_TICK_NS);
	sched_setclass(b, &fair_sched_class);
	sim_run(100 * SIM_TICK_NS);
	ck_assert_uint_eq(rq->cfs.nr_running, 3);
	sim_stop();
}
END_TEST

/* Idle tasks are named swapper/N with the whole CPU number. */
START_TEST(test_idle_tasks_are_swapper_n)
{
	sim_start(12);
	ck_assert_str_eq(cpu_rq(0)->idle->comm, "swapper/0");
	ck_assert_str_eq(cpu_rq(9)->idle->comm, "swapper/9");
	ck_assert_str_eq(cpu_rq(11)->idle->comm, "swapper/11");
	sim_stop();
}
END_TEST

/*
 * Under SCHED_VERIFY (the sims' default) an operation whose contract says
 * "rq lock held" complains when called without it, or with the lock held
 * by another CPU, and is silent with it held here.
 */
START_TEST(test_rq_lock_assertion)
{
	struct rq *rq;
	u64 checks, violations_before, violations;

	sim_start(2);
	rq = cpu_rq(0);
	sched_verify_totals(&checks, &violations_before);
	fake_console_reset();
	__sched_setclass(rq, rq->idle, &idle_sched_class); /* a no-op but for the check */
	ck_assert_ptr_nonnull(strstr(fake_console_text(),
				     "__sched_setclass called without cpu0's rq->lock held"));
	fake_console_reset();
	fake_cpu_id = 1; /* CPU 1 holds CPU 0's lock */
	spin_lock(&rq->lock);
	fake_cpu_id = 0;
	__sched_setclass(rq, rq->idle, &idle_sched_class); /* a no-op but for the check */
	ck_assert_ptr_nonnull(strstr(fake_console_text(), "without cpu0's rq->lock held"));
	spin_unlock(&rq->lock);
	fake_console_reset();
	spin_lock(&rq->lock);
	__sched_setclass(rq, rq->idle, &idle_sched_class); /* a no-op but for the check */
	spin_unlock(&rq->lock);
	ck_assert_str_eq(fake_console_text(), "");
	sched_verify_totals(&checks, &violations);
	ck_assert_uint_eq(violations - violations_before, 2);
	sim_stop();
}
END_TEST

/*
 * sched_verify's per-pick count check learns what each class holds from
 * its nr_queued operation: with a fair and a real-time task queued, a
 * runqueue that counts one task too few is caught -- whichever class's
 * task it lost (the check used to read the CFS queue alone, and missed
 * this one).
 */
START_TEST(test_verify_counts_every_class)
{
	struct task *fair_task, *rt_task;
	struct rq *rq;
	u64 checks, before, after;

	sim_start(1);
	rq = cpu_rq(0);
	fair_task = sim_task("fair", 0, 0);
	rt_task = sim_task("rt", 0, 0);
	ck_assert_int_eq(sched_setscheduler_task(rt_task, SCHED_FIFO, 1), 0);
	sim_schedule(0);
	ck_assert_ptr_eq(sim_curr(0), rt_task);
	ck_assert(fair_task->on_rq);
	ck_assert_uint_eq(rq->nr_running, 2);
	sched_verify_totals(&checks, &before);
	sched_verify_pick(rq, rt_task, rt_task);
	sched_verify_totals(&checks, &after);
	ck_assert_uint_eq(after, before);
	fake_console_reset();
	rq->nr_running--; /* the core lost count of one of them */
	sched_verify_pick(rq, rt_task, rt_task);
	rq->nr_running++;
	sched_verify_totals(&checks, &after);
	ck_assert_uint_eq(after - before, 1);
	ck_assert_ptr_nonnull(
		strstr(fake_console_text(), "nr_running is less than the classes' queues hold"));
	fake_console_reset();
	sim_stop();
}
END_TEST

Suite *sched_class_suite(void)
{
	Suite *s = suite_create("sched_class");
	TCase *reg = tcase_create("registration");
	TCase *move = tcase_create("setclass");

	tcase_add_test(reg, test_class_without_pick_is_refused);
	tcase_add_test(reg, test_class_without_name_is_refused);
	suite_add_tcase(s, reg);
	tcase_add_test(move, test_setclass_moves_tasks_both_ways);
	tcase_add_test(move, test_idle_tasks_are_swapper_n);
	tcase_add_test(move, test_rq_lock_assertion);
	tcase_add_test(move, test_verify_counts_every_class);
	tcase_set_timeout(move, 60);
	suite_add_tcase(s, move);
	return s;
}

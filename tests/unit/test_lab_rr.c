/*
 * Lab 1's host graders (docs/labs/lab1-rr.md): the round-robin class of
 * kernel/sched/rr.c on the host machine of sched_sim (one CPU, 1 ms ticks),
 * tasks moved into it with sched_setclass(). Each test checks one property
 * of a round-robin queue and says in its message what it expected, what it
 * saw and which operation to look at; tools/grade prints that message.
 */
#include <stdio.h>

#include "fake_arch.h"
#include "sched_sim.h"
#include "unit.h"

extern const struct sched_class rr_sched_class;

#define RR_TASKS     3
#define SLICE_TICKS  10 /* RR_SLICE_NS, 10 ms, in 1 ms ticks */
#define RECORD_TICKS 120

/* Three spinners of the rr class on CPU 0, none run yet: in the order they joined the class. */
static void rr_tasks(struct task **t)
{
	sim_start(1);
	for (int i = 0; i < RR_TASKS; i++) {
		char name[16];

		snprintf(name, sizeof(name), "rr%d", i);
		t[i] = sim_task(name, 0, 0);
	}
	for (int i = 0; i < RR_TASKS; i++)
		sched_setclass(t[i], &rr_sched_class);
}

/* Which of t runs, -1 for none of them (idle). */
static int running(struct task **t)
{
	for (int i = 0; i < RR_TASKS; i++)
		if (sim_curr(0) == t[i])
			return i;
	return -1;
}

/*
 * Runs ticks and cuts what ran into segments (one task running for n ticks in a row):
 * who[], len[]; returns how many segments, at most max.
 */
static int segments(struct task **t, int ticks, int *who, int *len, int max)
{
	int n = 0;

	sim_schedule(0);
	for (int i = 0; i < ticks; i++) {
		int r = running(t);

		if (n && who[n - 1] == r)
			len[n - 1]++;
		else if (n < max) {
			who[n] = r;
			len[n++] = 1;
		}
		sim_tick_all();
	}
	return n;
}

/* Enqueue and pick: every task runs, in the order they were queued, one after another. */
START_TEST(test_rr_everyone_runs_in_fifo_order)
{
	struct task *t[RR_TASKS];
	int who[64], len[64], n;

	rr_tasks(t);
	n = segments(t, RECORD_TICKS, who, len, 64);
	ck_assert_msg(who[0] >= 0, "no rr task ran at all: expected rr0 first, measured idle; look at "
				   "enqueue_task_rr and pick_next_task_rr");
	for (int i = 0; i < RR_TASKS; i++)
		ck_assert_msg(t[i]->sum_exec_runtime > 0,
			      "rr%d never ran in %d ms: expected each of %d tasks to run; look at "
			      "enqueue_task_rr (is it on the FIFO?) and pick_next_task_rr",
			      i, RECORD_TICKS, RR_TASKS);
	for (int i = 0; i + 1 < n; i++)
		ck_assert_msg(who[i + 1] == (who[i] + 1) % RR_TASKS,
			      "turn %d went to rr%d after rr%d: expected FIFO order rr0, rr1, rr2, rr0...; "
			      "look at where pick_next_task_rr takes from and put_prev_task_rr puts back",
			      i + 1, who[i + 1], who[i]);
	sim_stop();
}
END_TEST

/* Tick: a turn lasts the slice, 10 ms, give or take the tick that notices it. */
START_TEST(test_rr_turns_last_one_slice)
{
	struct task *t[RR_TASKS];
	int who[64], len[64], n;

	rr_tasks(t);
	n = segments(t, RECORD_TICKS, who, len, 64);
	ck_assert_msg(n >= 3,
		      "%d turns in %d ms: expected about %d (a %d ms slice each); look at "
		      "task_tick_rr",
		      n, RECORD_TICKS, RECORD_TICKS / SLICE_TICKS, SLICE_TICKS);
	/* The last segment is cut by the end of the recording. */
	for (int i = 0; i + 1 < n; i++)
		ck_assert_msg(len[i] >= SLICE_TICKS - 1 && len[i] <= SLICE_TICKS + 1,
			      "turn %d of rr%d lasted %d ms: expected %d ms +- 1 tick; look at "
			      "task_tick_rr (resched once the slice is spent) and pick_next_task_rr "
			      "(a fresh slice)",
			      i, who[i], len[i], SLICE_TICKS);
	sim_stop();
}
END_TEST

/* Dequeue: a sleeping task gets no CPU; the others share it; woken, it has turns again. */
START_TEST(test_rr_sleeper_is_off_the_queue)
{
	struct task *t[RR_TASKS], *sleeper;
	u64 slept_at;

	rr_tasks(t);
	sim_schedule(0);
	sleeper = sim_curr(0);
	ck_assert_msg(running(t) >= 0, "no rr task runs: look at pick_next_task_rr");
	sim_sleep(sleeper);
	slept_at = sleeper->sum_exec_runtime;
	sim_run(60 * SIM_TICK_NS);
	ck_assert_msg(sleeper->sum_exec_runtime == slept_at,
		      "%s ran %llu us while asleep: expected 0; look at dequeue_task_rr (off the FIFO)",
		      sleeper->comm,
		      (unsigned long long)(sleeper->sum_exec_runtime - slept_at) / 1000);
	for (int i = 0; i < RR_TASKS; i++)
		if (t[i] != sleeper)
			ck_assert_msg(t[i]->sum_exec_runtime >= 25 * SIM_TICK_NS,
				      "%s ran %llu us of 60 ms beside one sleeper: expected >= 25 ms; "
				      "look at dequeue_task_rr and pick_next_task_rr",
				      t[i]->comm, (unsigned long long)t[i]->sum_exec_runtime / 1000);
	sim_wake(sleeper);
	slept_at = sleeper->sum_exec_runtime;
	sim_run(40 * SIM_TICK_NS);
	ck_assert_msg(sleeper->sum_exec_runtime > slept_at,
		      "%s, woken, had no turn in 40 ms: expected one within 2 slices; look at "
		      "enqueue_task_rr",
		      sleeper->comm);
	ck_assert_int_eq(sim_verify_all(), 0);
	sim_stop();
}
END_TEST

/* Yield: the yielder goes to the back at once; the next in line runs. */
START_TEST(test_rr_yield_goes_to_the_back)
{
	struct task *t[RR_TASKS];
	int first, second;

	rr_tasks(t);
	sim_schedule(0);
	first = running(t);
	ck_assert_msg(first >= 0, "no rr task runs: look at pick_next_task_rr");
	sim_tick_all();
	rr_sched_class.yield_task(sim_rq(0));
	sim_schedule(0);
	second = running(t);
	ck_assert_msg(second == (first + 1) % RR_TASKS,
		      "after rr%d yielded 1 ms into its slice, %s ran: expected rr%d; look at "
		      "yield_task_rr",
		      first, second >= 0 ? t[second]->comm : "idle", (first + 1) % RR_TASKS);
	rr_sched_class.yield_task(sim_rq(0));
	sim_schedule(0);
	ck_assert_msg(running(t) == (first + 2) % RR_TASKS,
		      "after two yields expected rr%d, the last in line, then rr%d again; look at "
		      "yield_task_rr",
		      (first + 2) % RR_TASKS, first);
	rr_sched_class.yield_task(sim_rq(0));
	sim_schedule(0);
	ck_assert_msg(running(t) == first,
		      "after three yields expected rr%d back at the head; look at yield_task_rr",
		      first);
	sim_stop();
}
END_TEST

Suite *lab_rr_suite(void)
{
	Suite *s = suite_create("lab_rr");
	TCase *tc = tcase_create("rr");

	tcase_add_test(tc, test_rr_everyone_runs_in_fifo_order);
	tcase_add_test(tc, test_rr_turns_last_one_slice);
	tcase_add_test(tc, test_rr_sleeper_is_off_the_queue);
	tcase_add_test(tc, test_rr_yield_goes_to_the_back);
	suite_add_tcase(s, tc);
	return s;
}

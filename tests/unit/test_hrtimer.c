/*
 * Host tests of the high-resolution timer queues (kernel/time/hrtimer.c):
 * expiry order, the hardware armed for the earliest timer, restarts,
 * cancels and moves. Each test uses a CPU of its own (fake_cpu_id), since
 * the per-CPU queues are static.
 */
#include "time/hrtimer.h"

#include "fake_arch.h"
#include "unit.h"

#define NR_LOG 16

static struct hrtimer *fired_log[NR_LOG];
static u64 fired_at[NR_LOG];
static unsigned int nr_fired;

static enum hrtimer_restart log_fire(struct hrtimer *t)
{
	if (nr_fired < NR_LOG) {
		fired_log[nr_fired] = t;
		fired_at[nr_fired] = fake_clock_ns;
	}
	nr_fired++;
	return HRTIMER_NORESTART;
}

static enum hrtimer_restart every_50(struct hrtimer *t)
{
	log_fire(t);
	t->expires += 50;
	return HRTIMER_RESTART;
}

static struct hrtimer tick;

/* Makes cpu the current one and starts its queue with a tick far away (at 1,000,000). */
static void start_cpu(unsigned int cpu)
{
	fake_cpu_id = cpu;
	fake_clock_ns = 0;
	nr_fired = 0;
	hrtimer_init(&tick, log_fire);
	hrtimer_start(&tick, 1000000);
	hrtimer_cpu_start(cpu, &tick);
	ck_assert_uint_eq(fake_timer_deadline, 1000000);
}

static void stop_cpu(void)
{
	hrtimer_cancel(&tick);
}

START_TEST(test_expiry_order)
{
	struct hrtimer a, b, c;

	start_cpu(1);
	hrtimer_init(&a, log_fire);
	hrtimer_init(&b, log_fire);
	hrtimer_init(&c, log_fire);
	hrtimer_start(&a, 30);
	ck_assert_uint_eq(fake_timer_deadline, 30);
	hrtimer_start(&b, 10);
	ck_assert_uint_eq(fake_timer_deadline, 10);
	hrtimer_start(&c, 20);
	ck_assert_uint_eq(fake_timer_deadline, 10); /* not the earliest: hardware unchanged */

	fake_clock_ns = 15;
	hrtimer_interrupt(1);
	ck_assert_uint_eq(nr_fired, 1);
	ck_assert_ptr_eq(fired_log[0], &b);
	ck_assert(!hrtimer_pending(&b));
	ck_assert_uint_eq(fake_timer_deadline, 20);

	fake_clock_ns = 100;
	hrtimer_interrupt(1);
	ck_assert_uint_eq(nr_fired, 3);
	ck_assert_ptr_eq(fired_log[1], &c);
	ck_assert_ptr_eq(fired_log[2], &a);
	ck_assert_uint_eq(fake_timer_deadline, 1000000); /* back to the tick */
	ck_assert_uint_eq(hrtimer_fired_count(1), 3);
	stop_cpu();
}
END_TEST

START_TEST(test_equal_expiry_first_come)
{
	struct hrtimer a, b;

	start_cpu(2);
	hrtimer_init(&a, log_fire);
	hrtimer_init(&b, log_fire);
	hrtimer_start(&a, 40);
	hrtimer_start(&b, 40);
	fake_clock_ns = 40; /* due exactly now */
	hrtimer_interrupt(2);
	ck_assert_uint_eq(nr_fired, 2);
	ck_assert_ptr_eq(fired_log[0], &a);
	ck_assert_ptr_eq(fired_log[1], &b);
	stop_cpu();
}
END_TEST

START_TEST(test_restart)
{
	struct hrtimer p;

	start_cpu(3);
	hrtimer_init(&p, every_50);
	hrtimer_start(&p, 50);
	for (u64 now = 50; now <= 150; now += 50) {
		fake_clock_ns = now;
		hrtimer_interrupt(3);
		ck_assert_uint_eq(fake_timer_deadline, now + 50);
	}
	ck_assert_uint_eq(nr_fired, 3);
	ck_assert_uint_eq(fired_at[2], 150);
	ck_assert(hrtimer_pending(&p));
	ck_assert(hrtimer_cancel(&p));
	ck_assert(!hrtimer_pending(&p));
	fake_clock_ns = 1000;
	hrtimer_interrupt(3);
	ck_assert_uint_eq(nr_fired, 3);
	stop_cpu();
}
END_TEST

START_TEST(test_cancel_and_move)
{
	struct hrtimer a, b;

	start_cpu(4);
	hrtimer_init(&a, log_fire);
	hrtimer_init(&b, log_fire);
	ck_assert(!hrtimer_cancel(&a)); /* never started */
	hrtimer_start(&a, 10);
	hrtimer_start(&b, 20);
	ck_assert(hrtimer_cancel(&a));
	ck_assert(!hrtimer_cancel(&a));
	hrtimer_start(&b, 60); /* a pending timer moves, it is not queued twice */
	fake_clock_ns = 20;
	hrtimer_interrupt(4);
	ck_assert_uint_eq(nr_fired, 0);
	ck_assert_uint_eq(fake_timer_deadline, 60);
	fake_clock_ns = 70;
	hrtimer_interrupt(4);
	ck_assert_uint_eq(nr_fired, 1);
	ck_assert_ptr_eq(fired_log[0], &b);
	stop_cpu();
}
END_TEST

START_TEST(test_past_deadline)
{
	struct hrtimer a;

	start_cpu(5);
	fake_clock_ns = 500;
	hrtimer_init(&a, log_fire);
	hrtimer_start(&a, 100); /* already due: armed for the past, fires at the next interrupt */
	ck_assert_uint_eq(fake_timer_deadline, 100);
	hrtimer_interrupt(5);
	ck_assert_uint_eq(nr_fired, 1);
	stop_cpu();
}
END_TEST

Suite *hrtimer_suite(void)
{
	Suite *s = suite_create("hrtimer");
	TCase *tc = tcase_create("queue");

	tcase_add_test(tc, test_expiry_order);
	tcase_add_test(tc, test_equal_expiry_first_come);
	tcase_add_test(tc, test_restart);
	tcase_add_test(tc, test_cancel_and_move);
	tcase_add_test(tc, test_past_deadline);
	suite_add_tcase(s, tc);
	return s;
}

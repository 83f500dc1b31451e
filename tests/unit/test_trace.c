/*
 * Host tests of the tracer's text (kernel/trace/trace_output.c): each
 * event's line exactly as Linux 6.1's tracefs prints the same event, the
 * header, names made safe, and a dump that merges the CPUs' rings in time
 * order and empties them.
 */
#include <stdlib.h>
#include <string.h>

#include "fake_arch.h"
#include "lib/errno.h"
#include "trace/trace_internal.h"
#include "unit.h"

static struct trace_record rec(enum trace_event ev, u64 ts, int pid, const char *comm)
{
	struct trace_record r;

	memset(&r, 0, sizeof(r));
	r.ts = ts;
	r.event = (u8)ev;
	r.pid = pid;
	strncpy(r.comm, comm, sizeof(r.comm) - 1);
	return r;
}

static const char *line_of(const struct trace_record *r, u32 cpu)
{
	static char buf[320];

	trace_format_record(buf, sizeof(buf), r, cpu);
	return buf;
}

START_TEST(test_switch_line)
{
	struct trace_record r = rec(TRACE_SCHED_SWITCH, 1234567891234ULL, 0, "swapper/1");

	r.flags = TRACE_FLAG_IRQS_OFF;
	r.preempt = 2;
	r.arg[0] = 0;
	r.arg[1] = 120;
	r.arg[2] = TRACE_STATE_R;
	r.arg[3] = 42;
	r.arg[4] = 120;
	strcpy(r.str, "hackbench");
	/* pid 0 is "<idle>" in the context columns, swapper/N in the fields; 1234.567891234 s rounds up */
	ck_assert_str_eq(line_of(&r, 1),
			 "          <idle>-0       [001] d..2.  1234.567891: sched_switch: "
			 "prev_comm=swapper/1 prev_pid=0 prev_prio=120 prev_state=R ==> "
			 "next_comm=hackbench next_pid=42 next_prio=120\n");
	r.ts = 999999; /* 0.999999 ms: rounds to 1000 us */
	r.pid = 42;
	strcpy(r.comm, "hackbench");
	r.arg[0] = 42;
	r.arg[2] = TRACE_STATE_R_PLUS;
	r.arg[3] = 0;
	strcpy(r.str, "swapper/1");
	r.flags = TRACE_FLAG_IRQS_OFF | TRACE_FLAG_NEED_RESCHED | TRACE_FLAG_HARDIRQ;
	r.preempt = 0;
	/* The idle task of CPU 12 is swapper/12, though its comm holds only "swapper/2" */
	ck_assert_str_eq(line_of(&r, 12),
			 "       hackbench-42      [012] dNh..     0.001000: sched_switch: "
			 "prev_comm=hackbench prev_pid=42 prev_prio=120 prev_state=R+ ==> "
			 "next_comm=swapper/12 next_pid=0 next_prio=120\n");
}
END_TEST

START_TEST(test_wakeup_family_lines)
{
	struct trace_record r = rec(TRACE_SCHED_WAKING, 5000000000ULL, 7, "sh");

	r.arg[0] = 9;
	r.arg[1] = 125;
	r.arg[2] = 3;
	strcpy(r.str, "t_pipe");
	ck_assert_str_eq(line_of(&r, 0), "              sh-7       [000] .....     5.000000: "
					 "sched_waking: comm=t_pipe pid=9 prio=125 target_cpu=003\n");
	r.event = TRACE_SCHED_WAKEUP_NEW;
	ck_assert_str_eq(line_of(&r, 0),
			 "              sh-7       [000] .....     5.000000: "
			 "sched_wakeup_new: comm=t_pipe pid=9 prio=125 target_cpu=003\n");
	r.event = TRACE_SCHED_MIGRATE_TASK;
	r.arg[2] = 1;
	r.arg[3] = 6;
	ck_assert_str_eq(line_of(&r, 0),
			 "              sh-7       [000] .....     5.000000: "
			 "sched_migrate_task: comm=t_pipe pid=9 prio=125 orig_cpu=1 dest_cpu=6\n");
}
END_TEST

START_TEST(test_process_and_idle_lines)
{
	struct trace_record r = rec(TRACE_SCHED_PROCESS_FORK, 2000, 1, "init");

	r.arg[0] = 1;
	r.arg[1] = 11;
	strcpy(r.str, "init");
	ck_assert_str_eq(line_of(&r, 3),
			 "            init-1       [003] .....     0.000002: "
			 "sched_process_fork: comm=init pid=1 child_comm=init child_pid=11\n");
	r = rec(TRACE_SCHED_PROCESS_EXEC, 2000, 11, "hackbench");
	r.arg[0] = r.arg[1] = 11;
	strcpy(r.str, "/bin/hackbench");
	ck_assert_str_eq(line_of(&r, 3),
			 "       hackbench-11      [003] .....     0.000002: "
			 "sched_process_exec: filename=/bin/hackbench pid=11 old_pid=11\n");
	r = rec(TRACE_SCHED_PROCESS_EXIT, 2000, 11, "hackbench");
	r.arg[0] = 11;
	r.arg[1] = 120;
	strcpy(r.str, "hackbench");
	ck_assert_str_eq(line_of(&r, 3), "       hackbench-11      [003] .....     0.000002: "
					 "sched_process_exit: comm=hackbench pid=11 prio=120\n");
	r = rec(TRACE_CPU_IDLE, 2000, 0, "swapper/3");
	r.flags = TRACE_FLAG_IRQS_OFF;
	r.arg[0] = (s32)TRACE_IDLE_EXIT;
	r.arg[1] = 3;
	ck_assert_str_eq(line_of(&r, 3), "          <idle>-0       [003] d....     0.000002: "
					 "cpu_idle: state=4294967295 cpu_id=3\n");
}
END_TEST

START_TEST(test_fulcrum_events)
{
	struct trace_record r = rec(TRACE_SCHED_SELECT, 1000, 5, "sh");

	r.arg[0] = 6;
	r.arg[1] = 2;
	r.arg[2] = 4;
	r.arg[3] = 4;
	r.arg[4] = TRACE_SELECT_AFFINE;
	strcpy(r.str, "NUMA");
	ck_assert_str_eq(line_of(&r, 4),
			 "              sh-5       [004] .....     0.000001: sched_select: pid=6 "
			 "prev_cpu=2 this_cpu=4 target=4 sd_level=NUMA reason=affine\n");
	r = rec(TRACE_SCHED_BALANCE, 1000, 0, "swapper/2");
	r.arg[0] = 2;
	r.arg[1] = 2; /* CPU_NEWLY_IDLE */
	r.arg[2] = 1023;
	r.arg[3] = 3;
	r.arg[4] = 1;
	r.arg[5] = TRACE_BALANCE_MOVED;
	strcpy(r.str, "SMT");
	ck_assert_str_eq(line_of(&r, 2),
			 "          <idle>-0       [002] .....     0.000001: sched_balance: cpu=2 "
			 "domain=SMT idle_type=newidle imbalance=1023 busiest=3 moved=1 result=moved\n");
	r = rec(TRACE_SCHED_WATCHDOG, 1000, 0, "swapper/2");
	r.arg[0] = 1;
	r.arg[1] = 17;
	r.arg[2] = 2000;
	strcpy(r.str, "stall my task");
	ck_assert_str_eq(line_of(&r, 2),
			 "          <idle>-0       [002] .....     0.000001: sched_watchdog: "
			 "kind=stall cpu=1 pid=17 comm=my_task ms=2000\n");
	/* Kinds with an underscore of their own: the kind ends at the record's first blank. */
	strcpy(r.str, "soft_lockup wd soft");
	ck_assert_str_eq(line_of(&r, 2),
			 "          <idle>-0       [002] .....     0.000001: sched_watchdog: "
			 "kind=soft_lockup cpu=1 pid=17 comm=wd_soft ms=2000\n");
	r.arg[1] = -1;
	strcpy(r.str, "hard_lockup -");
	ck_assert_str_eq(line_of(&r, 2),
			 "          <idle>-0       [002] .....     0.000001: sched_watchdog: "
			 "kind=hard_lockup cpu=1 pid=-1 comm=- ms=2000\n");
}
END_TEST

/* A name with a blank or '=' would split a key=value field: each becomes '_'. */
/* sched_affinity: the mask's bits in str, printed as Linux prints a CPU list. */
START_TEST(test_affinity_line)
{
	struct trace_record r = rec(TRACE_SCHED_AFFINITY, 2000, 6, "kinit");

	r.arg[0] = 7;
	r.str[0] = 0x0c;	/* CPUs 2, 3 */
	r.str[1] = (char)0xff;	/* 8-15 */
	r.str[31] = (char)0x80; /* 255 */
	ck_assert_str_eq(line_of(&r, 3),
			 "           kinit-6       [003] .....     0.000002: sched_affinity: pid=7 "
			 "cpus_allowed=2-3,8-15,255\n");
	/* An odd/even split of every CPU is the longest list: it fits a line whole. */
	{
		static char buf[768];
		const char *list;

		memset(r.str, 0x55, TRACE_AFFINITY_CPUS / 8);
		trace_format_record(buf, sizeof(buf), &r, 3);
		list = strstr(buf, "cpus_allowed=");
		ck_assert_ptr_nonnull(list);
		ck_assert(strncmp(list, "cpus_allowed=0,2,4,", 19) == 0);
		ck_assert_ptr_nonnull(strstr(buf, ",252,254\n"));
	}
}
END_TEST

START_TEST(test_names_made_safe)
{
	struct trace_record r = rec(TRACE_SCHED_PROCESS_EXIT, 0, 8, "a b=c");

	r.arg[0] = 8;
	r.arg[1] = 120;
	strcpy(r.str, "a b=c");
	ck_assert_str_eq(line_of(&r, 0), "           a_b_c-8       [000] .....     0.000000: "
					 "sched_process_exit: comm=a_b_c pid=8 prio=120\n");
}
END_TEST

START_TEST(test_header_is_linux_nop)
{
	char buf[1024];

	trace_format_header(buf, sizeof(buf), 10, 12, 8);
	ck_assert_str_eq(buf, "# tracer: nop\n"
			      "#\n"
			      "# entries-in-buffer/entries-written: 10/12   #P:8\n"
			      "#\n"
			      "#                                _-----=> irqs-off/BH-disabled\n"
			      "#                               / _----=> need-resched\n"
			      "#                              | / _---=> hardirq/softirq\n"
			      "#                              || / _--=> preempt-depth\n"
			      "#                              ||| / _-=> migrate-disable\n"
			      "#                              |||| /     delay\n"
			      "#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION\n"
			      "#              | |         |   |||||     |         |\n");
}
END_TEST

/* Two CPUs' rings, the second one wrapped: the dump is in time order, once, then empty. */
START_TEST(test_dump_merges_and_consumes)
{
	static struct trace_record r0[4], r1[2];
	const char *text, *a, *b, *c, *d;

	memset(trace_rings, 0, sizeof(trace_rings));
	trace_nr_cpus = 2;
	trace_rings[0] = (struct trace_ring){ .rec = r0, .size = 4, .head = 2, .entries = 2 };
	trace_rings[1] = (struct trace_ring){ .rec = r1, .size = 2, .head = 3, .entries = 3 };
	r0[0] = rec(TRACE_SCHED_PROCESS_EXIT, 1000, 1, "a");
	r0[1] = rec(TRACE_SCHED_PROCESS_EXIT, 4000, 1, "c");
	r1[0] = rec(TRACE_SCHED_PROCESS_EXIT, 5000, 2, "d"); /* the newest: slot 0 was rewritten */
	r1[1] = rec(TRACE_SCHED_PROCESS_EXIT, 2000, 2, "b");
	fake_trace_channel_reset();
	ck_assert_int_eq(trace_dump(), 4);
	text = fake_trace_channel_text();
	ck_assert_ptr_nonnull(strstr(text, "# entries-in-buffer/entries-written: 4/5   #P:2\n"));
	a = strstr(text, "  a-1 ");
	b = strstr(text, "  b-2 ");
	c = strstr(text, "  c-1 ");
	d = strstr(text, "  d-2 ");
	ck_assert(a && b && c && d);
	ck_assert(a < b && b < c && c < d);
	ck_assert_uint_eq(trace_rings[0].head, 0);
	ck_assert_uint_eq(trace_rings[1].head, 0);
	/* A second dump writes no header again and no records. */
	fake_trace_channel_reset();
	ck_assert_int_eq(trace_dump(), 0);
	ck_assert_str_eq(fake_trace_channel_text(), "");
	fake_trace_channel = false;
	ck_assert_int_eq(trace_dump(), -ENODEV);
	fake_trace_channel = true;
	memset(trace_rings, 0, sizeof(trace_rings));
	trace_nr_cpus = 0;
}
END_TEST

Suite *trace_suite(void)
{
	Suite *s = suite_create("trace");
	TCase *tc = tcase_create("trace");

	tcase_add_test(tc, test_switch_line);
	tcase_add_test(tc, test_wakeup_family_lines);
	tcase_add_test(tc, test_process_and_idle_lines);
	tcase_add_test(tc, test_fulcrum_events);
	tcase_add_test(tc, test_affinity_line);
	tcase_add_test(tc, test_names_made_safe);
	tcase_add_test(tc, test_header_is_linux_nop);
	tcase_add_test(tc, test_dump_merges_and_consumes);
	suite_add_tcase(s, tc);
	return s;
}

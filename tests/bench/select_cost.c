/*
 * select-cost: what one select_task_rq_fair() costs on the host, built
 * with the kernel's optimisation (-O2) against a fake machine of the
 * `2s16` shape (2 sockets x 4 cores x 2 threads, a node per socket, SLIT
 * 21), CPU 0 running the decider's thread and every other CPU idle -- the cases the kernel's
 * `sched_cost` option measures in QEMU.
 *
 *   select-cost                      every case and variant: RESULT lines (median cycles)
 *   select-cost CASE VARIANT CALLS   only that one, CALLS times (for callgrind's
 *                                    instruction counts: tools/sched-cost)
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_arch.h"
#include "sched/cost.h"
#include "select_fixture.h"

#define SAMPLES 2001

struct cost_case {
	const char *name;
	u32 prev;
	int sd_flag, wake_flags;
};

/* CPU 0 decides; CPU 2 shares its LLC (another core), CPU 8 is on the other socket. */
static const struct cost_case cases[] = {
	{ "wake_sync_llc", 2, SD_BALANCE_WAKE, WF_SYNC },
	{ "wake_sync_remote", 8, SD_BALANCE_WAKE, WF_SYNC },
	{ "wake_local", 0, SD_BALANCE_WAKE, 0 },
	{ "fork", 0, SD_BALANCE_FORK, 0 },
};

static int usage(void)
{
	char names[128];

	sched_placement_names(names, sizeof(names));
	fprintf(stderr, "usage: select-cost [CASE VARIANT CALLS]\n  variants: %s\n  cases:", names);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		fprintf(stderr, " %s", cases[i].name);
	fprintf(stderr, "\n");
	return 2;
}

/* Only callgrind looks at this path: it counts the instructions inside select_task_rq_fair. */
static int run_calls(const struct cost_case *c, const char *variant, long calls)
{
	struct task *p = fx_task(c->prev, 0);
	u32 cpu = 0;

	ck_assert_int_eq(sched_select_set(variant, strlen(variant)), 0);
	for (long i = 0; i < calls; i++)
		cpu = select_task_rq_fair(p, c->sd_flag, c->wake_flags);
	printf("%s %s: %ld calls, chose cpu %u\n", c->name, variant, calls, cpu);
	return 0;
}

static int bench_argc, bench_rc;
static char **bench_argv;

/* The fixture asserts with Check, so the measurement runs as a (no-fork) Check test. */
START_TEST(measure)
{
	int argc = bench_argc;
	char **argv = bench_argv;

	fx_start_machine(2, 4, 2, 21);
	fx_busy(0, 1); /* the decider's own thread runs there, as in the kernel's measurement */
	fake_cpu_id = 0;
	if (argc == 4) {
		const struct cost_case *c = NULL;
		long calls = strtol(argv[3], NULL, 10);

		for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
			if (strcmp(argv[1], cases[i].name) == 0)
				c = &cases[i];
		if (!c || calls <= 0 || !sched_placement_find(argv[2], strlen(argv[2])))
			bench_rc = usage();
		else
			bench_rc = run_calls(c, argv[2], calls);
	} else if (argc != 1) {
		bench_rc = usage();
	} else {
		for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
			struct task *p = fx_task(cases[i].prev, 0);

			const struct sched_placement *v;

			for (u32 k = 0; (v = sched_placement_at(k)); k++) {
				u32 chosen;
				u64 cycles = select_cost_median(p, v, cases[i].sd_flag,
								cases[i].wake_flags, SAMPLES,
								&chosen);

				printf("RESULT name=select_task_rq variant=%s case=%s this_cpu=0 prev_cpu=%u chose=%u samples=%d value=%llu unit=cycles\n",
				       v->name, cases[i].name, cases[i].prev, chosen, SAMPLES,
				       (unsigned long long)cycles);
			}
		}
	}
	fx_stop();
}
END_TEST

int main(int argc, char **argv)
{
	Suite *s = suite_create("select-cost");
	TCase *tc = tcase_create("measure");
	SRunner *sr;
	int failed;

	bench_argc = argc;
	bench_argv = argv;
	tcase_add_test(tc, measure);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_set_fork_status(sr, CK_NOFORK);
	srunner_run_all(sr, CK_SILENT);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : bench_rc;
}

/*
 * Host tests of kernel/lib/cpumask: the set algebra across word boundaries,
 * iteration, weight, and Linux's list printing with truncation.
 */
#include <string.h>

#include "lib/cpumask.h"
#include "unit.h"

static struct cpumask of(const u32 *cpus, size_t n)
{
	struct cpumask m = CPUMASK_EMPTY;

	for (size_t i = 0; i < n; i++)
		cpumask_set_cpu(cpus[i], &m);
	return m;
}

static const char *str(const struct cpumask *m)
{
	static char buf[1024];

	ck_assert_int_lt(cpumask_print(buf, sizeof(buf), m), (int)sizeof(buf));
	return buf;
}

START_TEST(test_set_clear_test)
{
	struct cpumask m = CPUMASK_EMPTY;

	ck_assert(cpumask_empty(&m));
	ck_assert_uint_eq(cpumask_first(&m), MAX_CPUS);
	for (u32 cpu = 0; cpu < MAX_CPUS; cpu += 3)
		cpumask_set_cpu(cpu, &m);
	for (u32 cpu = 0; cpu < MAX_CPUS; cpu++)
		ck_assert_int_eq(cpumask_test_cpu(cpu, &m), cpu % 3 == 0);
	ck_assert_uint_eq(cpumask_weight(&m), (MAX_CPUS + 2) / 3);
	cpumask_clear_cpu(63, &m);
	cpumask_clear_cpu(64, &m); /* was not set */
	ck_assert(!cpumask_test_cpu(63, &m));
	ck_assert_uint_eq(cpumask_weight(&m), (MAX_CPUS + 2) / 3 - 1);
	/* Out of range: ignored, never set, never found. */
	cpumask_set_cpu(MAX_CPUS, &m);
	cpumask_set_cpu(~0U, &m);
	ck_assert(!cpumask_test_cpu(MAX_CPUS, &m));
	ck_assert_uint_eq(cpumask_weight(&m), (MAX_CPUS + 2) / 3 - 1);
	cpumask_clear(&m);
	ck_assert(cpumask_empty(&m));
	ck_assert_uint_eq(cpumask_weight(&m), 0);
}
END_TEST

START_TEST(test_algebra)
{
	const u32 a_cpus[] = { 0, 1, 2, 63, 64, 130, 255 };
	const u32 b_cpus[] = { 2, 3, 64, 200, 255 };
	struct cpumask a = of(a_cpus, 7), b = of(b_cpus, 5), r;

	cpumask_and(&r, &a, &b);
	ck_assert_str_eq(str(&r), "2,64,255");
	cpumask_or(&r, &a, &b);
	ck_assert_str_eq(str(&r), "0-3,63-64,130,200,255");
	cpumask_andnot(&r, &a, &b);
	ck_assert_str_eq(str(&r), "0-1,63,130");
	ck_assert(cpumask_intersects(&a, &b));
	ck_assert(!cpumask_intersects(&r, &b));
	ck_assert(!cpumask_subset(&a, &b));
	cpumask_and(&r, &a, &b);
	ck_assert(cpumask_subset(&r, &a));
	ck_assert(cpumask_subset(&r, &b));
	ck_assert(cpumask_subset(&r, &r));
	ck_assert(cpumask_equal(&a, &a));
	ck_assert(!cpumask_equal(&a, &b));
	/* In place: dst is an operand. */
	r = a;
	cpumask_or(&r, &r, &b);
	cpumask_andnot(&r, &r, &a);
	ck_assert_str_eq(str(&r), "3,200");
}
END_TEST

START_TEST(test_iterate)
{
	const u32 cpus[] = { 5, 63, 64, 127, 128, 255 };
	struct cpumask m = of(cpus, 6);
	u32 cpu, i = 0;

	for_each_cpu (cpu, &m)
		ck_assert_uint_eq(cpu, cpus[i++]);
	ck_assert_uint_eq(i, 6);
	ck_assert_uint_eq(cpu, MAX_CPUS);
	ck_assert_uint_eq(cpumask_first(&m), 5);
	ck_assert_uint_eq(cpumask_next(5, &m), 63);
	ck_assert_uint_eq(cpumask_next(64, &m), 127);
	ck_assert_uint_eq(cpumask_next(255, &m), MAX_CPUS);
	ck_assert_uint_eq(cpumask_next(MAX_CPUS, &m), MAX_CPUS);
	ck_assert_uint_eq(cpumask_next((u32)-1, &m), 5);
}
END_TEST

START_TEST(test_set_range_and_full)
{
	struct cpumask m = CPUMASK_EMPTY;
	u32 cpu, n = 0;

	cpumask_set_range(&m, 0, MAX_CPUS + 10);
	ck_assert_uint_eq(cpumask_weight(&m), MAX_CPUS);
	ck_assert_str_eq(str(&m), "0-255");
	for_each_cpu (cpu, &m)
		n++;
	ck_assert_uint_eq(n, MAX_CPUS);
	cpumask_clear(&m);
	cpumask_set_range(&m, 60, 70);
	ck_assert_str_eq(str(&m), "60-69");
	cpumask_set_range(&m, 8, 8); /* empty range */
	ck_assert_uint_eq(cpumask_weight(&m), 10);
}
END_TEST

START_TEST(test_print_lists)
{
	const u32 single[] = { 7 };
	const u32 pairs[] = { 0, 1, 3, 4, 5, 8 };
	const u32 runs[] = { 0, 1, 2, 3, 8, 9, 10, 11 };
	struct cpumask e = CPUMASK_EMPTY, m;
	char buf[8];

	ck_assert_str_eq(str(&e), "");
	m = of(single, 1);
	ck_assert_str_eq(str(&m), "7");
	m = of(pairs, 6);
	ck_assert_str_eq(str(&m), "0-1,3-5,8");
	m = of(runs, 8);
	ck_assert_str_eq(str(&m), "0-3,8-11");

	/* Cut short: NUL-terminated, and the return says how long it would be. */
	ck_assert_int_eq(cpumask_print(buf, sizeof(buf), &m), 8);
	ck_assert_str_eq(buf, "0-3,8-1");
	ck_assert_int_eq(cpumask_print(buf, 4, &m), 8);
	ck_assert_str_eq(buf, "0-3");
	ck_assert_int_eq(cpumask_print(NULL, 0, &m), 8);
}
END_TEST

/* Every other CPU: the longest list there is, 128 entries. */
START_TEST(test_print_long)
{
	struct cpumask m = CPUMASK_EMPTY;
	char buf[1024];
	int n;

	for (u32 cpu = 0; cpu < MAX_CPUS; cpu += 2)
		cpumask_set_cpu(cpu, &m);
	n = cpumask_print(buf, sizeof(buf), &m);
	ck_assert_int_eq(n, (int)strlen(buf));
	ck_assert(!strncmp(buf, "0,2,4,6,8,10,", 13));
	ck_assert(!strcmp(buf + n - 8, ",252,254"));
}
END_TEST

Suite *cpumask_suite(void)
{
	Suite *s = suite_create("cpumask");
	TCase *tc = tcase_create("cpumask");

	tcase_add_test(tc, test_set_clear_test);
	tcase_add_test(tc, test_algebra);
	tcase_add_test(tc, test_iterate);
	tcase_add_test(tc, test_set_range_and_full);
	tcase_add_test(tc, test_print_lists);
	tcase_add_test(tc, test_print_long);
	suite_add_tcase(s, tc);
	return s;
}

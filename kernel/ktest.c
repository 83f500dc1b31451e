/*
 * Runs the in-kernel tests that `ktest=` names (`ktest=all` runs every
 * one). Results go to the console as "KTEST <name> PASS|FAIL" lines and a
 * closing "KTEST summary" line, which the boot harness checks.
 */
#include "ktest.h"

#include <arch/time.h>

#include "cmdline.h"
#include "debug/selftest.h"
#include "lib/string.h"

#define KTEST_MAX_SELECTED 32

extern const struct ktest __start_ktests[], __stop_ktests[];

static char selected[KTEST_MAX_SELECTED][48];
static size_t nr_selected;
static bool select_all;

static int ktest_select(const char *item, size_t len)
{
	if (len == 3 && memcmp(item, "all", 3) == 0) {
		select_all = true;
		return 0;
	}
	if (len >= sizeof(selected[0]) || nr_selected == KTEST_MAX_SELECTED)
		return -1;
	memcpy(selected[nr_selected], item, len);
	selected[nr_selected][len] = '\0';
	nr_selected++;
	return 0;
}
BOOT_OPTION_LIST(ktest, "ktest", ktest_select, "in-kernel tests to run at boot: names, or all");

static bool ktest_matches(const struct ktest *t, const char *pattern)
{
	size_t len = strlen(pattern);

	if (len && pattern[len - 1] == '*')
		return strncmp(t->name, pattern, len - 1) == 0;
	return strcmp(t->name, pattern) == 0;
}

/* 1 passed, 0 skipped, -1 failed */
static int ktest_run_one(const struct ktest *t)
{
	u64 start = arch_clock_ns(), us;
	int rc = t->run();

	us = (arch_clock_ns() - start) / 1000;
	pr_info("KTEST %s %s (%llu us)\n", t->name,
		rc == 0		 ? "PASS" :
		rc == KTEST_SKIP ? "SKIP" :
				   "FAIL",
		(unsigned long long)us);
	return rc == 0 ? 1 : rc == KTEST_SKIP ? 0 : -1;
}

int ktest_run_selected(void)
{
	int counts[3] = { 0 }; /* failed, skipped, passed */

	if (selftest_suite_is("sched") && ktest_select("sched_*", 7))
		pr_err("KTEST: too many selections\n");
	if (!select_all && !nr_selected)
		return 0;
	for (const struct ktest *t = __start_ktests; t < __stop_ktests; t++) {
		bool run = select_all;

		for (size_t i = 0; i < nr_selected && !run; i++)
			run = ktest_matches(t, selected[i]);
		if (run)
			counts[ktest_run_one(t) + 1]++;
	}
	for (size_t i = 0; i < nr_selected; i++) {
		bool found = false;

		for (const struct ktest *t = __start_ktests; t < __stop_ktests && !found; t++)
			found = ktest_matches(t, selected[i]);
		if (!found) {
			pr_err("KTEST %s FAIL (no such test)\n", selected[i]);
			counts[0]++;
		}
	}
	pr_info("KTEST summary: %d passed, %d failed, %d skipped\n", counts[2], counts[0], counts[1]);
	return counts[0];
}

/*
 * Runs the in-kernel tests that `ktest=` names (`ktest=all` runs every
 * one). Results go to the console as "KTEST <name> PASS|FAIL" lines and a
 * closing "KTEST summary" line, which the boot harness checks.
 */
#include "ktest.h"

#include <arch/time.h>

#include "cmdline.h"
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

static const struct ktest *ktest_find(const char *name)
{
	for (const struct ktest *t = __start_ktests; t < __stop_ktests; t++)
		if (strcmp(t->name, name) == 0)
			return t;
	return NULL;
}

static bool ktest_run_one(const struct ktest *t)
{
	u64 start = arch_clock_ns(), us;
	int rc = t->run();

	us = (arch_clock_ns() - start) / 1000;
	pr_info("KTEST %s %s (%llu us)\n", t->name, rc == 0 ? "PASS" : "FAIL",
		(unsigned long long)us);
	return rc == 0;
}

int ktest_run_selected(void)
{
	int passed = 0, failed = 0;

	if (!select_all && !nr_selected)
		return 0;
	if (select_all) {
		for (const struct ktest *t = __start_ktests; t < __stop_ktests; t++)
			ktest_run_one(t) ? passed++ : failed++;
	} else {
		for (size_t i = 0; i < nr_selected; i++) {
			const struct ktest *t = ktest_find(selected[i]);

			if (!t) {
				pr_err("KTEST %s FAIL (no such test)\n", selected[i]);
				failed++;
				continue;
			}
			ktest_run_one(t) ? passed++ : failed++;
		}
	}
	pr_info("KTEST summary: %d passed, %d failed\n", passed, failed);
	return failed;
}

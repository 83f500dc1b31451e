/*
 * In-kernel tests: named test functions, registered beside the code they
 * test and run at boot by `ktest=name,...` (or `ktest=all`). Each prints
 * one line "KTEST <name> PASS|FAIL ..." that the boot harness reads.
 */
#ifndef FULCRUM_KTEST_H
#define FULCRUM_KTEST_H

#include "lib/compiler.h"
#include "printk.h"

struct ktest {
	const char *name;
	/*
	 * Returns 0 on success, KTEST_SKIP when the machine cannot run it (it
	 * prints why), or -1 on failure (KTEST_EXPECT prints why).
	 */
	int (*run)(void);
};

#define KTEST(fn)                                                         \
	static int fn(void);                                              \
	static const struct ktest __ktest_##fn __used __section("ktests") \
		__aligned(8) = { .name = #fn, .run = fn }

#define KTEST_SKIP 1

/* Inside a test: reports a failed expectation and returns -1 from the test. */
#define KTEST_EXPECT(cond)                                                                           \
	do {                                                                                         \
		if (!(cond)) {                                                                       \
			pr_err("KTEST expectation failed: %s (%s:%d)\n", #cond, __FILE__, __LINE__); \
			return -1;                                                                   \
		}                                                                                    \
	} while (0)

/*
 * Runs the tests named by the ktest= option (a name ending in '*' names
 * every test starting so) and, for `selftest=sched`, every sched_* test;
 * returns the number that failed.
 */
int ktest_run_selected(void);

#endif

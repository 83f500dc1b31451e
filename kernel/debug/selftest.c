/*
 * Deliberate kernel faults, one per kind of report the oops code makes.
 * Each fault happens in a known function called from a known caller, so a
 * boot test can check that the report names both. The functions are
 * noinline and read their bad pointers through volatiles so the compiler
 * keeps the faulting access exactly where it is written.
 */
#include "debug/selftest.h"

#include "cmdline.h"
#include "lib/string.h"
#include "panic.h"
#include "printk.h"

struct selftest_object {
	char pad[0x40];
	int field; /* at offset 0x40: the NULL dereference faults at 0x40 */
};

static const char *const selftest_choices[] = {
	"none", "oops", "pagefault", "gpf", "ud", "divide", "stackoverflow", "panic", "sched", NULL,
};
static const char *selftest = "none";
BOOT_OPTION_STRING(
	selftest, "selftest", &selftest, selftest_choices,
	"fault on purpose to test the reports: oops (NULL dereference), pagefault, gpf, "
	"ud, divide, stackoverflow (double fault), panic; or sched: run every sched_* in-kernel test");

static struct selftest_object *volatile selftest_null;
static u64 *volatile selftest_unmapped = (u64 *)0xffffffff7ff00000UL; /* below the kernel image */
static u64 *volatile selftest_noncanonical = (u64 *)0xdead000000000000UL;
static volatile int selftest_zero;
static volatile int selftest_sink;
static volatile int selftest_depth_limit = 1 << 30;

static __noipa int selftest_null_deref(struct selftest_object *obj)
{
	return obj->field;
}

static __noipa void selftest_oops(void)
{
	selftest_sink = selftest_null_deref(selftest_null);
}

static __noipa void selftest_page_fault(void)
{
	*selftest_unmapped = 1;
}

static __noipa void selftest_gpf(void)
{
	selftest_sink = (int)*selftest_noncanonical;
}

static __noipa void selftest_invalid_opcode(void)
{
	__builtin_trap();
}

static __noipa void selftest_divide_error(void)
{
	selftest_sink = 100 / selftest_zero;
}

/* Recurses until the boot stack's guard page is hit: a double fault on the IST stack. */
static __noipa int selftest_recurse(int depth)
{
	volatile char frame[256];

	frame[0] = (char)depth;
	if (depth > selftest_depth_limit)
		return 0;
	return selftest_recurse(depth + 1) + frame[0];
}

bool selftest_suite_is(const char *suite)
{
	return strcmp(selftest, suite) == 0;
}

void selftest_run(void)
{
	if (strcmp(selftest, "none") == 0 || strcmp(selftest, "sched") == 0)
		return;
	pr_info("selftest: %s: faulting on purpose\n", selftest);
	if (strcmp(selftest, "oops") == 0)
		selftest_oops();
	else if (strcmp(selftest, "pagefault") == 0)
		selftest_page_fault();
	else if (strcmp(selftest, "gpf") == 0)
		selftest_gpf();
	else if (strcmp(selftest, "ud") == 0)
		selftest_invalid_opcode();
	else if (strcmp(selftest, "divide") == 0)
		selftest_divide_error();
	else if (strcmp(selftest, "stackoverflow") == 0)
		selftest_sink = selftest_recurse(0);
	else if (strcmp(selftest, "panic") == 0)
		panic("selftest: panic requested");
	pr_err("selftest: %s did not fault\n", selftest);
}

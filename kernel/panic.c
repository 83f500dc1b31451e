/*
 * The end of a run. panic() is the one way out after a fatal error; it
 * stops the other CPUs before it says the machine is halted, so the last
 * lines on the console are the report. With `qemu_exit` the exit status
 * reaches the test harness through QEMU's isa-debug-exit device.
 */
#include "panic.h"

#include <arch/cpu.h>

#include "cmdline.h"
#include "lib/printf.h"
#include "printk.h"
#include "trace/trace.h"

static bool qemu_exit;
BOOT_OPTION_BOOL(qemu_exit, "qemu_exit", &qemu_exit,
		 "end QEMU through isa-debug-exit when the run ends (tests use it)");

static volatile int stop_owner; /* 0 free, 1 taken */

bool machine_stop_claim(void)
{
	return __atomic_exchange_n(&stop_owner, 1, __ATOMIC_ACQ_REL) == 0;
}

bool machine_stopping(void)
{
	return __atomic_load_n(&stop_owner, __ATOMIC_ACQUIRE) != 0;
}

static __noreturn void stop_machine_and_halt(enum machine_exit_status status, const char *why)
{
	unsigned int stopped = arch_stop_other_cpus();

	/* A CPU stopped inside printk holds its lock for good: print without it. */
	printk_enter_panic();
	trace_dump_final(); /* what the trace rings hold, before the last line */
	pr_emerg("fulcrum: halted (%s; %u other CPU%s stopped)\n", why, stopped,
		 stopped == 1 ? "" : "s");
	if (qemu_exit)
		arch_qemu_exit(status);
	arch_halt();
}

void panic(const char *fmt, ...)
{
	char reason[256];
	va_list ap;

	arch_irq_disable();
	machine_stop_claim(); /* an oops already holds it when it calls us */
	printk_enter_panic();
	va_start(ap, fmt);
	kvsnprintf(reason, sizeof(reason), fmt, ap);
	va_end(ap);
	pr_emerg("Kernel panic - not syncing: %s\n", reason);
	pr_emerg("---[ end Kernel panic - not syncing: %s ]---\n", reason);
	stop_machine_and_halt(EXIT_PANIC, "panic");
}

bool (*machine_finish_report)(void);

void machine_finish(enum machine_exit_status status)
{
	/* The end-of-run reports (schedstat, sched_verify), once, before the other CPUs stop. */
	bool (*report)(void) = __atomic_exchange_n(&machine_finish_report, NULL, __ATOMIC_ACQ_REL);

	if (report && !report() && status == EXIT_PASS)
		status = EXIT_FAIL;
	arch_irq_disable();
	if (!machine_stop_claim())
		arch_halt(); /* a panic on another CPU owns the ending */
	stop_machine_and_halt(status, status == EXIT_PASS ? "run complete" : "run failed");
}

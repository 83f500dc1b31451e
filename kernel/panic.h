/* How a run ends: normally (machine_finish) or because the kernel cannot go on (panic). */
#ifndef FULCRUM_PANIC_H
#define FULCRUM_PANIC_H

#include <arch/power.h>

#include "lib/compiler.h"
#include "lib/types.h"

/*
 * Prints "Kernel panic - not syncing: <reason>", stops every other CPU,
 * says "fulcrum: halted" and stops this one (ending QEMU with EXIT_PANIC
 * under the qemu_exit option). Safe from any context, including faults.
 */
__noreturn void panic(const char *fmt, ...) __printf(1, 2);

/* True once some CPU is stopping the machine (panic, oops, end of run): others stand down. */
bool machine_stopping(void);

/*
 * Claims the right to stop the machine and report why; false if another
 * CPU already has it (the caller should then just halt).
 */
bool machine_stop_claim(void);

/* The end of a run that reached its goal: report status and stop. */
__noreturn void machine_finish(enum machine_exit_status status);

/*
 * Called once by machine_finish before the machine stops (interrupts on,
 * may sleep): the end-of-run reports. Returns false if they found a
 * failure, which turns a passing run into a failed one.
 */
extern bool (*machine_finish_report)(void);

#endif

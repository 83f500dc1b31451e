/* How a run ends: normally (machine_finish) or because the kernel cannot go on (panic). */
#ifndef FULCRUM_PANIC_H
#define FULCRUM_PANIC_H

#include <arch/machine.h>

#include "lib/compiler.h"
#include "lib/types.h"

/*
 * Prints "Kernel panic - not syncing: <reason>", stops every other CPU,
 * says "fulcrum: halted" and stops this one (ending QEMU with EXIT_PANIC
 * under the qemu_exit option). Safe from any context, including faults.
 */
__noreturn void panic(const char *fmt, ...) __printf(1, 2);

/* True once some CPU has entered panic() or an oops: other CPUs stand down. */
bool panic_in_progress(void);

/*
 * Claims the right to report a fatal fault; false if another report is
 * already under way (the caller should then just halt).
 */
bool panic_claim(void);

/* The end of a run that reached its goal: report status and stop. */
__noreturn void machine_finish(enum machine_exit_status status);

#endif

/* Ending the machine: QEMU's exit device, reboot. */
#ifndef FULCRUM_ARCH_POWER_H
#define FULCRUM_ARCH_POWER_H

#include "lib/compiler.h"

/*
 * Status the kernel reports to a test harness through QEMU's
 * isa-debug-exit device; QEMU exits with (status << 1) | 1.
 */
enum machine_exit_status {
	EXIT_PASS = 0,	/* QEMU exit code 1 */
	EXIT_FAIL = 1,	/* QEMU exit code 3: a test failed */
	EXIT_PANIC = 2, /* QEMU exit code 5: oops or panic */
};

/* Writes status to isa-debug-exit; returns only if no such device ended us. */
void arch_qemu_exit(enum machine_exit_status status);

#endif

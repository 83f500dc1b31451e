/* Arch-private SMP start-up steps shared by setup.c, smp.c and ipi.c. */
#ifndef FULCRUM_X86_SMP_BOOT_H
#define FULCRUM_X86_SMP_BOOT_H

#include "cpu_local.h"

/* The first C code on an AP (from the trampoline); never returns. */
__noreturn void ap_start(struct cpu_local *c);

/* Installs the call-function and reschedule IPI handlers. */
void ipi_init(void);

#endif

/* CPU controls kernel/ may use: interrupt masking, pausing, halting. */
#ifndef FULCRUM_ARCH_CPU_H
#define FULCRUM_ARCH_CPU_H

#include "lib/compiler.h"
#include "lib/types.h"

/* Disables interrupts; returns a token for arch_irq_restore(). */
unsigned long arch_irq_save(void);
void arch_irq_restore(unsigned long flags);
void arch_irq_enable(void);
void arch_irq_disable(void);

/* Spin-wait hint (PAUSE). */
void arch_cpu_relax(void);

/* Sleeps until the next interrupt. */
void arch_wait_for_interrupt(void);

/* Stops this CPU for good: interrupts off, halt in a loop. */
__noreturn void arch_halt(void);

/* Stops every other CPU (NMI); returns how many were asked to stop. */
unsigned int arch_stop_other_cpus(void);

#endif

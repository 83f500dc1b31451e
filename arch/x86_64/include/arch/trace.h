/*
 * What the tracer (kernel/trace/) needs from the CPU: the context an event
 * is recorded in, and the channel a trace leaves the machine by (QEMU's
 * isa-debugcon at port 0xe9; docs/tracing.md says why that one).
 */
#ifndef FULCRUM_ARCH_TRACE_H
#define FULCRUM_ARCH_TRACE_H

#include "lib/types.h"

/* Were interrupts on when arch_irq_save() returned this token? */
bool arch_irq_token_enabled(unsigned long flags);

/* Is this CPU inside an interrupt handler (irq_dispatch) right now? */
bool arch_in_hardirq(void);

/*
 * Is the trace channel there? The debugcon device answers a read of its
 * port with 0xe9; without it the port reads 0xff. Cheap: one port read.
 */
bool arch_trace_channel_present(void);

/* Writes buf[0..len) to the channel; nothing happens if it is absent. */
void arch_trace_channel_write(const char *buf, size_t len);

#endif

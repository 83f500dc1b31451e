/* Interrupt vectors above the exceptions: a handler table, acknowledged through the local APIC. */
#ifndef FULCRUM_X86_IRQ_H
#define FULCRUM_X86_IRQ_H

#include "trap.h"

typedef void (*irq_handler_t)(struct trap_frame *f);

/* Installs handler for vector (32..255). */
void irq_set_handler(u8 vector, irq_handler_t handler);

/* From trap_dispatch for vectors >= 32: runs the handler and sends EOI. */
void irq_dispatch(struct trap_frame *f);

#endif

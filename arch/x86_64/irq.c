/*
 * Dispatch of interrupt vectors 32..255. Every APIC-delivered interrupt
 * but the spurious one needs an EOI; unexpected vectors are counted and
 * acknowledged so they cannot wedge the APIC.
 */
#include "irq.h"

#include <arch/smp.h>

#include "apic.h"
#include "cpu_local.h"
#include "printk.h"

static irq_handler_t handlers[256];
static u64 unexpected;

void irq_set_handler(u8 vector, irq_handler_t handler)
{
	handlers[vector] = handler;
}

void irq_dispatch(struct trap_frame *f)
{
	u8 vector = (u8)f->vector;

	if (vector == VECTOR_SPURIOUS)
		return; /* no EOI for spurious interrupts */
	this_cpu_local()->irq_depth++;
	if (handlers[vector])
		handlers[vector](f);
	else if (unexpected++ < 4)
		pr_warn("irq: unexpected interrupt on vector %#x\n", vector);
	this_cpu_local()->irq_depth--;
	apic_eoi();
	kernel_irq_exit();
}

/*
 * The trace channel: QEMU's isa-debugcon device at I/O port 0xe9, which
 * copies every byte written to it into a host file (tools/qemu-run
 * --trace). No UART to program, no status register to poll, no interrupt;
 * a string goes out with one `rep outsb`.
 */
#include <arch/trace.h>

#include "cpu_local.h"

#define DEBUGCON_PORT	  0xe9
#define DEBUGCON_READBACK 0xe9 /* what QEMU's device answers to a read (its "readback" default) */
#define RFLAGS_IF	  (1UL << 9)

bool arch_irq_token_enabled(unsigned long flags)
{
	return flags & RFLAGS_IF;
}

bool arch_in_hardirq(void)
{
	return this_cpu_local()->irq_depth != 0;
}

bool arch_trace_channel_present(void)
{
	u8 v;

	__asm__ volatile("inb %1, %0" : "=a"(v) : "Nd"((u16)DEBUGCON_PORT));
	return v == DEBUGCON_READBACK;
}

void arch_trace_channel_write(const char *buf, size_t len)
{
	__asm__ volatile("rep outsb" : "+S"(buf), "+c"(len) : "d"((u16)DEBUGCON_PORT) : "memory");
}

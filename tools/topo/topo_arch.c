/*
 * fulcrum-topo's stand-ins for the arch interface and the kernel heap: the
 * kernel code it links (ACPI parsers, domain builder, printk) runs on the
 * host as one thread, prints to a stdio stream and allocates with malloc.
 */
#include "topo_arch.h"

#include <arch/smp.h>
#include <stdlib.h>
#include <string.h>

#include <arch/console.h>
#include <arch/cpu.h>
#include <arch/power.h>
#include <arch/time.h>

#include "mm/heap.h"
#include "trace/trace.h"

/*
 * printk writes each line's timestamp with a call of its own; with the
 * clock stopped at 0 it is always this text, which the tool leaves out.
 */
static const char zero_stamp[] = "[    0.000000] ";

static FILE *console;

/* The domain builder has a tracepoint; the tool never traces. */
bool trace_active;
void __trace_sched_topology(u32 generation, u32 nr_cpus, u32 nr_levels)
{
}

uintptr_t direct_map_base;

void topo_console_to(FILE *out)
{
	console = out;
}

void arch_console_write(const char *s, size_t len)
{
	if (len == sizeof(zero_stamp) - 1 && memcmp(s, zero_stamp, len) == 0)
		return;
	fwrite(s, 1, len, console ? console : stdout);
}

u64 arch_clock_ns(void)
{
	return 0;
}

u64 arch_tsc_hz(void)
{
	return 0;
}

/* One host thread: nothing to mask, nobody to wait for. */
unsigned long arch_irq_save(void)
{
	return 0;
}

void arch_irq_restore(unsigned long flags)
{
}

void arch_irq_enable(void)
{
}

void arch_irq_disable(void)
{
}

void arch_cpu_relax(void)
{
}

void arch_wait_for_interrupt(void)
{
}

unsigned int arch_stop_other_cpus(void)
{
	return 0;
}

void arch_halt(void)
{
	abort();
}

void arch_qemu_exit(enum machine_exit_status status)
{
}

/*
 * The heap's contract (mm/heap.h) over malloc: 16-byte aligned, NULL for
 * size 0. Under ASan every object the domain builder makes is checked.
 */
void *kmalloc(size_t size)
{
	void *p = NULL;

	if (size == 0 || posix_memalign(&p, 16, size) != 0)
		return NULL;
	return p;
}

void *kzalloc(size_t size)
{
	void *p = kmalloc(size);

	if (p)
		memset(p, 0, size);
	return p;
}

void kfree(const void *p)
{
	free((void *)p);
}

/* The tool builds generations but never retires one a CPU could hold. */
bool arch_cpu_online(unsigned int cpu)
{
	return false;
}

/* One thread, CPU 0: the unit build's spinlocks record their owner (SPINLOCK_DEBUG). */
unsigned int arch_cpu_id(void)
{
	return 0;
}

/*
 * The arch interface (arch/x86_64/include/arch/) a second time, for the
 * simulator: the clock is the engine's virtual time, the "current CPU" is
 * the simulated CPU whose event the engine is handling, a reschedule IPI
 * becomes an event that arrives after a latency, and the kernel's console
 * is stdout. One host thread runs every CPU, and the engine hands the
 * kernel one event at a time, so a lock is never found held: interrupt
 * flags are a no-op and a spin is a bug that stops the run.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <arch/addr_space.h>
#include <arch/backtrace.h>
#include <arch/console.h>
#include <arch/context.h>
#include <arch/memory.h>
#include <arch/cpu.h>
#include <arch/power.h>
#include <arch/smp.h>
#include <arch/time.h>
#include <arch/trace.h>

#include "cmdline.h"
#include "fs/procfs.h"
#include "mm/heap.h"
#include "mm/page_alloc.h"
#include "printk.h"
#include "sim.h"

u64 sim_now;
u32 sim_cpu;
u64 sim_timer_ticks[MAX_CPUS];
uintptr_t direct_map_base;

/* The kernel's APIC timer option and the end-of-run statistics option, same names and meaning. */
static s64 hz = 250;
BOOT_OPTION_INT(hz, "hz", &hz, 10, 1000, "timer interrupts per second on each CPU");

static bool print_schedstat;
BOOT_OPTION_BOOL(schedstat, "schedstat", &print_schedstat,
		 "print the scheduler statistics (/proc/schedstat version 15 format) and "
		 "per-task statistics when the run ends");

u64 sim_hz(void)
{
	return (u64)hz;
}

bool sim_schedstat_wanted(void)
{
	return print_schedstat;
}

static __attribute__((noreturn)) void sim_fatal(const char *what)
{
	fflush(stdout);
	fprintf(stderr, "fulcrum-sim: %s (simulated cpu%u at %llu ns)\n", what, sim_cpu,
		(unsigned long long)sim_now);
	exit(3);
}

/* ---------------------------------------------------------------- time */

u64 arch_clock_ns(void)
{
	return sim_now;
}

u64 arch_tsc_hz(void)
{
	return NSEC_PER_SEC; /* a TSC that counts nanoseconds */
}

u64 arch_cycles(void)
{
	return sim_now;
}

u64 arch_rtc_seconds(void)
{
	return 0;
}

/* ---------------------------------------------------------------- CPUs */

unsigned int arch_cpu_id(void)
{
	return sim_cpu;
}

bool arch_cpu_online(unsigned int cpu)
{
	return cpu < sched_nr_cpus();
}

void arch_send_reschedule(unsigned int cpu)
{
	sim_engine_ipi(cpu);
}

int arch_call_on_cpu(unsigned int cpu, void (*fn)(void *arg), void *arg, bool wait)
{
	u32 saved = sim_cpu;

	if (cpu >= sched_nr_cpus())
		return -19; /* -ENODEV */
	sim_cpu = cpu;	    /* delivered at once: the engine has no other CPU running meanwhile */
	fn(arg);
	sim_cpu = saved;
	return 0;
}

u64 arch_cpu_timer_ticks(unsigned int cpu)
{
	return cpu < MAX_CPUS ? sim_timer_ticks[cpu] : 0;
}

/* Interrupts: the engine delivers nothing in the middle of kernel code. */
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

/* Nobody else runs while the kernel waits: whatever it waits for would never come. */
void arch_cpu_relax(void)
{
	sim_fatal("the kernel spins on a lock or flag that no other CPU can release here");
}

void arch_wait_for_interrupt(void)
{
	sim_fatal("the kernel waits for an interrupt inside an event");
}

void arch_halt(void)
{
	sim_fatal("the kernel halted this CPU (a panic: see the messages above)");
}

unsigned int arch_stop_other_cpus(void)
{
	return 0;
}

void arch_qemu_exit(enum machine_exit_status status)
{
}

/* ---------------------------------------------------------------- contexts */

/*
 * A simulated task has no stack of its own: the engine plays its program
 * and the scheduler only decides who runs. A switch of stacks would mean
 * the kernel took a path the engine does not drive.
 */
void arch_context_init(struct arch_context *ctx, void *stack_top, void (*entry)(void *arg), void *arg)
{
	ctx->rsp = 0;
}

void arch_context_switch(struct arch_context *prev, struct arch_context *next)
{
	sim_fatal("the kernel tried a real context switch");
}

struct arch_context *arch_current_context(void)
{
	struct rq *rq = cpu_rq(sim_cpu);

	return rq && rq->curr ? &rq->curr->ctx : NULL;
}

void arch_mm_activate(struct arch_mm *mm)
{
}

/* ---------------------------------------------------------------- reports */

void arch_console_write(const char *s, size_t len)
{
	fwrite(s, 1, len, stdout);
}

void arch_show_interrupted(void)
{
	printk(KERN_EMERG "Call Trace:\n <simulated>\n");
}

void arch_show_task_trace(const struct arch_context *ctx, const void *stack, u64 size)
{
	printk(KERN_EMERG "Call Trace:\n <simulated>\n");
}

bool arch_cpu_backtrace(unsigned int cpu, u64 wait_us)
{
	return false;
}

/* ---------------------------------------------------------------- memory */

static void *sim_alloc(size_t size)
{
	void *p = NULL;

	if (size == 0 || posix_memalign(&p, 16, size) != 0)
		return NULL;
	return p;
}

void *kmalloc(size_t size)
{
	return sim_alloc(size);
}

void *kzalloc(size_t size)
{
	void *p = sim_alloc(size);

	if (p)
		memset(p, 0, size);
	return p;
}

void kfree(const void *p)
{
	free((void *)p);
}

/* Task stacks: never touched (no context runs on them), so left unbacked. */
void *alloc_pages(unsigned int order)
{
	return sim_alloc((size_t)PAGE_SIZE << order);
}

void free_pages(void *va, unsigned int order)
{
	free(va);
}

/*
 * The tracer's view. The engine runs scheduler code only where the kernel
 * runs it with interrupts off (tick, wake-up, switch), so every record
 * says irqs-off and none is in a hard interrupt. The trace channel is the
 * file given by --trace.
 */
FILE *sim_trace_file;

bool arch_irq_token_enabled(unsigned long flags)
{
	return false;
}

bool arch_in_hardirq(void)
{
	return false;
}

bool arch_trace_channel_present(void)
{
	return sim_trace_file != NULL;
}

void arch_trace_channel_write(const char *buf, size_t len)
{
	if (sim_trace_file)
		fwrite(buf, 1, len, sim_trace_file);
}

/* The simulated machine has no file system: /proc files are not kept. */
int procfs_register(const char *path, procfs_show_fn show, procfs_store_fn store, void *arg)
{
	return 0;
}

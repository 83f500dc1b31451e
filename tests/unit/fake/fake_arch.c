/* Host implementations of the arch interface for unit tests. */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <arch/console.h>
#include <arch/backtrace.h>
#include <arch/context.h>
#include <arch/cpu.h>
#include <arch/power.h>
#include <arch/memory.h>
#include <arch/smp.h>
#include <arch/time.h>
#include <arch/trace.h>

#include "printk.h"

#include "fake_arch.h"

uint64_t fake_clock_ns;
unsigned int fake_cpu_id;
unsigned int fake_reschedule_ipis;
uintptr_t direct_map_base;

static char console_buf[1 << 20];
static size_t console_len;
static void *ram;
static size_t ram_size;

unsigned long arch_irq_save(void)
{
	return 0;
}
void arch_irq_restore(unsigned long flags)
{
	(void)flags;
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
void arch_halt(void)
{
	abort();
}
unsigned int arch_stop_other_cpus(void)
{
	return 0;
}
void arch_qemu_exit(enum machine_exit_status status)
{
	(void)status;
}

u64 arch_clock_ns(void)
{
	return fake_clock_ns;
}

/* The RTC's date: the wall clock (time/realtime.c) reads it once. */
uint64_t fake_rtc_seconds = 1700000000;
u64 arch_rtc_seconds(void)
{
	return fake_rtc_seconds;
}
/* The one-shot timer: remembers what it was armed for, and how often. */
u64 fake_timer_deadline;
unsigned int fake_timer_programs;

void arch_timer_program(u64 deadline_ns)
{
	fake_timer_deadline = deadline_ns;
	fake_timer_programs++;
}

u64 arch_cycles(void)
{
	return __builtin_ia32_rdtsc();
} /* the host's: cost measurements only */
u64 arch_tsc_hz(void)
{
	return 1000000000;
}

void arch_console_write(const char *s, size_t len)
{
	size_t room = sizeof(console_buf) - 1 - console_len;

	if (len > room)
		len = room;
	memcpy(console_buf + console_len, s, len);
	console_len += len;
	console_buf[console_len] = '\0';
}

const char *fake_console_text(void)
{
	return console_buf;
}

void fake_console_reset(void)
{
	console_len = 0;
	console_buf[0] = '\0';
}

void *fake_ram_init(size_t size)
{
	ram = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
		   -1, 0);
	if (ram == MAP_FAILED)
		abort();
	ram_size = size;
	direct_map_base = (uintptr_t)ram;
	return ram;
}

void fake_ram_free(void)
{
	if (ram)
		munmap(ram, ram_size);
	ram = NULL;
	direct_map_base = 0;
}

/* CPUs: the test says which CPU "runs" (fake_cpu_id); every CPU counts as online. */
unsigned int arch_cpu_id(void)
{
	return fake_cpu_id;
}
bool arch_cpu_online(unsigned int cpu)
{
	return cpu < MAX_CPUS;
}
void arch_send_reschedule(unsigned int cpu)
{
	(void)cpu;
	fake_reschedule_ipis++;
}

/*
 * A context switch on the host switches nothing: the scheduler's books
 * change (rq->curr) and the caller carries on as if it were the next task.
 */
void arch_context_init(struct arch_context *ctx, void *stack_top, void (*entry)(void *arg), void *arg)
{
	(void)entry;
	(void)arg;
	ctx->rsp = (u64)(uintptr_t)stack_top;
}

void arch_context_switch(struct arch_context *prev, struct arch_context *next)
{
	(void)prev;
	(void)next;
}

/*
 * The watchdogs' arch side: a timer that ticks with the fake clock (so no
 * hard lockup is ever seen) and traces that print a marker line.
 */
u64 arch_cpu_timer_ticks(unsigned int cpu)
{
	(void)cpu;
	return fake_clock_ns / 4000000;
}

void arch_show_interrupted(void)
{
	printk(KERN_EMERG "Call Trace:\n <host>\n");
}

void arch_show_task_trace(const struct arch_context *ctx, const void *stack, u64 size)
{
	(void)ctx;
	(void)stack;
	(void)size;
	printk(KERN_EMERG "Call Trace:\n <host>\n");
}

bool arch_cpu_backtrace(unsigned int cpu, u64 wait_us)
{
	(void)cpu;
	(void)wait_us;
	return false;
}

/* The trace channel: what the kernel wrote to it since the last fake_trace_channel_reset(). */
static char trace_buf[1 << 20];
static size_t trace_len;
bool fake_trace_channel = true;

bool arch_irq_token_enabled(unsigned long flags)
{
	return flags != 0;
}
bool arch_in_hardirq(void)
{
	return false;
}
bool arch_trace_channel_present(void)
{
	return fake_trace_channel;
}
void arch_trace_channel_write(const char *buf, size_t len)
{
	size_t room = sizeof(trace_buf) - 1 - trace_len;

	if (len > room)
		len = room;
	memcpy(trace_buf + trace_len, buf, len);
	trace_len += len;
	trace_buf[trace_len] = '\0';
}
const char *fake_trace_channel_text(void)
{
	return trace_buf;
}
void fake_trace_channel_reset(void)
{
	trace_len = 0;
	trace_buf[0] = '\0';
}

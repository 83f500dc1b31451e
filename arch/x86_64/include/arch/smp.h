/*
 * CPUs as kernel/ sees them: numbers, bring-up, cross-CPU calls and
 * reschedule requests. CPU numbers are indices into struct machine.
 */
#ifndef FULCRUM_ARCH_SMP_H
#define FULCRUM_ARCH_SMP_H

#include "lib/types.h"
#include "machine.h"

/* The number of the CPU running this code (0 is the boot CPU). */
unsigned int arch_cpu_id(void);

/* The boot CPU's local APIC, its timer tick and IPIs; turns interrupts on. Needs the heap. */
void arch_smp_init_boot(void);

/* APIC ID of the boot CPU (from CPUID: usable before the local APIC is set up). */
u32 arch_boot_apic_id(void);

/*
 * Starts every CPU of m other than CPU 0 (the boot CPU) with INIT-SIPI-SIPI
 * and waits for each to come online. A CPU that does not answer is
 * reported and left out. Returns the number of CPUs online, the boot CPU
 * included.
 */
unsigned int arch_smp_boot(const struct machine *m);

bool arch_cpu_online(unsigned int cpu);

/* Asks cpu to reschedule (an IPI; a no-op for the calling CPU itself). */
void arch_send_reschedule(unsigned int cpu);

/*
 * Runs fn(arg) on cpu from its interrupt handler and, if wait, returns
 * only after it ran. Returns 0, or -ENODEV for an offline CPU. Runs
 * directly when cpu is the caller.
 */
int arch_call_on_cpu(unsigned int cpu, void (*fn)(void *arg), void *arg, bool wait);

/* Timer interrupts taken so far by cpu. */
u64 arch_cpu_timer_ticks(unsigned int cpu);

/*
 * Called once on every CPU, interrupts off, when its timer works: the
 * kernel starts the CPU's periodic tick (every tick_ns) and from then on
 * arms the timer itself (arch_timer_program).
 */
void kernel_timer_start(unsigned int cpu, u64 tick_ns);

/* Called from every timer interrupt: the kernel runs the timers that are due. */
void kernel_timer_interrupt(unsigned int cpu);

/* Called at the end of every interrupt (interrupts off): the scheduler may switch tasks here. */
void kernel_irq_exit(void);

/* The running task's kernel stack (TASK_STACK_SIZE bytes) and name, for fault reports; NULL if none. */
const void *kernel_current_task_stack(void);
const char *kernel_current_task_name(int *pid);

/* Where an AP goes once it is online: its idle loop. Never returns. */
__attribute__((noreturn)) void kernel_ap_idle(void);

#endif

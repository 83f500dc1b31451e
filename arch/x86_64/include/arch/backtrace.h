/*
 * Call traces kernel/ may ask for, for the lockup and hang reports of
 * kernel/sched/watchdog.c: the code a timer tick interrupted, a task that
 * is switched out, and another CPU's (through an NMI).
 */
#ifndef FULCRUM_ARCH_BACKTRACE_H
#define FULCRUM_ARCH_BACKTRACE_H

#include "lib/types.h"

struct arch_context;

/*
 * From inside this CPU's timer interrupt: prints the interrupted code's
 * "RIP: cs:function+off/size" and its "Call Trace:". Prints nothing
 * outside a timer interrupt.
 */
void arch_show_interrupted(void);

/* Prints the "Call Trace:" of a task switched out with ctx, whose kernel stack is [stack, +size). */
void arch_show_task_trace(const struct arch_context *ctx, const void *stack, u64 size);

/*
 * Asks cpu (another, online CPU) for its registers and call trace with an
 * NMI, which reaches it even with interrupts off; it prints them itself
 * ("NMI backtrace for cpu N"). Waits up to wait_us for it to finish;
 * returns true if it did. The caller must hold no lock the report needs
 * (printk's is taken by the NMI side).
 */
bool arch_cpu_backtrace(unsigned int cpu, u64 wait_us);

#endif

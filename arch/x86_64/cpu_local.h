/*
 * Per-CPU arch state, reached through the GS base: gs:0 holds a pointer
 * to the CPU's own struct cpu_local. Set before anything can fault.
 */
#ifndef FULCRUM_X86_CPU_LOCAL_H
#define FULCRUM_X86_CPU_LOCAL_H

#include "gdt.h"
#include "lib/types.h"
#include "machine.h"

#define KERNEL_STACK_SIZE 16384

struct arch_context;
struct arch_mm;
struct trap_frame;

struct cpu_local {
	struct cpu_local *self; /* gs:0 */
	u64 syscall_rsp;	/* gs:8: kernel stack top for the syscall entry (user_entry.asm) */
	u64 user_rsp;		/* gs:16: the user RSP while the syscall entry changes stacks */
	struct arch_context *ctx; /* gs:24: the running task's context; NULL before the first switch */
	u32 cpu;		  /* logical CPU number */
	u32 apic_id;
	u64 gdt[GDT_ENTRIES] __aligned(16);
	struct tss tss __aligned(16);
	u8 *ist_stack[IST_COUNT]; /* each IST_STACK_SIZE bytes */
	u8 *kernel_stack;	  /* KERNEL_STACK_SIZE bytes; the boot stack on CPU 0 */
	u64 timer_ticks;
	u32 irq_depth; /* interrupt handlers running (irq_dispatch), for the tracer's flags */
	const struct trap_frame *irq_frame; /* inside the timer interrupt: what it interrupted */
	volatile bool online;
	struct arch_mm *loaded_mm; /* the user page tables in CR3; NULL: the kernel's */
};

/* Offsets user_entry.asm uses. */
#define CPU_LOCAL_SYSCALL_RSP 8
#define CPU_LOCAL_USER_RSP    16
#define CPU_LOCAL_CTX	      24

/* Every CPU's cpu_local by number; NULL for CPUs not brought up. */
extern struct cpu_local *cpu_locals[MAX_CPUS];

static inline struct cpu_local *this_cpu_local(void)
{
	struct cpu_local *c;

	__asm__ volatile("movq %%gs:0, %0" : "=r"(c));
	return c;
}

/* Makes c this CPU's cpu_local (GS base). */
void cpu_local_install(struct cpu_local *c);

/* The boot CPU's cpu_local, usable before any allocator exists. */
struct cpu_local *cpu_local_boot(void);

#endif

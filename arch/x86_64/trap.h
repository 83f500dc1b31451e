/* The register frame every interrupt and exception stub saves, and its dispatch. */
#ifndef FULCRUM_X86_TRAP_H
#define FULCRUM_X86_TRAP_H

#include "lib/types.h"

/* Layout fixed by isr.asm: general registers pushed last sit lowest. */
struct trap_frame {
	u64 r15, r14, r13, r12, r11, r10, r9, r8;
	u64 rbp, rdi, rsi, rdx, rcx, rbx, rax;
	u64 vector, error_code;
	/* pushed by the CPU */
	u64 rip, cs, rflags, rsp, ss;
};
_Static_assert(sizeof(struct trap_frame) == 22 * 8, "trap frame layout");

enum exception_vector {
	X86_DE = 0, /* divide error */
	X86_DB = 1, /* debug */
	X86_NMI = 2,
	X86_BP = 3,  /* breakpoint */
	X86_OF = 4,  /* overflow */
	X86_BR = 5,  /* bound range */
	X86_UD = 6,  /* invalid opcode */
	X86_NM = 7,  /* device not available */
	X86_DF = 8,  /* double fault */
	X86_TS = 10, /* invalid TSS */
	X86_NP = 11, /* segment not present */
	X86_SS = 12, /* stack-segment fault */
	X86_GP = 13, /* general protection */
	X86_PF = 14, /* page fault */
	X86_MF = 16, /* x87 floating point */
	X86_AC = 17, /* alignment check */
	X86_MC = 18, /* machine check */
	X86_XM = 19, /* SIMD floating point */
	X86_VE = 20, /* virtualization */
	X86_CP = 21, /* control protection */
	X86_HV = 28, /* hypervisor injection */
	X86_VC = 29, /* VMM communication */
	X86_SX = 30, /* security */
	X86_NR_EXCEPTIONS = 32,
};

/* Page-fault error code bits. */
#define PF_PRESENT 0x1
#define PF_WRITE   0x2
#define PF_USER	   0x4
#define PF_RSVD	   0x8
#define PF_INSTR   0x10
#define PF_PK	   0x20
#define PF_SHSTK   0x40

/* Fills the IDT (boot CPU, once) / loads it on the calling CPU. */
void idt_init(void);
void idt_load(void);

/* CPUs that have halted on an NMI during a panic. */
unsigned int nmi_stopped_cpus(void);

/*
 * In the NMI handler: prints this CPU's registers and call trace if a
 * watchdog asked for them (arch_cpu_backtrace); returns whether it did.
 */
bool nmi_backtrace_handle(const struct trap_frame *f);

/* Called by every stub in isr.asm with interrupts off. */
void trap_dispatch(struct trap_frame *f);

#endif

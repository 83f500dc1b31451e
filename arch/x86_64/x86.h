/*
 * Arch-private x86-64 primitives: port and MSR access, control registers,
 * CPUID, descriptor-table loads. Only arch/x86_64/ includes this.
 */
#ifndef FULCRUM_X86_H
#define FULCRUM_X86_H

#include "lib/types.h"

#define KERNEL_VMA	0xffffffff80000000UL
#define DIRECT_MAP_BASE 0xffff800000000000UL

#define KERNEL_CS 0x08
#define KERNEL_DS 0x10
#define USER_DS	  0x1b
#define USER_CS	  0x23
#define TSS_SEL	  0x28

#define MSR_EFER	   0xc0000080
#define MSR_STAR	   0xc0000081 /* SYSCALL/SYSRET selector bases */
#define MSR_LSTAR	   0xc0000082 /* 64-bit SYSCALL target */
#define MSR_CSTAR	   0xc0000083 /* compatibility-mode SYSCALL target */
#define MSR_FMASK	   0xc0000084 /* RFLAGS bits SYSCALL clears */
#define MSR_FS_BASE	   0xc0000100
#define MSR_GS_BASE	   0xc0000101
#define MSR_KERNEL_GS_BASE 0xc0000102

#define EFER_SCE (1UL << 0) /* SYSCALL/SYSRET enabled */

#define RFLAGS_IF (1UL << 9)

#define CR4_SMEP (1UL << 20) /* no kernel execution of user pages */
#define CR4_SMAP (1UL << 21) /* no kernel access to user pages outside stac/clac */

static inline void outb(u16 port, u8 v)
{
	__asm__ volatile("outb %0, %1" : : "a"(v), "Nd"(port));
}
static inline void outw(u16 port, u16 v)
{
	__asm__ volatile("outw %0, %1" : : "a"(v), "Nd"(port));
}
static inline void outl(u16 port, u32 v)
{
	__asm__ volatile("outl %0, %1" : : "a"(v), "Nd"(port));
}

static inline u8 inb(u16 port)
{
	u8 v;

	__asm__ volatile("inb %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

static inline u32 inl(u16 port)
{
	u32 v;

	__asm__ volatile("inl %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

static inline u64 rdtsc(void)
{
	u32 lo, hi;

	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((u64)hi << 32) | lo;
}

static inline u64 rdmsr(u32 msr)
{
	u32 lo, hi;

	__asm__ volatile("rdmsr" : "=a"(lo), "=d"(hi) : "c"(msr));
	return ((u64)hi << 32) | lo;
}

static inline void wrmsr(u32 msr, u64 v)
{
	__asm__ volatile("wrmsr" : : "c"(msr), "a"((u32)v), "d"((u32)(v >> 32)));
}

struct cpuid_regs {
	u32 eax, ebx, ecx, edx;
};

static inline struct cpuid_regs cpuid(u32 leaf, u32 subleaf)
{
	struct cpuid_regs r;

	__asm__ volatile("cpuid"
			 : "=a"(r.eax), "=b"(r.ebx), "=c"(r.ecx), "=d"(r.edx)
			 : "a"(leaf), "c"(subleaf));
	return r;
}

#define DEFINE_READ_CR(n)                                         \
	static inline u64 read_cr##n(void)                        \
	{                                                         \
		u64 v;                                            \
		__asm__ volatile("mov %%cr" #n ", %0" : "=r"(v)); \
		return v;                                         \
	}
DEFINE_READ_CR(0)
DEFINE_READ_CR(2)
DEFINE_READ_CR(3)
DEFINE_READ_CR(4)

static inline void write_cr3(u64 v)
{
	__asm__ volatile("mov %0, %%cr3" : : "r"(v) : "memory");
}
static inline void write_cr4(u64 v)
{
	__asm__ volatile("mov %0, %%cr4" : : "r"(v) : "memory");
}

static inline u64 read_rflags(void)
{
	u64 v;

	__asm__ volatile("pushfq; popq %0" : "=r"(v));
	return v;
}

static inline u64 read_rbp(void)
{
	u64 v;

	__asm__ volatile("mov %%rbp, %0" : "=r"(v));
	return v;
}

static inline void invlpg(u64 va)
{
	__asm__ volatile("invlpg (%0)" : : "r"(va) : "memory");
}

struct __attribute__((packed)) desc_ptr {
	u16 limit;
	u64 base;
};

#endif

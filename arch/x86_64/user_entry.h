/*
 * Arch-private plumbing of ring-3 entry and exit: the assembly entry
 * points, the per-CPU set-up, and the checks every return to user mode
 * makes (pure functions, so the host unit tests run them too).
 */
#ifndef FULCRUM_X86_USER_ENTRY_H
#define FULCRUM_X86_USER_ENTRY_H

#include <arch/addr_space.h>
#include <arch/user.h>

#include "lib/types.h"
#include "trap.h"
#include "x86.h"

#define RFLAGS_CF    (1UL << 0)
#define RFLAGS_FIXED (1UL << 1) /* always reads as 1 */
#define RFLAGS_PF    (1UL << 2)
#define RFLAGS_AF    (1UL << 4)
#define RFLAGS_ZF    (1UL << 6)
#define RFLAGS_SF    (1UL << 7)
#define RFLAGS_TF    (1UL << 8)
#define RFLAGS_DF    (1UL << 10)
#define RFLAGS_OF    (1UL << 11)
#define RFLAGS_IOPL  (3UL << 12)
#define RFLAGS_NT    (1UL << 14)
#define RFLAGS_RF    (1UL << 16)
#define RFLAGS_AC    (1UL << 18)
#define RFLAGS_ID    (1UL << 21)

/* What user mode may set; IOPL, NT, RF, VM and the virtual-interrupt bits it may not. */
#define RFLAGS_USER_MASK                                                                     \
	(RFLAGS_CF | RFLAGS_PF | RFLAGS_AF | RFLAGS_ZF | RFLAGS_SF | RFLAGS_TF | RFLAGS_DF | \
	 RFLAGS_OF | RFLAGS_AC | RFLAGS_ID)

/* First address past the lower canonical half. */
#define USER_CANONICAL_END (1UL << 47)

/* Forces user selectors and flags (interrupts on, no IOPL), whatever regs held. */
static inline void user_regs_sanitize(struct user_regs *r)
{
	r->cs = USER_CS;
	r->ss = USER_DS;
	r->rflags = (r->rflags & RFLAGS_USER_MASK) | RFLAGS_IF | RFLAGS_FIXED;
}

/* iretq to a non-canonical rip faults in ring 0; anything below the hole is safe. */
static inline bool user_regs_can_iret(const struct user_regs *r)
{
	return r->rip < USER_CANONICAL_END;
}

/*
 * sysretq restores only rip from rcx and rflags from r11, so it serves a
 * return whose rcx and r11 already hold those (as after a plain system
 * call). rip must be below USER_ADDR_END, which keeps it canonical (a
 * non-canonical rcx makes sysret fault in ring 0 on the user stack), and
 * TF/RF would trap or be lost on the way: those go through iretq.
 */
static inline bool user_regs_can_sysret(const struct user_regs *r)
{
	return r->rcx == r->rip && r->r11 == r->rflags && r->rip < USER_ADDR_END &&
	       !(r->rflags & (RFLAGS_TF | RFLAGS_RF)) && r->cs == USER_CS && r->ss == USER_DS;
}

/* Interrupt frames and user registers are one layout (checked in user.c). */
static inline struct user_regs *trap_user_regs(struct trap_frame *f)
{
	return (struct user_regs *)f;
}

static inline bool trap_from_user(const struct trap_frame *f)
{
	return (f->cs & 3) == 3;
}

struct cpu_local;

/*
 * Per CPU, from gdt_init_cpu (before the GS base is set on an AP): the
 * SYSCALL MSRs, the user GS base, WP, SMEP and SMAP.
 */
void user_cpu_init(struct cpu_local *c);

/* From trap_dispatch, interrupts off: an exception in ring 3. Returns with interrupts off. */
void user_exception(struct trap_frame *f);

/* From trap_dispatch after an interrupt in ring 3: exit_to_user with interrupts on, then off. */
void user_exit_work(struct trap_frame *f);

/* From syscall_entry with interrupts on: dispatch, exit work; nonzero if sysretq may return. */
u64 arch_syscall(struct user_regs *regs);

/* user_entry.asm: the SYSCALL target, and the iretq exit (rsp = regs, interrupts off). */
extern const u8 syscall_entry[];
__noreturn void user_iret(const struct user_regs *regs);

/*
 * Kernel-mode fault at a uaccess instruction: let vm_fault make the page
 * (then retry), else resume at the fix-up. False if rip is not one of them.
 */
bool uaccess_fixup(struct trap_frame *f, u64 cr2);

/* uaccess_copy.asm: the copies that may fault, and their exception table. */
struct extable_entry {
	u64 insn, fixup; /* a fault at insn resumes at fixup */
};
extern const struct extable_entry uaccess_extable[], uaccess_extable_end[];

/* Bytes not copied (0 on success). */
u64 uaccess_copy(void *dst, const void *src, u64 n);
/* The string's length if a NUL is in the first n bytes (copied with it), n if not, -EFAULT. */
s64 uaccess_strncpy(char *dst, const char *src, u64 n);
/* A user word read without stac, for the self-test: -EFAULT if SMAP (or no mapping) stops it. */
s64 uaccess_read_nostac(const u64 *src);

/* SMEP/SMAP state, set by user_cpu_init; uaccess_smap_on steers stac/clac in the stubs. */
extern u8 uaccess_smap_on;
bool user_smep_on(void);

#endif

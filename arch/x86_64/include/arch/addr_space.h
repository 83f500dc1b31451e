/*
 * User address spaces as the MMU sees them: one set of page tables per
 * process, 4 KiB pages in the lower half, the kernel half shared by every
 * set (docs/user-space.md, "Address-space layout"). kernel/mm/vm.c decides
 * what is mapped; this only writes the entries and keeps the TLBs honest.
 */
#ifndef FULCRUM_ARCH_ADDR_SPACE_H
#define FULCRUM_ARCH_ADDR_SPACE_H

#include "lib/cpumask.h"
#include "lib/spinlock.h"
#include "lib/types.h"

/*
 * User space is [USER_ADDR_MIN, USER_ADDR_END): the lowest 64 KiB stay
 * unmapped so NULL-ish pointers fault, and so does the last page below the
 * canonical hole (a syscall there would return to a non-canonical RIP).
 */
#define USER_ADDR_MIN	0x10000UL
#define USER_ADDR_END	0x7ffffffff000UL
#define USER_STACK_TOP	0x7ffffffde000UL
#define USER_STACK_SIZE (8UL << 20) /* reserved below USER_STACK_TOP, made on demand */

/* Linux's protection bits (mmap, mprotect); vm.c may define the same. */
#ifndef PROT_READ
#define PROT_NONE  0
#define PROT_READ  1
#define PROT_WRITE 2
#define PROT_EXEC  4
#endif

struct arch_mm {
	phys_addr_t root;      /* the top-level table (CR3) */
	struct spinlock lock;  /* serialises changes to the tables */
	struct cpumask active; /* CPUs that have it loaded, the only ones that may cache it */
	u64 nr_tables;	       /* page-table pages, the root included */
};

/* An empty user half over the shared kernel half. Returns 0 or -ENOMEM. */
int arch_mm_init(struct arch_mm *mm);

/*
 * Frees every page-table page; the frames mapped are the caller's and are
 * not freed. Unloads mm from any CPU that still has it (this one included).
 */
void arch_mm_destroy(struct arch_mm *mm);

/*
 * Maps the 4 KiB page at va to frame pa with prot (PROT_*; PROT_NONE keeps
 * the frame recorded but inaccessible). Returns 0, -EINVAL for an address
 * outside user space or unaligned, -EEXIST if va is mapped, -ENOMEM.
 */
int arch_mm_map(struct arch_mm *mm, uintptr_t va, phys_addr_t pa, unsigned prot);

/* Removes the mapping at va; returns the frame that was mapped, or 0. Call arch_mm_flush after. */
phys_addr_t arch_mm_unmap(struct arch_mm *mm, uintptr_t va);

/* Changes the protection of the page at va: 0, or -ENOENT if unmapped. Call arch_mm_flush after. */
int arch_mm_protect(struct arch_mm *mm, uintptr_t va, unsigned prot);

/* The mapping at va, if any: its frame and protection (either pointer may be NULL). */
bool arch_mm_query(const struct arch_mm *mm, uintptr_t va, phys_addr_t *pa, unsigned *prot);

/*
 * After unmap or protect: no CPU uses a stale translation of mm once this
 * returns (an IPI to every other CPU that has it loaded). No spinlock may
 * be held: it waits for the other CPUs.
 */
void arch_mm_flush(struct arch_mm *mm);

/*
 * Loads mm on this CPU (NULL: the kernel-only tables). Cheap when mm is
 * already loaded; the scheduler calls it at every switch.
 */
void arch_mm_activate(struct arch_mm *mm);

#endif

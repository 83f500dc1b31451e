/*
 * What the vm*.c files share: struct vm and struct vma, the area tree
 * (vm_area.c), the user-page helpers (vm.c) and the shape of one
 * map-changing operation. Not for use outside kernel/mm.
 */
#ifndef FULCRUM_MM_VM_INTERNAL_H
#define FULCRUM_MM_VM_INTERNAL_H

#include <arch/addr_space.h>
#include <arch/memory.h>

#include "lib/rbtree.h"
#include "lib/spinlock.h"
#include "mm/page_alloc.h"
#include "mm/shmem.h"
#include "mm/vm.h"

#define PROT_ALL (PROT_READ | PROT_WRITE | PROT_EXEC)

/* mmap hands out addresses downwards from here: below the stack, one guard page apart. */
#define VM_MMAP_TOP (USER_STACK_TOP - USER_STACK_SIZE - PAGE_SIZE)

/*
 * One area [start, end), page-aligned. Pages are present only inside
 * [pop_start, pop_end) (empty when pop_start == pop_end): a hull kept
 * cheaply (grown by faults, clipped by splits), so walks over a big,
 * mostly untouched area such as the 8 MiB stack look at few pages.
 */
struct vma {
	struct rb_node node; /* in vm->areas, by start */
	uintptr_t start, end;
	uintptr_t pop_start, pop_end;
	unsigned int prot;
	enum vma_kind kind;
	struct shmem *shm;     /* VMA_SHARED: the object (one reference per area) */
	u64 shm_pgoff;	       /* VMA_SHARED: the object's page at start */
	struct vma *dead_next; /* unlinked, waiting in a vm_op for the flush */
};

/*
 * Locking. vm->lock (a spinlock, interrupts off) guards the area tree, the
 * page tables and every field below; it is held only for short steps (at
 * most one page copied or zeroed per hold), and never across
 * arch_mm_flush(), which may wait for other CPUs. So an operation that
 * removes or weakens present pages unlinks them under the lock, collects
 * their frames, drops the lock, flushes the TLBs and only then frees the
 * frames (struct vm_op). Until that flush another CPU may still reach an
 * old frame through a stale TLB entry; an operation that creates an area
 * while such a flush is pending (vm->flush_pending) therefore flushes too
 * before it returns, so no caller is ever handed an address that a stale
 * entry still points elsewhere.
 *
 * Lock order: vm->lock, then the heap's and the page allocator's locks
 * (kmalloc and page_alloc may be called under it). Two vm locks are never
 * held together: vm_clone() takes the source's alone, one page at a time.
 */
struct vm {
	struct spinlock lock;
	u32 refcount; /* atomic */
	struct arch_mm mm;
	struct rb_root areas;
	u32 nr_areas;
	u32 flush_pending;  /* operations between unmapping pages and their flush */
	u64 mapped_pages;   /* pages covered by areas */
	u64 resident_pages; /* pages present */
	u64 peak_resident_pages;
	uintptr_t brk_start, brk;
	struct vm_rlimits rlim; /* RLIMIT_AS and RLIMIT_STACK, kept across fork and execve */
};

/*
 * One map-changing operation: the areas it may need, allocated before the
 * lock so no step fails half-way, and the frames to free once the TLBs are
 * flushed. vm_op_begin() before taking the lock; vm_op_end() after
 * dropping it.
 */
#define VM_OP_SPARES 2

struct vm_op {
	struct vma *spare[VM_OP_SPARES];
	struct page *frames; /* to free after the flush (vm_op_defer_frame) */
	struct vma *dead;    /* shared areas to free, and their objects to put, after the flush */
	bool flush;	     /* pages were unmapped or weakened: flush before freeing */
	bool flush_seen;     /* another operation's flush was pending: flush before returning */
};

int vm_op_begin(struct vm_op *op, unsigned int spares);
void vm_op_end(struct vm *vm, struct vm_op *op);
/* Under vm->lock: records that pages were unmapped or weakened. */
void vm_op_note_flush(struct vm *vm, struct vm_op *op);
/*
 * Under vm->lock: pa was unmapped; op frees it after the flush. A shared
 * area's frames are its object's and never go this way.
 */
void vm_op_defer_frame(struct vm_op *op, phys_addr_t pa);

/*
 * Places a new area of len bytes (page-aligned, > 0) under vm->lock, with
 * one of op's spares. how = 0: at the hint addr if free, else top-down
 * below the stack; VM_MAP_FIXED: exactly at addr (page-aligned, checked
 * by the caller), unmapping what was there; VM_MAP_NOREPLACE: exactly at
 * addr or -EEXIST. Checks the limit and the area count. Returns the
 * address or a negative errno, and changes nothing on error.
 */
#define VM_MAP_FIXED	 1
#define VM_MAP_NOREPLACE 2

long __vm_map(struct vm *vm, uintptr_t addr, size_t len, unsigned int prot, unsigned int how,
	      enum vma_kind kind, struct vm_op *op);
/* The same with its own vm_op and the lock taken; also checks len and prot. */
long vm_map(struct vm *vm, uintptr_t addr, size_t len, unsigned int prot, unsigned int how,
	    enum vma_kind kind);
/* vm_map of a VMA_SHARED area over shm's pages from pgoff on; takes its own reference. */
long vm_map_shared(struct vm *vm, uintptr_t addr, size_t len, unsigned int prot, unsigned int how,
		   struct shmem *shm, u64 pgoff);

/* User pages: a zeroed (or, for copies, uninitialised) frame, or 0 below the reserve. */
phys_addr_t user_frame_alloc(bool zero);
void user_frame_free(phys_addr_t pa);

/* Under vm->lock: the page at page (inside v) present, its frame in *pa. 0 or -ENOMEM. */
int vm_populate(struct vm *vm, struct vma *v, uintptr_t page, phys_addr_t *pa);

/* The area tree (vm_area.c); everything under vm->lock. */
struct vma *vma_find(const struct vm *vm, uintptr_t addr);	/* containing addr */
struct vma *vma_find_from(const struct vm *vm, uintptr_t addr); /* first with end > addr */
struct vma *vma_next(const struct vma *v);
struct vma *vma_prev(const struct vma *v);
/* A new area from op's spares (never NULL: callers reserve enough). */
struct vma *vma_new(struct vm_op *op, uintptr_t start, uintptr_t end, unsigned int prot,
		    enum vma_kind kind);
void vma_link(struct vm *vm, struct vma *v);
/* Changes an area's extent in place (the neighbours must allow it). */
void vma_resize(struct vm *vm, struct vma *v, uintptr_t start, uintptr_t end);
bool vma_range_free(const struct vm *vm, uintptr_t start, uintptr_t end);
bool vma_range_covered(const struct vm *vm, uintptr_t start, uintptr_t end);
u64 vma_range_mapped_pages(const struct vm *vm, uintptr_t start, uintptr_t end);
/* Would unmapping [start, end) split an area in two? */
bool vma_range_splits(const struct vm *vm, uintptr_t start, uintptr_t end);
/* Highest start of a free len-byte range in [USER_ADDR_MIN, top), or 0. */
uintptr_t vma_gap_topdown(const struct vm *vm, size_t len, uintptr_t top);
/* Merges v with equal anonymous neighbours; returns the area now holding v's range. */
struct vma *vma_merge(struct vm *vm, struct vma *v);
/* Unmaps v's present pages in [start, end) (the area stays: they fault in anew); frames go to op. */
void vma_unmap_pages(struct vm *vm, struct vma *v, uintptr_t start, uintptr_t end, struct vm_op *op);
/* Removes every page and area in [start, end), splitting areas at the edges. */
void vm_unmap_range(struct vm *vm, uintptr_t start, uintptr_t end, struct vm_op *op);
/* Sets prot on [start, end), which areas must cover wholly. */
void vm_protect_range(struct vm *vm, uintptr_t start, uintptr_t end, unsigned int prot,
		      struct vm_op *op);

/* Global object counters (vm.c). */
void vm_count_areas(long delta);

/* RLIMIT_AS's soft limit, within the boot option's ceiling, in pages: what mmap and brk may map. */
static inline u64 vm_limit_pages(const struct vm *vm)
{
	u64 bytes = MIN(__atomic_load_n(&vm->rlim.as_cur, __ATOMIC_RELAXED), (u64)vm_user_mem_limit);

	return bytes >> PAGE_SHIFT;
}

/*
 * The pages a process may have resident: the boot option's ceiling only.
 * As on Linux, RLIMIT_AS bounds new mappings, never a fault in one that
 * exists (a limit lowered below what is mapped must not end in the OOM
 * killer with memory free).
 */
static inline u64 vm_resident_limit_pages(void)
{
	return (u64)vm_user_mem_limit >> PAGE_SHIFT;
}

static inline unsigned long vm_lock(struct vm *vm)
{
	return spin_lock_irqsave(&vm->lock);
}

static inline void vm_unlock(struct vm *vm, unsigned long flags)
{
	spin_unlock_irqrestore(&vm->lock, flags);
}

#endif

/*
 * Process address spaces: one struct vm per process (threads share it),
 * holding the areas (VMAs) mapped in [USER_ADDR_MIN, USER_ADDR_END) and the
 * user page tables behind them. Anonymous pages are made on first touch
 * (demand-zero); ELF segments are copied in eagerly. The layout is in
 * docs/user-space.md, "Address-space layout".
 */
#ifndef FULCRUM_MM_VM_H
#define FULCRUM_MM_VM_H

#include "lib/types.h"

struct vm;

/* mmap() flags, Linux's values. */
#define MAP_SHARED	    0x01
#define MAP_PRIVATE	    0x02
#define MAP_SHARED_VALIDATE 0x03
#define MAP_TYPE	    0x0f
#define MAP_FIXED	    0x10
#define MAP_ANONYMOUS	    0x20
#define MAP_GROWSDOWN	    0x100
#define MAP_DENYWRITE	    0x800
#define MAP_EXECUTABLE	    0x1000
#define MAP_LOCKED	    0x2000
#define MAP_NORESERVE	    0x4000
#define MAP_POPULATE	    0x8000
#define MAP_NONBLOCK	    0x10000
#define MAP_STACK	    0x20000
#define MAP_HUGETLB	    0x40000
#define MAP_FIXED_NOREPLACE 0x100000

/* madvise() advice, Linux's values. */
#define MADV_NORMAL	     0
#define MADV_RANDOM	     1
#define MADV_SEQUENTIAL	     2
#define MADV_WILLNEED	     3
#define MADV_DONTNEED	     4
#define MADV_FREE	     8
#define MADV_REMOVE	     9
#define MADV_DONTFORK	     10
#define MADV_DOFORK	     11
#define MADV_MERGEABLE	     12
#define MADV_UNMERGEABLE     13
#define MADV_HUGEPAGE	     14
#define MADV_NOHUGEPAGE	     15
#define MADV_DONTDUMP	     16
#define MADV_DODUMP	     17
#define MADV_WIPEONFORK	     18
#define MADV_KEEPONFORK	     19
#define MADV_COLD	     20
#define MADV_PAGEOUT	     21
#define MADV_POPULATE_READ   22
#define MADV_POPULATE_WRITE  23
#define MADV_DONTNEED_LOCKED 24
#define MADV_COLLAPSE	     25
#define MADV_HWPOISON	     100
#define MADV_SOFT_OFFLINE    101
#define MADV_GUARD_INSTALL   102
#define MADV_GUARD_REMOVE    103

/* What an area is for; areas of different kinds never merge. */
enum vma_kind {
	VMA_ANON,    /* mmap(MAP_PRIVATE | MAP_ANONYMOUS) */
	VMA_STACK,   /* the main thread's stack reservation */
	VMA_HEAP,    /* brk */
	VMA_SEGMENT, /* an ELF PT_LOAD segment */
	VMA_SHARED,  /* mmap(MAP_SHARED | MAP_ANONYMOUS): pages of a struct shmem */
};

/*
 * Limits, in bytes (boot options user_mem_limit= and user_mem_reserve=):
 * a process's address space (every area, mapped or not yet touched) may
 * not grow past vm_user_mem_limit, like Linux's RLIMIT_AS, so mmap, brk,
 * execve and fork fail with -ENOMEM rather than a fault killing the
 * process later; and no user page is taken while the page allocator has
 * vm_user_mem_reserve bytes or less free, which keeps the kernel's own
 * allocations going when user space eats memory.
 */
extern s64 vm_user_mem_limit;
extern s64 vm_user_mem_reserve;

/*
 * RLIMIT_AS and RLIMIT_STACK of the processes using an address space, in
 * bytes: fork and execve carry them to the new space. The address space
 * may grow to as_cur, but never past vm_user_mem_limit; execve reserves a
 * stack of stack_cur bytes, but at least VM_STACK_MIN (room for the
 * arguments) and at most USER_STACK_SIZE (the layout's). A new space has
 * RLIMIT_AS infinite (~0, Linux's default: the boot option still bounds
 * it) and RLIMIT_STACK at USER_STACK_SIZE.
 */
struct vm_rlimits {
	u64 as_cur, as_max;
	u64 stack_cur, stack_max;
};

#define VM_STACK_MIN (64 * 1024)

void vm_get_rlimits(struct vm *vm, struct vm_rlimits *out);
void vm_set_rlimits(struct vm *vm, const struct vm_rlimits *in);

/* Most areas one address space may have (Linux: vm.max_map_count). */
#define VM_MAX_AREAS 4096

/*
 * Lifecycle. vm_create() returns an empty address space (no areas) with a
 * reference count of 1, or NULL when out of memory. vm_get() adds a
 * reference (a CLONE_VM thread); vm_put() drops one, and the last put
 * unmaps and frees every page, every area and the page tables. Before the
 * last put no CPU may still have the space loaded (vm_activate() another
 * one, or NULL, first).
 */
struct vm *vm_create(void);
void vm_get(struct vm *vm);
void vm_put(struct vm *vm);

/*
 * fork(): a new address space with src's areas, brk and a private copy of
 * every page present in src; NULL when out of memory (nothing is left
 * behind). The copy is eager, not copy-on-write: see vm.c for why.
 */
struct vm *vm_clone(struct vm *src);

/* Loads vm's page tables on this CPU; NULL loads the kernel-only tables. */
void vm_activate(struct vm *vm);

/* vm's page tables, for the scheduler to load when it switches to a thread of vm. */
struct arch_mm *vm_arch_mm(struct vm *vm);

/*
 * Maps len bytes (rounded up to pages) of demand-zero anonymous memory
 * with prot (PROT_* bits). fixed: exactly at addr (page-aligned),
 * replacing whatever was there; otherwise at addr if that range is free
 * (a hint, rounded up to a page), else at the highest free range below
 * the stack reservation. Returns the address, or -EINVAL (len 0, bad prot,
 * unaligned fixed addr), -EPERM (fixed below USER_ADDR_MIN) or -ENOMEM
 * (no room, limit, out of memory).
 */
long vm_map_anon(struct vm *vm, uintptr_t addr, size_t len, unsigned int prot, bool fixed);

/*
 * Maps an ELF segment for the loader: the pages covering [vaddr, vaddr +
 * memsz) are made at once with prot, bytes [vaddr, vaddr + filesz) are
 * copied from file_data, and everything else in those pages (the part of
 * the first page below vaddr, the bss after filesz) is zero. memsz 0 maps
 * nothing. Returns 0, -EINVAL (filesz > memsz, bad prot, outside user
 * space), -EEXIST (overlaps an existing area, such as an earlier segment
 * sharing a page) or -ENOMEM. On error nothing of the segment stays.
 */
int vm_map_segment(struct vm *vm, uintptr_t vaddr, size_t memsz, const void *file_data,
		   size_t filesz, unsigned int prot);

/*
 * Reserves the stack area [USER_STACK_TOP - size, USER_STACK_TOP), size
 * from RLIMIT_STACK (struct vm_rlimits), read-write, pages made on
 * demand. 0, -EEXIST or -ENOMEM.
 */
int vm_setup_stack(struct vm *vm);

/* Sets the program break (start and current) to addr rounded up to a page; for execve. */
void vm_set_brk_start(struct vm *vm, uintptr_t addr);

/*
 * Copies n bytes into [uaddr, uaddr + n) of vm, which need not be the
 * current address space, through the direct map: pages are made as needed,
 * and an area's protection does not stop the write (it is the kernel
 * writing, e.g. the initial stack), but PROT_NONE areas and holes give
 * -EFAULT. -ENOMEM when a page cannot be made. vm_read() is the reverse
 * and does not make pages: a page never touched reads as zeros.
 */
int vm_write(struct vm *vm, uintptr_t uaddr, const void *src, size_t n);
int vm_read(struct vm *vm, uintptr_t uaddr, void *dst, size_t n);

/*
 * A user-mode or uaccess page fault at addr (write: the access was a
 * write). Makes the page if addr is inside an area whose protection allows
 * the access (reads are allowed by any of PROT_READ, PROT_WRITE, PROT_EXEC,
 * as on x86) and returns 0 so the access is retried; 0 too if the page is
 * already there with that protection (another thread made it first).
 * -EFAULT outside every area or against the protection, -ENOMEM when no
 * page can be had. It cannot judge instruction fetches: a fetch fault on a
 * present page (error code P and I/D set) must be refused by the caller
 * without asking, or it would be retried for ever. Takes only the vm's
 * spinlock (interrupts off), so any context that may sleep or not can call it.
 */
int vm_fault(struct vm *vm, uintptr_t addr, bool write);

/*
 * The memory system calls on an explicit address space, with Linux's
 * semantics and errors; sys_* below apply them to current_vm().
 *
 * vm_brk: returns the new break, or the old one when the request is below
 * the start, would meet another area, or passes the limit.
 * vm_mmap: MAP_PRIVATE or MAP_SHARED (not MAP_SHARED_VALIDATE, which
 * Linux takes only for files: -EINVAL) with MAP_ANONYMOUS, MAP_FIXED,
 * MAP_FIXED_NOREPLACE, MAP_POPULATE (every page made now, else -ENOMEM and
 * the new range is unmapped) and the advisory flags (MAP_NORESERVE,
 * MAP_STACK, ...); a shared area's pages stay shared with the children
 * fork makes; file mappings give -EBADF (fd < 0) or -ENODEV, MAP_GROWSDOWN
 * and MAP_HUGETLB give -EINVAL.
 * vm_munmap: 0 even if nothing was mapped there.
 * vm_mprotect: -ENOMEM if any page of the range is unmapped, and then
 * nothing changes.
 * vm_madvise: MADV_DONTNEED, MADV_DONTNEED_LOCKED and MADV_FREE drop the
 * range's pages of anonymous, stack and brk areas (the next touch reads
 * zeros; -EINVAL on an ELF segment, whose file data could not come back);
 * shared areas keep their contents, as Linux's shmem does, and MADV_FREE
 * on them is -EINVAL;
 * the other advice Linux knows is taken as a hint that changes nothing,
 * except MADV_DONTFORK, MADV_WIPEONFORK, MADV_POPULATE_READ/WRITE,
 * MADV_COLLAPSE, MADV_HWPOISON, MADV_SOFT_OFFLINE and the guard-page
 * advice, which are not supported (-EINVAL), and MADV_REMOVE (-EINVAL,
 * -EACCES on a segment, as Linux for private mappings). A hole in the
 * range is -ENOMEM after the rest was done, as on Linux.
 */
long vm_brk(struct vm *vm, unsigned long brk);
long vm_mmap(struct vm *vm, unsigned long addr, unsigned long len, unsigned long prot,
	     unsigned long flags, long fd, unsigned long off);
int vm_munmap(struct vm *vm, unsigned long addr, unsigned long len);
int vm_mprotect(struct vm *vm, unsigned long addr, unsigned long len, unsigned long prot);
int vm_madvise(struct vm *vm, unsigned long start, unsigned long len, int advice);

long sys_brk(unsigned long brk);
long sys_mmap(unsigned long addr, unsigned long len, unsigned long prot, unsigned long flags,
	      unsigned long fd, unsigned long off);
long sys_munmap(unsigned long addr, unsigned long len);
long sys_mprotect(unsigned long addr, unsigned long len, unsigned long prot);
long sys_madvise(unsigned long start, unsigned long len, int advice);

/*
 * If addr lies in a MAP_SHARED area of vm: true, with the area's object in
 * *obj and addr's byte offset in it in *offset (shared futex keys).
 */
struct shmem;
bool vm_shared_offset(struct vm *vm, uintptr_t addr, const struct shmem **obj, u64 *offset);

/* Live objects over every address space: the teardown check compares these before and after. */
struct vm_counts {
	u64 vms;    /* struct vm */
	u64 areas;  /* struct vma */
	u64 frames; /* user pages (frames mapped into some address space) */
};

void vm_counts(struct vm_counts *out);

/* One address space's figures, for getrusage, sysinfo and procfs. */
struct vm_usage {
	u64 mapped_pages;	 /* pages covered by areas (the limit counts these) */
	u64 resident_pages;	 /* pages present */
	u64 peak_resident_pages; /* most ever present at once (ru_maxrss) */
	u64 table_pages;	 /* page-table pages under the user half, the root included */
	u32 nr_areas;
	uintptr_t brk_start, brk;
};

void vm_usage(struct vm *vm, struct vm_usage *out);

/* One area, for /proc/<pid>/maps and tests. */
struct vm_area_info {
	uintptr_t start, end;
	unsigned int prot;
	enum vma_kind kind;
};

/* Fills out[0..max) with vm's areas in address order; returns how many there are in all. */
size_t vm_areas(struct vm *vm, struct vm_area_info *out, size_t max);

#endif

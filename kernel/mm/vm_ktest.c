/*
 * In-kernel tests of address spaces on the real page tables (the host tests
 * cover the area logic over a fake): pages written through the direct map
 * are what ring-3 addresses show, PROT_NONE keeps a page's contents, an
 * unmap is flushed from this CPU's TLB, and teardown gives back every page.
 * They assume nobody else allocates while they run, as at boot.
 */
#include <arch/addr_space.h>
#include <arch/cpu.h>
#include <arch/memory.h>
#include <arch/uaccess.h>

#include "ktest.h"
#include "lib/errno.h"
#include "lib/string.h"
#include "mm/heap.h"
#include "mm/page_alloc.h"
#include "mm/vm.h"

#define RW (PROT_READ | PROT_WRITE)

/* Free pages plus the heap's slab pages: what must come back once every object is freed. */
static u64 pages_back(void)
{
	struct heap_stats st;

	heap_get_stats(&st);
	return page_alloc_free_pages() + st.slab_pages;
}

/*
 * Copies n bytes from user address uaddr of vm, loaded on this CPU with
 * interrupts off (so nothing switches it away meanwhile). No vm_fault runs
 * from here (interrupts are off), so a missing page gives -EFAULT.
 */
static int read_as_user(struct vm *vm, uintptr_t uaddr, void *dst, size_t n)
{
	unsigned long flags = arch_irq_save();
	int ret;

	vm_activate(vm);
	ret = copy_from_user(dst, (const void *)uaddr, n);
	vm_activate(NULL);
	arch_irq_restore(flags);
	return ret;
}

static int write_as_user(struct vm *vm, uintptr_t uaddr, const void *src, size_t n)
{
	unsigned long flags = arch_irq_save();
	int ret;

	vm_activate(vm);
	ret = copy_to_user((void *)uaddr, src, n);
	vm_activate(NULL);
	arch_irq_restore(flags);
	return ret;
}

KTEST(vm_real_page_tables);
static int vm_real_page_tables(void)
{
	u64 back = pages_back();
	struct vm_counts c0, c1;
	struct vm *vm, *child;
	char buf[16];
	long m;

	vm_counts(&c0);
	vm = vm_create();
	KTEST_EXPECT(vm);
	m = vm_map_anon(vm, 0, 4 * PAGE_SIZE, RW, false);
	KTEST_EXPECT(m > 0);
	/* Written through the direct map across a page boundary, read as ring 3 sees it. */
	KTEST_EXPECT(vm_write(vm, (uintptr_t)m + PAGE_SIZE - 3, "fulcrum", 8) == 0);
	KTEST_EXPECT(read_as_user(vm, (uintptr_t)m + PAGE_SIZE - 3, buf, 8) == 0);
	KTEST_EXPECT(memcmp(buf, "fulcrum", 8) == 0);
	/* And the other way. */
	KTEST_EXPECT(write_as_user(vm, (uintptr_t)m + PAGE_SIZE, "RING3", 6) == 0);
	KTEST_EXPECT(vm_read(vm, (uintptr_t)m + PAGE_SIZE - 3, buf, 9) == 0);
	KTEST_EXPECT(memcmp(buf, "fulRING3", 9) == 0);
	/* Not made yet: faults (vm_fault cannot run with interrupts off), then made on demand. */
	KTEST_EXPECT(read_as_user(vm, (uintptr_t)m + 3 * PAGE_SIZE, buf, 1) == -EFAULT);
	KTEST_EXPECT(vm_fault(vm, (uintptr_t)m + 3 * PAGE_SIZE, true) == 0);
	buf[0] = 1;
	KTEST_EXPECT(read_as_user(vm, (uintptr_t)m + 3 * PAGE_SIZE, buf, 1) == 0 && buf[0] == 0);
	/* Read-only refuses the user's write; PROT_NONE refuses everything but keeps the bytes. */
	KTEST_EXPECT(vm_mprotect(vm, (uintptr_t)m, PAGE_SIZE, PROT_READ) == 0);
	KTEST_EXPECT(write_as_user(vm, (uintptr_t)m, "x", 1) == -EFAULT);
	KTEST_EXPECT(vm_mprotect(vm, (uintptr_t)m, 2 * PAGE_SIZE, PROT_NONE) == 0);
	KTEST_EXPECT(read_as_user(vm, (uintptr_t)m + PAGE_SIZE, buf, 1) == -EFAULT);
	KTEST_EXPECT(vm_mprotect(vm, (uintptr_t)m, 2 * PAGE_SIZE, RW) == 0);
	KTEST_EXPECT(read_as_user(vm, (uintptr_t)m + PAGE_SIZE - 3, buf, 9) == 0);
	KTEST_EXPECT(memcmp(buf, "fulRING3", 9) == 0);
	/* The fork copy is private. */
	child = vm_clone(vm);
	KTEST_EXPECT(child);
	KTEST_EXPECT(vm_write(vm, (uintptr_t)m + PAGE_SIZE, "parent", 7) == 0);
	KTEST_EXPECT(read_as_user(child, (uintptr_t)m + PAGE_SIZE, buf, 6) == 0);
	KTEST_EXPECT(memcmp(buf, "RING3", 6) == 0);
	vm_put(child);
	vm_put(vm);
	vm_counts(&c1);
	KTEST_EXPECT(c1.vms == c0.vms && c1.areas == c0.areas && c1.frames == c0.frames);
	KTEST_EXPECT(pages_back() == back);
	return 0;
}

/*
 * munmap while the space is loaded here: the translation this CPU just used
 * must be gone when munmap returns (a stale TLB entry would let the read
 * succeed on a freed page).
 */
KTEST(vm_unmap_flushes_tlb);
static int vm_unmap_flushes_tlb(void)
{
	u64 back = pages_back();
	struct vm *vm = vm_create();
	unsigned long flags;
	int before, unmapped, after;
	char c;
	long m;

	KTEST_EXPECT(vm);
	m = vm_map_anon(vm, 0, PAGE_SIZE, RW, false);
	KTEST_EXPECT(m > 0);
	KTEST_EXPECT(vm_write(vm, (uintptr_t)m, "t", 1) == 0);
	flags = arch_irq_save();
	vm_activate(vm);
	before = copy_from_user(&c, (const void *)m, 1);
	unmapped = vm_munmap(vm, (unsigned long)m, PAGE_SIZE);
	after = copy_from_user(&c, (const void *)m, 1);
	vm_activate(NULL);
	arch_irq_restore(flags);
	KTEST_EXPECT(before == 0 && unmapped == 0 && after == -EFAULT);
	vm_put(vm);
	KTEST_EXPECT(pages_back() == back);
	return 0;
}

/*
 * Host tests of kernel/mm/vm*.c over fake RAM, the real page allocator and
 * heap, and the software page tables of fake_addr_space.c: layout, area
 * splits and merges, brk, mmap/munmap/mprotect and their errors, demand
 * faults, the fork copy, the loader's helpers, limits, and teardown that
 * returns every frame, area, table page and heap object.
 */
#include <string.h>

#include <arch/memory.h>

#include "fake_addr_space.h"
#include "fake_arch.h"
#include "lib/errno.h"
#include "mm/heap.h"
#include "mm/memmap.h"
#include "mm/page_alloc.h"
#include "mm/vm.h"
#include "mm/vm_internal.h"
#include "unit.h"

#define MiB	  0x100000ULL
#define RAM_SIZE  (64 * MiB)
#define PG	  PAGE_SIZE
#define RW	  (PROT_READ | PROT_WRITE)
#define STACK_LOW (USER_STACK_TOP - USER_STACK_SIZE)
#define ANON	  (MAP_PRIVATE | MAP_ANONYMOUS)

static struct memmap mem;
static u64 free_at_start;
static struct vm *vm;

static void setup(void)
{
	const struct mem_entry e[] = { { 0, RAM_SIZE, MEM_USABLE } };

	fake_ram_init(RAM_SIZE);
	fake_console_reset();
	memmap_init(&mem, e, 1);
	ck_assert_int_eq(page_alloc_init(&mem), 0);
	heap_init();
	fake_mm_reset();
	vm_user_mem_limit = 256 * MiB;
	vm_user_mem_reserve = 1 * MiB;
	free_at_start = page_alloc_free_pages();
	vm = vm_create();
	ck_assert_ptr_nonnull(vm);
}

static void teardown(void)
{
	fake_ram_free();
}

/* Nothing of any address space is left: objects, frames, tables, heap objects, pages. */
static void expect_clean(void)
{
	struct vm_counts c;
	struct heap_stats st;

	vm_counts(&c);
	ck_assert_uint_eq(c.vms, 0);
	ck_assert_uint_eq(c.areas, 0);
	ck_assert_uint_eq(c.frames, 0);
	ck_assert_uint_eq(fake_mm_live, 0);
	ck_assert_uint_eq(fake_mm_tables, 0);
	ck_assert_uint_eq(fake_mm_mapped, 0);
	ck_assert_uint_eq(fake_mm_misuse, 0);
	heap_get_stats(&st);
	ck_assert_uint_eq(st.objects, 0);
	ck_assert_uint_eq(st.large_pages, 0);
	ck_assert_uint_eq(page_alloc_free_pages() + st.slab_pages, free_at_start);
}

static void put_and_check(void)
{
	vm_put(vm);
	vm = NULL;
	expect_clean();
}

static bool present(struct vm *v, uintptr_t va, unsigned int *prot)
{
	return arch_mm_query(&v->mm, va, NULL, prot);
}

static u64 frames(void)
{
	struct vm_counts c;

	vm_counts(&c);
	return c.frames;
}

static struct vm_usage usage(struct vm *v)
{
	struct vm_usage u;

	vm_usage(v, &u);
	return u;
}

/* The areas as a compact list, for comparing with an expected layout. */
static size_t areas(struct vm *v, struct vm_area_info *out, size_t max)
{
	size_t n = vm_areas(v, out, max);

	ck_assert_uint_le(n, max);
	return n;
}

static void expect_area(const struct vm_area_info *a, uintptr_t start, uintptr_t end,
			unsigned int prot, enum vma_kind kind)
{
	ck_assert_uint_eq(a->start, start);
	ck_assert_uint_eq(a->end, end);
	ck_assert_uint_eq(a->prot, prot);
	ck_assert_int_eq(a->kind, kind);
}

static void touch(struct vm *v, uintptr_t start, size_t pages)
{
	for (size_t i = 0; i < pages; i++)
		ck_assert_int_eq(vm_fault(v, start + i * PG + 8, true), 0);
}

static long map(unsigned long addr, size_t len, unsigned long prot, unsigned long flags)
{
	return vm_mmap(vm, addr, len, prot, flags, -1, 0);
}

/* ------------------------------------------------------------------ lifecycle */

START_TEST(test_create_put_empty)
{
	struct vm_counts c;

	vm_counts(&c);
	ck_assert_uint_eq(c.vms, 1);
	ck_assert_uint_eq(fake_mm_live, 1);
	ck_assert_uint_eq(usage(vm).nr_areas, 0);
	put_and_check();
}
END_TEST

START_TEST(test_refcount)
{
	vm_get(vm);
	vm_put(vm);
	ck_assert_uint_eq(fake_mm_live, 1); /* one reference left */
	ck_assert_int_eq(vm_setup_stack(vm), 0);
	touch(vm, USER_STACK_TOP - PG, 1);
	put_and_check();
}
END_TEST

START_TEST(test_create_fails_cleanly)
{
	fake_mm_init_fail_in = 1;
	ck_assert_ptr_null(vm_create());
	put_and_check();
}
END_TEST

START_TEST(test_activate)
{
	vm_activate(vm);
	ck_assert_ptr_eq(fake_mm_active, &vm->mm);
	vm_activate(NULL);
	ck_assert_ptr_null(fake_mm_active);
	put_and_check();
}
END_TEST

/* A full process image: segments, heap, stack, mmaps, all populated, then torn down. */
START_TEST(test_teardown_frees_everything)
{
	static char text[3000], data[100];
	long a;

	memset(text, 0x90, sizeof(text));
	memset(data, 0x11, sizeof(data));
	ck_assert_int_eq(vm_map_segment(vm, 0x400000, sizeof(text), text, sizeof(text),
					PROT_READ | PROT_EXEC),
			 0);
	ck_assert_int_eq(vm_map_segment(vm, 0x401f00, 0x5000, data, sizeof(data), RW), 0);
	vm_set_brk_start(vm, 0x401f00 + 0x5000);
	ck_assert_int_eq(vm_brk(vm, 0x410000), 0x410000);
	touch(vm, 0x407000, 9);
	ck_assert_int_eq(vm_setup_stack(vm), 0);
	touch(vm, USER_STACK_TOP - 4 * PG, 4);
	a = map(0, 20 * PG, RW, ANON);
	ck_assert_int_gt(a, 0);
	touch(vm, (uintptr_t)a, 20);
	ck_assert_int_eq(vm_mprotect(vm, (uintptr_t)a + 4 * PG, 2 * PG, PROT_READ), 0);
	ck_assert_uint_gt(frames(), 30);
	ck_assert_uint_eq(usage(vm).resident_pages, frames());
	ck_assert_uint_eq(fake_mm_mapped, frames());
	put_and_check();
}
END_TEST

/* ------------------------------------------------------------------ layout */

START_TEST(test_layout_stack_and_mmap)
{
	struct vm_area_info a[4];
	long m1, m2;

	ck_assert_int_eq(vm_setup_stack(vm), 0);
	ck_assert_int_eq(vm_setup_stack(vm), -EEXIST);
	m1 = map(0, 3 * PG, RW, ANON);
	ck_assert_int_eq(m1, STACK_LOW - PG - 3 * PG); /* a guard page below the stack */
	m2 = map(0, PG + 1, RW, ANON);		       /* rounded up to two pages */
	ck_assert_int_eq(m2, m1 - 2 * PG);
	/* Adjacent anonymous areas of one protection merge. */
	ck_assert_uint_eq(areas(vm, a, 4), 2);
	expect_area(&a[0], (uintptr_t)m2, (uintptr_t)m1 + 3 * PG, RW, VMA_ANON);
	expect_area(&a[1], STACK_LOW, USER_STACK_TOP, RW, VMA_STACK);
	ck_assert_uint_eq(usage(vm).mapped_pages, USER_STACK_SIZE / PG + 5);
	ck_assert_uint_eq(usage(vm).resident_pages, 0); /* nothing made before a touch */
	put_and_check();
}
END_TEST

START_TEST(test_mmap_topdown_skips_areas)
{
	uintptr_t top = STACK_LOW - PG;
	long a;

	/* Fill the top: a 2-page hole, then a block. A 3-page request must go below the block. */
	ck_assert_int_eq(map(top - PG, PG, RW, ANON | MAP_FIXED), top - PG);
	ck_assert_int_eq(map(top - 8 * PG, 5 * PG, PROT_READ, ANON | MAP_FIXED), top - 8 * PG);
	a = map(0, 3 * PG, RW, ANON);
	ck_assert_int_eq(a, top - 11 * PG);
	ck_assert_int_eq(map(0, 2 * PG, RW, ANON), top - 3 * PG); /* the hole fits exactly */
	put_and_check();
}
END_TEST

/* ------------------------------------------------------------------ munmap */

START_TEST(test_munmap_middle_splits)
{
	struct vm_area_info a[4];
	long base = map(0, 10 * PG, RW, ANON);
	uintptr_t b = (uintptr_t)base;

	touch(vm, b, 10);
	ck_assert_uint_eq(frames(), 10);
	ck_assert_int_eq(vm_munmap(vm, b + 3 * PG, 2 * PG), 0);
	ck_assert_uint_eq(areas(vm, a, 4), 2);
	expect_area(&a[0], b, b + 3 * PG, RW, VMA_ANON);
	expect_area(&a[1], b + 5 * PG, b + 10 * PG, RW, VMA_ANON);
	ck_assert(!present(vm, b + 3 * PG, NULL));
	ck_assert(!present(vm, b + 4 * PG, NULL));
	ck_assert(present(vm, b + 2 * PG, NULL));
	ck_assert(present(vm, b + 5 * PG, NULL));
	ck_assert_uint_eq(frames(), 8);
	ck_assert_uint_eq(usage(vm).resident_pages, 8);
	ck_assert_uint_eq(usage(vm).mapped_pages, 8);
	ck_assert_int_eq(vm_fault(vm, b + 3 * PG, false), -EFAULT);
	ck_assert_int_eq(vm_fault(vm, b + 4 * PG + 100, true), -EFAULT);
	put_and_check();
}
END_TEST

START_TEST(test_munmap_edges_and_spans)
{
	struct vm_area_info a[4];
	uintptr_t b = (uintptr_t)map(0, 10 * PG, RW, ANON);

	ck_assert_int_eq(map(b + 10 * PG, 4 * PG, PROT_READ, ANON | MAP_FIXED), b + 10 * PG);
	touch(vm, b, 10);
	ck_assert_int_eq(vm_munmap(vm, b, PG), 0);		/* front */
	ck_assert_int_eq(vm_munmap(vm, b + 9 * PG, 3 * PG), 0); /* across two areas */
	ck_assert_uint_eq(areas(vm, a, 4), 2);
	expect_area(&a[0], b + PG, b + 9 * PG, RW, VMA_ANON);
	expect_area(&a[1], b + 12 * PG, b + 14 * PG, PROT_READ, VMA_ANON);
	ck_assert_uint_eq(frames(), 8);
	/* Nothing mapped there: still success. */
	ck_assert_int_eq(vm_munmap(vm, 0x200000, 16 * PG), 0);
	ck_assert_int_eq(vm_munmap(vm, b, 20 * PG), 0); /* everything */
	ck_assert_uint_eq(areas(vm, a, 4), 0);
	ck_assert_uint_eq(frames(), 0);
	put_and_check();
}
END_TEST

START_TEST(test_munmap_errors)
{
	ck_assert_int_eq(vm_munmap(vm, 0x400001, PG), -EINVAL);
	ck_assert_int_eq(vm_munmap(vm, 0x400000, 0), -EINVAL);
	ck_assert_int_eq(vm_munmap(vm, USER_ADDR_END - PG, 2 * PG), -EINVAL);
	ck_assert_int_eq(vm_munmap(vm, 0x400000, ~0UL), -EINVAL);
	ck_assert_int_eq(vm_munmap(vm, USER_ADDR_END - PG, PG), 0);
	put_and_check();
}
END_TEST

/* Frames go back only after the TLB flush, and the flush runs without the vm lock. */
static struct vm *flush_vm;
static unsigned long flush_frames_seen;

static void flush_hook(struct arch_mm *mm)
{
	ck_assert_ptr_eq(mm, &flush_vm->mm);
	ck_assert(!spin_is_locked(&flush_vm->lock));
	flush_frames_seen = frames();
}

START_TEST(test_flush_before_free_and_unlocked)
{
	uintptr_t b = (uintptr_t)map(0, 4 * PG, RW, ANON);

	flush_vm = vm;
	fake_mm_flush_hook = flush_hook;
	ck_assert_int_eq(vm_munmap(vm, b, 4 * PG), 0);
	ck_assert_uint_eq(fake_mm_flushes, 0); /* nothing was present: no flush needed */
	b = (uintptr_t)map(0, 4 * PG, RW, ANON);
	touch(vm, b, 4);
	ck_assert_int_eq(vm_munmap(vm, b + PG, 2 * PG), 0);
	ck_assert_uint_eq(fake_mm_flushes, 1);
	ck_assert_uint_eq(flush_frames_seen, 4); /* still allocated during the flush */
	ck_assert_uint_eq(frames(), 2);
	ck_assert_int_eq(vm_mprotect(vm, b, PG, PROT_READ), 0);
	ck_assert_uint_eq(fake_mm_flushes, 2); /* a weaker protection is flushed */
	ck_assert_int_eq(vm_mprotect(vm, b, PG, RW), 0);
	ck_assert_uint_eq(fake_mm_flushes, 2); /* a stronger one is not */
	put_and_check();
}
END_TEST

/* An area made while another operation's flush is pending is flushed before it is returned. */
START_TEST(test_new_area_waits_for_pending_flush)
{
	unsigned long flags = spin_lock_irqsave(&vm->lock);

	vm->flush_pending++; /* as if another CPU were between unmap and flush */
	spin_unlock_irqrestore(&vm->lock, flags);
	ck_assert_int_gt(map(0, PG, RW, ANON), 0);
	ck_assert_uint_eq(fake_mm_flushes, 1);
	vm->flush_pending--;
	ck_assert_int_gt(map(0, PG, RW, ANON), 0);
	ck_assert_uint_eq(fake_mm_flushes, 1);
	put_and_check();
}
END_TEST

/* ------------------------------------------------------------------ mprotect */

START_TEST(test_mprotect_splits_and_merges)
{
	struct vm_area_info a[8];
	uintptr_t b = (uintptr_t)map(0, 8 * PG, RW, ANON);
	unsigned int prot;

	touch(vm, b, 8);
	ck_assert_int_eq(vm_mprotect(vm, b + 2 * PG, 3 * PG, PROT_READ), 0);
	ck_assert_uint_eq(areas(vm, a, 4), 3);
	expect_area(&a[0], b, b + 2 * PG, RW, VMA_ANON);
	expect_area(&a[1], b + 2 * PG, b + 5 * PG, PROT_READ, VMA_ANON);
	expect_area(&a[2], b + 5 * PG, b + 8 * PG, RW, VMA_ANON);
	ck_assert(present(vm, b + 3 * PG, &prot));
	ck_assert_uint_eq(prot, PROT_READ);
	ck_assert(present(vm, b + 5 * PG, &prot));
	ck_assert_uint_eq(prot, RW);
	ck_assert_int_eq(vm_fault(vm, b + 3 * PG, true), -EFAULT);
	ck_assert_int_eq(vm_fault(vm, b + 3 * PG, false), 0);
	/* PROT_NONE keeps the frame but refuses every access; contents survive. */
	ck_assert_int_eq(vm_write(vm, b + 6 * PG, "keep", 5), 0);
	ck_assert_int_eq(vm_mprotect(vm, b + 6 * PG, PG, 0), 0);
	ck_assert(present(vm, b + 6 * PG, &prot));
	ck_assert_uint_eq(prot, 0);
	ck_assert_int_eq(vm_fault(vm, b + 6 * PG, false), -EFAULT);
	ck_assert_uint_eq(areas(vm, a, 8), 5);
	expect_area(&a[3], b + 6 * PG, b + 7 * PG, PROT_NONE, VMA_ANON);
	/* Back to one protection: one area again, and the frames were never dropped. */
	ck_assert_int_eq(vm_mprotect(vm, b, 8 * PG, RW), 0);
	ck_assert_uint_eq(areas(vm, a, 8), 1);
	expect_area(&a[0], b, b + 8 * PG, RW, VMA_ANON);
	ck_assert_uint_eq(frames(), 8);
	{
		char s[5];

		ck_assert_int_eq(vm_read(vm, b + 6 * PG, s, 5), 0);
		ck_assert_str_eq(s, "keep");
	}
	put_and_check();
}
END_TEST

START_TEST(test_mprotect_errors)
{
	struct vm_area_info a[4];
	uintptr_t b = (uintptr_t)map(0, 4 * PG, RW, ANON);

	ck_assert_int_eq(vm_munmap(vm, b + PG, PG), 0);
	/* A hole in the range: -ENOMEM and nothing changed. */
	ck_assert_int_eq(vm_mprotect(vm, b, 4 * PG, PROT_READ), -ENOMEM);
	ck_assert_uint_eq(areas(vm, a, 4), 2);
	ck_assert_uint_eq(a[0].prot, RW);
	ck_assert_uint_eq(a[1].prot, RW);
	ck_assert_int_eq(vm_mprotect(vm, b + 1, PG, PROT_READ), -EINVAL);
	ck_assert_int_eq(vm_mprotect(vm, b, PG, 8), -EINVAL);
	ck_assert_int_eq(vm_mprotect(vm, b, 0, PROT_READ), 0);
	ck_assert_int_eq(vm_mprotect(vm, 0x300000, PG, PROT_READ), -ENOMEM);
	ck_assert_int_eq(vm_mprotect(vm, b, ~0UL - PG, PROT_READ), -ENOMEM);
	/* PROT_EXEC without PROT_READ is fine; a read fault there is allowed, a write is not. */
	ck_assert_int_eq(vm_mprotect(vm, b, PG, PROT_EXEC), 0);
	ck_assert_int_eq(vm_fault(vm, b, false), 0);
	ck_assert_int_eq(vm_fault(vm, b, true), -EFAULT);
	put_and_check();
}
END_TEST

/* ------------------------------------------------------------------ brk */

START_TEST(test_brk_grow_shrink)
{
	struct vm_area_info a[4];
	uintptr_t start = 0x602000;
	char buf[16];

	ck_assert_int_eq(vm_brk(vm, 0), 0); /* no break before execve sets one */
	vm_set_brk_start(vm, 0x601234);
	ck_assert_int_eq(vm_brk(vm, 0), start);
	ck_assert_int_eq(vm_brk(vm, start + 3 * PG + 5), start + 3 * PG + 5);
	ck_assert_uint_eq(areas(vm, a, 4), 1);
	expect_area(&a[0], start, start + 4 * PG, RW, VMA_HEAP);
	ck_assert_int_eq(vm_write(vm, start + 3 * PG, "heap", 5), 0);
	touch(vm, start, 3);
	ck_assert_uint_eq(frames(), 4);
	/* Grow again: the same area gets longer. */
	ck_assert_int_eq(vm_brk(vm, start + 6 * PG), start + 6 * PG);
	ck_assert_uint_eq(areas(vm, a, 4), 1);
	expect_area(&a[0], start, start + 6 * PG, RW, VMA_HEAP);
	/* Shrink inside the last page keeps it; below it frees pages. */
	ck_assert_int_eq(vm_brk(vm, start + 3 * PG + 10), start + 3 * PG + 10);
	ck_assert_uint_eq(areas(vm, a, 4), 1);
	expect_area(&a[0], start, start + 4 * PG, RW, VMA_HEAP);
	ck_assert_int_eq(vm_read(vm, start + 3 * PG, buf, 5), 0);
	ck_assert_str_eq(buf, "heap");
	ck_assert_int_eq(vm_brk(vm, start + PG), start + PG);
	ck_assert_uint_eq(frames(), 1);
	ck_assert_int_eq(vm_fault(vm, start + PG, false), -EFAULT);
	/* Below the start: refused, the break stays. */
	ck_assert_int_eq(vm_brk(vm, start - 1), start + PG);
	ck_assert_int_eq(vm_brk(vm, start), start);
	ck_assert_uint_eq(areas(vm, a, 4), 0);
	ck_assert_uint_eq(usage(vm).brk, start);
	put_and_check();
}
END_TEST

START_TEST(test_brk_limits)
{
	uintptr_t start = 0x600000;

	vm_set_brk_start(vm, start);
	/* Another area above: the break stops a guard page short of it. */
	ck_assert_int_eq(map(start + 10 * PG, PG, RW, ANON | MAP_FIXED), start + 10 * PG);
	ck_assert_int_eq(vm_brk(vm, start + 10 * PG), start);
	ck_assert_int_eq(vm_brk(vm, start + 9 * PG), start + 9 * PG);
	ck_assert_int_eq(vm_brk(vm, USER_ADDR_END + 1), start + 9 * PG);
	ck_assert_int_eq(vm_brk(vm, ~0UL), start + 9 * PG);
	/* The memory limit: the break stays put. */
	ck_assert_int_eq(vm_munmap(vm, start + 10 * PG, PG), 0);
	vm_user_mem_limit = 16 * PG;
	ck_assert_int_eq(vm_brk(vm, start + 17 * PG), start + 9 * PG);
	ck_assert_int_eq(vm_brk(vm, start + 16 * PG), start + 16 * PG);
	put_and_check();
}
END_TEST

/* ------------------------------------------------------------------ mmap */

START_TEST(test_mmap_hint_and_fixed)
{
	struct vm_area_info a[8];
	uintptr_t hint = 0x10000000;
	long m;
	char buf[4];

	ck_assert_int_eq(map(hint, 4 * PG, RW, ANON), hint);
	/* The hint is taken: elsewhere, not overlapping. */
	m = map(hint + PG, PG, RW, ANON);
	ck_assert_int_gt(m, 0);
	ck_assert((uintptr_t)m >= hint + 4 * PG || (uintptr_t)m + PG <= hint);
	/* An unaligned hint is rounded up. */
	ck_assert_int_eq(map(0x20000123, PG, RW, ANON), 0x20001000);
	/* A hint below USER_ADDR_MIN is raised to it. */
	ck_assert_int_eq(map(PG, PG, RW, ANON), USER_ADDR_MIN);
	/* MAP_FIXED replaces: the old page's frame goes, the new page reads zero. */
	ck_assert_int_eq(vm_write(vm, hint + PG, "old", 4), 0);
	ck_assert_uint_eq(frames(), 1);
	ck_assert_int_eq(map(hint + PG, PG, PROT_READ, ANON | MAP_FIXED), hint + PG);
	ck_assert_uint_eq(frames(), 0);
	ck_assert_int_eq(vm_read(vm, hint + PG, buf, 4), 0);
	ck_assert_int_eq(buf[0], 0);
	/* hint area split in three, the displaced page, the rounded hint, the raised hint */
	ck_assert_uint_eq(areas(vm, a, 8), 6);
	/* MAP_FIXED_NOREPLACE refuses a taken range and takes a free one. */
	ck_assert_int_eq(map(hint, PG, RW, ANON | MAP_FIXED_NOREPLACE), -EEXIST);
	ck_assert_int_eq(map(hint + 3 * PG, 2 * PG, RW, ANON | MAP_FIXED_NOREPLACE), -EEXIST);
	ck_assert_int_eq(map(hint - PG, PG, RW, ANON | MAP_FIXED_NOREPLACE), hint - PG);
	put_and_check();
}
END_TEST

START_TEST(test_mmap_errors)
{
	ck_assert_int_eq(map(0, 0, RW, ANON), -EINVAL);
	ck_assert_int_eq(vm_mmap(vm, 0, PG, RW, ANON, -1, 123), -EINVAL);
	ck_assert_int_eq(vm_mmap(vm, 0, PG, RW, MAP_PRIVATE, -1, 0), -EBADF);
	ck_assert_int_eq(vm_mmap(vm, 0, PG, RW, MAP_PRIVATE, 3, 0), -ENODEV);
	ck_assert_int_eq(map(0, PG, RW, MAP_SHARED_VALIDATE | MAP_ANONYMOUS), -EINVAL);
	ck_assert_int_eq(map(0, PG, RW, MAP_ANONYMOUS), -EINVAL);
	ck_assert_int_eq(map(0, PG, RW, ANON | MAP_GROWSDOWN), -EINVAL);
	ck_assert_int_eq(map(0, PG, RW, ANON | MAP_HUGETLB), -EINVAL);
	ck_assert_int_eq(map(0, PG, 0x10, ANON), -EINVAL);
	ck_assert_int_eq(map(0x400010, PG, RW, ANON | MAP_FIXED), -EINVAL);
	ck_assert_int_eq(map(0x1000, PG, RW, ANON | MAP_FIXED), -EPERM);
	ck_assert_int_eq(map(USER_ADDR_END - PG, 2 * PG, RW, ANON | MAP_FIXED), -ENOMEM);
	ck_assert_int_eq(map(0, ~0UL, RW, ANON), -ENOMEM);
	ck_assert_int_eq(map(0, 1UL << 46, RW, ANON), -ENOMEM); /* past the limit */
	/* Advisory flags are accepted; PROT_NONE and PROT_EXEC alone are fine. */
	ck_assert_int_gt(map(0, PG, RW, ANON | MAP_NORESERVE | MAP_STACK | MAP_DENYWRITE), 0);
	ck_assert_int_gt(map(0, PG, 0, ANON), 0);
	ck_assert_int_gt(map(0, PG, PROT_EXEC, ANON), 0);
	ck_assert_uint_eq(frames(), 0);
	put_and_check();
}
END_TEST

START_TEST(test_mmap_populate)
{
	long m = map(0, 5 * PG, RW, ANON | MAP_POPULATE);

	ck_assert_int_gt(m, 0);
	ck_assert_uint_eq(frames(), 5);
	ck_assert(present(vm, (uintptr_t)m + 4 * PG, NULL));
	/* PROT_NONE is not populated. */
	ck_assert_int_gt(map(0, 5 * PG, 0, ANON | MAP_POPULATE), 0);
	ck_assert_uint_eq(frames(), 5);
	put_and_check();
}
END_TEST

START_TEST(test_mmap_no_room)
{
	/* The whole range below the stack taken: a request without a hint has nowhere to go. */
	uintptr_t low = USER_ADDR_MIN, top = STACK_LOW - PG;

	vm_user_mem_limit = 1LL << 47;
	ck_assert_int_eq(map(low, top - low, PROT_NONE, ANON | MAP_FIXED), low);
	ck_assert_int_eq(map(0, PG, RW, ANON), -ENOMEM);
	/* A hint into the free space above the stack still works. */
	ck_assert_int_eq(map(USER_STACK_TOP, PG, RW, ANON), USER_STACK_TOP);
	put_and_check();
}
END_TEST

/* ------------------------------------------------------------------ faults */

START_TEST(test_fault_permissions)
{
	uintptr_t r = (uintptr_t)map(0, PG, PROT_READ, ANON);
	uintptr_t w = (uintptr_t)map(0x30000000, PG, PROT_WRITE, ANON);
	uintptr_t n = (uintptr_t)map(0x40000000, PG, PROT_NONE, ANON);
	unsigned int prot;
	char buf[8] = { 1 };

	ck_assert_int_eq(vm_fault(vm, r + 5, true), -EFAULT);
	ck_assert_uint_eq(frames(), 0);
	ck_assert_int_eq(vm_fault(vm, r + 5, false), 0);
	ck_assert(present(vm, r, &prot));
	ck_assert_uint_eq(prot, PROT_READ);
	ck_assert_int_eq(vm_read(vm, r, buf, sizeof(buf)), 0);
	ck_assert_int_eq(buf[0], 0);		     /* zeroed */
	ck_assert_int_eq(vm_fault(vm, w, false), 0); /* write-only is readable on x86 */
	ck_assert_int_eq(vm_fault(vm, w, true), 0);  /* already there: retry */
	ck_assert_uint_eq(frames(), 2);
	ck_assert_int_eq(vm_fault(vm, n, false), -EFAULT);
	ck_assert_int_eq(vm_fault(vm, n, true), -EFAULT);
	ck_assert_int_eq(vm_fault(vm, 0x50000000, false), -EFAULT); /* no area */
	ck_assert_int_eq(vm_fault(vm, 0, false), -EFAULT);
	ck_assert_int_eq(vm_fault(vm, USER_ADDR_END, false), -EFAULT);
	ck_assert_int_eq(vm_fault(vm, ~0UL, true), -EFAULT);
	ck_assert_int_eq(vm_fault(NULL, r, false), -EFAULT);
	ck_assert_uint_eq(frames(), 2);
	put_and_check();
}
END_TEST

START_TEST(test_fault_map_failure_leaks_nothing)
{
	uintptr_t b = (uintptr_t)map(0, PG, RW, ANON);

	fake_mm_map_fail_in = 1;
	ck_assert_int_eq(vm_fault(vm, b, true), -ENOMEM);
	ck_assert_uint_eq(frames(), 0);
	ck_assert_int_eq(vm_fault(vm, b, true), 0);
	put_and_check();
}
END_TEST

/* ------------------------------------------------------------------ fork copy */

START_TEST(test_clone_copies_contents)
{
	struct vm_area_info pa[8], ca[8];
	uintptr_t m = (uintptr_t)map(0, 3 * PG, RW, ANON);
	struct vm *child;
	char buf[32];
	size_t n;

	ck_assert_int_eq(vm_setup_stack(vm), 0);
	vm_set_brk_start(vm, 0x700000);
	ck_assert_int_eq(vm_brk(vm, 0x702000), 0x702000);
	ck_assert_int_eq(vm_write(vm, m + PG - 3, "parent data", 12), 0);
	ck_assert_int_eq(vm_write(vm, USER_STACK_TOP - 16, "stack", 6), 0);
	ck_assert_int_eq(vm_write(vm, 0x701000, "heap", 5), 0);
	ck_assert_int_eq(vm_mprotect(vm, m + 2 * PG, PG, PROT_READ), 0);
	ck_assert_int_eq(vm_fault(vm, m + 2 * PG, false), 0);
	child = vm_clone(vm);
	ck_assert_ptr_nonnull(child);
	ck_assert_uint_eq(frames(), 2 * 5);
	/* Same areas, same break. */
	n = areas(vm, pa, 8);
	ck_assert_uint_eq(areas(child, ca, 8), n);
	for (size_t i = 0; i < n; i++)
		expect_area(&ca[i], pa[i].start, pa[i].end, pa[i].prot, pa[i].kind);
	ck_assert_uint_eq(usage(child).brk, 0x702000);
	ck_assert_uint_eq(usage(child).brk_start, 0x700000);
	ck_assert_uint_eq(usage(child).resident_pages, 5);
	/* The parent writes after the fork: the child keeps what it had. */
	ck_assert_int_eq(vm_write(vm, m + PG - 3, "PARENT", 6), 0);
	ck_assert_int_eq(vm_write(vm, USER_STACK_TOP - 16, "STACK", 5), 0);
	ck_assert_int_eq(vm_read(child, m + PG - 3, buf, 12), 0);
	ck_assert_str_eq(buf, "parent data");
	ck_assert_int_eq(vm_read(child, USER_STACK_TOP - 16, buf, 6), 0);
	ck_assert_str_eq(buf, "stack");
	ck_assert_int_eq(vm_read(child, 0x701000, buf, 5), 0);
	ck_assert_str_eq(buf, "heap");
	/* And the other way round. */
	ck_assert_int_eq(vm_write(child, 0x701000, "HEAP", 5), 0);
	ck_assert_int_eq(vm_read(vm, 0x701000, buf, 5), 0);
	ck_assert_str_eq(buf, "heap");
	/* Distinct frames, same protection. */
	{
		phys_addr_t p1, p2;
		unsigned int prot;

		ck_assert(arch_mm_query(&vm->mm, m, &p1, NULL));
		ck_assert(arch_mm_query(&child->mm, m, &p2, &prot));
		ck_assert_uint_ne(p1, p2);
		ck_assert_uint_eq(prot, RW);
	}
	/* The child outlives the parent. */
	vm_put(vm);
	vm = child;
	ck_assert_int_eq(vm_read(vm, m + PG - 3, buf, 12), 0);
	ck_assert_str_eq(buf, "parent data");
	put_and_check();
}
END_TEST

/*
 * A shared area's pages are one set of frames for parent and child, made
 * once, split areas keep their offsets into it, and the frames go only
 * with the last area, after its flush.
 */
START_TEST(test_shared_across_clone)
{
	uintptr_t m = (uintptr_t)map(0, 4 * PG, RW, MAP_SHARED | MAP_ANONYMOUS);
	phys_addr_t p1, p2;
	struct vm *child;
	char buf[8];

	ck_assert_int_eq(vm_write(vm, m, "before", 7), 0);
	child = vm_clone(vm);
	ck_assert_ptr_nonnull(child);
	ck_assert_uint_eq(frames(), 1); /* shared, not copied */
	ck_assert(arch_mm_query(&vm->mm, m, &p1, NULL));
	ck_assert(arch_mm_query(&child->mm, m, &p2, NULL));
	ck_assert_uint_eq(p1, p2);
	ck_assert_int_eq(vm_read(child, m, buf, 7), 0);
	ck_assert_str_eq(buf, "before");
	/* A page first made by the child after the fork is the parent's too. */
	ck_assert_int_eq(vm_write(child, m + 3 * PG, "third", 6), 0);
	ck_assert_int_eq(vm_fault(vm, m + 3 * PG, false), 0);
	ck_assert_int_eq(vm_read(vm, m + 3 * PG, buf, 6), 0);
	ck_assert_str_eq(buf, "third");
	ck_assert_uint_eq(frames(), 2);
	/* Split the parent's area: the tail still reaches the object's page 3. */
	ck_assert_int_eq(vm_munmap(vm, m + PG, PG), 0);
	ck_assert_int_eq(vm_mprotect(vm, m + 2 * PG, PG, PROT_READ), 0);
	ck_assert_int_eq(vm_write(child, m + 3 * PG, "THIRD", 6), 0);
	ck_assert_int_eq(vm_read(vm, m + 3 * PG, buf, 6), 0);
	ck_assert_str_eq(buf, "THIRD");
	/* DONTNEED drops the mapping, not the contents. */
	ck_assert_int_eq(vm_madvise(vm, m, PG, MADV_DONTNEED), 0);
	ck_assert_int_eq(vm_madvise(vm, m, PG, MADV_FREE), -EINVAL);
	ck_assert_uint_eq(frames(), 2);
	ck_assert_int_eq(vm_fault(vm, m, false), 0);
	ck_assert_int_eq(vm_read(vm, m, buf, 7), 0);
	ck_assert_str_eq(buf, "before");
	/* The parent's areas go; the child's keep the frames. */
	ck_assert_int_eq(vm_munmap(vm, m, 4 * PG), 0);
	ck_assert_uint_eq(frames(), 2);
	ck_assert_int_eq(vm_read(child, m, buf, 7), 0);
	ck_assert_str_eq(buf, "before");
	vm_put(child);
	put_and_check();
}
END_TEST

START_TEST(test_clone_out_of_memory)
{
	uintptr_t m = (uintptr_t)map(0, 8 * PG, RW, ANON);

	touch(vm, m, 8);
	/* The 5th page copied fails to map; what was copied goes back. */
	fake_mm_map_fail_in = 5;
	ck_assert_ptr_null(vm_clone(vm));
	ck_assert_uint_eq(frames(), 8);
	/* The reserve: no frame for the copy. */
	vm_user_mem_reserve = (s64)(page_alloc_free_pages() * PG);
	ck_assert_ptr_null(vm_clone(vm));
	ck_assert_uint_eq(frames(), 8);
	put_and_check();
}
END_TEST

/* ------------------------------------------------------------------ loader helpers */

START_TEST(test_vm_write_crosses_pages)
{
	uintptr_t m = (uintptr_t)map(0, 4 * PG, RW, ANON);
	static char src[6000], back[6000];

	for (size_t i = 0; i < sizeof(src); i++)
		src[i] = (char)(i * 7 + 3);
	ck_assert_int_eq(vm_write(vm, m + 4000, src, sizeof(src)), 0);
	ck_assert_uint_eq(frames(), 3); /* 4000 + 6000 spans pages 0, 1 and 2 */
	ck_assert(!present(vm, m + 3 * PG, NULL));
	ck_assert_int_eq(vm_read(vm, m + 4000, back, sizeof(back)), 0);
	ck_assert_mem_eq(back, src, sizeof(src));
	ck_assert_int_eq(vm_read(vm, m + 3 * PG, back, 16), 0); /* untouched reads zero */
	ck_assert_int_eq(back[0] | back[15], 0);
	ck_assert_uint_eq(frames(), 3);
	/* Holes and PROT_NONE refuse; read-only areas take the kernel's write. */
	ck_assert_int_eq(vm_write(vm, m + 4 * PG - 2, "xyz", 3), -EFAULT);
	ck_assert_int_eq(vm_write(vm, 0x1000, "x", 1), -EFAULT);
	ck_assert_int_eq(vm_write(vm, USER_ADDR_END - 1, "xy", 2), -EFAULT);
	ck_assert_int_eq(vm_mprotect(vm, m + 3 * PG, PG, PROT_READ), 0);
	ck_assert_int_eq(vm_write(vm, m + 3 * PG, "ro", 3), 0);
	ck_assert_int_eq(vm_mprotect(vm, m, PG, PROT_NONE), 0);
	ck_assert_int_eq(vm_write(vm, m, "x", 1), -EFAULT);
	ck_assert_int_eq(vm_read(vm, m, back, 1), -EFAULT);
	ck_assert_int_eq(vm_write(vm, m, "", 0), 0);
	put_and_check();
}
END_TEST

START_TEST(test_map_segment_unaligned)
{
	struct vm_area_info a[2];
	uintptr_t vaddr = 0x401234, end = 0x405000;
	static u8 file[0x1800], page[PAGE_SIZE];
	unsigned int prot;

	for (size_t i = 0; i < sizeof(file); i++)
		file[i] = (u8)(i % 251 + 1);
	ck_assert_int_eq(vm_map_segment(vm, vaddr, 0x3000, file, sizeof(file), PROT_READ | PROT_EXEC),
			 0);
	ck_assert_uint_eq(areas(vm, a, 2), 1);
	expect_area(&a[0], 0x401000, end, PROT_READ | PROT_EXEC, VMA_SEGMENT);
	ck_assert_uint_eq(frames(), 4); /* eager */
	ck_assert(present(vm, 0x404000, &prot));
	ck_assert_uint_eq(prot, PROT_READ | PROT_EXEC);
	/* Before vaddr: zero. Then the file bytes. Then zero to the end of the last page. */
	ck_assert_int_eq(vm_read(vm, 0x401000, page, PG), 0);
	for (size_t i = 0; i < 0x234; i++)
		ck_assert_uint_eq(page[i], 0);
	ck_assert_mem_eq(page + 0x234, file, PG - 0x234);
	for (uintptr_t va = vaddr; va < end; va += 0x100) {
		u8 byte;
		size_t off = va - vaddr;

		ck_assert_int_eq(vm_read(vm, va, &byte, 1), 0);
		ck_assert_uint_eq(byte, off < sizeof(file) ? file[off] : 0);
	}
	ck_assert_int_eq(vm_read(vm, end - 1, page, 1), 0);
	ck_assert_uint_eq(page[0], 0);
	/* A second segment sharing the last page is refused, leaving nothing behind. */
	ck_assert_int_eq(vm_map_segment(vm, 0x404f00, 0x2000, file, 16, RW), -EEXIST);
	ck_assert_uint_eq(frames(), 4);
	ck_assert_uint_eq(areas(vm, a, 2), 1);
	put_and_check();
}
END_TEST

START_TEST(test_map_segment_checks)
{
	static u8 file[64];

	ck_assert_int_eq(vm_map_segment(vm, 0x400000, 16, file, 32, PROT_READ), -EINVAL);
	ck_assert_int_eq(vm_map_segment(vm, 0x400000, 16, NULL, 16, PROT_READ), -EINVAL);
	ck_assert_int_eq(vm_map_segment(vm, 0x400000, 16, file, 16, 0x40), -EINVAL);
	ck_assert_int_eq(vm_map_segment(vm, 0x1000, 16, file, 16, PROT_READ), -EINVAL);
	ck_assert_int_eq(vm_map_segment(vm, USER_ADDR_END - 8, 16, file, 16, PROT_READ), -EINVAL);
	ck_assert_int_eq(vm_map_segment(vm, 0x400000, ~0UL, file, 16, PROT_READ), -EINVAL);
	ck_assert_int_eq(vm_map_segment(vm, 0x400000, 0, file, 0, PROT_READ), 0);
	ck_assert_uint_eq(vm_areas(vm, NULL, 0), 0);
	/* bss only: no file bytes at all. */
	ck_assert_int_eq(vm_map_segment(vm, 0x500010, 2 * PG, NULL, 0, RW), 0);
	ck_assert_uint_eq(frames(), 3);
	/* Running out half-way: the segment is gone again. */
	fake_mm_map_fail_in = 3;
	ck_assert_int_eq(vm_map_segment(vm, 0x600000, 5 * PG, file, 64, RW), -ENOMEM);
	ck_assert_uint_eq(frames(), 3);
	ck_assert_uint_eq(vm_areas(vm, NULL, 0), 1);
	/* The memory limit. */
	vm_user_mem_limit = 8 * PG;
	ck_assert_int_eq(vm_map_segment(vm, 0x600000, 6 * PG, file, 64, RW), -ENOMEM);
	ck_assert_int_eq(vm_map_segment(vm, 0x600000, 5 * PG, file, 64, RW), 0);
	put_and_check();
}
END_TEST

/* ------------------------------------------------------------------ limits */

START_TEST(test_memory_limit)
{
	long m;

	vm_user_mem_limit = 64 * PG;
	ck_assert_int_eq(map(0, 65 * PG, RW, ANON), -ENOMEM);
	m = map(0, 60 * PG, RW, ANON);
	ck_assert_int_gt(m, 0);
	ck_assert_int_eq(map(0, 5 * PG, RW, ANON), -ENOMEM);
	ck_assert_int_gt(map(0, 4 * PG, RW, ANON), 0);
	/* Replacing mapped pages in place costs nothing more. */
	ck_assert_int_eq(map((unsigned long)m, 10 * PG, PROT_READ, ANON | MAP_FIXED), m);
	ck_assert_int_eq(vm_setup_stack(vm), -ENOMEM);
	ck_assert_int_eq(vm_munmap(vm, (unsigned long)m, 10 * PG), 0);
	ck_assert_int_eq(map(0, 10 * PG, RW, ANON | MAP_POPULATE), (long)m);
	ck_assert_uint_eq(usage(vm).mapped_pages, 64);
	put_and_check();
}
END_TEST

START_TEST(test_reserve_refuses_pages)
{
	uintptr_t m = (uintptr_t)map(0, 64 * PG, RW, ANON);
	u64 free_now;

	touch(vm, m, 1); /* the page table's page for the range comes with the first */
	free_now = page_alloc_free_pages();
	/* Leave exactly 3 pages above the reserve: the 4th fault fails, and so does vm_write. */
	vm_user_mem_reserve = (s64)((free_now - 3) * PG);
	touch(vm, m + PG, 3);
	ck_assert_int_eq(vm_fault(vm, m + 4 * PG, true), -ENOMEM);
	ck_assert_int_eq(vm_write(vm, m + 4 * PG, "x", 1), -ENOMEM);
	ck_assert_uint_eq(frames(), 4);
	ck_assert_uint_eq(usage(vm).peak_resident_pages, 4);
	/* Pages given back are usable again. */
	ck_assert_int_eq(vm_munmap(vm, m, PG), 0);
	ck_assert_int_eq(vm_fault(vm, m + 4 * PG, true), 0);
	ck_assert_uint_eq(usage(vm).peak_resident_pages, 4);
	put_and_check();
}
END_TEST

START_TEST(test_area_count_limit)
{
	uintptr_t m = (uintptr_t)map(0, (VM_MAX_AREAS + 4) * PG, RW, ANON);
	int err = 0;
	size_t i;

	/* Every other page read-only: each call adds two areas until the cap says no. */
	for (i = 1; i < VM_MAX_AREAS + 4 && !err; i += 2)
		err = vm_mprotect(vm, m + i * PG, PG, PROT_READ);
	ck_assert_int_eq(err, -ENOMEM);
	ck_assert_uint_le(usage(vm).nr_areas, VM_MAX_AREAS);
	ck_assert_uint_ge(usage(vm).nr_areas, VM_MAX_AREAS - 2);
	put_and_check();
}
END_TEST

Suite *vm_suite(void)
{
	Suite *s = suite_create("vm");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_create_put_empty);
	tcase_add_test(tc, test_refcount);
	tcase_add_test(tc, test_create_fails_cleanly);
	tcase_add_test(tc, test_activate);
	tcase_add_test(tc, test_teardown_frees_everything);
	tcase_add_test(tc, test_layout_stack_and_mmap);
	tcase_add_test(tc, test_mmap_topdown_skips_areas);
	tcase_add_test(tc, test_munmap_middle_splits);
	tcase_add_test(tc, test_munmap_edges_and_spans);
	tcase_add_test(tc, test_munmap_errors);
	tcase_add_test(tc, test_flush_before_free_and_unlocked);
	tcase_add_test(tc, test_new_area_waits_for_pending_flush);
	tcase_add_test(tc, test_mprotect_splits_and_merges);
	tcase_add_test(tc, test_mprotect_errors);
	tcase_add_test(tc, test_brk_grow_shrink);
	tcase_add_test(tc, test_brk_limits);
	tcase_add_test(tc, test_mmap_hint_and_fixed);
	tcase_add_test(tc, test_mmap_errors);
	tcase_add_test(tc, test_mmap_populate);
	tcase_add_test(tc, test_mmap_no_room);
	tcase_add_test(tc, test_fault_permissions);
	tcase_add_test(tc, test_fault_map_failure_leaks_nothing);
	tcase_add_test(tc, test_clone_copies_contents);
	tcase_add_test(tc, test_clone_out_of_memory);
	tcase_add_test(tc, test_shared_across_clone);
	tcase_add_test(tc, test_vm_write_crosses_pages);
	tcase_add_test(tc, test_map_segment_unaligned);
	tcase_add_test(tc, test_map_segment_checks);
	tcase_add_test(tc, test_memory_limit);
	tcase_add_test(tc, test_reserve_refuses_pages);
	tcase_add_test(tc, test_area_count_limit);
	suite_add_tcase(s, tc);
	return s;
}

/*
 * Host tests of madvise over the real vm code and fake page tables: which
 * advice is taken, refused or unknown; MADV_DONTNEED and MADV_FREE drop
 * exactly the range's pages (resident count, zeros on the next touch, the
 * TLB flushed before the frames are freed) in anonymous, stack and brk
 * areas but refuse ELF segments; holes give ENOMEM after the rest was
 * done; the argument checks in Linux's order.
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

#define MiB	 0x100000ULL
#define RAM_SIZE (32 * MiB)
#define PG	 PAGE_SIZE
#define RW	 (PROT_READ | PROT_WRITE)
#define ANON	 (MAP_PRIVATE | MAP_ANONYMOUS)

static struct memmap mem;
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
	vm_user_mem_limit = 64 * MiB;
	vm_user_mem_reserve = 1 * MiB;
	vm = vm_create();
	ck_assert_ptr_nonnull(vm);
}

static void teardown(void)
{
	struct vm_counts c;

	vm_put(vm);
	vm_counts(&c);
	ck_assert_uint_eq(c.frames, 0);
	ck_assert_uint_eq(c.areas, 0);
	fake_ram_free();
}

static u64 resident(void)
{
	struct vm_usage u;

	vm_usage(vm, &u);
	return u.resident_pages;
}

/* n pages of anonymous memory, each filled with its index + 1. */
static uintptr_t filled(size_t n)
{
	long a = vm_mmap(vm, 0, n * PG, RW, ANON, -1, 0);

	ck_assert_int_gt(a, 0);
	for (size_t i = 0; i < n; i++) {
		char page[PG];

		memset(page, (int)i + 1, sizeof(page));
		ck_assert_int_eq(vm_write(vm, (uintptr_t)a + i * PG, page, PG), 0);
	}
	return (uintptr_t)a;
}

static int byte_at(uintptr_t va)
{
	unsigned char c;

	ck_assert_int_eq(vm_read(vm, va, &c, 1), 0);
	return c;
}

START_TEST(test_advice_table)
{
	static const int hints[] = { MADV_NORMAL,     MADV_RANDOM,	MADV_SEQUENTIAL,
				     MADV_WILLNEED,   MADV_DOFORK,	MADV_KEEPONFORK,
				     MADV_MERGEABLE,  MADV_UNMERGEABLE, MADV_HUGEPAGE,
				     MADV_NOHUGEPAGE, MADV_DONTDUMP,	MADV_DODUMP,
				     MADV_COLD,	      MADV_PAGEOUT };
	static const int refused[] = { MADV_DONTFORK,
				       MADV_WIPEONFORK,
				       MADV_POPULATE_READ,
				       MADV_POPULATE_WRITE,
				       MADV_COLLAPSE,
				       MADV_HWPOISON,
				       MADV_SOFT_OFFLINE,
				       MADV_GUARD_INSTALL,
				       MADV_GUARD_REMOVE,
				       5,
				       6,
				       7,
				       26,
				       99,
				       -1 };
	uintptr_t a = filled(2);

	for (size_t i = 0; i < sizeof(hints) / sizeof(hints[0]); i++) {
		ck_assert_int_eq(vm_madvise(vm, a, 2 * PG, hints[i]), 0);
		ck_assert_uint_eq(resident(), 2); /* a hint changes nothing */
	}
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++)
		ck_assert_int_eq(vm_madvise(vm, a, 2 * PG, refused[i]), -EINVAL);
	ck_assert_int_eq(vm_madvise(vm, a, 2 * PG, MADV_REMOVE), -EINVAL); /* private memory */
	ck_assert_int_eq(byte_at(a + PG), 2);
}
END_TEST

START_TEST(test_dontneed_drops_range)
{
	uintptr_t a = filled(5);
	unsigned long flushes = fake_mm_flushes;

	ck_assert_uint_eq(resident(), 5);
	ck_assert_int_eq(vm_madvise(vm, a + PG, 2 * PG, MADV_DONTNEED), 0);
	ck_assert_uint_eq(resident(), 3);
	ck_assert_uint_gt(fake_mm_flushes, flushes);
	ck_assert_int_eq(byte_at(a), 1);
	ck_assert_int_eq(byte_at(a + PG), 0); /* reads as zeros without being made */
	ck_assert_int_eq(byte_at(a + 3 * PG - 1), 0);
	ck_assert_int_eq(byte_at(a + 3 * PG), 4);
	/* The area is still there: a touch makes a zeroed page. */
	ck_assert_int_eq(vm_fault(vm, a + PG, true), 0);
	ck_assert_uint_eq(resident(), 4);
	ck_assert_int_eq(byte_at(a + PG + 100), 0);
	/* A partial page counts whole; MADV_FREE and DONTNEED_LOCKED drop too. */
	ck_assert_int_eq(vm_madvise(vm, a + 3 * PG, 1, MADV_FREE), 0);
	ck_assert_int_eq(byte_at(a + 3 * PG), 0);
	ck_assert_int_eq(vm_madvise(vm, a + 4 * PG, PG, MADV_DONTNEED_LOCKED), 0);
	ck_assert_int_eq(byte_at(a + 4 * PG), 0);
	ck_assert_uint_eq(resident(), 2);
	/* Dropping what is not there is fine. */
	ck_assert_int_eq(vm_madvise(vm, a + 3 * PG, 2 * PG, MADV_DONTNEED), 0);
}
END_TEST

START_TEST(test_areas_kinds)
{
	static const char data[] = "segment data";
	uintptr_t seg = 0x400000, brk_start = 0x600000, top;
	char page[PG];

	memset(page, 7, sizeof(page));
	ck_assert_int_eq(vm_map_segment(vm, seg, 2 * PG, data, sizeof(data), RW), 0);
	vm_set_brk_start(vm, brk_start);
	ck_assert_int_eq(vm_brk(vm, brk_start + 2 * PG), (long)(brk_start + 2 * PG));
	ck_assert_int_eq(vm_write(vm, brk_start, page, PG), 0);
	ck_assert_int_eq(vm_setup_stack(vm), 0);
	top = USER_STACK_TOP - PG;
	ck_assert_int_eq(vm_write(vm, top, page, PG), 0);
	/* A segment's file data could not come back: refused, and nothing dropped. */
	ck_assert_int_eq(vm_madvise(vm, seg, PG, MADV_DONTNEED), -EINVAL);
	ck_assert_int_eq(vm_madvise(vm, seg, PG, MADV_FREE), -EINVAL);
	ck_assert_int_eq(vm_madvise(vm, seg, PG, MADV_REMOVE), -EACCES);
	ck_assert_int_eq(vm_madvise(vm, seg, 2 * PG, MADV_WILLNEED), 0);
	ck_assert_int_eq(byte_at(seg), 's');
	/* The heap and the stack are anonymous memory. */
	ck_assert_int_eq(vm_madvise(vm, brk_start, 2 * PG, MADV_DONTNEED), 0);
	ck_assert_int_eq(byte_at(brk_start), 0);
	ck_assert_int_eq(vm_madvise(vm, top, PG, MADV_DONTNEED), 0);
	ck_assert_int_eq(byte_at(top), 0);
}
END_TEST

START_TEST(test_holes_and_args)
{
	uintptr_t a = filled(4);

	ck_assert_int_eq(vm_munmap(vm, a + PG, PG), 0);
	/* The hole: ENOMEM, after both sides were done. */
	ck_assert_int_eq(vm_madvise(vm, a, 4 * PG, MADV_DONTNEED), -ENOMEM);
	ck_assert_uint_eq(resident(), 0);
	ck_assert_int_eq(vm_madvise(vm, a, 4 * PG, MADV_NORMAL), -ENOMEM);
	ck_assert_int_eq(vm_madvise(vm, a + PG, PG, MADV_NORMAL), -ENOMEM);
	ck_assert_int_eq(vm_madvise(vm, a + 4 * PG, PG, MADV_NORMAL), -ENOMEM);
	ck_assert_int_eq(vm_madvise(vm, USER_ADDR_END, PG, MADV_NORMAL), -ENOMEM);
	/* Advice first, then alignment, then the length. */
	ck_assert_int_eq(vm_madvise(vm, a + 1, PG, 99), -EINVAL);
	ck_assert_int_eq(vm_madvise(vm, a + 1, PG, MADV_NORMAL), -EINVAL);
	ck_assert_int_eq(vm_madvise(vm, a + 1, 0, MADV_NORMAL), -EINVAL);
	ck_assert_int_eq(vm_madvise(vm, a, 0, MADV_NORMAL), 0);
	ck_assert_int_eq(vm_madvise(vm, a + PG, 0, MADV_DONTNEED), 0); /* empty: even on a hole */
	ck_assert_int_eq(vm_madvise(vm, a, (unsigned long)-1, MADV_NORMAL), -EINVAL);
	ck_assert_int_eq(vm_madvise(vm, a, (unsigned long)-PG, MADV_NORMAL), -EINVAL);
}
END_TEST

Suite *madvise_suite(void)
{
	Suite *s = suite_create("madvise");
	TCase *tc = tcase_create("madvise");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_advice_table);
	tcase_add_test(tc, test_dontneed_drops_range);
	tcase_add_test(tc, test_areas_kinds);
	tcase_add_test(tc, test_holes_and_args);
	suite_add_tcase(s, tc);
	return s;
}

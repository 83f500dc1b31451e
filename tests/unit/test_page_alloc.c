/*
 * Host tests of kernel/mm/page_alloc.c over fake RAM: every page handed out once
 * and only from free memory, blocks aligned, buddies coalescing back to maximal
 * blocks, bad frees refused without damage, and a big PC map initialised whole.
 */
#include <stdlib.h>
#include <string.h>

#include <arch/memory.h>

#include "fake_arch.h"
#include "lib/errno.h"
#include "mm/memmap.h"
#include "mm/page_alloc.h"
#include "unit.h"

#define MiB 0x100000ULL
#define GiB 0x40000000ULL

/* Page allocations a test can hold at once (32 MiB of order-0 pages). */
#define MAX_HELD 8192

static struct memmap mm;
static phys_addr_t held[MAX_HELD];
static unsigned int held_order[MAX_HELD];
static size_t nr_held;

static void init_map(size_t ram, const struct mem_entry *e, size_t n)
{
	fake_ram_init(ram);
	fake_console_reset();
	memmap_init(&mm, e, n);
	ck_assert_int_eq(page_alloc_init(&mm), 0);
	nr_held = 0;
}

/* The default machine: 32 MiB, all usable. */
static void setup_plain(void)
{
	const struct mem_entry e[] = { { 0, 32 * MiB, MEM_USABLE } };

	init_map(32 * MiB, e, 1);
}

static void teardown(void)
{
	fake_ram_free();
}

static void hold(phys_addr_t pa, unsigned int order)
{
	ck_assert_uint_lt(nr_held, MAX_HELD);
	held[nr_held] = pa;
	held_order[nr_held] = order;
	nr_held++;
}

/* Frees everything held, in a shuffled order so merges happen in every pattern. */
static void free_held_shuffled(unsigned int seed)
{
	for (size_t i = nr_held; i > 1; i--) {
		size_t j = rand_r(&seed) % i;
		phys_addr_t pa = held[i - 1];
		unsigned int o = held_order[i - 1];

		held[i - 1] = held[j];
		held_order[i - 1] = held_order[j];
		held[j] = pa;
		held_order[j] = o;
	}
	for (size_t i = 0; i < nr_held; i++)
		page_free(held[i], held_order[i]);
	nr_held = 0;
}

/*
 * The free lists' shape: taking blocks greedily from the largest order down
 * empties each list in turn, so the count per order is that list's length. The
 * blocks are given back before returning.
 */
static void free_list_shape(u64 count[PAGE_MAX_ORDER + 1])
{
	size_t mark = nr_held;
	phys_addr_t pa;

	for (int o = PAGE_MAX_ORDER; o >= 0; o--) {
		count[o] = 0;
		while ((pa = page_alloc(o)) != 0) {
			hold(pa, o);
			count[o]++;
		}
	}
	while (nr_held > mark) {
		nr_held--;
		page_free(held[nr_held], held_order[nr_held]);
	}
}

static void fill_page(phys_addr_t pa, u64 tag)
{
	u64 *w = phys_to_virt(pa);

	for (size_t i = 0; i < PAGE_SIZE / 8; i++)
		w[i] = tag ^ (i * 0x9e3779b97f4a7c15ULL);
}

static bool page_intact(phys_addr_t pa, u64 tag)
{
	const u64 *w = phys_to_virt(pa);

	for (size_t i = 0; i < PAGE_SIZE / 8; i++) {
		if (w[i] != (tag ^ (i * 0x9e3779b97f4a7c15ULL)))
			return false;
	}
	return true;
}

START_TEST(test_init_counts)
{
	/* 8192 pages less page 0 less the page array (8191 * 32 bytes = 64 pages). */
	ck_assert_uint_eq(page_alloc_total_pages(), 8192 - 1 - 64);
	ck_assert_uint_eq(page_alloc_free_pages(), page_alloc_total_pages());
	ck_assert_uint_eq(memmap_free_bytes(&mm) / PAGE_SIZE, page_alloc_total_pages());
	/* The array went to the top of memory and is reserved there. */
	ck_assert(memmap_is_reserved(&mm, 32 * MiB - PAGE_SIZE, 32 * MiB));
	ck_assert_ptr_null(phys_to_page(32 * MiB - PAGE_SIZE));
	ck_assert_ptr_null(phys_to_page(0));
	ck_assert_ptr_nonnull(phys_to_page(PAGE_SIZE));
}
END_TEST

/* Every page comes out once: a distinct pattern in each survives all the others. */
START_TEST(test_exhaust_with_patterns)
{
	u64 start = page_alloc_free_pages(), n = 0;
	static bool seen[8192];
	phys_addr_t pa;

	memset(seen, 0, sizeof(seen));
	while ((pa = page_alloc(0)) != 0) {
		ck_assert(IS_ALIGNED(pa, PAGE_SIZE));
		ck_assert_uint_lt(pa, 32 * MiB);
		ck_assert_msg(!seen[pa / PAGE_SIZE], "page %#llx handed out twice",
			      (unsigned long long)pa);
		seen[pa / PAGE_SIZE] = true;
		fill_page(pa, pa);
		hold(pa, 0);
		n++;
	}
	ck_assert_uint_eq(n, start);
	ck_assert_uint_eq(page_alloc_free_pages(), 0);
	ck_assert_uint_eq(page_alloc(0), 0);
	ck_assert_uint_eq(page_alloc(3), 0);
	ck_assert_ptr_null(alloc_pages(0));
	for (size_t i = 0; i < nr_held; i++)
		ck_assert_msg(page_intact(held[i], held[i]), "page %#llx overwritten",
			      (unsigned long long)held[i]);
	free_held_shuffled(1);
	ck_assert_uint_eq(page_alloc_free_pages(), start);
	ck_assert_uint_eq(page_alloc_total_pages(), start);
}
END_TEST

/* After any churn, freeing everything rebuilds exactly the lists init built. */
START_TEST(test_coalesce_after_churn)
{
	u64 before[PAGE_MAX_ORDER + 1], after[PAGE_MAX_ORDER + 1];
	unsigned int seed = 99;
	phys_addr_t pa;

	free_list_shape(before);
	ck_assert_uint_gt(before[PAGE_MAX_ORDER], 0);
	for (int round = 0; round < 20000; round++) {
		if (nr_held > 0 && (rand_r(&seed) % 3 == 0 || nr_held == MAX_HELD)) {
			size_t i = rand_r(&seed) % nr_held;

			page_free(held[i], held_order[i]);
			held[i] = held[nr_held - 1];
			held_order[i] = held_order[nr_held - 1];
			nr_held--;
		} else {
			unsigned int o = rand_r(&seed) % 4 ? rand_r(&seed) % 3 : rand_r(&seed) % 8;

			pa = page_alloc(o);
			if (pa)
				hold(pa, o);
		}
	}
	ck_assert_uint_gt(nr_held, 100);
	free_held_shuffled(5);
	free_list_shape(after);
	for (int o = 0; o <= PAGE_MAX_ORDER; o++)
		ck_assert_msg(before[o] == after[o], "order %d: %llu blocks before, %llu after", o,
			      (unsigned long long)before[o], (unsigned long long)after[o]);
	pa = page_alloc(PAGE_MAX_ORDER);
	ck_assert_uint_ne(pa, 0);
	page_free(pa, PAGE_MAX_ORDER);
	ck_assert_uint_eq(page_alloc_free_pages(), page_alloc_total_pages());
}
END_TEST

/* Blocks are aligned to their size in physical memory, even when RAM starts at an odd page. */
START_TEST(test_alignment_per_order)
{
	const struct mem_entry e[] = { { 0x5000, 40 * MiB, MEM_USABLE } };
	static u8 owner[48 * MiB / PAGE_SIZE];

	fake_ram_free();
	init_map(48 * MiB, e, 1);
	memset(owner, 0, sizeof(owner));
	for (unsigned int o = 0; o <= PAGE_MAX_ORDER; o++) {
		for (int k = 0; k < 3; k++) {
			phys_addr_t pa = page_alloc(o);

			ck_assert_uint_ne(pa, 0);
			ck_assert_msg(IS_ALIGNED(pa, PAGE_SIZE << o), "order %u block at %#llx", o,
				      (unsigned long long)pa);
			ck_assert_uint_ge(pa, 0x5000);
			ck_assert_uint_le(pa + (PAGE_SIZE << o), 0x5000 + 40 * MiB);
			for (u64 p = pa / PAGE_SIZE; p < pa / PAGE_SIZE + (1ULL << o); p++) {
				ck_assert_msg(owner[p] == 0, "page %#llx in two blocks",
					      (unsigned long long)p);
				owner[p] = o + 1;
			}
			ck_assert_uint_eq(phys_to_page(pa)->order, o);
			hold(pa, o);
		}
	}
	free_held_shuffled(3);
	ck_assert_uint_eq(page_alloc_free_pages(), page_alloc_total_pages());
	ck_assert_uint_eq(page_alloc(PAGE_MAX_ORDER + 1), 0);
}
END_TEST

/* Holes, firmware-reserved memory and memmap_reserve() ranges are never handed out. */
START_TEST(test_holes_and_reserved)
{
	const struct mem_entry e[] = {
		{ 0, 0x9fc00, MEM_USABLE },	   { 0x9fc00, 0x60400, MEM_RESERVED },
		{ 1 * MiB, 7 * MiB, MEM_USABLE }, /* hole at 8..12 MiB */
		{ 12 * MiB, 2 * MiB, MEM_USABLE }, { 14 * MiB, 1 * MiB, MEM_ACPI_NVS },
		{ 15 * MiB, 1 * MiB, MEM_USABLE },
	};
	u64 n = 0, expect;
	phys_addr_t pa;

	fake_ram_free();
	fake_ram_init(16 * MiB);
	memmap_init(&mm, e, 6);
	memmap_reserve(&mm, 0, 0x10000);	   /* low memory */
	memmap_reserve(&mm, 2 * MiB, 3 * MiB + 5); /* "the kernel image" */
	expect = memmap_free_bytes(&mm) / PAGE_SIZE;
	ck_assert_int_eq(page_alloc_init(&mm), 0);
	/* The array covers pages 1..4095: 4095 * 32 bytes = 32 pages at the top. */
	expect -= 32;
	ck_assert_uint_eq(page_alloc_total_pages(), expect);

	while ((pa = page_alloc(0)) != 0) {
		ck_assert_uint_ge(pa, 0x10000);
		ck_assert(pa < 0x9f000 || pa >= 1 * MiB);
		ck_assert(pa < 2 * MiB || pa >= 3 * MiB + PAGE_SIZE);
		ck_assert(pa < 8 * MiB || pa >= 12 * MiB);
		ck_assert(pa < 14 * MiB || pa >= 15 * MiB);
		ck_assert_uint_lt(pa, 16 * MiB - 32 * PAGE_SIZE);
		hold(pa, 0);
		n++;
	}
	ck_assert_uint_eq(n, expect);
	/* Pages in holes and reserved ranges have no struct page to the outside. */
	ck_assert_ptr_null(phys_to_page(9 * MiB));
	ck_assert_ptr_null(phys_to_page(2 * MiB));
	ck_assert_ptr_null(phys_to_page(14 * MiB));
	ck_assert_ptr_null(phys_to_page(0x9f000));
	free_held_shuffled(11);
	ck_assert_uint_eq(page_alloc_free_pages(), expect);
	fake_ram_free();
}
END_TEST

static bool console_says(const char *what)
{
	return strstr(fake_console_text(), what) != NULL;
}

START_TEST(test_double_free_refused)
{
	phys_addr_t a = page_alloc(0), b = page_alloc(2);
	u64 free_now;

	page_free(a, 0);
	free_now = page_alloc_free_pages();
	page_free(a, 0);
	ck_assert(console_says("double free"));
	ck_assert_uint_eq(page_alloc_free_pages(), free_now);

	/* Free b; its pages merge with neighbours, so its head is no longer a free head. */
	page_free(b, 2);
	fake_console_reset();
	page_free(b, 2);
	ck_assert(console_says("refused"));
	ck_assert_uint_eq(page_alloc_free_pages(), page_alloc_total_pages());

	/* The lists are intact: exhaustion still hands out each page once. */
	{
		static bool seen[8192];
		phys_addr_t pa;
		u64 n = 0;

		memset(seen, 0, sizeof(seen));
		while ((pa = page_alloc(0)) != 0) {
			ck_assert(!seen[pa / PAGE_SIZE]);
			seen[pa / PAGE_SIZE] = true;
			n++;
		}
		ck_assert_uint_eq(n, page_alloc_total_pages());
	}
}
END_TEST

START_TEST(test_bad_frees_refused)
{
	u64 shape[PAGE_MAX_ORDER + 1], again[PAGE_MAX_ORDER + 1];
	phys_addr_t one, two, big;
	u64 free_now;

	free_list_shape(shape);
	one = page_alloc(0);
	two = page_alloc(1);
	big = page_alloc(4);
	free_now = page_alloc_free_pages();

	struct {
		phys_addr_t pa;
		unsigned int order;
		const char *why;
	} bad[] = {
		{ 0, 0, "not managed" },
		{ 64 * MiB, 0, "not managed" },
		{ ~0ULL & PAGE_MASK, 0, "not managed" },
		{ 32 * MiB - PAGE_SIZE, 0, "reserved page" }, /* the page array itself */
		{ one + 8, 0, "not page aligned" },
		{ one, PAGE_MAX_ORDER + 1, "order too large" },
		{ two + PAGE_SIZE, 0, "not the start" }, /* a tail page */
		{ big + PAGE_SIZE, 1, "misaligned" },	 /* odd pfn for order 1 */
		{ big + 2 * PAGE_SIZE, 1, "not the start" },
		{ two, 0, "order differs" },
		{ big, 3, "order differs" },
		{ 20 * MiB, 0, "" }, /* somewhere inside a free block */
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		fake_console_reset();
		page_free(bad[i].pa, bad[i].order);
		ck_assert_msg(console_says("page_free: refused") && console_says(bad[i].why),
			      "case %zu: console says '%s'", i, fake_console_text());
		ck_assert_uint_eq(page_alloc_free_pages(), free_now);
	}
	page_free(one, 0);
	page_free(two, 1);
	page_free(big, 4);
	free_list_shape(again);
	ck_assert_mem_eq(shape, again, sizeof(shape));
}
END_TEST

/* A page the heap still owns must go back through the heap, not page_free(). */
START_TEST(test_free_of_heap_page_refused)
{
	phys_addr_t pa = page_alloc(0);
	struct page *pg = phys_to_page(pa);
	u64 free_now = page_alloc_free_pages();

	pg->flags |= PG_SLAB;
	page_free(pa, 0);
	ck_assert(console_says("heap"));
	ck_assert_uint_eq(page_alloc_free_pages(), free_now);
	pg->flags &= ~PG_SLAB;
	page_free(pa, 0);
	ck_assert_uint_eq(page_alloc_free_pages(), free_now + 1);
}
END_TEST

START_TEST(test_virt_wrappers)
{
	void *va = alloc_pages(3);
	struct page *pg;

	ck_assert_ptr_nonnull(va);
	ck_assert(IS_ALIGNED(virt_to_phys(va), PAGE_SIZE << 3));
	pg = virt_to_page(va);
	ck_assert_ptr_eq(pg, phys_to_page(virt_to_phys(va)));
	ck_assert_ptr_eq(virt_to_page((char *)va + 100), pg);
	ck_assert_uint_eq(pg->order, 3);
	ck_assert(pg->flags & PG_ALLOCATED);
	memset(va, 0xa5, PAGE_SIZE << 3);
	free_pages(va, 3);
	free_pages(NULL, 0);
	ck_assert(!(pg->flags & PG_ALLOCATED));
	ck_assert_uint_eq(page_alloc_free_pages(), page_alloc_total_pages());
	ck_assert_ptr_null(virt_to_page(&pg)); /* a host stack address */
}
END_TEST

START_TEST(test_no_memory)
{
	const struct mem_entry none[] = { { 0, 0x1000, MEM_USABLE } };
	const struct mem_entry one[] = { { 0, 0x3000, MEM_USABLE } };

	fake_ram_free();
	fake_ram_init(1 * MiB);
	memmap_init(&mm, none, 1);
	ck_assert_int_eq(page_alloc_init(&mm), -ENOMEM);
	ck_assert_uint_eq(page_alloc(0), 0);
	ck_assert_uint_eq(page_alloc_total_pages(), 0);
	ck_assert_ptr_null(phys_to_page(0x1000));
	page_free(0x1000, 0);
	ck_assert(console_says("not managed"));

	/* Two usable pages: the array takes one, one is left to hand out. */
	memmap_init(&mm, one, 1);
	ck_assert_int_eq(page_alloc_init(&mm), 0);
	ck_assert_uint_eq(page_alloc_total_pages(), 1);
	ck_assert_uint_eq(page_alloc(0), 0x1000);
	ck_assert_uint_eq(page_alloc(0), 0);
	page_free(0x1000, 0);
	ck_assert_uint_eq(page_alloc_free_pages(), 1);
}
END_TEST

/* page_alloc_init starts over: nothing from the previous allocator survives. */
START_TEST(test_reinit_resets)
{
	const struct mem_entry e[] = { { 0, 32 * MiB, MEM_USABLE } };

	for (int i = 0; i < 10; i++)
		ck_assert_uint_ne(page_alloc(2), 0);
	ck_assert_uint_lt(page_alloc_free_pages(), page_alloc_total_pages());
	memmap_init(&mm, e, 1);
	ck_assert_int_eq(page_alloc_init(&mm), 0);
	ck_assert_uint_eq(page_alloc_free_pages(), 8192 - 1 - 64);
	ck_assert_uint_eq(page_alloc_total_pages(), 8192 - 1 - 64);
}
END_TEST

/*
 * A PC with 8 GiB: RAM below the 3 GiB PCI hole and up to 9 GiB above 4 GiB.
 * Init feeds maximal blocks, so this is quick; the array (32 bytes per page of
 * the 9 GiB span, 72 MiB) is the only memory it touches.
 */
START_TEST(test_big_pc_map)
{
	const struct mem_entry e[] = {
		{ 0x0, 0x9fc00, MEM_USABLE },
		{ 0x9fc00, 0x60400, MEM_RESERVED },
		{ 1 * MiB, 3 * GiB - 1 * MiB, MEM_USABLE },
		{ 3 * GiB, 1 * GiB, MEM_RESERVED },
		{ 4 * GiB, 5 * GiB, MEM_USABLE },
	};
	u64 expect, count[PAGE_MAX_ORDER + 1];

	fake_ram_free();
	fake_ram_init(9 * GiB);
	memmap_init(&mm, e, 5);
	memmap_reserve(&mm, 0, 1 * MiB);
	memmap_reserve(&mm, 1 * MiB, 3 * MiB);
	ck_assert_int_eq(page_alloc_init(&mm), 0);
	expect = memmap_free_bytes(&mm) / PAGE_SIZE;
	ck_assert_uint_eq(page_alloc_total_pages(), expect);
	/* 8 GiB less the kernel's 2 MiB and the 72 MiB array (array rounded up to pages). */
	ck_assert_uint_eq(expect, (8 * GiB - 3 * MiB) / PAGE_SIZE -
					  ALIGN_UP(((9 * GiB - 0x1000) / PAGE_SIZE) * 32, PAGE_SIZE) /
						  PAGE_SIZE);
	/* Almost everything sits in order-10 blocks. */
	free_list_shape(count);
	ck_assert_uint_ge(count[PAGE_MAX_ORDER] << PAGE_MAX_ORDER, expect - 2048);
	ck_assert_uint_eq(phys_to_page(5 * GiB)->flags, PG_FREE);
	ck_assert_ptr_null(phys_to_page(3 * GiB + 5 * MiB));
	fake_ram_free();
}
END_TEST

Suite *page_alloc_suite(void)
{
	Suite *s = suite_create("page_alloc");
	TCase *tc = tcase_create("buddy");

	tcase_add_checked_fixture(tc, setup_plain, teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_init_counts);
	tcase_add_test(tc, test_exhaust_with_patterns);
	tcase_add_test(tc, test_coalesce_after_churn);
	tcase_add_test(tc, test_alignment_per_order);
	tcase_add_test(tc, test_holes_and_reserved);
	tcase_add_test(tc, test_double_free_refused);
	tcase_add_test(tc, test_bad_frees_refused);
	tcase_add_test(tc, test_free_of_heap_page_refused);
	tcase_add_test(tc, test_virt_wrappers);
	tcase_add_test(tc, test_no_memory);
	tcase_add_test(tc, test_reinit_resets);
	tcase_add_test(tc, test_big_pc_map);
	suite_add_tcase(s, tc);
	return s;
}

/*
 * Host tests of kernel/mm/heap.c over fake RAM and the real page allocator:
 * size classes, large blocks, objects that never overlap, refused frees that
 * change nothing, statistics that return to zero, and running out of memory.
 */
#include <stdlib.h>
#include <string.h>

#include <arch/memory.h>

#include "fake_arch.h"
#include "mm/heap.h"
#include "mm/memmap.h"
#include "mm/page_alloc.h"
#include "unit.h"

#define MiB	   0x100000ULL
#define NR_CLASSES 8 /* 16, 32, ..., 2048 */

static struct memmap mm;
static u64 free_at_start;

static void start_heap(size_t ram)
{
	const struct mem_entry e[] = { { 0, ram, MEM_USABLE } };

	fake_ram_init(ram);
	fake_console_reset();
	memmap_init(&mm, e, 1);
	ck_assert_int_eq(page_alloc_init(&mm), 0);
	heap_init();
	free_at_start = page_alloc_free_pages();
}

static void setup(void)
{
	start_heap(16 * MiB);
}

static void teardown(void)
{
	fake_ram_free();
}

static struct heap_stats stats(void)
{
	struct heap_stats st;

	heap_get_stats(&st);
	return st;
}

/*
 * Nothing live: no objects, bytes or large pages, and every page is either free
 * or an empty slab kept as a spare (at most one per class).
 */
static void expect_all_returned(void)
{
	struct heap_stats st = stats();

	ck_assert_uint_eq(st.objects, 0);
	ck_assert_uint_eq(st.bytes, 0);
	ck_assert_uint_eq(st.large_pages, 0);
	ck_assert_uint_le(st.slab_pages, NR_CLASSES);
	ck_assert_uint_eq(page_alloc_free_pages() + st.slab_pages, free_at_start);
}

static u8 pattern(uintptr_t id, size_t i)
{
	return (u8)(id * 131 + i * 7 + 1);
}

static void fill(void *p, size_t size, uintptr_t id)
{
	for (size_t i = 0; i < size; i++)
		((u8 *)p)[i] = pattern(id, i);
}

static bool intact(const void *p, size_t size, uintptr_t id)
{
	for (size_t i = 0; i < size; i++) {
		if (((const u8 *)p)[i] != pattern(id, i))
			return false;
	}
	return true;
}

START_TEST(test_every_size_class)
{
	static void *p[NR_CLASSES][3];
	u64 bytes = 0;

	for (unsigned int c = 0; c < NR_CLASSES; c++) {
		size_t cs = (size_t)16 << c;
		size_t sizes[3] = { cs / 2 + 1, cs - 1, cs };

		for (int k = 0; k < 3; k++) {
			struct page *pg;

			p[c][k] = kmalloc(sizes[k]);
			ck_assert_ptr_nonnull(p[c][k]);
			ck_assert(IS_ALIGNED((uintptr_t)p[c][k], 16));
			ck_assert(IS_ALIGNED((uintptr_t)p[c][k], cs));
			pg = virt_to_page(p[c][k]);
			ck_assert_ptr_nonnull(pg);
			ck_assert(pg->flags & PG_SLAB);
			ck_assert_uint_eq(pg->slab_class, c);
			fill(p[c][k], sizes[k], c * 3 + k);
			bytes += cs;
		}
	}
	ck_assert_uint_eq(stats().objects, NR_CLASSES * 3);
	ck_assert_uint_eq(stats().bytes, bytes);
	/* One slab per class, but three 2048-byte objects need two pages. */
	ck_assert_uint_eq(stats().slab_pages, NR_CLASSES + 1);
	for (unsigned int c = 0; c < NR_CLASSES; c++) {
		for (int k = 0; k < 3; k++) {
			size_t cs = (size_t)16 << c;
			size_t sizes[3] = { cs / 2 + 1, cs - 1, cs };

			ck_assert(intact(p[c][k], sizes[k], c * 3 + k));
			kfree(p[c][k]);
		}
	}
	expect_all_returned();
	ck_assert_uint_eq(stats().bad_frees, 0);
}
END_TEST

START_TEST(test_large)
{
	const size_t sizes[] = { 2049, 4095, 4096, 4097, 65536, 1 * MiB, 4 * MiB };
	const unsigned int orders[] = { 0, 0, 0, 1, 4, 8, 10 };
	void *p[7];
	u64 pages = 0;

	for (size_t i = 0; i < 7; i++) {
		struct page *pg;

		p[i] = kmalloc(sizes[i]);
		ck_assert_ptr_nonnull(p[i]);
		ck_assert(IS_ALIGNED(virt_to_phys(p[i]), PAGE_SIZE << orders[i]));
		pg = virt_to_page(p[i]);
		ck_assert(pg->flags & PG_LARGE);
		ck_assert_uint_eq(pg->order, orders[i]);
		fill(p[i], sizes[i], i);
		pages += 1ULL << orders[i];
	}
	ck_assert_uint_eq(stats().large_pages, pages);
	ck_assert_uint_eq(stats().bytes, pages * PAGE_SIZE);
	ck_assert_uint_eq(stats().slab_pages, 0);
	ck_assert_uint_eq(page_alloc_free_pages(), free_at_start - pages);
	ck_assert_ptr_null(kmalloc(4 * MiB + 1)); /* more than the largest block */
	ck_assert_ptr_null(kmalloc((size_t)-1));
	for (size_t i = 0; i < 7; i++) {
		ck_assert(intact(p[i], sizes[i], i));
		kfree(p[i]);
	}
	expect_all_returned();
	ck_assert_uint_eq(page_alloc_free_pages(), free_at_start);
}
END_TEST

struct obj {
	u8 *p;
	size_t size;
};

static int by_address(const void *a, const void *b)
{
	const struct obj *x = a, *y = b;

	return x->p < y->p ? -1 : x->p > y->p;
}

/* Thousands of mixed objects: each keeps its pattern, and no two overlap. */
START_TEST(test_patterns_no_overlap)
{
	enum { N = 3000 };
	static struct obj o[N], sorted[N];
	unsigned int seed = 4242;

	for (int round = 0; round < 3; round++) {
		for (size_t i = 0; i < N; i++) {
			unsigned int r = rand_r(&seed);

			o[i].size = r % 10 == 0 ? 1 + r % 12000 : 1 + r % 700;
			o[i].p = kmalloc(o[i].size);
			ck_assert_ptr_nonnull(o[i].p);
			fill(o[i].p, o[i].size, i);
		}
		for (size_t i = 0; i < N; i++)
			ck_assert_msg(intact(o[i].p, o[i].size, i),
				      "object %zu (%zu bytes) damaged", i, o[i].size);
		memcpy(sorted, o, sizeof(o));
		qsort(sorted, N, sizeof(sorted[0]), by_address);
		for (size_t i = 1; i < N; i++)
			ck_assert(sorted[i - 1].p + sorted[i - 1].size <= sorted[i].p);
		ck_assert_uint_eq(stats().objects, N);

		/* Free in a shuffled order. */
		for (size_t i = N; i > 1; i--) {
			size_t j = rand_r(&seed) % i;
			struct obj t = o[i - 1];

			o[i - 1] = o[j];
			o[j] = t;
		}
		for (size_t i = 0; i < N; i++)
			kfree(o[i].p);
		expect_all_returned();
	}
	ck_assert_uint_eq(stats().bad_frees, 0);
}
END_TEST

START_TEST(test_kzalloc_zeroes)
{
	const size_t sizes[] = { 1, 24, 100, 2048, 3000, 20000 };
	void *va;

	/* Dirty all free memory first, so nothing is zero by luck. */
	while ((va = alloc_pages(0)) != NULL)
		memset(va, 0xff, PAGE_SIZE);
	for (phys_addr_t pa = PAGE_SIZE; pa < 16 * MiB; pa += PAGE_SIZE) {
		struct page *pg = phys_to_page(pa);

		if (pg && (pg->flags & PG_ALLOCATED))
			page_free(pa, 0);
	}
	ck_assert_uint_eq(page_alloc_free_pages(), free_at_start);

	for (size_t i = 0; i < 6; i++) {
		u8 *p = kmalloc(sizes[i]), *q;

		memset(p, 0xee, sizes[i]);
		kfree(p);
		q = kzalloc(sizes[i]);
		ck_assert_ptr_nonnull(q);
		for (size_t k = 0; k < sizes[i]; k++)
			ck_assert_uint_eq(q[k], 0);
		kfree(q);
	}
	expect_all_returned();
}
END_TEST

START_TEST(test_zero_and_null)
{
	ck_assert_ptr_null(kmalloc(0));
	ck_assert_ptr_null(kzalloc(0));
	kfree(NULL);
	ck_assert_uint_eq(stats().objects, 0);
	ck_assert_uint_eq(stats().bad_frees, 0);
	ck_assert_uint_eq(stats().slab_pages, 0);
	ck_assert_str_eq(fake_console_text(), "");
}
END_TEST

/* Each refused kfree is counted and reported, and changes nothing else. */
START_TEST(test_foreign_frees_refused)
{
	static int host_static;
	int host_local;
	u8 *a = kmalloc(64), *b = kmalloc(64), *big = kmalloc(3 * PAGE_SIZE);
	phys_addr_t raw = page_alloc(0);
	struct heap_stats before = stats();
	const void *bad[] = {
		&host_static,
		&host_local,
		phys_to_virt(0),		    /* page 0: never managed */
		phys_to_virt(16 * MiB - PAGE_SIZE), /* the page array: reserved */
		a + 8,				    /* inside an object */
		a + 16,
		big + 16,	       /* inside a large block */
		big + PAGE_SIZE,       /* a tail page of it */
		phys_to_virt(raw),     /* a page from page_alloc, not the heap */
		phys_to_virt(8 * MiB), /* a free page */
	};
	struct heap_stats after;

	ck_assert(!(phys_to_page(8 * MiB)->flags & PG_ALLOCATED));
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		fake_console_reset();
		kfree(bad[i]);
		ck_assert_msg(strstr(fake_console_text(), "kfree: refused") != NULL, "case %zu", i);
		ck_assert_uint_eq(stats().bad_frees, i + 1);
	}
	after = stats();
	ck_assert_uint_eq(after.objects, before.objects);
	ck_assert_uint_eq(after.bytes, before.bytes);
	ck_assert_uint_eq(after.slab_pages, before.slab_pages);
	ck_assert_uint_eq(after.large_pages, before.large_pages);
	/* The real objects are still live and free normally. */
	kfree(a);
	kfree(b);
	kfree(big);
	page_free(raw, 0);
	expect_all_returned();
	ck_assert_uint_eq(stats().bad_frees, sizeof(bad) / sizeof(bad[0]));
}
END_TEST

START_TEST(test_double_free_refused)
{
	u8 *a = kmalloc(32), *b = kmalloc(32), *c = kmalloc(32), *big = kmalloc(10000);
	u8 *x, *y;

	/* Into a slab that still has live objects: caught by the marker and a list walk. */
	kfree(b);
	kfree(b);
	ck_assert_uint_eq(stats().bad_frees, 1);
	ck_assert_uint_eq(stats().objects, 3);
	/* b must come back once only. */
	x = kmalloc(32);
	y = kmalloc(32);
	ck_assert_ptr_ne(x, y);
	ck_assert(x == b || y == b);
	kfree(x);
	kfree(y);
	/* A live object that happens to hold the marker's value is still freed. */
	memset(a, 0, 32);
	((u64 *)a)[1] = 0xfeedfacefee1deadULL;
	kfree(a);
	ck_assert_uint_eq(stats().bad_frees, 1);
	/* Into a slab with no live objects left. */
	kfree(c);
	kfree(c);
	ck_assert_uint_eq(stats().bad_frees, 2);
	/* A large block twice. */
	kfree(big);
	kfree(big);
	ck_assert_uint_eq(stats().bad_frees, 3);
	expect_all_returned();
}
END_TEST

/* Use after free that breaks the free list: reported, and no wild pointer handed out. */
START_TEST(test_corrupted_freelist)
{
	u64 *a = kmalloc(64), *b = kmalloc(64), *c;

	kfree(a);
	a[0] = 0x1234; /* the free list link */
	c = kmalloc(64);
	ck_assert_ptr_eq(c, a);
	ck_assert_ptr_nonnull(strstr(fake_console_text(), "corrupted free list"));
	c = kmalloc(64);
	ck_assert_ptr_nonnull(c);
	ck_assert_ptr_ne(virt_to_page(c), virt_to_page(b)); /* a fresh slab */
	ck_assert_uint_eq(stats().slab_pages, 2);
}
END_TEST

/* An alloc/free pair repeated keeps one spare slab instead of churning pages. */
START_TEST(test_spare_slab)
{
	for (int i = 0; i < 1000; i++) {
		void *p = kmalloc(200);

		ck_assert_ptr_nonnull(p);
		kfree(p);
		ck_assert_uint_eq(stats().slab_pages, 1);
		ck_assert_uint_eq(page_alloc_free_pages(), free_at_start - 1);
	}
}
END_TEST

/* Fill whole slabs, then free them: all but one per class go back to the page allocator. */
START_TEST(test_empty_slabs_released)
{
	static void *p[4 * 256];

	for (int i = 0; i < 4 * 256; i++)
		ck_assert_ptr_nonnull(p[i] = kmalloc(16));
	ck_assert_uint_eq(stats().slab_pages, 4);
	ck_assert_uint_eq(stats().bytes, 4 * 256 * 16);
	for (int i = 0; i < 4 * 256; i++)
		kfree(p[i]);
	ck_assert_uint_eq(stats().slab_pages, 1);
	expect_all_returned();
}
END_TEST

/* A 256 KiB machine: the heap runs dry, says so with NULL, and recovers. */
START_TEST(test_out_of_memory)
{
	enum { MAX = 64 * 256 };
	static void *p[MAX];
	u64 pages;
	int n = 0;

	fake_ram_free();
	start_heap(256 * 1024);
	pages = page_alloc_free_pages();
	ck_assert_uint_eq(pages, 64 - 1 - 1); /* less page 0 and the page array */
	ck_assert_ptr_null(kmalloc(1 * MiB));

	while ((p[n] = kmalloc(4096)) != NULL)
		n++;
	ck_assert_uint_eq(n, pages);
	ck_assert_ptr_null(kmalloc(16)); /* no page left for a slab */
	ck_assert_ptr_null(kzalloc(16));
	while (n > 0)
		kfree(p[--n]);

	while ((p[n] = kmalloc(16)) != NULL)
		n++;
	ck_assert_uint_eq(n, pages * (PAGE_SIZE / 16));
	ck_assert_ptr_null(kmalloc(5000));
	while (n > 0)
		kfree(p[--n]);
	expect_all_returned();
	ck_assert_ptr_nonnull(p[0] = kmalloc(60000));
	kfree(p[0]);
	ck_assert_uint_eq(stats().bad_frees, 0);
}
END_TEST

/* heap_init (after a fresh page allocator) starts from nothing. */
START_TEST(test_reinit_resets)
{
	const struct mem_entry e[] = { { 0, 16 * MiB, MEM_USABLE } };

	for (int i = 0; i < 100; i++)
		ck_assert_ptr_nonnull(kmalloc(16 + i * 40));
	kfree(&mm);
	ck_assert_uint_gt(stats().objects, 0);
	memmap_init(&mm, e, 1);
	ck_assert_int_eq(page_alloc_init(&mm), 0);
	heap_init();
	ck_assert_uint_eq(stats().objects, 0);
	ck_assert_uint_eq(stats().bytes, 0);
	ck_assert_uint_eq(stats().slab_pages, 0);
	ck_assert_uint_eq(stats().bad_frees, 0);
	ck_assert_ptr_nonnull(kmalloc(16));
}
END_TEST

Suite *heap_suite(void)
{
	Suite *s = suite_create("heap");
	TCase *tc = tcase_create("kmalloc");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_every_size_class);
	tcase_add_test(tc, test_large);
	tcase_add_test(tc, test_patterns_no_overlap);
	tcase_add_test(tc, test_kzalloc_zeroes);
	tcase_add_test(tc, test_zero_and_null);
	tcase_add_test(tc, test_foreign_frees_refused);
	tcase_add_test(tc, test_double_free_refused);
	tcase_add_test(tc, test_corrupted_freelist);
	tcase_add_test(tc, test_spare_slab);
	tcase_add_test(tc, test_empty_slabs_released);
	tcase_add_test(tc, test_out_of_memory);
	tcase_add_test(tc, test_reinit_resets);
	suite_add_tcase(s, tc);
	return s;
}

/*
 * Host tests of kernel/mm/memmap.c: firmware maps as they come (QEMU's, a real
 * PC's, and broken ones), reservations, early allocation, and a property test
 * against a byte-by-byte model of what "usable" means.
 */
#include <stdlib.h>
#include <string.h>

#include <arch/memory.h>

#include "fake_arch.h"
#include "mm/memmap.h"
#include "unit.h"

#define KiB 0x400ULL
#define MiB 0x100000ULL
#define GiB 0x40000000ULL

static struct memmap mm;

static void build(const struct mem_entry *e, size_t n)
{
	memmap_init(&mm, e, n);
}

#define BUILD(...)                                             \
	do {                                                   \
		const struct mem_entry e_[] = { __VA_ARGS__ }; \
		build(e_, sizeof(e_) / sizeof(e_[0]));         \
	} while (0)

static void expect_ranges(const struct mem_range *got, size_t nr_got, const struct mem_range *want,
			  size_t nr_want)
{
	ck_assert_uint_eq(nr_got, nr_want);
	for (size_t i = 0; i < nr_want; i++) {
		ck_assert_uint_eq(got[i].start, want[i].start);
		ck_assert_uint_eq(got[i].end, want[i].end);
	}
}

#define EXPECT_USABLE(...)                                                              \
	do {                                                                            \
		const struct mem_range w_[] = { __VA_ARGS__ };                          \
		expect_ranges(mm.usable, mm.nr_usable, w_, sizeof(w_) / sizeof(w_[0])); \
	} while (0)

#define EXPECT_NO_USABLE() ck_assert_uint_eq(mm.nr_usable, 0)

/* What QEMU's SeaBIOS reports for -m 128 (through GRUB's multiboot2 tag). */
START_TEST(test_qemu_map)
{
	BUILD({ 0x0, 0x9fc00, MEM_USABLE }, { 0x9fc00, 0x400, MEM_RESERVED },
	      { 0xf0000, 0x10000, MEM_RESERVED }, { 0x100000, 0x7ee0000, MEM_USABLE },
	      { 0x7fe0000, 0x20000, MEM_RESERVED }, { 0xfffc0000, 0x40000, MEM_RESERVED });
	EXPECT_USABLE({ 0x1000, 0x9f000 }, { 0x100000, 0x7fe0000 });
	ck_assert_uint_eq(mm.odd_entries, 2); /* the two entries around 0x9fc00 */
	ck_assert_uint_eq(mm.dropped_ranges, 0);
	ck_assert_uint_eq(mm.nr_reserved, 0);
	ck_assert_uint_eq(memmap_end(&mm), 0x7fe0000);
	ck_assert_uint_eq(memmap_usable_bytes(&mm), 0x9e000 + 0x7ee0000);
}
END_TEST

/* A desktop's E820 with 16 GiB, ACPI tables, a PCI hole, given out of order. */
START_TEST(test_real_pc_map)
{
	BUILD({ 0x100000000, 0x380000000, MEM_USABLE }, { 0xe0000, 0x20000, MEM_RESERVED },
	      { 0x0, 0x9d800, MEM_USABLE }, { 0x9d800, 0x2800, MEM_RESERVED },
	      { 0x100000, 0x7a1f0000, MEM_USABLE }, { 0x7a2f0000, 0x700000, MEM_RESERVED },
	      { 0x7a9f0000, 0x10000, MEM_ACPI_RECLAIMABLE }, { 0x7aa00000, 0x100000, MEM_ACPI_NVS },
	      { 0x7ab00000, 0x1500000, MEM_USABLE }, { 0xe0000000, 0x10000000, MEM_RESERVED },
	      { 0xfec00000, 0x1000, MEM_RESERVED }, { 0xfee00000, 0x1000, MEM_RESERVED },
	      { 0xff000000, 0x1000000, MEM_RESERVED }, { 0x7a2f0000, 0, MEM_RESERVED });
	EXPECT_USABLE({ 0x1000, 0x9d000 }, { 0x100000, 0x7a2f0000 }, { 0x7ab00000, 0x7c000000 },
		      { 0x100000000, 0x480000000 });
	/* Two unaligned around 0x9d800, one empty. */
	ck_assert_uint_eq(mm.odd_entries, 3);
	ck_assert_uint_eq(memmap_end(&mm), 0x480000000);
	ck_assert_uint_eq(memmap_usable_bytes(&mm),
			  (0x9d000 - 0x1000) + (0x7a2f0000 - 0x100000) + 0x1500000 + 0x380000000);
}
END_TEST

START_TEST(test_usable_inside_reserved)
{
	BUILD({ 0, 16 * MiB, MEM_RESERVED }, { 1 * MiB, 1 * MiB, MEM_USABLE });
	EXPECT_NO_USABLE();
	ck_assert_uint_eq(mm.odd_entries, 2);
	ck_assert_uint_eq(memmap_end(&mm), 0);
}
END_TEST

START_TEST(test_reserved_inside_usable)
{
	BUILD({ 0, 16 * MiB, MEM_USABLE }, { 4 * MiB, 0x800, MEM_ACPI_NVS },
	      { 8 * MiB, 1 * MiB, MEM_BAD });
	/* The 2 KiB hole costs its whole page; the bad megabyte is cut out exactly. */
	EXPECT_USABLE({ 0x1000, 4 * MiB }, { 4 * MiB + 0x1000, 8 * MiB }, { 9 * MiB, 16 * MiB });
	ck_assert_uint_eq(mm.odd_entries, 3);
}
END_TEST

START_TEST(test_partial_overlaps)
{
	/* Reserved over the top of a usable range, and over its bottom. */
	BUILD({ 1 * MiB, 2 * MiB, MEM_USABLE }, { 2 * MiB, 2 * MiB, MEM_RESERVED },
	      { 5 * MiB, 2 * MiB, MEM_USABLE }, { 4 * MiB + 0x800, 1 * MiB + 0x1800, MEM_RESERVED });
	EXPECT_USABLE({ 1 * MiB, 2 * MiB }, { 5 * MiB + 0x2000, 7 * MiB });
	ck_assert_uint_eq(mm.odd_entries, 4);

	/* Overlapping usable entries merge into one range. */
	BUILD({ 1 * MiB, 2 * MiB, MEM_USABLE }, { 2 * MiB, 3 * MiB, MEM_USABLE });
	EXPECT_USABLE({ 1 * MiB, 5 * MiB });
	ck_assert_uint_eq(mm.odd_entries, 2);

	/* Touching usable entries are normal and merge too. */
	BUILD({ 1 * MiB, 1 * MiB, MEM_USABLE }, { 2 * MiB, 1 * MiB, MEM_USABLE });
	EXPECT_USABLE({ 1 * MiB, 3 * MiB });
	ck_assert_uint_eq(mm.odd_entries, 0);
}
END_TEST

START_TEST(test_zero_length)
{
	BUILD({ 1 * MiB, 0, MEM_USABLE }, { 2 * MiB, 1 * MiB, MEM_USABLE },
	      { 2 * MiB + 0x4000, 0, MEM_RESERVED });
	EXPECT_USABLE({ 2 * MiB, 3 * MiB });
	ck_assert_uint_eq(mm.odd_entries, 2);
}
END_TEST

START_TEST(test_unaligned)
{
	BUILD({ 0x1234, 0x5000, MEM_USABLE }, { 0x10800, 0x900, MEM_USABLE },
	      { 0x20fff, 0x2002, MEM_USABLE });
	/* Shrunk inward; the 2.25 KiB entry holds no whole page and vanishes. */
	EXPECT_USABLE({ 0x2000, 0x6000 }, { 0x21000, 0x23000 });
	ck_assert_uint_eq(mm.odd_entries, 3);
}
END_TEST

START_TEST(test_overflow_and_limit)
{
	BUILD({ 0xfffffffffffff000ULL, 0x2000, MEM_USABLE }, /* wraps, and above the limit */
	      { 1 * MiB, 1 * MiB, MEM_USABLE }, { PHYS_ADDR_LIMIT, 1 * MiB, MEM_USABLE },
	      { PHYS_ADDR_LIMIT - 2 * MiB, 4 * MiB, MEM_USABLE },
	      { 4 * GiB, ~0ULL, MEM_RESERVED } /* wraps: reserves everything above 4 GiB */);
	EXPECT_USABLE({ 1 * MiB, 2 * MiB });
	ck_assert_uint_eq(mm.odd_entries, 4);

	/* A usable entry whose length wraps is clamped to the limit, not dropped. */
	BUILD({ 1 * MiB, ~0ULL - 0x1000, MEM_USABLE });
	EXPECT_USABLE({ 1 * MiB, PHYS_ADDR_LIMIT });
	ck_assert_uint_eq(mm.odd_entries, 1);
	ck_assert_uint_eq(memmap_end(&mm), PHYS_ADDR_LIMIT);
}
END_TEST

START_TEST(test_unsorted_and_duplicates)
{
	struct memmap sorted;

	BUILD({ 0x100000, 0x700000, MEM_USABLE }, { 0x800000, 0x800000, MEM_USABLE },
	      { 0x300000, 0x1000, MEM_RESERVED }, { 0x1000, 0x9e000, MEM_USABLE });
	sorted = mm;
	BUILD({ 0x800000, 0x800000, MEM_USABLE }, { 0x300000, 0x1000, MEM_RESERVED },
	      { 0x1000, 0x9e000, MEM_USABLE }, { 0x100000, 0x700000, MEM_USABLE },
	      { 0x300000, 0x1000, MEM_RESERVED }, { 0x800000, 0x800000, MEM_USABLE });
	expect_ranges(mm.usable, mm.nr_usable, sorted.usable, sorted.nr_usable);
	EXPECT_USABLE({ 0x1000, 0x9f000 }, { 0x100000, 0x300000 }, { 0x301000, 0x1000000 });
	/* The reserved page overlaps a usable entry in both; the duplicates overlap each other. */
	ck_assert_uint_eq(sorted.odd_entries, 2);
	ck_assert_uint_eq(mm.odd_entries, 5);
}
END_TEST

START_TEST(test_page_zero_never_usable)
{
	BUILD({ 0, 0x2000, MEM_USABLE });
	EXPECT_USABLE({ 0x1000, 0x2000 });
	BUILD({ 0, 0x1000, MEM_USABLE });
	EXPECT_NO_USABLE();
	BUILD({ 0x800, 0x3000, MEM_USABLE });
	EXPECT_USABLE({ 0x1000, 0x3000 });
}
END_TEST

START_TEST(test_unknown_type_wins)
{
	BUILD({ 0, 4 * MiB, MEM_USABLE }, { 1 * MiB, 1 * MiB, 99 }, { 3 * MiB, 1 * MiB, 0 });
	EXPECT_USABLE({ 0x1000, 1 * MiB }, { 2 * MiB, 3 * MiB });
}
END_TEST

START_TEST(test_empty_map)
{
	build(NULL, 5);
	EXPECT_NO_USABLE();
	ck_assert_uint_eq(memmap_end(&mm), 0);
	ck_assert_uint_eq(memmap_usable_bytes(&mm), 0);
	ck_assert_uint_eq(memmap_free_bytes(&mm), 0);
	ck_assert_uint_eq(memmap_alloc_early(&mm, PAGE_SIZE, PAGE_SIZE, ~0ULL), 0);
}
END_TEST

/* More usable ranges than the table holds: the smallest go, the rest stay sorted. */
START_TEST(test_usable_table_full)
{
	enum { N = MEMMAP_MAX_RANGES + 40 };
	struct mem_entry *e = calloc(2 * N, sizeof(*e));

	/* Range i is (1 + i % 7) pages long, with a reserved page after it. */
	for (size_t i = 0; i < N; i++) {
		e[2 * i] = (struct mem_entry){ (1 + i * 16) * PAGE_SIZE, (1 + i % 7) * PAGE_SIZE,
					       MEM_USABLE };
		e[2 * i + 1] = (struct mem_entry){ (9 + i * 16) * PAGE_SIZE, PAGE_SIZE, MEM_RESERVED };
	}
	build(e, 2 * N);
	ck_assert_uint_eq(mm.nr_usable, MEMMAP_MAX_RANGES);
	ck_assert_uint_eq(mm.dropped_ranges, 40);
	for (size_t i = 1; i < mm.nr_usable; i++)
		ck_assert_uint_lt(mm.usable[i - 1].end, mm.usable[i].start);
	/* 168 ranges of 1..7 pages: 24 of each size; the 40 dropped are all of size 1 or 2. */
	for (size_t i = 0; i < mm.nr_usable; i++)
		ck_assert_uint_ge(mm.usable[i].end - mm.usable[i].start, 2 * PAGE_SIZE);
	free(e);
}
END_TEST

/*
 * The model: over 256 KiB split into 1 KiB chunks, a chunk is usable if some
 * entry says usable and none says otherwise; a page is usable if all its chunks
 * are and it is not page 0. Random maps must give exactly the model's pages.
 */
START_TEST(test_random_maps_match_model)
{
	enum { CHUNKS = 256, PER_PAGE = PAGE_SIZE / KiB, PAGES = CHUNKS / PER_PAGE };
	unsigned int seed = 12345;

	for (int round = 0; round < 2000; round++) {
		struct mem_entry e[12];
		size_t n = 1 + rand_r(&seed) % 12;
		bool usable[CHUNKS] = { false }, other[CHUNKS] = { false }, page_ok[PAGES];
		u64 model_bytes = 0;

		for (size_t i = 0; i < n; i++) {
			u64 start = rand_r(&seed) % CHUNKS, len = rand_r(&seed) % 80;

			if (start + len > CHUNKS)
				len = CHUNKS - start;
			e[i].base = start * KiB;
			e[i].length = len * KiB;
			e[i].type = rand_r(&seed) % 3 ? MEM_USABLE : 2 + rand_r(&seed) % 4;
			for (u64 c = start; c < start + len; c++) {
				if (e[i].type == MEM_USABLE)
					usable[c] = true;
				else
					other[c] = true;
			}
		}
		for (size_t p = 0; p < PAGES; p++) {
			page_ok[p] = p != 0;
			for (size_t c = p * PER_PAGE; c < (p + 1) * PER_PAGE; c++)
				page_ok[p] = page_ok[p] && usable[c] && !other[c];
			model_bytes += page_ok[p] ? PAGE_SIZE : 0;
		}
		build(e, n);
		for (size_t p = 0; p < PAGES; p++) {
			bool in = false;

			for (size_t r = 0; r < mm.nr_usable; r++)
				in |= mm.usable[r].start <= p * PAGE_SIZE &&
				      p * PAGE_SIZE < mm.usable[r].end;
			ck_assert_msg(in == page_ok[p], "round %d page %zu: got %d, model %d",
				      round, p, in, page_ok[p]);
		}
		for (size_t r = 0; r < mm.nr_usable; r++) {
			ck_assert_uint_lt(mm.usable[r].start, mm.usable[r].end);
			if (r > 0)
				ck_assert_uint_lt(mm.usable[r - 1].end, mm.usable[r].start);
		}
		ck_assert_uint_eq(memmap_usable_bytes(&mm), model_bytes);
	}
}
END_TEST

START_TEST(test_reserve_merges_and_widens)
{
	BUILD({ 0, 64 * MiB, MEM_USABLE });
	memmap_reserve(&mm, 0x5000, 0x6000);
	memmap_reserve(&mm, 0x2000, 0x3000);
	memmap_reserve(&mm, 0x9123, 0x9124); /* widened to the whole page */
	expect_ranges(mm.reserved, mm.nr_reserved,
		      (const struct mem_range[]){
			      { 0x2000, 0x3000 }, { 0x5000, 0x6000 }, { 0x9000, 0xa000 } },
		      3);
	memmap_reserve(&mm, 0x3000, 0x5000); /* touches both neighbours: one range */
	memmap_reserve(&mm, 0x4000, 0x4000); /* empty: nothing */
	memmap_reserve(&mm, 0x8000, 0x7000); /* inverted: nothing */
	expect_ranges(mm.reserved, mm.nr_reserved,
		      (const struct mem_range[]){ { 0x2000, 0x6000 }, { 0x9000, 0xa000 } }, 2);
	memmap_reserve(&mm, 0x1000, 0xb000); /* swallows everything */
	expect_ranges(mm.reserved, mm.nr_reserved, (const struct mem_range[]){ { 0x1000, 0xb000 } },
		      1);

	ck_assert(memmap_is_reserved(&mm, 0xafff, 0xb000));
	ck_assert(!memmap_is_reserved(&mm, 0xb000, 0xc000));
	ck_assert(!memmap_is_reserved(&mm, 0x800, 0x1000));
	ck_assert(memmap_is_reserved(&mm, 0, 0x100000));
	ck_assert(!memmap_is_reserved(&mm, 0x2000, 0x2000));
	ck_assert_uint_eq(memmap_usable_bytes(&mm), 64 * MiB - 0x1000);
	ck_assert_uint_eq(memmap_free_bytes(&mm), 64 * MiB - 0xb000);

	/* Reservations beyond the limit are clamped, and ones entirely beyond it ignored. */
	memmap_reserve(&mm, PHYS_ADDR_LIMIT - 0x1000, ~0ULL);
	memmap_reserve(&mm, PHYS_ADDR_LIMIT, ~0ULL);
	ck_assert_uint_eq(mm.nr_reserved, 2);
	ck_assert_uint_eq(mm.reserved[1].end, PHYS_ADDR_LIMIT);
}
END_TEST

/* A full reserved table merges the closest pair: over-reserves, loses nothing. */
START_TEST(test_reserved_table_full)
{
	enum { N = MEMMAP_MAX_RANGES + 30 };
	phys_addr_t starts[N];

	BUILD({ 0, 4 * GiB, MEM_USABLE });
	for (size_t i = 0; i < N; i++) {
		/* 1-page ranges 6..14 pages apart, reserved scrambled (37 is prime to N). */
		size_t idx = i * 37 % N;

		starts[i] = (1 + idx * 10 + idx * 7 % 5) * PAGE_SIZE;
		memmap_reserve(&mm, starts[i], starts[i] + PAGE_SIZE);
		ck_assert_uint_le(mm.nr_reserved, MEMMAP_MAX_RANGES);
	}
	ck_assert_uint_eq(mm.nr_reserved, MEMMAP_MAX_RANGES);
	for (size_t i = 0; i < N; i++)
		ck_assert(memmap_is_reserved(&mm, starts[i], starts[i] + PAGE_SIZE));
	for (size_t i = 1; i < mm.nr_reserved; i++)
		ck_assert_uint_lt(mm.reserved[i - 1].end, mm.reserved[i].start);
	ck_assert_uint_eq(mm.dropped_ranges, 0);
	ck_assert_ptr_nonnull(strstr(fake_console_text(), "reserved table full"));
}
END_TEST

struct piece_log {
	struct mem_range r[16];
	size_t n;
};

static void log_piece(phys_addr_t start, phys_addr_t end, void *arg)
{
	struct piece_log *log = arg;

	ck_assert_uint_lt(log->n, 16);
	log->r[log->n].start = start;
	log->r[log->n].end = end;
	log->n++;
}

START_TEST(test_for_each_free)
{
	struct piece_log log = { .n = 0 };

	BUILD({ 0, 1 * MiB, MEM_USABLE }, { 2 * MiB, 2 * MiB, MEM_USABLE },
	      { 8 * MiB, 1 * MiB, MEM_USABLE });
	memmap_reserve(&mm, 0, 0x10000);		/* the bottom of range 0 */
	memmap_reserve(&mm, 1 * MiB - 0x1000, 3 * MiB); /* across the gap into range 1 */
	memmap_reserve(&mm, 3 * MiB + 0x4000, 3 * MiB + 0x5000);
	memmap_reserve(&mm, 8 * MiB, 9 * MiB); /* all of range 2 */
	memmap_for_each_free(&mm, log_piece, &log);
	expect_ranges(log.r, log.n,
		      (const struct mem_range[]){ { 0x10000, 1 * MiB - 0x1000 },
						  { 3 * MiB, 3 * MiB + 0x4000 },
						  { 3 * MiB + 0x5000, 4 * MiB } },
		      3);
	ck_assert_uint_eq(memmap_free_bytes(&mm), (1 * MiB - 0x11000) + 0x4000 + (1 * MiB - 0x5000));
}
END_TEST

START_TEST(test_alloc_early)
{
	phys_addr_t a, b, c;

	BUILD({ 0, 0x9f000, MEM_USABLE }, { 1 * MiB, 15 * MiB, MEM_USABLE },
	      { 32 * MiB, 32 * MiB, MEM_USABLE });
	memmap_reserve(&mm, 60 * MiB, 64 * MiB);

	/* Highest fit below the limit, rounded up to pages, aligned. */
	a = memmap_alloc_early(&mm, 100, PAGE_SIZE, ~0ULL);
	ck_assert_uint_eq(a, 60 * MiB - PAGE_SIZE);
	b = memmap_alloc_early(&mm, 3 * PAGE_SIZE, 2 * MiB, ~0ULL);
	ck_assert_uint_eq(b, 58 * MiB);
	ck_assert(memmap_is_reserved(&mm, a, a + PAGE_SIZE));
	ck_assert(memmap_is_reserved(&mm, b, b + 3 * PAGE_SIZE));
	ck_assert(!memmap_is_reserved(&mm, b + 3 * PAGE_SIZE, b + 4 * PAGE_SIZE));

	/* Below a limit: the range under 16 MiB, ending at or below the limit. */
	c = memmap_alloc_early(&mm, 2 * PAGE_SIZE, PAGE_SIZE, 16 * MiB);
	ck_assert_uint_eq(c, 16 * MiB - 2 * PAGE_SIZE);
	c = memmap_alloc_early(&mm, PAGE_SIZE, PAGE_SIZE, 1 * MiB + 0x800);
	ck_assert_uint_eq(c, 0x9e000);

	/* Too big for any range: 0, and nothing is reserved. */
	ck_assert_uint_eq(memmap_alloc_early(&mm, 64 * MiB, PAGE_SIZE, ~0ULL), 0);
	ck_assert_uint_eq(memmap_alloc_early(&mm, PAGE_SIZE, PAGE_SIZE, 0x1000), 0);
	/* Bad requests: 0. */
	ck_assert_uint_eq(memmap_alloc_early(&mm, 0, PAGE_SIZE, ~0ULL), 0);
	ck_assert_uint_eq(memmap_alloc_early(&mm, PAGE_SIZE, 0x800, ~0ULL), 0);
	ck_assert_uint_eq(memmap_alloc_early(&mm, PAGE_SIZE, 3 * PAGE_SIZE, ~0ULL), 0);
	ck_assert_uint_eq(memmap_alloc_early(&mm, ~0ULL, PAGE_SIZE, ~0ULL), 0);

	/* Exhaust: every page comes out once, never page 0, never reserved twice. */
	{
		u64 before = memmap_free_bytes(&mm), got = 0;
		phys_addr_t prev = ~0ULL, p;

		while ((p = memmap_alloc_early(&mm, PAGE_SIZE, PAGE_SIZE, ~0ULL)) != 0) {
			ck_assert_uint_lt(p, prev); /* always the highest left */
			prev = p;
			got += PAGE_SIZE;
		}
		ck_assert_uint_eq(got, before);
		ck_assert_uint_eq(memmap_free_bytes(&mm), 0);
		ck_assert_uint_eq(prev, 0x1000);
	}
}
END_TEST

Suite *memmap_suite(void)
{
	Suite *s = suite_create("memmap");
	TCase *tc = tcase_create("firmware");
	TCase *tr = tcase_create("reserve");

	tcase_add_test(tc, test_qemu_map);
	tcase_add_test(tc, test_real_pc_map);
	tcase_add_test(tc, test_usable_inside_reserved);
	tcase_add_test(tc, test_reserved_inside_usable);
	tcase_add_test(tc, test_partial_overlaps);
	tcase_add_test(tc, test_zero_length);
	tcase_add_test(tc, test_unaligned);
	tcase_add_test(tc, test_overflow_and_limit);
	tcase_add_test(tc, test_unsorted_and_duplicates);
	tcase_add_test(tc, test_page_zero_never_usable);
	tcase_add_test(tc, test_unknown_type_wins);
	tcase_add_test(tc, test_empty_map);
	tcase_add_test(tc, test_usable_table_full);
	tcase_add_test(tc, test_random_maps_match_model);
	suite_add_tcase(s, tc);

	tcase_add_test(tr, test_reserve_merges_and_widens);
	tcase_add_test(tr, test_reserved_table_full);
	tcase_add_test(tr, test_for_each_free);
	tcase_add_test(tr, test_alloc_early);
	suite_add_tcase(s, tr);
	return s;
}

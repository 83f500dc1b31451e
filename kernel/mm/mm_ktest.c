/*
 * In-kernel tests of the page allocator and the heap, on the real memory map
 * and direct map (the host tests cover the corner cases; these check the real
 * thing). They assume nobody else allocates while they run, as at boot.
 */
#include <arch/memory.h>

#include "ktest.h"
#include "lib/compiler.h"
#include "lib/string.h"
#include "mm/heap.h"
#include "mm/page_alloc.h"

/* Sized to stay well under a second of emulated time on a 128 MiB machine. */
#define EXHAUST_MAX_PAGES 4096 /* 16 MiB, or half of what is free if that is less */
#define CHURN_SLOTS	  128
#define CHURN_OPS	  10000
#define CHURN_LARGE_MAX	  20000 /* bytes: up to an order-3 block */
#define SLAB_CLASSES	  8	/* a spare empty slab per class may stay behind */

#define GOLDEN 0x9e3779b97f4a7c15ULL

static u32 xorshift32(u32 *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

/*
 * Takes a fixed number of order-0 pages and fills each with a pattern of its own
 * address. The pages are chained through their first word, so a page handed out
 * twice would shorten the chain; the patterns catch any other overlap.
 */
KTEST(mm_page_alloc_exhaust);
static int mm_page_alloc_exhaust(void)
{
	u64 start = page_alloc_free_pages();
	u64 want = MIN((u64)EXHAUST_MAX_PAGES, start / 2), got, chained = 0, bad = 0;
	phys_addr_t head = 0, pa;
	bool counted;

	KTEST_EXPECT(want > 0);
	for (got = 0; got < want; got++) {
		u64 *w;

		pa = page_alloc(0);
		if (!pa)
			break;
		if (!IS_ALIGNED(pa, PAGE_SIZE) || !phys_to_page(pa) ||
		    !(phys_to_page(pa)->flags & PG_ALLOCATED))
			bad++;
		w = phys_to_virt(pa);
		w[0] = head;
		for (size_t i = 1; i < PAGE_SIZE / 8; i++)
			w[i] = pa ^ (i * GOLDEN);
		head = pa;
	}
	counted = page_alloc_free_pages() == start - got;

	for (pa = head; pa && chained <= got; chained++) {
		const u64 *w = phys_to_virt(pa);

		for (size_t i = 1; i < PAGE_SIZE / 8; i++) {
			if (w[i] != (pa ^ (i * GOLDEN))) {
				bad++;
				break;
			}
		}
		pa = w[0];
	}
	/* Bounded: a page handed out twice would have made the chain a cycle. */
	for (u64 n = 0; head && n < got; n++) {
		pa = head;
		head = *(const u64 *)phys_to_virt(pa);
		page_free(pa, 0);
	}
	KTEST_EXPECT(got == want);
	KTEST_EXPECT(counted);
	KTEST_EXPECT(chained == got);
	KTEST_EXPECT(bad == 0);
	KTEST_EXPECT(page_alloc_free_pages() == start);
	return 0;
}

/* One block of every order at once: aligned to its size, disjoint, counted. */
KTEST(mm_page_alloc_orders);
static int mm_page_alloc_orders(void)
{
	phys_addr_t block[PAGE_MAX_ORDER + 1];
	u64 start = page_alloc_free_pages(), taken = 0, bad = 0;
	unsigned int o, got;
	bool counted;
	void *va;

	for (got = 0; got <= PAGE_MAX_ORDER; got++) {
		u64 *w;

		block[got] = page_alloc(got);
		if (!block[got])
			break;
		taken += 1ULL << got;
		if (!IS_ALIGNED(block[got], PAGE_SIZE << got) ||
		    phys_to_page(block[got])->order != got)
			bad++;
		/* Tag the first and last word; an overlapping block would overwrite one. */
		w = phys_to_virt(block[got]);
		w[0] = block[got] ^ GOLDEN;
		w[(PAGE_SIZE << got) / 8 - 1] = block[got] ^ ~GOLDEN;
	}
	counted = page_alloc_free_pages() == start - taken;
	for (o = 0; o < got; o++) {
		const u64 *w = phys_to_virt(block[o]);

		if (w[0] != (block[o] ^ GOLDEN) ||
		    w[(PAGE_SIZE << o) / 8 - 1] != (block[o] ^ ~GOLDEN))
			bad++;
		for (unsigned int k = 0; k < o; k++) {
			if (block[k] < block[o] + (PAGE_SIZE << o) &&
			    block[o] < block[k] + (PAGE_SIZE << k))
				bad++;
		}
	}
	while (got > 0) {
		got--;
		page_free(block[got], got);
	}
	KTEST_EXPECT(taken == (2ULL << PAGE_MAX_ORDER) - 1);
	KTEST_EXPECT(counted);
	KTEST_EXPECT(bad == 0);
	KTEST_EXPECT(page_alloc_free_pages() == start);

	/* The direct-map wrappers agree with the physical interface. */
	va = alloc_pages(2);
	KTEST_EXPECT(va != NULL);
	KTEST_EXPECT(virt_to_page(va) == phys_to_page(virt_to_phys(va)));
	KTEST_EXPECT(virt_to_page(va)->order == 2);
	free_pages(va, 2);
	KTEST_EXPECT(page_alloc_free_pages() == start);
	KTEST_EXPECT(page_alloc(PAGE_MAX_ORDER + 1) == 0);
	return 0;
}

struct churn_obj {
	u64 *p;
	u32 size;
	u32 tag;
};

static void churn_fill(const struct churn_obj *o)
{
	for (u32 i = 0; i < o->size / 8; i++)
		o->p[i] = (o->tag * GOLDEN) ^ i;
}

static bool churn_intact(const struct churn_obj *o)
{
	for (u32 i = 0; i < o->size / 8; i++) {
		if (o->p[i] != ((o->tag * GOLDEN) ^ i))
			return false;
	}
	return true;
}

/*
 * Random kmalloc/kfree of mixed sizes, small and large, each object filled with
 * its own pattern and checked when freed. At the end every statistic is back
 * where it started, except that each class may keep one spare empty slab.
 */
KTEST(mm_heap_churn);
static int mm_heap_churn(void)
{
	struct heap_stats before, after;
	struct churn_obj *obj = kzalloc(CHURN_SLOTS * sizeof(*obj));
	u32 seed = 0x2545f491, next_tag = 1;
	u64 bad = 0, nomem = 0;

	KTEST_EXPECT(obj != NULL);
	heap_get_stats(&before);
	for (int op = 0; op < CHURN_OPS; op++) {
		struct churn_obj *o = &obj[xorshift32(&seed) % CHURN_SLOTS];
		u32 r = xorshift32(&seed);

		if (o->p) {
			if (!churn_intact(o))
				bad++;
			kfree(o->p);
			o->p = NULL;
			continue;
		}
		o->size = r % 10 ? 1 + r % 2048 : 2049 + r % (CHURN_LARGE_MAX - 2048);
		o->tag = next_tag++;
		o->p = kmalloc(o->size);
		if (!o->p) {
			nomem++;
			continue;
		}
		if (!IS_ALIGNED((uintptr_t)o->p, 16))
			bad++;
		churn_fill(o);
	}
	for (int i = 0; i < CHURN_SLOTS; i++) {
		if (obj[i].p) {
			if (!churn_intact(&obj[i]))
				bad++;
			kfree(obj[i].p);
		}
	}
	heap_get_stats(&after);
	kfree(obj);
	KTEST_EXPECT(nomem == 0);
	KTEST_EXPECT(bad == 0);
	KTEST_EXPECT(after.objects == before.objects);
	KTEST_EXPECT(after.bytes == before.bytes);
	KTEST_EXPECT(after.large_pages == before.large_pages);
	KTEST_EXPECT(after.bad_frees == before.bad_frees);
	KTEST_EXPECT(after.slab_pages <= before.slab_pages + SLAB_CLASSES);
	return 0;
}

#define FOUR_GIB   (4ULL << 30)
#define MAX_BLOCKS 16384 /* 64 GiB of 4 MiB blocks */

/* Writes a pattern at both ends of a block through the direct map and reads it back. */
static bool block_holds_data(phys_addr_t pa, u64 size)
{
	u64 *first = phys_to_virt(pa), *last = phys_to_virt(pa + size - sizeof(u64));

	*first = pa;
	*last = ~pa;
	return READ_ONCE(*first) == pa && READ_ONCE(*last) == ~pa;
}

/*
 * Takes every largest block there is and checks that RAM above 4 GiB, when
 * the machine has more RAM than fits below, is handed out, is mapped and
 * holds data at both ends of a block; then gives everything back. Only
 * one block per GiB is touched: first touches of guest RAM are slow under
 * emulation.
 */
KTEST(mm_high_memory);
static int mm_high_memory(void)
{
	const u64 block = PAGE_SIZE << PAGE_MAX_ORDER;
	u64 start = page_alloc_free_pages(), blocks = 0, touched = 0, last_gib = ~0ULL;
	phys_addr_t *taken = kmalloc(MAX_BLOCKS * sizeof(*taken));
	phys_addr_t pa, high = 0;
	int bad = 0;

	KTEST_EXPECT(taken != NULL);
	while (blocks < MAX_BLOCKS && (pa = page_alloc(PAGE_MAX_ORDER)) != 0) {
		taken[blocks++] = pa;
		if (pa >= FOUR_GIB && (!high || pa < high))
			high = pa;
		if (pa >> 30 != last_gib) {
			last_gib = pa >> 30;
			touched++;
			bad += !block_holds_data(pa, block);
		}
	}
	if (high)
		bad += !block_holds_data(high, block);
	for (u64 i = 0; i < blocks; i++)
		page_free(taken[i], PAGE_MAX_ORDER);
	kfree(taken);
	pr_info("KTEST mm_high_memory: %llu blocks of %llu KiB (%llu touched), lowest above 4 GiB at %#llx\n",
		(unsigned long long)blocks, (unsigned long long)(block / 1024),
		(unsigned long long)touched, (unsigned long long)high);
	KTEST_EXPECT(blocks > 0);
	KTEST_EXPECT(bad == 0);
	KTEST_EXPECT(page_alloc_free_pages() == start);
	if (page_alloc_total_pages() * PAGE_SIZE > FOUR_GIB)
		KTEST_EXPECT(high != 0); /* more RAM than fits below 4 GiB: some lies above */
	return 0;
}

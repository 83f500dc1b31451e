/*
 * The physical page allocator: a binary buddy allocator with one free list per
 * order. All its bookkeeping lives in the struct page array; it never writes into
 * the pages it manages, so their contents belong wholly to whoever holds them.
 */
#include "mm/page_alloc.h"

#include <arch/memory.h>

#include "lib/compiler.h"
#include "lib/errno.h"
#include "lib/spinlock.h"
#include "lib/string.h"
#include "printk.h"

/*
 * A block of 2^k pages starts at a pfn that is a multiple of 2^k (absolute pfn,
 * so blocks are aligned to their size in physical memory too); its buddy is the
 * other half of the 2^(k+1) block containing it, at pfn ^ 2^k. Only a block's
 * first page (its head) carries state:
 *
 *   PG_FREE       on free_list[order]      PG_ALLOCATED   handed out
 *   PG_RESERVED   hole or reserved page    0              inside a block (tail)
 *
 * Lock: page_lock guards the lists, the counters and every flags/order field
 * the allocator owns. It is taken with interrupts off and nothing else is taken
 * inside it (printing happens after it is dropped).
 */
static struct spinlock page_lock = SPINLOCK_INIT;
static struct page *page_map; /* struct page of pfn first_pfn + i, i < nr_map */
static u64 first_pfn, nr_map;
static struct list_head free_list[PAGE_MAX_ORDER + 1];
static u64 nr_free, nr_total;

static bool pfn_in_map(u64 pfn)
{
	return pfn >= first_pfn && pfn - first_pfn < nr_map;
}

static struct page *pfn_page(u64 pfn)
{
	return &page_map[pfn - first_pfn];
}

static u64 page_pfn(const struct page *pg)
{
	return first_pfn + (u64)(pg - page_map);
}

static void block_add(u64 pfn, unsigned int order)
{
	struct page *pg = pfn_page(pfn);

	pg->flags = PG_FREE;
	pg->order = order;
	list_add(&pg->list, &free_list[order]);
}

static void block_del(struct page *pg)
{
	list_del(&pg->list);
	pg->flags = 0;
}

static void mark_reserved(u64 from, u64 to)
{
	for (u64 pfn = from; pfn < to; pfn++)
		pfn_page(pfn)->flags = PG_RESERVED;
}

/* The largest order whose block at pfn is aligned and ends at or before end. */
static unsigned int fit_order(u64 pfn, u64 end)
{
	unsigned int order = 0;

	while (order < PAGE_MAX_ORDER && IS_ALIGNED(pfn, 2ULL << order) &&
	       pfn + (2ULL << order) <= end)
		order++;
	return order;
}

/*
 * Feeds one free range to the lists as the fewest aligned blocks that tile it,
 * so init costs O(blocks), not O(pages) list operations. *cursor is the first
 * pfn not yet classified; everything between it and this range is a hole.
 */
static void init_free_range(phys_addr_t start, phys_addr_t end, void *arg)
{
	u64 *cursor = arg;
	u64 pfn = start >> PAGE_SHIFT, last = end >> PAGE_SHIFT;

	mark_reserved(*cursor, pfn);
	while (pfn < last) {
		unsigned int order = fit_order(pfn, last);

		block_add(pfn, order);
		nr_free += 1ULL << order;
		pfn += 1ULL << order;
	}
	*cursor = last;
}

/*
 * Forgets any previous state first, so each call starts a fresh allocator over
 * mm (the unit tests rely on this; the kernel calls it once). The page array
 * spans the lowest to the highest usable page, holes included, at 32 bytes per
 * page (0.8% of the span); it goes as high as possible so low memory stays free
 * for whoever needs it.
 */
int page_alloc_init(struct memmap *mm)
{
	u64 first, last, cursor;
	phys_addr_t pa;
	size_t bytes;

	page_lock = (struct spinlock)SPINLOCK_INIT;
	page_map = NULL;
	first_pfn = nr_map = nr_free = nr_total = 0;
	for (unsigned int o = 0; o <= PAGE_MAX_ORDER; o++)
		list_init(&free_list[o]);

	if (mm->nr_usable == 0) {
		pr_err("page_alloc: no usable memory\n");
		return -ENOMEM;
	}
	first = mm->usable[0].start >> PAGE_SHIFT;
	last = memmap_end(mm) >> PAGE_SHIFT;
	bytes = (last - first) * sizeof(struct page);
	pa = memmap_alloc_early(mm, bytes, PAGE_SIZE, memmap_end(mm));
	if (!pa) {
		pr_err("page_alloc: no room for the page array (%zu KiB)\n", bytes >> 10);
		return -ENOMEM;
	}
	page_map = phys_to_virt(pa);
	memset(page_map, 0, bytes);
	first_pfn = first;
	nr_map = last - first;

	cursor = first_pfn;
	memmap_for_each_free(mm, init_free_range, &cursor);
	mark_reserved(cursor, first_pfn + nr_map);
	nr_total = nr_free;
	return 0;
}

phys_addr_t page_alloc(unsigned int order)
{
	unsigned long flags;
	unsigned int o;
	struct page *pg;
	u64 pfn;

	if (order > PAGE_MAX_ORDER || !page_map)
		return 0;
	flags = spin_lock_irqsave(&page_lock);
	for (o = order; o <= PAGE_MAX_ORDER && list_empty(&free_list[o]); o++)
		;
	if (o > PAGE_MAX_ORDER) {
		spin_unlock_irqrestore(&page_lock, flags);
		return 0;
	}
	pg = list_first_entry(&free_list[o], struct page, list);
	block_del(pg);
	pfn = page_pfn(pg);
	/* Split: keep the lower half, return the upper half, until the size is right. */
	while (o > order) {
		o--;
		block_add(pfn + (1ULL << o), o);
	}
	pg->flags = PG_ALLOCATED;
	pg->order = order;
	nr_free -= 1ULL << order;
	spin_unlock_irqrestore(&page_lock, flags);
	return pfn << PAGE_SHIFT;
}

/* Why page_free must refuse (pa, order), or NULL if it is a live allocation. */
static const char *free_refusal(phys_addr_t pa, unsigned int order)
{
	u64 pfn = pa >> PAGE_SHIFT;
	struct page *pg;

	if (order > PAGE_MAX_ORDER)
		return "order too large";
	if (!IS_ALIGNED(pa, PAGE_SIZE))
		return "not page aligned";
	if (!page_map || !pfn_in_map(pfn) || !pfn_in_map(pfn + (1ULL << order) - 1))
		return "not managed";
	if (!IS_ALIGNED(pfn, 1ULL << order))
		return "misaligned for its order";
	pg = pfn_page(pfn);
	if (pg->flags & PG_RESERVED)
		return "reserved page";
	if (pg->flags & PG_FREE)
		return "double free";
	if (!(pg->flags & PG_ALLOCATED))
		return "not the start of an allocated block (double free?)";
	if (pg->flags & (PG_SLAB | PG_LARGE))
		return "page still owned by the heap";
	if (pg->order != order)
		return "order differs from the allocation's";
	return NULL;
}

void page_free(phys_addr_t pa, unsigned int order)
{
	unsigned long flags;
	const char *why;
	u64 pfn = pa >> PAGE_SHIFT;
	unsigned int freed = order;

	flags = spin_lock_irqsave(&page_lock);
	why = free_refusal(pa, order);
	if (why) {
		spin_unlock_irqrestore(&page_lock, flags);
		pr_err("page_free: refused %#llx order %u: %s\n", (unsigned long long)pa, order, why);
		return;
	}
	pfn_page(pfn)->flags = 0;
	/* Coalesce upward while the buddy is a whole free block of the same order. */
	while (order < PAGE_MAX_ORDER) {
		u64 buddy = pfn ^ (1ULL << order);
		struct page *bp;

		if (!pfn_in_map(buddy))
			break;
		bp = pfn_page(buddy);
		if (!(bp->flags & PG_FREE) || bp->order != order)
			break;
		block_del(bp);
		pfn &= ~(1ULL << order);
		order++;
	}
	block_add(pfn, order);
	nr_free += 1ULL << freed;
	spin_unlock_irqrestore(&page_lock, flags);
}

void *alloc_pages(unsigned int order)
{
	phys_addr_t pa = page_alloc(order);

	return pa ? phys_to_virt(pa) : NULL;
}

void free_pages(void *va, unsigned int order)
{
	if (va)
		page_free(virt_to_phys(va), order);
}

/* Reserved pages never change state, so this needs no lock. */
struct page *phys_to_page(phys_addr_t pa)
{
	u64 pfn = pa >> PAGE_SHIFT;
	struct page *pg;

	if (!page_map || !pfn_in_map(pfn))
		return NULL;
	pg = pfn_page(pfn);
	return (pg->flags & PG_RESERVED) ? NULL : pg;
}

struct page *virt_to_page(const void *va)
{
	return phys_to_page(virt_to_phys(va));
}

u64 page_alloc_free_pages(void)
{
	return READ_ONCE(nr_free);
}

u64 page_alloc_total_pages(void)
{
	return READ_ONCE(nr_total);
}

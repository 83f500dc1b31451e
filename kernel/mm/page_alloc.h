/*
 * The physical page allocator: a binary buddy allocator over every usable,
 * unreserved page, with free/total counters. Callers get NULL / 0 when
 * memory runs out and must handle it.
 */
#ifndef FULCRUM_MM_PAGE_ALLOC_H
#define FULCRUM_MM_PAGE_ALLOC_H

#include "lib/list.h"
#include "lib/types.h"
#include "mm/memmap.h"

#define PAGE_MAX_ORDER 10 /* largest block: 2^10 pages = 4 MiB */

/* Per-page metadata, one per page frame between the lowest and highest usable page. */
struct page {
	struct list_head list; /* free list link while free; owner's use otherwise */
	u8 order;	       /* order of the block this page heads */
	u8 flags;	       /* PG_* */
	u16 slab_class;	       /* heap: size class of a slab page */
	u32 inuse;	       /* heap: objects allocated from a slab page */
	void *freelist;	       /* heap: first free object of a slab page */
};

#define PG_FREE	     0x01 /* heads a free block of 2^order pages */
#define PG_RESERVED  0x02 /* never handed out (hole, reserved range) */
#define PG_SLAB	     0x04 /* heap slab page */
#define PG_LARGE     0x08 /* heap large allocation of 2^order pages */
/*
 * Heads a block handed out by page_alloc(), with its order in ->order; page_free()
 * checks it to refuse tails, wrong orders and double frees. Owners may add
 * PG_SLAB / PG_LARGE beside it but must clear those before page_free().
 */
#define PG_ALLOCATED 0x10

/*
 * Allocates the page array with memmap_alloc_early() (so every usable page
 * must already be reachable through phys_to_virt) and frees all of mm's
 * free ranges into the buddy lists. Returns 0 or -ENOMEM.
 */
int page_alloc_init(struct memmap *mm);

/* 2^order contiguous pages, aligned to their size; 0 when out of memory. */
phys_addr_t page_alloc(unsigned int order);
void page_free(phys_addr_t pa, unsigned int order);

/* The same through the direct map; NULL when out of memory. */
void *alloc_pages(unsigned int order);
void free_pages(void *va, unsigned int order);

/* The struct page of a managed address, or NULL if the allocator does not manage it. */
struct page *phys_to_page(phys_addr_t pa);
struct page *virt_to_page(const void *va);

u64 page_alloc_free_pages(void);
u64 page_alloc_total_pages(void);

#endif

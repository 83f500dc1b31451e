/*
 * The physical memory map: the firmware's list (via multiboot2) cleaned
 * into sorted, disjoint, page-aligned usable ranges, plus the ranges that
 * must never be handed out (kernel image, boot modules, multiboot info,
 * the first MiB). Before the page allocator exists it also serves early
 * allocations (page tables, the page array).
 */
#ifndef FULCRUM_MM_MEMMAP_H
#define FULCRUM_MM_MEMMAP_H

#include "lib/types.h"

/* Multiboot2 / E820 memory types. */
enum mem_type {
	MEM_USABLE = 1,
	MEM_RESERVED = 2,
	MEM_ACPI_RECLAIMABLE = 3,
	MEM_ACPI_NVS = 4,
	MEM_BAD = 5,
};

/* One firmware entry, as given (possibly odd: overlapping, unaligned, empty). */
struct mem_entry {
	u64 base;
	u64 length;
	u32 type;
};

/* [start, end), page-aligned. */
struct mem_range {
	phys_addr_t start, end;
};

#define MEMMAP_MAX_RANGES 128

struct memmap {
	struct mem_range usable[MEMMAP_MAX_RANGES]; /* sorted, disjoint */
	size_t nr_usable;
	struct mem_range reserved[MEMMAP_MAX_RANGES]; /* sorted, merged */
	size_t nr_reserved;
	u32 odd_entries;    /* entries that were empty, overlapping, unaligned or out of range */
	u32 dropped_ranges; /* ranges lost because a table was full */
};

/*
 * Builds the map from firmware entries. A byte is usable only if at least
 * one entry says MEM_USABLE and no entry covering it says anything else;
 * usable ranges are shrunk inward to page boundaries; ranges above
 * PHYS_ADDR_LIMIT and entries whose base + length overflows are clamped.
 * Physical page 0 is never usable.
 */
void memmap_init(struct memmap *mm, const struct mem_entry *entries, size_t n);

/* Marks [start, end) (widened to pages) as never to be handed out. */
void memmap_reserve(struct memmap *mm, phys_addr_t start, phys_addr_t end);

/* True if any byte of [start, end) is reserved. */
bool memmap_is_reserved(const struct memmap *mm, phys_addr_t start, phys_addr_t end);

/*
 * Early allocation: size bytes (rounded up to pages) at the given
 * alignment (a power of two, at least PAGE_SIZE), entirely below limit,
 * from usable memory that is not reserved; the range becomes reserved.
 * Takes the highest fitting range below limit. Returns 0 when nothing fits.
 */
phys_addr_t memmap_alloc_early(struct memmap *mm, u64 size, u64 align, phys_addr_t limit);

/* Calls fn on each usable-and-unreserved range, in address order. */
void memmap_for_each_free(const struct memmap *mm,
			  void (*fn)(phys_addr_t start, phys_addr_t end, void *arg), void *arg);

/* Total bytes in usable ranges / in usable-and-unreserved ranges. */
u64 memmap_usable_bytes(const struct memmap *mm);
u64 memmap_free_bytes(const struct memmap *mm);

/* Highest usable address + 1 (0 if none). */
phys_addr_t memmap_end(const struct memmap *mm);

#endif

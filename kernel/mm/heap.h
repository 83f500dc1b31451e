/*
 * The kernel heap: kmalloc/kfree for small objects from per-size-class
 * slab pages; anything larger than a page's worth comes straight from the
 * page allocator. NULL means out of memory and the caller must cope.
 */
#ifndef FULCRUM_MM_HEAP_H
#define FULCRUM_MM_HEAP_H

#include "lib/types.h"

void heap_init(void);

/* size bytes aligned to 16 (size > 0); NULL when out of memory or size == 0. */
void *kmalloc(size_t size);
void *kzalloc(size_t size);
/* Frees an object from kmalloc; NULL is ignored; a foreign pointer is reported, not freed. */
void kfree(const void *p);

struct heap_stats {
	u64 objects;	 /* live kmalloc objects */
	u64 bytes;	 /* bytes in live objects, as rounded to their size class */
	u64 slab_pages;	 /* pages held by slabs */
	u64 spare_pages; /* of those, empty slabs kept as a class's spare (a cache, not in use) */
	u64 large_pages; /* pages held by large allocations */
	u64 bad_frees;	 /* kfree calls that were refused */
};

void heap_get_stats(struct heap_stats *st);

#endif

/*
 * Shared anonymous memory: a fixed number of zero-filled pages that
 * several areas, in one address space or in many (fork), map at once, so
 * a write through one mapping is seen through every other. The pages are
 * made on first touch and belong to the object, not to the areas: they
 * are freed when its last reference goes (MAP_SHARED | MAP_ANONYMOUS).
 */
#ifndef FULCRUM_MM_SHMEM_H
#define FULCRUM_MM_SHMEM_H

#include "lib/types.h"

struct shmem;

/* An object of nr_pages pages (none made yet), one reference; NULL when out of memory. */
struct shmem *shmem_create(u64 nr_pages);
void shmem_get(struct shmem *s);
/* The last put frees every page: no mapping of them may remain (TLBs flushed). */
void shmem_put(struct shmem *s);
u64 shmem_pages(const struct shmem *s);

/*
 * The frame of page index (< shmem_pages), made zeroed if make and it is
 * not there yet; 0 if it is not there (or cannot be made). May be called
 * under a vm lock (it nests inside it).
 */
phys_addr_t shmem_frame(struct shmem *s, u64 index, bool make);

#endif

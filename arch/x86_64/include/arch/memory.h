/*
 * The address-space layout kernel/ may rely on: page size and the direct
 * map through which every physical address is reached.
 */
#ifndef FULCRUM_ARCH_MEMORY_H
#define FULCRUM_ARCH_MEMORY_H

#include "lib/types.h"

#define PAGE_SHIFT 12
#define PAGE_SIZE  (1UL << PAGE_SHIFT)
#define PAGE_MASK  (~(PAGE_SIZE - 1))

/* Highest physical address the paging code can map (MAXPHYADDR = 52). */
#define PHYS_ADDR_LIMIT (1ULL << 52)

/*
 * Virtual address at which physical address 0 appears. The kernel sets it
 * once (0xffff800000000000); host unit tests point it at a fake RAM arena.
 */
extern uintptr_t direct_map_base;

static inline void *phys_to_virt(phys_addr_t pa)
{
	return (void *)(uintptr_t)(pa + direct_map_base);
}

/* Only for pointers into the direct map (heap and page allocations). */
static inline phys_addr_t virt_to_phys(const void *va)
{
	return (phys_addr_t)((uintptr_t)va - direct_map_base);
}

#endif

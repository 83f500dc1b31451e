/* Kernel page tables: what kernel/ asks of the MMU at boot. */
#ifndef FULCRUM_ARCH_PAGING_H
#define FULCRUM_ARCH_PAGING_H

#include "lib/types.h"
#include "mm/memmap.h"

/* Physical extent [start, end) of the loaded kernel image, .bss included. */
void arch_kernel_extent(phys_addr_t *start, phys_addr_t *end);

/*
 * Builds the kernel's final page tables from table pages taken with
 * memmap_alloc_early(): the direct map of the first 4 GiB (firmware,
 * ACPI and device memory live there) and of all usable RAM above it, with
 * the largest pages that fit; the kernel image with per-section rights
 * (text read-only and executable, everything else no-execute) and an
 * unmapped guard page below the boot stack. Switches to them.
 */
void arch_paging_init(struct memmap *mm);

#endif

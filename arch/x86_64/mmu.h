/* Arch-private paging services: device mappings and the AP trampoline's tables. */
#ifndef FULCRUM_X86_MMU_H
#define FULCRUM_X86_MMU_H

#include "lib/types.h"

/* Physical address of the kernel's top-level page table (CR3). */
u64 paging_kernel_cr3(void);

/* Maps device registers uncached; NULL if the window is exhausted. */
void *paging_map_mmio(phys_addr_t pa, u64 size);

/*
 * A CR3 for APs starting up: the kernel's mappings plus the first 2 MiB
 * identity-mapped, where the trampoline at low_page runs while it turns
 * paging on.
 */
u64 paging_trampoline_cr3(phys_addr_t low_page);

#endif

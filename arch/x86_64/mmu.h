/*
 * Arch-private paging services: page-table entry bits, the kernel's tables,
 * device mappings and the AP trampoline's tables.
 */
#ifndef FULCRUM_X86_MMU_H
#define FULCRUM_X86_MMU_H

#include "lib/types.h"

#define PTE_P	 (1UL << 0)
#define PTE_W	 (1UL << 1)
#define PTE_U	 (1UL << 2)
#define PTE_PWT	 (1UL << 3)
#define PTE_PCD	 (1UL << 4)
#define PTE_PS	 (1UL << 7)
#define PTE_G	 (1UL << 8)
#define PTE_NX	 (1UL << 63)
#define PTE_ADDR 0x000ffffffffff000UL

/* PTE_NX where the CPU has it (EFER.NXE), else 0. */
u64 paging_nx_bit(void);

/* Calls addr_space.c has made on other CPUs to flush or unload a user address space. */
u64 addr_space_flush_ipis(void);

/* Physical address of the kernel's top-level page table (CR3). */
u64 paging_kernel_cr3(void);

/* Maps device registers uncached; NULL if the window is exhausted. */
void *paging_map_mmio(phys_addr_t pa, u64 size);
/* Maps device memory (a framebuffer) write-combining; NULL without PAT or room. */
void *paging_map_write_combining(phys_addr_t pa, u64 size);

/*
 * A CR3 for APs starting up: the kernel's mappings plus the first 2 MiB
 * identity-mapped, where the trampoline at low_page runs while it turns
 * paging on.
 */
u64 paging_trampoline_cr3(phys_addr_t low_page);

#endif

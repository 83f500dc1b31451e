/* The page attribute table: which memory type each PTE's PAT/PCD/PWT bits select. */
#ifndef FULCRUM_X86_PAT_H
#define FULCRUM_X86_PAT_H

#include "lib/types.h"

/* Boot CPU, before the kernel's page tables are loaded: programs IA32_PAT if CPUID has PAT. */
void pat_init_boot(void);
/* An AP: the same table as the boot CPU (every CPU must agree). */
void pat_init_ap(void);

/* The bits of a 4 KiB PTE that select write-combining, or 0 if there is no PAT (or nopat). */
u64 pat_wc_pte_bits(void);

#endif

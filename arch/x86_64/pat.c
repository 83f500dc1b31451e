/*
 * The page attribute table. Entries 0-3 keep their power-on types (WB,
 * WT, UC-, UC), so PCD and PWT mean what they always did; entry 4, chosen
 * by the PAT bit alone, becomes write-combining, for the framebuffer:
 * stores to it are gathered into bursts instead of going out one by one.
 * Nothing is mapped with the PAT bit before the table is written, so no
 * cache flush is needed around the write.
 */
#include "pat.h"

#include "cmdline.h"
#include "mmu.h"
#include "printk.h"
#include "x86.h"

#define MSR_PAT	       0x277
#define CPUID1_EDX_PAT (1U << 16)
#define PAT_WC	       0x01
#define PAT_WC_ENTRY   4
#define PTE_PAT_4K     (1UL << 7)	    /* in a 4 KiB PTE; bit 12 in large pages */
#define PAT_POWER_ON   0x0007040600070406UL /* WB WT UC- UC, twice */

static bool nopat;
BOOT_OPTION_BOOL(nopat, "nopat", &nopat,
		 "leave the page attribute table alone: the framebuffer stays in the direct map");

static u64 pat_value;

void pat_init_boot(void)
{
	u64 old;

	if (!(cpuid(1, 0).edx & CPUID1_EDX_PAT)) {
		pr_info("pat: the CPU has no PAT; the framebuffer is not write-combined\n");
		return;
	}
	if (nopat) {
		pr_info("pat: left alone (nopat)\n");
		return;
	}
	old = rdmsr(MSR_PAT);
	pat_value = (PAT_POWER_ON & ~(0xffUL << (8 * PAT_WC_ENTRY))) |
		    ((u64)PAT_WC << (8 * PAT_WC_ENTRY));
	wrmsr(MSR_PAT, pat_value);
	pr_info("pat: IA32_PAT %#llx (was %#llx): entry %d write-combining\n",
		(unsigned long long)pat_value, (unsigned long long)old, PAT_WC_ENTRY);
}

void pat_init_ap(void)
{
	if (pat_value)
		wrmsr(MSR_PAT, pat_value);
}

u64 pat_wc_pte_bits(void)
{
	return pat_value ? PTE_PAT_4K : 0;
}

/*
 * The kernel's page tables (4-level). The direct map puts physical
 * address P at DIRECT_MAP_BASE + P using 1 GiB pages where the CPU has
 * them, else 2 MiB, and 4 KiB only at unaligned edges. The kernel image is
 * mapped with 4 KiB pages so each section gets its own rights and the page
 * under the boot stack can stay unmapped as a guard.
 */
#include <arch/memory.h>
#include <arch/paging.h>

#include "lib/spinlock.h"
#include "lib/string.h"
#include "mm/page_alloc.h"
#include "fbcon.h"
#include "mmu.h"
#include "panic.h"
#include "pat.h"
#include "printk.h"
#include "x86.h"

#define MMIO_BASE  0xffffc90000000000UL /* device mappings, 1 TiB window */
#define MMIO_LIMIT 0xffffd90000000000UL

#define SIZE_4K		(1UL << 12)
#define SIZE_2M		(1UL << 21)
#define SIZE_1G		(1UL << 30)
#define EARLY_MAP_LIMIT (4UL << 30) /* what boot/entry.asm mapped */
#define CR4_PGE		(1UL << 7)

extern u8 __kernel_phys_start[], __text_start[], __text_end[], __rodata_start[], __rodata_end[];
extern u8 __data_start[], __kernel_end[], boot_stack_guard[];

uintptr_t direct_map_base = DIRECT_MAP_BASE;

static struct memmap *table_source;
static u64 *kernel_pml4;
static u64 mmio_next = MMIO_BASE;
static struct spinlock mmio_lock = SPINLOCK_INIT;
static bool have_1g_pages, have_nx;
static u64 nx_bit;
static u64 mapped_pages[3]; /* 4K, 2M, 1G counts in the direct map */

/* Table pages come from the memory map during boot, from the page allocator after it. */
static u64 *alloc_table(void)
{
	phys_addr_t pa = page_alloc_total_pages() ? page_alloc(0) :
						    memmap_alloc_early(table_source, PAGE_SIZE,
								       PAGE_SIZE, EARLY_MAP_LIMIT);
	u64 *t;

	if (!pa)
		panic("paging: no memory below 4 GiB for page tables");
	t = phys_to_virt(pa);
	memset(t, 0, PAGE_SIZE);
	return t;
}

/* The next-level table under entry *e, created if absent. */
static u64 *next_table(u64 *e)
{
	if (!(*e & PTE_P))
		*e = virt_to_phys(alloc_table()) | PTE_P | PTE_W;
	return phys_to_virt(*e & PTE_ADDR);
}

static unsigned int index_of(u64 va, int level) /* level 3 = PML4 .. 0 = PT */
{
	return (va >> (12 + 9 * level)) & 511;
}

/* Maps [va, va + size) to pa with the largest pages alignment allows. */
static void map_range(u64 *pml4, u64 va, u64 pa, u64 size, u64 flags, bool large)
{
	while (size) {
		u64 *pdpt = next_table(&pml4[index_of(va, 3)]);
		u64 *pd, *pt;

		if (large && have_1g_pages && !(va & (SIZE_1G - 1)) && !(pa & (SIZE_1G - 1)) &&
		    size >= SIZE_1G) {
			pdpt[index_of(va, 2)] = pa | flags | PTE_PS;
			va += SIZE_1G, pa += SIZE_1G, size -= SIZE_1G;
			mapped_pages[2]++;
			continue;
		}
		pd = next_table(&pdpt[index_of(va, 2)]);
		if (large && !(va & (SIZE_2M - 1)) && !(pa & (SIZE_2M - 1)) && size >= SIZE_2M) {
			pd[index_of(va, 1)] = pa | flags | PTE_PS;
			va += SIZE_2M, pa += SIZE_2M, size -= SIZE_2M;
			mapped_pages[1]++;
			continue;
		}
		pt = next_table(&pd[index_of(va, 1)]);
		pt[index_of(va, 0)] = pa | flags;
		va += SIZE_4K, pa += SIZE_4K, size -= SIZE_4K;
		if (large)
			mapped_pages[0]++;
	}
}

static void map_kernel_section(u64 *pml4, const u8 *start, const u8 *end, u64 flags)
{
	u64 va = ALIGN_DOWN((u64)start, SIZE_4K);
	u64 size = ALIGN_UP((u64)end, SIZE_4K) - va;

	map_range(pml4, va, va - KERNEL_VMA, size, flags | PTE_P | PTE_G, false);
}

/* Usable RAM above 4 GiB, reserved parts included (the usable list is not changed by allocations). */
static void map_ram_above_4g(u64 *pml4, const struct memmap *mm)
{
	for (size_t i = 0; i < mm->nr_usable; i++) {
		phys_addr_t start = MAX(mm->usable[i].start, EARLY_MAP_LIMIT),
			    end = mm->usable[i].end;

		if (end > start)
			map_range(pml4, DIRECT_MAP_BASE + start, start, end - start,
				  PTE_P | PTE_W | PTE_G | nx_bit, true);
	}
}

void arch_kernel_extent(phys_addr_t *start, phys_addr_t *end)
{
	*start = (phys_addr_t)(u64)__kernel_phys_start;
	*end = (u64)__kernel_end - KERNEL_VMA;
}

void arch_paging_init(struct memmap *mm)
{
	u64 *pml4;
	u64 data_flags;

	have_1g_pages = cpuid(0x80000001, 0).edx & (1U << 26);
	have_nx = rdmsr(MSR_EFER) & (1UL << 11); /* entry.asm set NXE if the CPU has it */
	nx_bit = have_nx ? PTE_NX : 0;
	data_flags = PTE_W | nx_bit;

	table_source = mm;
	pml4 = alloc_table();
	pat_init_boot(); /* before any mapping selects its write-combining entry */

	/* Direct map: all of the first 4 GiB, then RAM above. */
	map_range(pml4, DIRECT_MAP_BASE, 0, EARLY_MAP_LIMIT, PTE_P | PTE_W | PTE_G | nx_bit, true);
	map_ram_above_4g(pml4, mm);

	/* Kernel image, section by section; the stack guard page stays unmapped. */
	map_kernel_section(pml4, __text_start, __text_end, 0);
	map_kernel_section(pml4, __rodata_start, __rodata_end, nx_bit);
	map_kernel_section(pml4, __data_start, boot_stack_guard, data_flags);
	map_kernel_section(pml4, boot_stack_guard + PAGE_SIZE, __kernel_end, data_flags);

	/*
	 * Every kernel top-level entry exists from now on: user address spaces
	 * copy entries 256-511 once, so a later kernel mapping must land in a
	 * table they already share.
	 */
	for (int i = 256; i < 512; i++)
		next_table(&pml4[i]);

	write_cr4(read_cr4() | CR4_PGE);
	write_cr3(virt_to_phys(pml4));
	kernel_pml4 = pml4;
	pr_info("paging: direct map with %llu 1G, %llu 2M, %llu 4K pages; kernel text RX, data %s\n",
		(unsigned long long)mapped_pages[2], (unsigned long long)mapped_pages[1],
		(unsigned long long)mapped_pages[0], have_nx ? "NX" : "executable (no NX)");
	fbcon_map_write_combining(); /* the kernel's tables exist now */
}

u64 paging_nx_bit(void)
{
	return nx_bit;
}

u64 paging_kernel_cr3(void)
{
	return virt_to_phys(kernel_pml4);
}

/* Maps [pa, pa + size) into the device window with these PTE bits; NULL when it is full. */
static void *map_device(phys_addr_t pa, u64 size, u64 flags)
{
	u64 offset = pa & (PAGE_SIZE - 1), va;
	unsigned long irq;

	size = ALIGN_UP(size + offset, PAGE_SIZE);
	irq = spin_lock_irqsave(&mmio_lock);
	va = mmio_next;
	if (va + size > MMIO_LIMIT) {
		spin_unlock_irqrestore(&mmio_lock, irq);
		return NULL;
	}
	mmio_next += size + PAGE_SIZE; /* an unmapped page between mappings catches overruns */
	map_range(kernel_pml4, va, pa - offset, size, flags | PTE_P | PTE_W | PTE_G | nx_bit, false);
	spin_unlock_irqrestore(&mmio_lock, irq);
	return (void *)(va + offset);
}

void *paging_map_mmio(phys_addr_t pa, u64 size)
{
	/* Strong uncacheable: PCD + PWT select PAT entry 3, which pat.c leaves UC. */
	return map_device(pa, size, PTE_PCD | PTE_PWT);
}

void *paging_map_write_combining(phys_addr_t pa, u64 size)
{
	u64 wc = pat_wc_pte_bits();

	return wc ? map_device(pa, size, wc) : NULL;
}

u64 paging_trampoline_cr3(phys_addr_t low_page)
{
	u64 *pml4 = alloc_table(), *pdpt = alloc_table(), *pd = alloc_table();

	if (low_page >= SIZE_2M)
		panic("paging: trampoline page %#llx is not in the first 2 MiB",
		      (unsigned long long)low_page);
	/* The kernel's upper half, shared table by table; plus the first 2 MiB at 0. */
	for (int i = 256; i < 512; i++)
		pml4[i] = kernel_pml4[i];
	pd[0] = 0 | PTE_P | PTE_W | PTE_PS;
	pdpt[0] = virt_to_phys(pd) | PTE_P | PTE_W;
	pml4[0] = virt_to_phys(pdpt) | PTE_P | PTE_W;
	return virt_to_phys(pml4);
}

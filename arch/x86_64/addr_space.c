/*
 * User page tables: a 4-level tree per address space whose lower half
 * (PML4 entries 0-255) maps the process with 4 KiB pages and whose upper
 * half is the kernel's, copied at creation (paging.c made every kernel
 * top-level entry at boot, so the copy never goes stale).
 *
 * TLB coherence: a CPU sets its bit in mm->active before loading mm and
 * clears it after loading something else (a CR3 write drops every
 * non-global entry, so a CPU outside the mask caches nothing of mm).
 * arch_mm_flush therefore only has to reach the CPUs in the mask.
 */
#include <arch/addr_space.h>
#include <arch/cpu.h>
#include <arch/memory.h>
#include <arch/smp.h>

#include "cpu_local.h"
#include "lib/errno.h"
#include "lib/string.h"
#include "mm/page_alloc.h"
#include "mmu.h"
#include "x86.h"

/* A leaf's software bits: a mapping exists (even PROT_NONE); its PROT_*. */
#define PTE_SW_MAPPED	  (1UL << 52)
#define PTE_SW_PROT_SHIFT 9 /* bits 9-11 */
#define PTE_SW_PROT	  (7UL << PTE_SW_PROT_SHIFT)

/* Upper levels allow everything; the leaf decides. */
#define PTE_TABLE (PTE_P | PTE_W | PTE_U)

#define USER_PML4_ENTRIES 256
#define PROT_ALL	  (PROT_READ | PROT_WRITE | PROT_EXEC)

static u64 flush_ipis; /* cross-CPU flushes sent, for the self-test */

static unsigned int index_of(uintptr_t va, int level) /* level 3 = PML4 .. 0 = PT */
{
	return (va >> (12 + 9 * level)) & 511;
}

static u64 *table_of(u64 entry)
{
	return phys_to_virt(entry & PTE_ADDR);
}

static bool user_page(uintptr_t va)
{
	return va >= USER_ADDR_MIN && va < USER_ADDR_END && IS_ALIGNED(va, PAGE_SIZE);
}

static u64 leaf_entry(phys_addr_t pa, unsigned prot)
{
	u64 e = pa | PTE_SW_MAPPED | ((u64)prot << PTE_SW_PROT_SHIFT);

	if (prot) /* x86 has no write-only or exec-only pages: any access makes it readable */
		e |= PTE_P | PTE_U;
	if (prot & PROT_WRITE)
		e |= PTE_W;
	if (!(prot & PROT_EXEC))
		e |= paging_nx_bit();
	return e;
}

/* The leaf entry for va, or NULL when a table on the way is missing. Lock-free for readers. */
static u64 *find_entry(const struct arch_mm *mm, uintptr_t va)
{
	u64 *t = phys_to_virt(mm->root);

	for (int level = 3; level > 0; level--) {
		u64 e = READ_ONCE(t[index_of(va, level)]);

		if (!(e & PTE_P))
			return NULL;
		t = table_of(e);
	}
	return &t[index_of(va, 0)];
}

/* Like find_entry, making missing tables; NULL when out of memory. mm->lock held. */
static u64 *make_entry(struct arch_mm *mm, uintptr_t va)
{
	u64 *t = phys_to_virt(mm->root);

	for (int level = 3; level > 0; level--) {
		u64 *e = &t[index_of(va, level)];

		if (!(*e & PTE_P)) {
			phys_addr_t pa = page_alloc(0);

			if (!pa)
				return NULL;
			memset(phys_to_virt(pa), 0, PAGE_SIZE);
			mm->nr_tables++;
			/* Zeroed before it is linked: a lock-free walker sees all or nothing. */
			__atomic_store_n(e, pa | PTE_TABLE, __ATOMIC_RELEASE);
		}
		t = table_of(*e);
	}
	return &t[index_of(va, 0)];
}

int arch_mm_init(struct arch_mm *mm)
{
	phys_addr_t root = page_alloc(0);
	u64 *pml4, *kernel;

	if (!root)
		return -ENOMEM;
	pml4 = phys_to_virt(root);
	kernel = phys_to_virt(paging_kernel_cr3());
	memset(pml4, 0, USER_PML4_ENTRIES * sizeof(u64));
	memcpy(pml4 + USER_PML4_ENTRIES, kernel + USER_PML4_ENTRIES,
	       (512 - USER_PML4_ENTRIES) * sizeof(u64));
	mm->root = root;
	mm->lock = (struct spinlock)SPINLOCK_INIT;
	cpumask_clear(&mm->active);
	mm->nr_tables = 1;
	return 0;
}

/* ---------------------------------------------------------------- loading and flushing */

static void mask_set(struct cpumask *m, u32 cpu)
{
	__atomic_or_fetch(&m->bits[cpu / 64], 1ULL << (cpu % 64), __ATOMIC_SEQ_CST);
}

static void mask_clear(struct cpumask *m, u32 cpu)
{
	__atomic_and_fetch(&m->bits[cpu / 64], ~(1ULL << (cpu % 64)), __ATOMIC_SEQ_CST);
}

static void mask_snapshot(struct cpumask *dst, const struct cpumask *m)
{
	for (u32 w = 0; w < CPUMASK_WORDS; w++)
		dst->bits[w] = __atomic_load_n(&m->bits[w], __ATOMIC_SEQ_CST);
}

/* Interrupts off. The bit goes up before CR3 points at mm and down after it points elsewhere. */
static void load(struct cpu_local *c, struct arch_mm *mm)
{
	struct arch_mm *old = c->loaded_mm;

	if (mm) {
		mask_set(&mm->active, c->cpu);
		write_cr3(mm->root);
	} else {
		write_cr3(paging_kernel_cr3());
	}
	c->loaded_mm = mm;
	if (old)
		mask_clear(&old->active, c->cpu);
}

void arch_mm_activate(struct arch_mm *mm)
{
	unsigned long flags = arch_irq_save();
	struct cpu_local *c = this_cpu_local();

	if (c->loaded_mm != mm)
		load(c, mm);
	arch_irq_restore(flags);
}

/* On each CPU that may cache mm (from the call-function IPI, or directly here). */
static void flush_here(void *arg)
{
	struct arch_mm *mm = arg;

	if (this_cpu_local()->loaded_mm == mm)
		write_cr3(mm->root); /* reloading CR3 drops every non-global translation */
}

static void unload_here(void *arg)
{
	struct cpu_local *c = this_cpu_local();

	if (c->loaded_mm == arg)
		load(c, NULL);
}

/* Runs fn(mm) on every CPU in mm->active, waiting for each. */
static void on_active_cpus(struct arch_mm *mm, void (*fn)(void *arg))
{
	struct cpumask targets;
	u32 cpu;

	/* The caller's table changes are visible before we read who may cache them. */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	mask_snapshot(&targets, &mm->active);
	for_each_cpu (cpu, &targets) {
		if (cpu != arch_cpu_id())
			__atomic_add_fetch(&flush_ipis, 1, __ATOMIC_RELAXED);
		arch_call_on_cpu(cpu, fn, mm, true);
	}
}

void arch_mm_flush(struct arch_mm *mm)
{
	on_active_cpus(mm, flush_here);
}

u64 addr_space_flush_ipis(void)
{
	return __atomic_load_n(&flush_ipis, __ATOMIC_RELAXED);
}

/* ---------------------------------------------------------------- mappings */

int arch_mm_map(struct arch_mm *mm, uintptr_t va, phys_addr_t pa, unsigned prot)
{
	unsigned long flags;
	u64 *e;
	int err = 0;

	if (!user_page(va) || !IS_ALIGNED(pa, PAGE_SIZE) || pa >= PHYS_ADDR_LIMIT ||
	    (prot & ~PROT_ALL))
		return -EINVAL;
	flags = spin_lock_irqsave(&mm->lock);
	e = make_entry(mm, va);
	if (!e)
		err = -ENOMEM;
	else if (*e & PTE_SW_MAPPED)
		err = -EEXIST;
	else
		WRITE_ONCE(*e, leaf_entry(pa, prot)); /* was not present: nothing to flush */
	spin_unlock_irqrestore(&mm->lock, flags);
	return err;
}

phys_addr_t arch_mm_unmap(struct arch_mm *mm, uintptr_t va)
{
	unsigned long flags;
	phys_addr_t pa = 0;
	u64 *e;

	if (!user_page(va))
		return 0;
	flags = spin_lock_irqsave(&mm->lock);
	e = find_entry(mm, va);
	if (e && (*e & PTE_SW_MAPPED)) {
		pa = *e & PTE_ADDR;
		WRITE_ONCE(*e, 0);
	}
	spin_unlock_irqrestore(&mm->lock, flags);
	return pa;
}

int arch_mm_protect(struct arch_mm *mm, uintptr_t va, unsigned prot)
{
	unsigned long flags;
	int err = -ENOENT;
	u64 *e;

	if (!user_page(va) || (prot & ~PROT_ALL))
		return -EINVAL;
	flags = spin_lock_irqsave(&mm->lock);
	e = find_entry(mm, va);
	if (e && (*e & PTE_SW_MAPPED)) {
		WRITE_ONCE(*e, leaf_entry(*e & PTE_ADDR, prot));
		err = 0;
	}
	spin_unlock_irqrestore(&mm->lock, flags);
	return err;
}

bool arch_mm_query(const struct arch_mm *mm, uintptr_t va, phys_addr_t *pa, unsigned *prot)
{
	u64 *e = user_page(va) ? find_entry(mm, va) : NULL;
	u64 v = e ? READ_ONCE(*e) : 0;

	if (!(v & PTE_SW_MAPPED))
		return false;
	if (pa)
		*pa = v & PTE_ADDR;
	if (prot)
		*prot = (unsigned)((v & PTE_SW_PROT) >> PTE_SW_PROT_SHIFT);
	return true;
}

/* ---------------------------------------------------------------- teardown */

/* Frees the table under entry and, above the last level, the tables under it. */
static void free_table(u64 entry, int level)
{
	u64 *t = table_of(entry);

	if (level > 1)
		for (int i = 0; i < 512; i++)
			if (t[i] & PTE_P)
				free_table(t[i], level - 1);
	page_free(entry & PTE_ADDR, 0);
}

void arch_mm_destroy(struct arch_mm *mm)
{
	u64 *pml4 = phys_to_virt(mm->root);

	on_active_cpus(mm, unload_here); /* this CPU too, if the dying process runs here */
	for (int i = 0; i < USER_PML4_ENTRIES; i++)
		if (pml4[i] & PTE_P)
			free_table(pml4[i], 3);
	page_free(mm->root, 0);
	mm->root = 0;
	mm->nr_tables = 0;
}

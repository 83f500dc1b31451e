/*
 * Host implementation of the user page-table interface (arch/addr_space.h):
 * each space is a sorted array of (va, pa, prot) kept on the host heap, plus
 * a root page and one "table page" per 2 MiB region ever mapped, both taken
 * from the kernel's page allocator as the real tables are, and freed only by
 * arch_mm_destroy(). The arch_mm itself carries only its root; the fake finds
 * its own records by that root, so it works whatever private fields the real
 * struct has.
 */
#include <stdlib.h>
#include <string.h>

#include <arch/memory.h>

#include "fake_addr_space.h"
#include "lib/errno.h"
#include "mm/page_alloc.h"

#define REGION_SHIFT 21 /* one table page maps 2 MiB, as a real page table does */

struct fake_pte {
	uintptr_t va;
	phys_addr_t pa;
	unsigned int prot;
};

struct fake_space {
	struct fake_space *next;
	phys_addr_t root;
	struct fake_pte *ptes; /* sorted by va */
	size_t nr_ptes, cap_ptes;
	uintptr_t *regions; /* va >> REGION_SHIFT of each table page */
	phys_addr_t *tables;
	size_t nr_tables, cap_tables;
};

unsigned long fake_mm_live;
unsigned long fake_mm_tables;
unsigned long fake_mm_mapped;
unsigned long fake_mm_flushes;
unsigned long fake_mm_misuse;
struct arch_mm *fake_mm_active;
long fake_mm_init_fail_in;
long fake_mm_map_fail_in;
void (*fake_mm_flush_hook)(struct arch_mm *mm);

static struct fake_space *spaces;

void fake_mm_reset(void)
{
	if (spaces)
		fake_mm_misuse++; /* a test left a space behind */
	fake_mm_live = fake_mm_tables = fake_mm_mapped = 0;
	fake_mm_flushes = fake_mm_misuse = 0;
	fake_mm_active = NULL;
	fake_mm_init_fail_in = fake_mm_map_fail_in = 0;
	fake_mm_flush_hook = NULL;
	spaces = NULL;
}

static bool injected_failure(long *countdown)
{
	return *countdown > 0 && --*countdown == 0;
}

static struct fake_space *space_of(const struct arch_mm *mm)
{
	for (struct fake_space *s = spaces; s; s = s->next)
		if (mm && s->root == mm->root)
			return s;
	fake_mm_misuse++;
	return NULL;
}

/* Index of the first entry with va >= key. */
static size_t pte_index(const struct fake_space *s, uintptr_t key)
{
	size_t lo = 0, hi = s->nr_ptes;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->ptes[mid].va < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static struct fake_pte *pte_find(const struct fake_space *s, uintptr_t va)
{
	size_t i = pte_index(s, va);

	return i < s->nr_ptes && s->ptes[i].va == va ? &s->ptes[i] : NULL;
}

static bool user_page(uintptr_t va)
{
	return IS_ALIGNED(va, PAGE_SIZE) && va >= USER_ADDR_MIN && va < USER_ADDR_END;
}

/* The table page covering va, allocated on first use. */
static int ensure_table(struct fake_space *s, uintptr_t va)
{
	uintptr_t region = va >> REGION_SHIFT;
	phys_addr_t pa;

	for (size_t i = 0; i < s->nr_tables; i++)
		if (s->regions[i] == region)
			return 0;
	if (s->nr_tables == s->cap_tables) {
		size_t cap = s->cap_tables ? 2 * s->cap_tables : 8;

		s->regions = realloc(s->regions, cap * sizeof(*s->regions));
		s->tables = realloc(s->tables, cap * sizeof(*s->tables));
		if (!s->regions || !s->tables)
			abort();
		s->cap_tables = cap;
	}
	pa = page_alloc(0);
	if (!pa)
		return -ENOMEM;
	s->regions[s->nr_tables] = region;
	s->tables[s->nr_tables++] = pa;
	fake_mm_tables++;
	return 0;
}

int arch_mm_init(struct arch_mm *mm)
{
	struct fake_space *s;

	if (injected_failure(&fake_mm_init_fail_in))
		return -ENOMEM;
	s = calloc(1, sizeof(*s));
	if (!s)
		abort();
	s->root = page_alloc(0);
	if (!s->root) {
		free(s);
		return -ENOMEM;
	}
	memset(mm, 0, sizeof(*mm));
	mm->root = s->root;
	s->next = spaces;
	spaces = s;
	fake_mm_live++;
	fake_mm_tables++;
	return 0;
}

void arch_mm_destroy(struct arch_mm *mm)
{
	struct fake_space *s = space_of(mm), **link;

	if (!s)
		return;
	if (s->nr_ptes) {
		fake_mm_misuse++; /* the frames still mapped would leak */
		fake_mm_mapped -= s->nr_ptes;
	}
	if (fake_mm_active == mm)
		fake_mm_active = NULL; /* the real one unloads it too */
	for (link = &spaces; *link != s; link = &(*link)->next)
		;
	*link = s->next;
	for (size_t i = 0; i < s->nr_tables; i++)
		page_free(s->tables[i], 0);
	page_free(s->root, 0);
	fake_mm_tables -= s->nr_tables + 1;
	fake_mm_live--;
	free(s->ptes);
	free(s->regions);
	free(s->tables);
	free(s);
	mm->root = 0;
}

int arch_mm_map(struct arch_mm *mm, uintptr_t va, phys_addr_t pa, unsigned prot)
{
	struct fake_space *s = space_of(mm);
	size_t i;
	int err;

	if (!s)
		return -EINVAL;
	if (!user_page(va) || !pa || !IS_ALIGNED(pa, PAGE_SIZE) ||
	    (prot & ~(PROT_READ | PROT_WRITE | PROT_EXEC))) {
		fake_mm_misuse++;
		return -EINVAL;
	}
	if (pte_find(s, va)) {
		fake_mm_misuse++;
		return -EEXIST;
	}
	if (injected_failure(&fake_mm_map_fail_in))
		return -ENOMEM;
	err = ensure_table(s, va);
	if (err)
		return err;
	if (s->nr_ptes == s->cap_ptes) {
		s->cap_ptes = s->cap_ptes ? 2 * s->cap_ptes : 64;
		s->ptes = realloc(s->ptes, s->cap_ptes * sizeof(*s->ptes));
		if (!s->ptes)
			abort();
	}
	i = pte_index(s, va);
	memmove(&s->ptes[i + 1], &s->ptes[i], (s->nr_ptes - i) * sizeof(*s->ptes));
	s->ptes[i] = (struct fake_pte){ .va = va, .pa = pa, .prot = prot };
	s->nr_ptes++;
	fake_mm_mapped++;
	return 0;
}

phys_addr_t arch_mm_unmap(struct arch_mm *mm, uintptr_t va)
{
	struct fake_space *s = space_of(mm);
	struct fake_pte *p;
	phys_addr_t pa;
	size_t i;

	if (!s)
		return 0;
	if (!user_page(va)) {
		fake_mm_misuse++;
		return 0;
	}
	p = pte_find(s, va);
	if (!p)
		return 0;
	pa = p->pa;
	i = (size_t)(p - s->ptes);
	memmove(&s->ptes[i], &s->ptes[i + 1], (s->nr_ptes - i - 1) * sizeof(*s->ptes));
	s->nr_ptes--;
	fake_mm_mapped--;
	return pa;
}

int arch_mm_protect(struct arch_mm *mm, uintptr_t va, unsigned prot)
{
	struct fake_space *s = space_of(mm);
	struct fake_pte *p;

	if (!s)
		return -EINVAL;
	if (!user_page(va) || (prot & ~(PROT_READ | PROT_WRITE | PROT_EXEC))) {
		fake_mm_misuse++;
		return -EINVAL;
	}
	p = pte_find(s, va);
	if (!p)
		return -ENOENT;
	p->prot = prot;
	return 0;
}

bool arch_mm_query(const struct arch_mm *mm, uintptr_t va, phys_addr_t *pa, unsigned *prot)
{
	struct fake_space *s = space_of(mm);
	struct fake_pte *p;

	if (!s)
		return false;
	p = pte_find(s, ALIGN_DOWN(va, PAGE_SIZE));
	if (!p)
		return false;
	if (pa)
		*pa = p->pa;
	if (prot)
		*prot = p->prot;
	return true;
}

void arch_mm_flush(struct arch_mm *mm)
{
	if (fake_mm_flush_hook)
		fake_mm_flush_hook(mm);
	space_of(mm);
	fake_mm_flushes++;
}

void arch_mm_activate(struct arch_mm *mm)
{
	if (mm)
		space_of(mm);
	fake_mm_active = mm;
}

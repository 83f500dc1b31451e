/*
 * The kernel heap: kmalloc/kfree over the page allocator. Small objects come from
 * slab pages, one power-of-two size class per page; larger ones are whole buddy
 * blocks. Every object's struct page says which of the two it is.
 */
#include "mm/heap.h"

#include <arch/memory.h>

#include "lib/compiler.h"
#include "lib/list.h"
#include "lib/spinlock.h"
#include "lib/string.h"
#include "mm/page_alloc.h"
#include "printk.h"

#define SLAB_MIN_SHIFT	4  /* 16 bytes: the promised alignment */
#define SLAB_MAX_SHIFT	11 /* 2048 bytes: two objects per page */
#define NR_SLAB_CLASSES (SLAB_MAX_SHIFT - SLAB_MIN_SHIFT + 1)

/*
 * A free object holds the free list link and a marker. The marker makes double
 * frees cheap to catch: kfree only walks the slab's free list (to be sure) when
 * the object it is given carries it, and kmalloc wipes it on the way out.
 */
struct free_obj {
	struct free_obj *next;
	u64 marker;
};

#define FREE_MARKER 0xfeedfacefee1deadULL

/*
 * A slab page (PG_SLAB) carries its class in ->slab_class, its live object count
 * in ->inuse and its free objects in ->freelist. It is on its class's partial
 * list while it has a free object and a live one; a full slab is on no list;
 * an empty one is either the class's spare or goes back to the page allocator.
 * Keeping one spare per class stops a lone kmalloc/kfree pair from taking and
 * returning a page (and rebuilding its free list) every time.
 */
struct slab_class {
	struct list_head partial;
	struct page *spare;
};

/* Lock order: heap_lock, then the page allocator's lock. */
static struct spinlock heap_lock = SPINLOCK_INIT;
static struct slab_class classes[NR_SLAB_CLASSES];
static struct heap_stats stats;
static bool heap_ready;

static size_t class_size(unsigned int c)
{
	return (size_t)1 << (c + SLAB_MIN_SHIFT);
}

static unsigned int size_to_class(size_t size)
{
	unsigned int c = 0;

	while (class_size(c) < size)
		c++;
	return c;
}

/* True if p is an object boundary inside slab page pg. */
static bool slab_owns(const struct page *pg, const void *p)
{
	return virt_to_page(p) == pg &&
	       (virt_to_phys(p) & (PAGE_SIZE - 1)) % class_size(pg->slab_class) == 0;
}

/* A fresh slab with every object on its free list, lowest address first. */
static struct page *slab_new(unsigned int c)
{
	phys_addr_t pa = page_alloc(0);
	size_t size = class_size(c);
	struct free_obj *next = NULL;
	struct page *pg;
	char *base;

	if (!pa)
		return NULL;
	pg = phys_to_page(pa);
	base = phys_to_virt(pa);
	for (size_t off = PAGE_SIZE; off >= size; off -= size) {
		struct free_obj *obj = (struct free_obj *)(base + off - size);

		obj->next = next;
		obj->marker = FREE_MARKER;
		next = obj;
	}
	pg->flags |= PG_SLAB;
	pg->slab_class = c;
	pg->inuse = 0;
	pg->freelist = next;
	list_init(&pg->list);
	stats.slab_pages++;
	return pg;
}

static void *slab_alloc(unsigned int c)
{
	struct slab_class *sc = &classes[c];
	struct free_obj *obj;
	struct page *pg;

	if (list_empty(&sc->partial)) {
		pg = sc->spare ? sc->spare : slab_new(c);
		if (!pg)
			return NULL;
		sc->spare = NULL;
		list_add(&pg->list, &sc->partial);
	}
	pg = list_first_entry(&sc->partial, struct page, list);
	obj = pg->freelist;
	pg->freelist = obj->next;
	if (pg->freelist && !slab_owns(pg, pg->freelist)) {
		/* Someone wrote to a freed object. Leak the rest rather than hand out garbage. */
		pr_err("kmalloc: corrupted free list in slab of %zu-byte objects at %p\n",
		       class_size(c), (void *)obj);
		pg->freelist = NULL;
	}
	pg->inuse++;
	if (!pg->freelist)
		list_del(&pg->list);
	obj->marker = 0;
	stats.objects++;
	stats.bytes += class_size(c);
	return obj;
}

static bool freelist_contains(const struct page *pg, const struct free_obj *obj)
{
	size_t limit = PAGE_SIZE / class_size(pg->slab_class);

	for (const struct free_obj *f = pg->freelist; f && limit--; f = f->next) {
		if (f == obj)
			return true;
		if (f->next && !slab_owns(pg, f->next))
			break; /* corrupted; slab_alloc reports it when it gets there */
	}
	return false;
}

/*
 * Puts obj back on its slab. Returns why it refused, or NULL; *release is set to
 * the slab page when the slab emptied and must go back to the page allocator.
 */
static const char *slab_free(struct page *pg, struct free_obj *obj, struct page **release)
{
	struct slab_class *sc = &classes[pg->slab_class];
	bool was_full = pg->freelist == NULL;

	if ((virt_to_phys(obj) & (PAGE_SIZE - 1)) % class_size(pg->slab_class))
		return "not the start of an object";
	if (pg->inuse == 0)
		return "double free (slab has no live objects)";
	if (obj->marker == FREE_MARKER && freelist_contains(pg, obj))
		return "double free";

	obj->next = pg->freelist;
	obj->marker = FREE_MARKER;
	pg->freelist = obj;
	pg->inuse--;
	stats.objects--;
	stats.bytes -= class_size(pg->slab_class);

	if (pg->inuse > 0) {
		if (was_full)
			list_add(&pg->list, &sc->partial);
		return NULL;
	}
	if (!was_full)
		list_del(&pg->list);
	if (!sc->spare) {
		sc->spare = pg;
	} else {
		pg->flags &= ~PG_SLAB;
		stats.slab_pages--;
		*release = pg;
	}
	return NULL;
}

/* Whole pages: the smallest order holding size, marked PG_LARGE, page-aligned. */
static void *large_alloc(size_t size)
{
	unsigned int order = 0;
	unsigned long flags;
	phys_addr_t pa;

	while ((PAGE_SIZE << order) < size) {
		if (++order > PAGE_MAX_ORDER)
			return NULL;
	}
	pa = page_alloc(order);
	if (!pa)
		return NULL;
	flags = spin_lock_irqsave(&heap_lock);
	phys_to_page(pa)->flags |= PG_LARGE;
	stats.objects++;
	stats.bytes += PAGE_SIZE << order;
	stats.large_pages += 1ULL << order;
	spin_unlock_irqrestore(&heap_lock, flags);
	return phys_to_virt(pa);
}

/*
 * Forgets all heap state: counters, partial lists, spares. Meant for boot, and
 * for unit tests that build a fresh page allocator before each test; pages the
 * previous heap held are not returned, they belong to the old allocator.
 */
void heap_init(void)
{
	heap_lock = (struct spinlock)SPINLOCK_INIT;
	memset(&stats, 0, sizeof(stats));
	for (unsigned int c = 0; c < NR_SLAB_CLASSES; c++) {
		list_init(&classes[c].partial);
		classes[c].spare = NULL;
	}
	heap_ready = true;
}

void *kmalloc(size_t size)
{
	unsigned long flags;
	void *p;

	if (size == 0)
		return NULL;
	if (unlikely(!heap_ready)) {
		pr_err("kmalloc: called before heap_init\n");
		return NULL;
	}
	if (size > class_size(NR_SLAB_CLASSES - 1))
		return large_alloc(size);
	flags = spin_lock_irqsave(&heap_lock);
	p = slab_alloc(size_to_class(size));
	spin_unlock_irqrestore(&heap_lock, flags);
	return p;
}

void *kzalloc(size_t size)
{
	void *p = kmalloc(size);

	if (p)
		memset(p, 0, size);
	return p;
}

void kfree(const void *p)
{
	struct page *pg, *release = NULL;
	phys_addr_t pa = virt_to_phys(p);
	unsigned int large_order = 0;
	const char *why = NULL;
	unsigned long flags;
	bool large = false;

	if (!p)
		return;
	pg = heap_ready ? virt_to_page(p) : NULL;
	flags = spin_lock_irqsave(&heap_lock);
	if (!pg) {
		why = "not a heap address";
	} else if (pg->flags & PG_LARGE) {
		if (!IS_ALIGNED(pa, PAGE_SIZE)) {
			why = "not the start of a large allocation";
		} else {
			pg->flags &= ~PG_LARGE;
			large = true;
			large_order = pg->order;
			stats.objects--;
			stats.bytes -= PAGE_SIZE << large_order;
			stats.large_pages -= 1ULL << large_order;
		}
	} else if (pg->flags & PG_SLAB) {
		/* The object is writable heap memory: a slab page is mapped and ours. */
		why = slab_free(pg, (struct free_obj *)(uintptr_t)p, &release);
	} else {
		why = "not a heap page (free, or from the page allocator)";
	}
	if (why)
		stats.bad_frees++;
	spin_unlock_irqrestore(&heap_lock, flags);

	if (why)
		pr_err("kfree: refused %p: %s\n", p, why);
	else if (large)
		page_free(pa, large_order);
	else if (release)
		page_free(pa & ~((phys_addr_t)PAGE_SIZE - 1), 0);
}

void heap_get_stats(struct heap_stats *st)
{
	unsigned long flags = spin_lock_irqsave(&heap_lock);

	*st = stats;
	st->spare_pages = 0;
	for (size_t c = 0; c < sizeof(classes) / sizeof(classes[0]); c++)
		st->spare_pages += classes[c].spare != NULL;
	spin_unlock_irqrestore(&heap_lock, flags);
}

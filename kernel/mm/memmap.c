/*
 * The physical memory map: turns the firmware's entries (in any order, possibly
 * overlapping or odd) into sorted, page-aligned usable ranges, keeps the table of
 * reserved ranges, and hands out early allocations before the page allocator runs.
 */
#include "mm/memmap.h"

#include <arch/memory.h>

#include "lib/compiler.h"
#include "lib/string.h"
#include "printk.h"

/*
 * A note on words: "usable" is what the firmware calls RAM, cleaned; "reserved"
 * is only what memmap_reserve() (and memmap_alloc_early()) recorded. Memory the
 * firmware did not call usable is simply absent from usable[], so it needs no
 * reserved entry and does not eat the reserved table's slots.
 */

/*
 * The span [*start, *end) an entry covers, clamped to PHYS_ADDR_LIMIT. False if it
 * covers nothing there (empty, or starting at or above the limit).
 */
static bool entry_span(const struct mem_entry *e, phys_addr_t *start, phys_addr_t *end)
{
	if (e->length == 0 || e->base >= PHYS_ADDR_LIMIT)
		return false;
	*start = e->base;
	/* Compared as "length beyond what is left below the limit" so the sum cannot wrap. */
	if (e->length > PHYS_ADDR_LIMIT - e->base)
		*end = PHYS_ADDR_LIMIT;
	else
		*end = e->base + e->length;
	return true;
}

static bool entry_is_odd(const struct mem_entry *entries, size_t n, size_t i)
{
	const struct mem_entry *e = &entries[i];
	phys_addr_t s, t, os, ot;

	if (!entry_span(e, &s, &t))
		return true;
	if (e->length > PHYS_ADDR_LIMIT - e->base)
		return true; /* runs past the limit, or past 2^64 */
	if (!IS_ALIGNED(e->base, PAGE_SIZE) || !IS_ALIGNED(e->length, PAGE_SIZE))
		return true;
	for (size_t j = 0; j < n; j++) {
		if (j != i && entry_span(&entries[j], &os, &ot) && os < t && s < ot)
			return true;
	}
	return false;
}

/*
 * Appends a usable range (they arrive in address order). When the table is full
 * the smallest range loses its place, so the map keeps as much memory as it can;
 * dropping usable memory only wastes it, it never hands out anything wrong.
 */
static void usable_add(struct memmap *mm, phys_addr_t start, phys_addr_t end)
{
	struct mem_range *r = mm->usable;
	size_t small = 0;

	if (mm->nr_usable == MEMMAP_MAX_RANGES) {
		mm->dropped_ranges++;
		for (size_t i = 1; i < mm->nr_usable; i++) {
			if (r[i].end - r[i].start < r[small].end - r[small].start)
				small = i;
		}
		if (end - start <= r[small].end - r[small].start)
			return;
		memmove(&r[small], &r[small + 1], (mm->nr_usable - small - 1) * sizeof(*r));
		mm->nr_usable--;
	}
	r[mm->nr_usable].start = start;
	r[mm->nr_usable].end = end;
	mm->nr_usable++;
}

/* Shrinks a run of usable bytes inward to whole pages, never page 0, and records it. */
static void usable_flush(struct memmap *mm, phys_addr_t start, phys_addr_t end)
{
	start = MAX(ALIGN_UP(start, PAGE_SIZE), PAGE_SIZE);
	end = ALIGN_DOWN(end, PAGE_SIZE);
	if (start < end)
		usable_add(mm, start, end);
}

/*
 * The map is built by sweeping the address line once: between two consecutive
 * entry boundaries every byte is covered by the same set of entries, so each such
 * piece is usable exactly when some entry there says MEM_USABLE and none says
 * anything else. Sorting, duplicates and overlaps need no special case. Finding
 * the next boundary scans all entries, O(n^2) overall, which is nothing for the
 * few dozen entries firmware gives.
 */
void memmap_init(struct memmap *mm, const struct mem_entry *entries, size_t n)
{
	phys_addr_t pos = 0, run_start = 0, run_end = 0;

	memset(mm, 0, sizeof(*mm));
	if (!entries)
		n = 0;
	for (size_t i = 0; i < n; i++) {
		if (entry_is_odd(entries, n, i))
			mm->odd_entries++;
	}

	while (pos < PHYS_ADDR_LIMIT) {
		phys_addr_t next = PHYS_ADDR_LIMIT, s, e;
		bool usable = false, other = false;

		for (size_t i = 0; i < n; i++) {
			if (!entry_span(&entries[i], &s, &e))
				continue;
			if (s > pos)
				next = MIN(next, s);
			if (e > pos)
				next = MIN(next, e);
		}
		/* No boundary lies inside [pos, next): an entry covers all of it or none. */
		for (size_t i = 0; i < n; i++) {
			if (!entry_span(&entries[i], &s, &e) || s > pos || e <= pos)
				continue;
			if (entries[i].type == MEM_USABLE)
				usable = true;
			else
				other = true;
		}
		if (usable && !other) {
			if (run_end != pos || run_start == run_end) {
				usable_flush(mm, run_start, run_end);
				run_start = pos;
			}
			run_end = next;
		}
		pos = next;
	}
	usable_flush(mm, run_start, run_end);

	if (mm->dropped_ranges)
		pr_warn("memmap: usable table full, %u ranges dropped\n", mm->dropped_ranges);
}

/*
 * The reserved table is full and [start, end) needs a slot of its own: merge the
 * two closest neighbours (the new range counts as one) into one range. That
 * reserves the gap between them too, which wastes memory but never loses a
 * reservation, whereas dropping one could hand out the kernel image.
 */
static void reserve_make_room(struct memmap *mm, size_t at, phys_addr_t start, phys_addr_t end)
{
	struct mem_range *r = mm->reserved;
	size_t n = mm->nr_reserved, pair = 0;
	u64 best = ~0ULL, left, right;

	pr_warn("memmap: reserved table full, merging neighbours\n");
	for (size_t k = 0; k + 1 < n; k++) {
		if (r[k + 1].start - r[k].end < best) {
			best = r[k + 1].start - r[k].end;
			pair = k;
		}
	}
	/* The gaps to the new range's neighbours (r[at - 1] ends before it, r[at] starts after). */
	left = at > 0 ? start - r[at - 1].end : ~0ULL;
	right = at < n ? r[at].start - end : ~0ULL;
	if (left <= best && left <= right) {
		r[at - 1].end = end;
		return;
	}
	if (right <= best) {
		r[at].start = start;
		return;
	}
	r[pair].end = r[pair + 1].end;
	memmove(&r[pair + 1], &r[pair + 2], (n - pair - 2) * sizeof(*r));
	mm->nr_reserved--;
	memmap_reserve(mm, start, end);
}

void memmap_reserve(struct memmap *mm, phys_addr_t start, phys_addr_t end)
{
	struct mem_range *r = mm->reserved;
	size_t n = mm->nr_reserved, i, j;

	/* Nothing at or above the limit is ever usable, so nothing there needs reserving. */
	end = MIN(end, PHYS_ADDR_LIMIT);
	if (start >= end)
		return;
	start = ALIGN_DOWN(start, PAGE_SIZE);
	end = ALIGN_UP(end, PAGE_SIZE);

	/* r[0..i) end before start and stay; r[i..j) touch or overlap the new range. */
	for (i = 0; i < n && r[i].end < start; i++)
		;
	for (j = i; j < n && r[j].start <= end; j++) {
		start = MIN(start, r[j].start);
		end = MAX(end, r[j].end);
	}
	if (j > i) {
		r[i].start = start;
		r[i].end = end;
		memmove(&r[i + 1], &r[j], (n - j) * sizeof(*r));
		mm->nr_reserved = n - (j - i) + 1;
		return;
	}
	if (n == MEMMAP_MAX_RANGES) {
		reserve_make_room(mm, i, start, end);
		return;
	}
	memmove(&r[i + 1], &r[i], (n - i) * sizeof(*r));
	r[i].start = start;
	r[i].end = end;
	mm->nr_reserved++;
}

bool memmap_is_reserved(const struct memmap *mm, phys_addr_t start, phys_addr_t end)
{
	if (start >= end)
		return false; /* no bytes, so none reserved */
	for (size_t i = 0; i < mm->nr_reserved; i++) {
		if (mm->reserved[i].start < end && start < mm->reserved[i].end)
			return true;
	}
	return false;
}

/*
 * Each usable range minus the reserved ranges, in address order. Both tables are
 * sorted, so one pass over the reserved table per usable range suffices.
 */
void memmap_for_each_free(const struct memmap *mm,
			  void (*fn)(phys_addr_t start, phys_addr_t end, void *arg), void *arg)
{
	for (size_t u = 0; u < mm->nr_usable; u++) {
		phys_addr_t cur = mm->usable[u].start, end = mm->usable[u].end;

		for (size_t i = 0; i < mm->nr_reserved && cur < end; i++) {
			const struct mem_range *r = &mm->reserved[i];

			if (r->end <= cur)
				continue;
			if (r->start >= end)
				break;
			if (r->start > cur)
				fn(cur, r->start, arg);
			cur = MAX(cur, r->end);
		}
		if (cur < end)
			fn(cur, end, arg);
	}
}

struct early_fit {
	u64 size, align;
	phys_addr_t limit, found;
};

/* Pieces come in address order, so the last one that fits is the highest. */
static void early_fit_piece(phys_addr_t start, phys_addr_t end, void *arg)
{
	struct early_fit *f = arg;
	phys_addr_t top = MIN(end, f->limit), cand;

	if (top <= start || top - start < f->size)
		return;
	cand = ALIGN_DOWN(top - f->size, f->align);
	if (cand >= start)
		f->found = cand;
}

phys_addr_t memmap_alloc_early(struct memmap *mm, u64 size, u64 align, phys_addr_t limit)
{
	struct early_fit f = { .align = align, .limit = limit };

	if (size == 0 || size > PHYS_ADDR_LIMIT || align < PAGE_SIZE || (align & (align - 1))) {
		pr_warn("memmap: bad early allocation (size %llu, align %llu)\n",
			(unsigned long long)size, (unsigned long long)align);
		return 0;
	}
	f.size = ALIGN_UP(size, PAGE_SIZE);
	memmap_for_each_free(mm, early_fit_piece, &f);
	if (f.found)
		memmap_reserve(mm, f.found, f.found + f.size);
	return f.found;
}

u64 memmap_usable_bytes(const struct memmap *mm)
{
	u64 sum = 0;

	for (size_t i = 0; i < mm->nr_usable; i++)
		sum += mm->usable[i].end - mm->usable[i].start;
	return sum;
}

static void add_piece(phys_addr_t start, phys_addr_t end, void *arg)
{
	*(u64 *)arg += end - start;
}

u64 memmap_free_bytes(const struct memmap *mm)
{
	u64 sum = 0;

	memmap_for_each_free(mm, add_piece, &sum);
	return sum;
}

phys_addr_t memmap_end(const struct memmap *mm)
{
	return mm->nr_usable ? mm->usable[mm->nr_usable - 1].end : 0;
}

/*
 * The areas of an address space: a red-black tree of non-overlapping
 * [start, end) ranges ordered by start, and the range operations on it
 * (unmap, protect) that split areas at the range's edges. Callers hold
 * vm->lock and have reserved the spare areas a split may need (struct vm_op).
 */
#include "lib/compiler.h"
#include "mm/heap.h"
#include "mm/page_alloc.h"
#include "mm/vm_internal.h"
#include "panic.h"

#define vma_of(n) rb_entry_safe((n), struct vma, node)

struct vma *vma_next(const struct vma *v)
{
	return vma_of(rb_next(&v->node));
}

struct vma *vma_prev(const struct vma *v)
{
	return vma_of(rb_prev(&v->node));
}

struct vma *vma_find_from(const struct vm *vm, uintptr_t addr)
{
	struct rb_node *n = vm->areas.node;
	struct vma *best = NULL;

	while (n) {
		struct vma *v = vma_of(n);

		if (addr < v->end) {
			best = v;
			n = n->left;
		} else {
			n = n->right;
		}
	}
	return best;
}

struct vma *vma_find(const struct vm *vm, uintptr_t addr)
{
	struct vma *v = vma_find_from(vm, addr);

	return v && v->start <= addr ? v : NULL;
}

struct vma *vma_new(struct vm_op *op, uintptr_t start, uintptr_t end, unsigned int prot,
		    enum vma_kind kind)
{
	struct vma *v = NULL;

	for (unsigned int i = 0; i < VM_OP_SPARES && !v; i++) {
		v = op->spare[i];
		op->spare[i] = NULL;
	}
	if (!v)
		panic("vm: an operation used more areas than it reserved");
	*v = (struct vma){ .start = start, .end = end, .prot = prot, .kind = kind };
	RB_CLEAR_NODE(&v->node);
	return v;
}

static bool vma_less(const struct rb_node *a, const struct rb_node *b)
{
	return rb_entry(a, const struct vma, node)->start <
	       rb_entry(b, const struct vma, node)->start;
}

void vma_link(struct vm *vm, struct vma *v)
{
	rb_add(&v->node, &vm->areas, vma_less);
	vm->nr_areas++;
	vm->mapped_pages += (v->end - v->start) >> PAGE_SHIFT;
	vm_count_areas(1);
}

/*
 * A shared area is freed, and its object put, only after op's flush: the
 * last put frees the object's frames, which a stale TLB entry may still
 * reach until then. op is NULL only for areas that cannot be shared.
 */
static void vma_unlink_free(struct vm *vm, struct vma *v, struct vm_op *op)
{
	rb_erase(&v->node, &vm->areas);
	vm->nr_areas--;
	vm->mapped_pages -= (v->end - v->start) >> PAGE_SHIFT;
	vm_count_areas(-1);
	if (v->shm) {
		v->dead_next = op->dead;
		op->dead = v;
		return;
	}
	kfree(v);
}

/* Clips the hull of present pages to the area's extent. */
static void hull_clip(struct vma *v)
{
	v->pop_start = MAX(v->pop_start, v->start);
	v->pop_end = MIN(v->pop_end, v->end);
	if (v->pop_start >= v->pop_end)
		v->pop_start = v->pop_end = 0;
}

void vma_resize(struct vm *vm, struct vma *v, uintptr_t start, uintptr_t end)
{
	if (v->shm) /* the object's page at start moves with start */
		v->shm_pgoff = v->shm_pgoff + (start >> PAGE_SHIFT) - (v->start >> PAGE_SHIFT);
	vm->mapped_pages -= (v->end - v->start) >> PAGE_SHIFT;
	vm->mapped_pages += (end - start) >> PAGE_SHIFT;
	v->start = start;
	v->end = end;
	hull_clip(v);
}

/* Splits v at addr (strictly inside it): v keeps [start, addr), the new area gets the rest. */
static struct vma *vma_split(struct vm *vm, struct vma *v, uintptr_t addr, struct vm_op *op)
{
	struct vma *tail = vma_new(op, addr, v->end, v->prot, v->kind);

	if (v->shm) {
		shmem_get(v->shm);
		tail->shm = v->shm;
		tail->shm_pgoff = v->shm_pgoff + ((addr - v->start) >> PAGE_SHIFT);
	}
	tail->pop_start = v->pop_start;
	tail->pop_end = v->pop_end;
	hull_clip(tail);
	vma_resize(vm, v, v->start, addr);
	vma_link(vm, tail);
	return tail;
}

bool vma_range_free(const struct vm *vm, uintptr_t start, uintptr_t end)
{
	struct vma *v = vma_find_from(vm, start);

	return !v || v->start >= end;
}

bool vma_range_covered(const struct vm *vm, uintptr_t start, uintptr_t end)
{
	struct vma *v = vma_find(vm, start);

	while (v && v->end < end) {
		struct vma *next = vma_next(v);

		if (!next || next->start != v->end)
			return false;
		v = next;
	}
	return v != NULL;
}

u64 vma_range_mapped_pages(const struct vm *vm, uintptr_t start, uintptr_t end)
{
	u64 pages = 0;

	for (struct vma *v = vma_find_from(vm, start); v && v->start < end; v = vma_next(v))
		pages += (MIN(end, v->end) - MAX(start, v->start)) >> PAGE_SHIFT;
	return pages;
}

bool vma_range_splits(const struct vm *vm, uintptr_t start, uintptr_t end)
{
	struct vma *v = vma_find(vm, start);

	return v && v->start < start && v->end > end;
}

uintptr_t vma_gap_topdown(const struct vm *vm, size_t len, uintptr_t top)
{
	uintptr_t hi = top;
	struct rb_node *n;

	if (len > top - USER_ADDR_MIN)
		return 0;
	/* Walk down from the last area, looking at the gap above each one. */
	for (n = rb_last(&vm->areas); n; n = rb_prev(n)) {
		struct vma *v = vma_of(n);

		if (v->start >= hi)
			continue;
		if (v->end < hi && hi - v->end >= len)
			return hi - len;
		hi = v->start;
		if (hi < USER_ADDR_MIN + len)
			return 0;
	}
	return hi - USER_ADDR_MIN >= len ? hi - len : 0;
}

static bool vma_mergeable(const struct vma *a, const struct vma *b)
{
	return a && b && a->kind == VMA_ANON && b->kind == VMA_ANON && a->prot == b->prot &&
	       a->end == b->start;
}

/* Folds b (right after a) into a and frees b. */
static void vma_absorb(struct vm *vm, struct vma *a, struct vma *b)
{
	uintptr_t end = b->end;

	if (b->pop_start != b->pop_end) {
		if (a->pop_start == a->pop_end)
			a->pop_start = b->pop_start;
		a->pop_end = b->pop_end;
	}
	vma_unlink_free(vm, b, NULL);
	vma_resize(vm, a, a->start, end);
}

struct vma *vma_merge(struct vm *vm, struct vma *v)
{
	struct vma *prev = vma_prev(v), *next = vma_next(v);

	if (vma_mergeable(prev, v)) {
		vma_absorb(vm, prev, v);
		v = prev;
	}
	if (vma_mergeable(v, next))
		vma_absorb(vm, v, next);
	return v;
}

/* Unmaps the present pages of v in [start, end), collecting their frames in op. */
void vma_unmap_pages(struct vm *vm, struct vma *v, uintptr_t start, uintptr_t end, struct vm_op *op)
{
	start = MAX(start, v->pop_start);
	end = MIN(end, v->pop_end);
	for (uintptr_t va = start; va < end; va += PAGE_SIZE) {
		phys_addr_t pa = arch_mm_unmap(&vm->mm, va);

		if (!pa)
			continue;
		if (!v->shm)
			vm_op_defer_frame(op, pa);
		vm->resident_pages--;
		vm_op_note_flush(vm, op);
	}
}

void vm_unmap_range(struct vm *vm, uintptr_t start, uintptr_t end, struct vm_op *op)
{
	struct vma *v = vma_find_from(vm, start);

	while (v && v->start < end) {
		struct vma *next = vma_next(v);

		vma_unmap_pages(vm, v, start, end, op);
		if (start <= v->start && v->end <= end) {
			vma_unlink_free(vm, v, op);
		} else if (start <= v->start) {
			vma_resize(vm, v, end, v->end);
		} else if (v->end <= end) {
			vma_resize(vm, v, v->start, start);
		} else {
			struct vma *tail = vma_split(vm, v, start, op);

			vma_resize(vm, tail, end, tail->end);
			break; /* the range lay inside v */
		}
		v = next;
	}
}

/* Sets prot on v's present pages; a weaker protection needs a flush. */
static void vma_protect_pages(struct vm *vm, struct vma *v, unsigned int prot, struct vm_op *op)
{
	bool weaker = (v->prot & ~prot) != 0;

	for (uintptr_t va = v->pop_start; va < v->pop_end; va += PAGE_SIZE)
		if (arch_mm_protect(&vm->mm, va, prot) == 0 && weaker)
			vm_op_note_flush(vm, op);
	v->prot = prot;
}

void vm_protect_range(struct vm *vm, uintptr_t start, uintptr_t end, unsigned int prot,
		      struct vm_op *op)
{
	struct vma *v = vma_find(vm, start);

	while (v && v->start < end) {
		if (v->prot != prot) {
			if (v->start < start)
				v = vma_split(vm, v, start, op);
			if (v->end > end)
				vma_split(vm, v, end, op);
			vma_protect_pages(vm, v, prot, op);
			v = vma_merge(vm, v);
		}
		v = vma_next(v);
	}
}

/*
 * Address-space lifecycle: creation, sharing between threads, the fork
 * copy, teardown, and the user pages behind it all (with the memory limit,
 * the kernel's reserve and the counters the teardown checks read).
 */
#include "cmdline.h"
#include "lib/errno.h"
#include "lib/string.h"
#include "mm/heap.h"
#include "mm/page_alloc.h"
#include "mm/vm_internal.h"

#define MiB (1LL << 20)

s64 vm_user_mem_limit = 256 * MiB;
s64 vm_user_mem_reserve = 4 * MiB;

BOOT_OPTION_SIZE(user_mem_limit, "user_mem_limit", &vm_user_mem_limit, 1 * MiB, 1LL << 46,
		 "most bytes one process may map (like RLIMIT_AS)");
BOOT_OPTION_SIZE(user_mem_reserve, "user_mem_reserve", &vm_user_mem_reserve, 0, 1LL << 40,
		 "free bytes user pages never take (kept for the kernel)");

static u64 live_vms, live_areas, live_frames; /* atomic */

void vm_count_areas(long delta)
{
	__atomic_add_fetch(&live_areas, (u64)delta, __ATOMIC_RELAXED);
}

void vm_counts(struct vm_counts *out)
{
	out->vms = __atomic_load_n(&live_vms, __ATOMIC_RELAXED);
	out->areas = __atomic_load_n(&live_areas, __ATOMIC_RELAXED);
	out->frames = __atomic_load_n(&live_frames, __ATOMIC_RELAXED);
}

phys_addr_t user_frame_alloc(bool zero)
{
	phys_addr_t pa;

	/* Racy by a few pages between CPUs, which the reserve's size absorbs. */
	if (page_alloc_free_pages() <= (u64)vm_user_mem_reserve >> PAGE_SHIFT)
		return 0;
	pa = page_alloc(0);
	if (!pa)
		return 0;
	if (zero)
		memset(phys_to_virt(pa), 0, PAGE_SIZE);
	__atomic_add_fetch(&live_frames, 1, __ATOMIC_RELAXED);
	return pa;
}

void user_frame_free(phys_addr_t pa)
{
	page_free(pa, 0);
	__atomic_sub_fetch(&live_frames, 1, __ATOMIC_RELAXED);
}

int vm_populate(struct vm *vm, struct vma *v, uintptr_t page, phys_addr_t *pa)
{
	phys_addr_t frame;
	unsigned int prot;
	int err;

	if (arch_mm_query(&vm->mm, page, pa, &prot)) {
		/*
		 * Entries carry their area's protection; repair one that does not,
		 * or a write fault would be retried for ever.
		 */
		if (prot != v->prot)
			arch_mm_protect(&vm->mm, page, v->prot);
		return 0;
	}
	if (vm->resident_pages >= vm_resident_limit_pages())
		return -ENOMEM;
	if (v->shm)
		frame = shmem_frame(v->shm, v->shm_pgoff + ((page - v->start) >> PAGE_SHIFT), true);
	else
		frame = user_frame_alloc(true);
	if (!frame)
		return -ENOMEM;
	err = arch_mm_map(&vm->mm, page, frame, v->prot);
	if (err) {
		if (!v->shm)			/* an object's frame stays the object's */
			user_frame_free(frame); /* never visible: no flush needed */
		return err;
	}
	if (v->pop_start == v->pop_end) {
		v->pop_start = page;
		v->pop_end = page + PAGE_SIZE;
	} else {
		v->pop_start = MIN(v->pop_start, page);
		v->pop_end = MAX(v->pop_end, page + PAGE_SIZE);
	}
	if (++vm->resident_pages > vm->peak_resident_pages)
		vm->peak_resident_pages = vm->resident_pages;
	*pa = frame;
	return 0;
}

int vm_op_begin(struct vm_op *op, unsigned int spares)
{
	*op = (struct vm_op){ .frames = NULL };
	for (unsigned int i = 0; i < spares && i < VM_OP_SPARES; i++) {
		op->spare[i] = kmalloc(sizeof(struct vma));
		if (!op->spare[i]) {
			for (unsigned int j = 0; j < i; j++)
				kfree(op->spare[j]);
			return -ENOMEM;
		}
	}
	return 0;
}

void vm_op_note_flush(struct vm *vm, struct vm_op *op)
{
	if (!op->flush) {
		op->flush = true;
		vm->flush_pending++;
	}
}

/*
 * Frames waiting for the flush are chained through their struct page's
 * list field, which is the owner's while the page is allocated: list.next
 * points at the next waiting page's list, and list.prev keeps the frame's
 * own physical address, for struct page has no way back to it. Nothing is
 * written into the frame itself: a stale TLB entry may still reach it.
 */
void vm_op_defer_frame(struct vm_op *op, phys_addr_t pa)
{
	struct page *pg = phys_to_page(pa);

	pg->list.next = op->frames ? &op->frames->list : NULL;
	pg->list.prev = (struct list_head *)(uintptr_t)pa;
	op->frames = pg;
}

void vm_op_end(struct vm *vm, struct vm_op *op)
{
	struct page *pg, *next;

	if (op->flush || op->flush_seen)
		arch_mm_flush(&vm->mm);
	if (op->flush) {
		unsigned long flags = vm_lock(vm);

		vm->flush_pending--;
		vm_unlock(vm, flags);
	}
	/* No TLB reaches these frames any more. */
	for (pg = op->frames; pg; pg = next) {
		next = pg->list.next ? list_entry(pg->list.next, struct page, list) : NULL;
		user_frame_free((phys_addr_t)(uintptr_t)pg->list.prev);
	}
	op->frames = NULL;
	while (op->dead) {
		struct vma *v = op->dead;

		op->dead = v->dead_next;
		shmem_put(v->shm);
		kfree(v);
	}
	for (unsigned int i = 0; i < VM_OP_SPARES; i++)
		kfree(op->spare[i]);
}

struct vm *vm_create(void)
{
	struct vm *vm = kzalloc(sizeof(*vm));

	if (!vm)
		return NULL;
	if (arch_mm_init(&vm->mm)) {
		kfree(vm);
		return NULL;
	}
	vm->lock = (struct spinlock)SPINLOCK_INIT;
	vm->areas = RB_ROOT;
	vm->refcount = 1;
	vm->rlim = (struct vm_rlimits){ ~0ULL, ~0ULL, USER_STACK_SIZE, USER_STACK_SIZE };
	__atomic_add_fetch(&live_vms, 1, __ATOMIC_RELAXED);
	return vm;
}

void vm_get(struct vm *vm)
{
	__atomic_add_fetch(&vm->refcount, 1, __ATOMIC_RELAXED);
}

void vm_put(struct vm *vm)
{
	struct vm_op op;
	unsigned long flags;
	struct vma *v;

	if (!vm || __atomic_sub_fetch(&vm->refcount, 1, __ATOMIC_ACQ_REL) != 0)
		return;
	vm_op_begin(&op, 0); /* no spares: cannot fail */
	/* One area per lock hold, to keep interrupts off only briefly; nobody else uses vm now. */
	while (vm->areas.node) {
		flags = vm_lock(vm);
		v = rb_entry(rb_first(&vm->areas), struct vma, node);
		vm_unmap_range(vm, v->start, v->end, &op);
		vm_unlock(vm, flags);
	}
	/* Frees the frames only after the flush, in case a CPU kept the tables loaded lazily. */
	vm_op_end(vm, &op);
	arch_mm_destroy(&vm->mm);
	kfree(vm);
	__atomic_sub_fetch(&live_vms, 1, __ATOMIC_RELAXED);
}

void vm_activate(struct vm *vm)
{
	arch_mm_activate(vm ? &vm->mm : NULL);
}

struct arch_mm *vm_arch_mm(struct vm *vm)
{
	return vm ? &vm->mm : NULL;
}

/* Copies src's areas into dst (new, not shared yet); src's lock is held. */
static int clone_areas(struct vm *dst, const struct vm *src)
{
	for (struct rb_node *n = rb_first(&src->areas); n; n = rb_next(n)) {
		const struct vma *sv = rb_entry(n, struct vma, node);
		struct vma *v = kmalloc(sizeof(*v));

		if (!v)
			return -ENOMEM;
		*v = *sv;
		if (v->shm)
			shmem_get(v->shm);
		vma_link(dst, v);
	}
	dst->brk_start = src->brk_start;
	dst->brk = src->brk;
	dst->rlim = src->rlim;
	return 0;
}

/*
 * A shared area's pages are mapped in dst as they are, from the object
 * rather than from src's tables (src's areas may have changed since dst's
 * were copied); the pages made so far inside the area's hull are mapped
 * now, the others fault in later.
 */
static int share_pages(struct vm *dst, struct vma *v)
{
	for (uintptr_t va = v->pop_start; va < v->pop_end; va += PAGE_SIZE) {
		phys_addr_t pa = shmem_frame(v->shm, v->shm_pgoff + ((va - v->start) >> PAGE_SHIFT),
					     false);
		int err;

		if (!pa)
			continue;
		err = arch_mm_map(&dst->mm, va, pa, v->prot);
		if (err)
			return err;
		dst->resident_pages++;
	}
	return 0;
}

/*
 * Copies every page present in src into a new frame of dst, taking src's
 * lock for one page at a time: its areas may change meanwhile (other
 * threads), but a frame seen mapped under the lock is not freed before the
 * lock is dropped, and dst's areas, copied at one instant, decide what is
 * copied and with which protection.
 */
static int clone_pages(struct vm *dst, struct vm *src)
{
	for (struct rb_node *n = rb_first(&dst->areas); n; n = rb_next(n)) {
		struct vma *v = rb_entry(n, struct vma, node);

		if (v->shm) {
			int err = share_pages(dst, v);

			if (err)
				return err;
			continue;
		}
		for (uintptr_t va = v->pop_start; va < v->pop_end; va += PAGE_SIZE) {
			phys_addr_t spa, dpa = 0;
			unsigned long flags = vm_lock(src);
			bool present = arch_mm_query(&src->mm, va, &spa, NULL);
			int err;

			if (present) {
				dpa = user_frame_alloc(false);
				if (dpa)
					memcpy(phys_to_virt(dpa), phys_to_virt(spa), PAGE_SIZE);
			}
			vm_unlock(src, flags);
			if (!present)
				continue;
			if (!dpa)
				return -ENOMEM;
			err = arch_mm_map(&dst->mm, va, dpa, v->prot);
			if (err) {
				user_frame_free(dpa);
				return err;
			}
			dst->resident_pages++;
		}
	}
	dst->peak_resident_pages = dst->resident_pages;
	return 0;
}

/*
 * The copy is eager rather than copy-on-write: a fork is usually followed
 * at once by execve (which drops the copy) and Fulcrum's programs are
 * small, so copying their few dozen pages costs little, while
 * copy-on-write would need a share count per frame, write-protect faults,
 * and a TLB shoot-down of the parent's threads on every fork. The cost is
 * paid only for pages present, and counts against the reserve like any
 * other user page, so a fork that cannot be had fails with -ENOMEM.
 */
struct vm *vm_clone(struct vm *src)
{
	struct vm *dst = vm_create();
	unsigned long flags;
	int err;

	if (!dst)
		return NULL;
	flags = vm_lock(src);
	err = clone_areas(dst, src);
	vm_unlock(src, flags);
	if (!err)
		err = clone_pages(dst, src);
	if (err) {
		vm_put(dst);
		return NULL;
	}
	return dst;
}

void vm_get_rlimits(struct vm *vm, struct vm_rlimits *out)
{
	unsigned long flags = vm_lock(vm);

	*out = vm->rlim;
	vm_unlock(vm, flags);
}

void vm_set_rlimits(struct vm *vm, const struct vm_rlimits *in)
{
	unsigned long flags = vm_lock(vm);

	vm->rlim = *in;
	vm_unlock(vm, flags);
}

void vm_usage(struct vm *vm, struct vm_usage *out)
{
	unsigned long flags = vm_lock(vm);

	out->mapped_pages = vm->mapped_pages;
	out->resident_pages = vm->resident_pages;
	out->peak_resident_pages = vm->peak_resident_pages;
	out->table_pages = vm->mm.nr_tables;
	out->nr_areas = vm->nr_areas;
	out->brk_start = vm->brk_start;
	out->brk = vm->brk;
	vm_unlock(vm, flags);
}

size_t vm_areas(struct vm *vm, struct vm_area_info *out, size_t max)
{
	unsigned long flags = vm_lock(vm);
	size_t n = 0;

	for (struct rb_node *r = rb_first(&vm->areas); r; r = rb_next(r), n++) {
		const struct vma *v = rb_entry(r, struct vma, node);

		if (n < max)
			out[n] = (struct vm_area_info){
				.start = v->start, .end = v->end, .prot = v->prot, .kind = v->kind
			};
	}
	vm_unlock(vm, flags);
	return n;
}

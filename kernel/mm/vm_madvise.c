/*
 * madvise: which advice does what (vm.h), checked in Linux's order
 * (advice, alignment, length, wrap-around), then applied area by area.
 * Dropping pages goes the way munmap's does: unmapped under the lock,
 * freed after the TLB flush; the areas stay, so the next touch faults in
 * a zeroed page. MADV_FREE drops at once: Linux may keep the data until
 * memory runs short, and reading zeros is one of the outcomes it allows.
 */
#include "lib/compiler.h"
#include "lib/errno.h"
#include "mm/vm_internal.h"
#include "proc/current.h"
#include "proc/syscall.h"

enum madv_action {
	MADV_ACT_HINT,	 /* accepted; nothing changes */
	MADV_ACT_DROP,	 /* the pages go */
	MADV_ACT_REMOVE, /* for shared file mappings only: refused per area */
};

/* What advice does, or -EINVAL for advice Linux does not know or Fulcrum does not support. */
static int advice_action(int advice)
{
	switch (advice) {
	case MADV_NORMAL:
	case MADV_RANDOM:
	case MADV_SEQUENTIAL:
	case MADV_WILLNEED:
	case MADV_DOFORK:
	case MADV_KEEPONFORK:
	case MADV_MERGEABLE:
	case MADV_UNMERGEABLE:
	case MADV_HUGEPAGE:
	case MADV_NOHUGEPAGE:
	case MADV_DONTDUMP:
	case MADV_DODUMP:
	case MADV_COLD:
	case MADV_PAGEOUT: /* no swap: nothing to page out to */
		return MADV_ACT_HINT;
	case MADV_DONTNEED:
	case MADV_DONTNEED_LOCKED:
	case MADV_FREE:
		return MADV_ACT_DROP;
	case MADV_REMOVE:
		return MADV_ACT_REMOVE;
	default:
		return -EINVAL;
	}
}

/* The area's answer to a drop or remove: 0 to go on, or the error that ends the call. */
static int area_refuses(const struct vma *v, int action)
{
	if (action == MADV_ACT_REMOVE)
		return v->kind == VMA_SEGMENT ? -EACCES : -EINVAL;
	if (action == MADV_ACT_DROP && v->kind == VMA_SEGMENT)
		return -EINVAL;
	return 0;
}

int vm_madvise(struct vm *vm, unsigned long start, unsigned long len_in, int advice)
{
	int action = advice_action(advice), err = 0;
	unsigned long len, end, addr;
	bool hole = false;
	struct vm_op op;
	unsigned long flags;
	struct vma *v;

	if (action < 0)
		return action;
	if (!IS_ALIGNED(start, PAGE_SIZE))
		return -EINVAL;
	len = ALIGN_UP(len_in, PAGE_SIZE);
	if (len_in && !len)
		return -EINVAL; /* rounded up past the top */
	end = start + len;
	if (end < start)
		return -EINVAL;
	if (end == start)
		return 0;
	vm_op_begin(&op, 0);
	flags = vm_lock(vm);
	addr = start;
	for (v = vma_find_from(vm, start); addr < end; v = vma_next(v)) {
		if (!v || v->start >= end) {
			hole = true;
			break;
		}
		if (v->start > addr)
			hole = true;
		err = area_refuses(v, action);
		if (!err && advice == MADV_FREE && v->shm)
			err = -EINVAL; /* Linux frees lazily only private anonymous pages */
		if (err)
			break; /* the areas before it were done, as on Linux */
		if (action == MADV_ACT_DROP)
			vma_unmap_pages(vm, v, MAX(addr, v->start), MIN(end, v->end), &op);
		addr = v->end;
	}
	vm_unlock(vm, flags);
	vm_op_end(vm, &op);
	if (err)
		return err;
	return hole ? -ENOMEM : 0;
}

long sys_madvise(unsigned long start, unsigned long len, int advice)
{
	struct vm *vm = current_vm ? current_vm() : NULL;

	return vm ? vm_madvise(vm, start, len, advice) : -ENOMEM;
}
SYSCALL_DEFINE3(madvise, unsigned long, unsigned long, int);

/*
 * Shared anonymous memory objects: a page array filled on demand under
 * the object's own lock, which nests inside vm->lock (struct vm), so two
 * processes faulting the same page at once get the same frame.
 */
#include "mm/shmem.h"

#include "lib/errno.h"
#include "lib/spinlock.h"
#include "mm/heap.h"
#include "mm/vm_internal.h"

struct shmem {
	struct spinlock lock;
	u32 refcount; /* atomic */
	u64 nr_pages;
	phys_addr_t frames[]; /* 0: not made yet */
};

struct shmem *shmem_create(u64 nr_pages)
{
	struct shmem *s;

	if (!nr_pages || nr_pages > (u64)vm_user_mem_limit >> PAGE_SHIFT)
		return NULL;
	s = kzalloc(sizeof(*s) + nr_pages * sizeof(phys_addr_t));
	if (!s)
		return NULL;
	s->lock = (struct spinlock)SPINLOCK_INIT;
	s->refcount = 1;
	s->nr_pages = nr_pages;
	return s;
}

void shmem_get(struct shmem *s)
{
	__atomic_add_fetch(&s->refcount, 1, __ATOMIC_RELAXED);
}

void shmem_put(struct shmem *s)
{
	if (!s || __atomic_sub_fetch(&s->refcount, 1, __ATOMIC_ACQ_REL) != 0)
		return;
	for (u64 i = 0; i < s->nr_pages; i++)
		if (s->frames[i])
			user_frame_free(s->frames[i]);
	kfree(s);
}

u64 shmem_pages(const struct shmem *s)
{
	return s->nr_pages;
}

phys_addr_t shmem_frame(struct shmem *s, u64 index, bool make)
{
	unsigned long flags;
	phys_addr_t pa;

	if (index >= s->nr_pages)
		return 0;
	flags = spin_lock_irqsave(&s->lock);
	pa = s->frames[index];
	if (!pa && make) {
		pa = user_frame_alloc(true);
		s->frames[index] = pa;
	}
	spin_unlock_irqrestore(&s->lock, flags);
	return pa;
}

bool vm_shared_offset(struct vm *vm, uintptr_t addr, const struct shmem **obj, u64 *offset)
{
	unsigned long flags;
	struct vma *v;
	bool found = false;

	if (!vm)
		return false;
	flags = vm_lock(vm);
	v = vma_find(vm, addr);
	if (v && v->shm) {
		*obj = v->shm;
		*offset = (v->shm_pgoff << PAGE_SHIFT) + (addr - v->start);
		found = true;
	}
	vm_unlock(vm, flags);
	return found;
}

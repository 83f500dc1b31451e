/*
 * brk, mmap, munmap and mprotect: argument checks in Linux's order with
 * Linux's errors, over the area operations of vm_map.c and vm_area.c. The
 * sys_* entry points apply them to the calling process's address space.
 */
#include "lib/errno.h"
#include "mm/vm_internal.h"
#include "proc/current.h"
#include "proc/syscall.h"

long vm_brk(struct vm *vm, unsigned long brk)
{
	uintptr_t old_end, new_end;
	struct vm_op op;
	unsigned long flags;
	long ret;

	if (vm_op_begin(&op, 2))
		return (long)vm->brk; /* racy read of our own field, fine for a failure */
	flags = vm_lock(vm);
	ret = (long)vm->brk;
	if (!vm->brk_start || brk < vm->brk_start || brk > USER_ADDR_END)
		goto out;
	old_end = ALIGN_UP(vm->brk, PAGE_SIZE);
	new_end = ALIGN_UP(brk, PAGE_SIZE);
	if (new_end < old_end) {
		vm_unmap_range(vm, new_end, old_end, &op);
	} else if (new_end > old_end) {
		u64 pages = (new_end - old_end) >> PAGE_SHIFT;
		struct vma *last = old_end > vm->brk_start ? vma_find(vm, old_end - 1) : NULL;

		/* Linux keeps a guard page between the break and the next area. */
		if (new_end > USER_ADDR_END - PAGE_SIZE ||
		    !vma_range_free(vm, old_end, new_end + PAGE_SIZE) ||
		    vm->mapped_pages + pages > vm_limit_pages(vm) || vm->nr_areas + 1 > VM_MAX_AREAS)
			goto out;
		if (last && last->kind == VMA_HEAP && last->end == old_end &&
		    last->prot == (PROT_READ | PROT_WRITE)) {
			vma_resize(vm, last, last->start, new_end);
		} else {
			vma_link(vm,
				 vma_new(&op, old_end, new_end, PROT_READ | PROT_WRITE, VMA_HEAP));
		}
		op.flush_seen = vm->flush_pending > 0;
	}
	vm->brk = brk;
	ret = (long)brk;
out:
	vm_unlock(vm, flags);
	vm_op_end(vm, &op);
	return ret;
}

/* A new shared object of len bytes mapped as asked; the area holds the only reference. */
static long mmap_shared(struct vm *vm, unsigned long addr, unsigned long len, unsigned int prot,
			unsigned int how)
{
	struct shmem *shm;
	long ret;

	if (!len)
		return -EINVAL;
	if (len > USER_ADDR_END - USER_ADDR_MIN)
		return -ENOMEM;
	shm = shmem_create(ALIGN_UP(len, PAGE_SIZE) >> PAGE_SHIFT);
	if (!shm)
		return -ENOMEM;
	ret = vm_map_shared(vm, addr, len, prot, how, shm, 0);
	shmem_put(shm);
	return ret;
}

long vm_mmap(struct vm *vm, unsigned long addr, unsigned long len, unsigned long prot,
	     unsigned long flags, long fd, unsigned long off)
{
	unsigned long type = flags & MAP_TYPE;
	unsigned int how = 0;
	long ret;

	if (off & (PAGE_SIZE - 1))
		return -EINVAL;
	if (!(flags & MAP_ANONYMOUS))
		return fd < 0 ? -EBADF : -ENODEV; /* no file can be mapped */
	if (type != MAP_PRIVATE && type != MAP_SHARED)
		return -EINVAL; /* MAP_SHARED_VALIDATE too: Linux validates only file mappings */
	if (flags & (MAP_GROWSDOWN | MAP_HUGETLB))
		return -EINVAL;
	if (prot & ~(unsigned long)PROT_ALL)
		return -EINVAL;
	if (flags & MAP_FIXED_NOREPLACE)
		how = VM_MAP_NOREPLACE;
	else if (flags & MAP_FIXED)
		how = VM_MAP_FIXED;
	if (type == MAP_PRIVATE)
		ret = vm_map(vm, addr, len, (unsigned int)prot, how, VMA_ANON);
	else
		ret = mmap_shared(vm, addr, len, (unsigned int)prot, how);
	if (ret >= 0 && (flags & MAP_POPULATE) && prot) {
		/*
		 * Every page now, or the call fails with -ENOMEM and nothing of
		 * it stays: promising memory that a fault later cannot give
		 * would only move the failure to a kill (Linux overcommits and
		 * leaves such pages to fault later).
		 */
		for (unsigned long va = (unsigned long)ret; va < (unsigned long)ret + len;
		     va += PAGE_SIZE) {
			if (vm_fault(vm, va, false)) {
				vm_munmap(vm, (unsigned long)ret, len);
				return -ENOMEM;
			}
		}
	}
	return ret;
}

int vm_munmap(struct vm *vm, unsigned long addr, unsigned long len)
{
	struct vm_op op;
	unsigned long flags;
	int ret;

	if (!IS_ALIGNED(addr, PAGE_SIZE) || !len || len > USER_ADDR_END)
		return -EINVAL;
	len = ALIGN_UP(len, PAGE_SIZE);
	if (addr > USER_ADDR_END - len)
		return -EINVAL;
	ret = vm_op_begin(&op, 1);
	if (ret)
		return ret;
	flags = vm_lock(vm);
	if (vma_range_splits(vm, addr, addr + len) && vm->nr_areas + 1 > VM_MAX_AREAS)
		ret = -ENOMEM;
	else
		vm_unmap_range(vm, addr, addr + len, &op);
	vm_unlock(vm, flags);
	vm_op_end(vm, &op);
	return ret;
}

int vm_mprotect(struct vm *vm, unsigned long addr, unsigned long len, unsigned long prot)
{
	struct vm_op op;
	unsigned long flags;
	int ret;

	if (!IS_ALIGNED(addr, PAGE_SIZE))
		return -EINVAL;
	if (!len)
		return 0;
	if (len > USER_ADDR_END)
		return -ENOMEM;
	if (prot & ~(unsigned long)PROT_ALL)
		return -EINVAL;
	len = ALIGN_UP(len, PAGE_SIZE);
	if (addr < USER_ADDR_MIN || addr > USER_ADDR_END - len)
		return -ENOMEM; /* nothing is mapped there */
	ret = vm_op_begin(&op, 2);
	if (ret)
		return ret;
	flags = vm_lock(vm);
	if (!vma_range_covered(vm, addr, addr + len) || vm->nr_areas + 2 > VM_MAX_AREAS)
		ret = -ENOMEM;
	else
		vm_protect_range(vm, addr, addr + len, (unsigned int)prot, &op);
	vm_unlock(vm, flags);
	vm_op_end(vm, &op);
	return ret;
}

/* The caller's address space; NULL for a kernel thread (or before kernel/proc links in). */
static struct vm *caller_vm(void)
{
	return current_vm ? current_vm() : NULL;
}

long sys_brk(unsigned long brk)
{
	struct vm *vm = caller_vm();

	return vm ? vm_brk(vm, brk) : 0;
}
SYSCALL_DEFINE1(brk, unsigned long);

long sys_mmap(unsigned long addr, unsigned long len, unsigned long prot, unsigned long flags,
	      unsigned long fd, unsigned long off)
{
	struct vm *vm = caller_vm();

	return vm ? vm_mmap(vm, addr, len, prot, flags, (int)fd, off) : -ENOMEM;
}
SYSCALL_DEFINE6(mmap, unsigned long, unsigned long, unsigned long, unsigned long, unsigned long,
		unsigned long);

long sys_munmap(unsigned long addr, unsigned long len)
{
	struct vm *vm = caller_vm();

	return vm ? vm_munmap(vm, addr, len) : -EINVAL;
}
SYSCALL_DEFINE2(munmap, unsigned long, unsigned long);

long sys_mprotect(unsigned long addr, unsigned long len, unsigned long prot)
{
	struct vm *vm = caller_vm();

	return vm ? vm_mprotect(vm, addr, len, prot) : -ENOMEM;
}
SYSCALL_DEFINE3(mprotect, unsigned long, unsigned long, unsigned long);

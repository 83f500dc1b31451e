/*
 * Making memory in an address space: placing anonymous areas, loading ELF
 * segments and the initial stack for execve, writing and reading any
 * address space through the direct map, and the demand-zero fault.
 */
#include "lib/errno.h"
#include "lib/string.h"
#include "mm/vm_internal.h"

static long place_fixed(struct vm *vm, uintptr_t addr, size_t len, unsigned int how, struct vm_op *op)
{
	u64 pages = len >> PAGE_SHIFT;

	if (!vma_range_free(vm, addr, addr + len) && (how & VM_MAP_NOREPLACE))
		return -EEXIST;
	if (vm->mapped_pages - vma_range_mapped_pages(vm, addr, addr + len) + pages >
	    vm_limit_pages(vm))
		return -ENOMEM;
	if (vm->nr_areas + 2 > VM_MAX_AREAS) /* an area split, and the new one */
		return -ENOMEM;
	vm_unmap_range(vm, addr, addr + len, op);
	return (long)addr;
}

static long place_free(struct vm *vm, uintptr_t hint, size_t len)
{
	uintptr_t addr;

	if (vm->mapped_pages + (len >> PAGE_SHIFT) > vm_limit_pages(vm) ||
	    vm->nr_areas + 1 > VM_MAX_AREAS)
		return -ENOMEM;
	if (hint && hint <= USER_ADDR_END - len) {
		hint = MAX(ALIGN_UP(hint, PAGE_SIZE), USER_ADDR_MIN);
		if (hint <= USER_ADDR_END - len && vma_range_free(vm, hint, hint + len))
			return (long)hint;
	}
	addr = vma_gap_topdown(vm, len, VM_MMAP_TOP);
	return addr ? (long)addr : -ENOMEM;
}

long __vm_map(struct vm *vm, uintptr_t addr, size_t len, unsigned int prot, unsigned int how,
	      enum vma_kind kind, struct vm_op *op)
{
	long ret = how ? place_fixed(vm, addr, len, how, op) : place_free(vm, addr, len);
	struct vma *v;

	if (ret < 0)
		return ret;
	v = vma_new(op, (uintptr_t)ret, (uintptr_t)ret + len, prot, kind);
	vma_link(vm, v);
	if (kind == VMA_ANON)
		vma_merge(vm, v);
	/* A stale TLB entry may still cover this range: see struct vm. */
	op->flush_seen = vm->flush_pending > 0;
	return ret;
}

static long map_area(struct vm *vm, uintptr_t addr, size_t len, unsigned int prot, unsigned int how,
		     enum vma_kind kind, struct shmem *shm, u64 pgoff)
{
	struct vm_op op;
	unsigned long flags;
	long ret;

	if (!len || (prot & ~PROT_ALL))
		return -EINVAL;
	if (len > USER_ADDR_END - USER_ADDR_MIN)
		return -ENOMEM;
	len = ALIGN_UP(len, PAGE_SIZE);
	if (how) {
		if (!IS_ALIGNED(addr, PAGE_SIZE))
			return -EINVAL;
		if (addr < USER_ADDR_MIN)
			return -EPERM; /* Linux's answer below mmap_min_addr */
		if (addr > USER_ADDR_END - len)
			return -ENOMEM;
	}
	ret = vm_op_begin(&op, 2);
	if (ret)
		return ret;
	flags = vm_lock(vm);
	ret = __vm_map(vm, addr, len, prot, how, kind, &op);
	if (ret >= 0 && shm) {
		struct vma *v = vma_find(vm, (uintptr_t)ret); /* shared areas never merge */

		shmem_get(shm);
		v->shm = shm;
		v->shm_pgoff = pgoff;
	}
	vm_unlock(vm, flags);
	vm_op_end(vm, &op);
	return ret;
}

long vm_map(struct vm *vm, uintptr_t addr, size_t len, unsigned int prot, unsigned int how,
	    enum vma_kind kind)
{
	return map_area(vm, addr, len, prot, how, kind, NULL, 0);
}

long vm_map_shared(struct vm *vm, uintptr_t addr, size_t len, unsigned int prot, unsigned int how,
		   struct shmem *shm, u64 pgoff)
{
	return map_area(vm, addr, len, prot, how, VMA_SHARED, shm, pgoff);
}

long vm_map_anon(struct vm *vm, uintptr_t addr, size_t len, unsigned int prot, bool fixed)
{
	return vm_map(vm, addr, len, prot, fixed ? VM_MAP_FIXED : 0, VMA_ANON);
}

int vm_setup_stack(struct vm *vm)
{
	u64 size = ALIGN_UP(MIN(MAX(vm->rlim.stack_cur, VM_STACK_MIN), USER_STACK_SIZE), PAGE_SIZE);
	long ret = vm_map(vm, USER_STACK_TOP - size, size, PROT_READ | PROT_WRITE, VM_MAP_NOREPLACE,
			  VMA_STACK);

	return ret < 0 ? (int)ret : 0;
}

void vm_set_brk_start(struct vm *vm, uintptr_t addr)
{
	unsigned long flags = vm_lock(vm);

	vm->brk_start = vm->brk = ALIGN_UP(addr, PAGE_SIZE);
	vm_unlock(vm, flags);
}

/*
 * Copies n bytes (within one page) from src to uaddr, making the page if
 * needed; one lock hold. With src NULL it reads instead, into dst, without
 * making pages (a missing page reads as zeros).
 */
static int access_page(struct vm *vm, uintptr_t uaddr, const void *src, void *dst, size_t n)
{
	uintptr_t page = ALIGN_DOWN(uaddr, PAGE_SIZE);
	unsigned long flags = vm_lock(vm);
	struct vma *v = vma_find(vm, page);
	phys_addr_t pa;
	int err = 0;

	if (!v || v->prot == 0) {
		err = -EFAULT;
	} else if (src) {
		err = vm_populate(vm, v, page, &pa);
		if (!err)
			memcpy((char *)phys_to_virt(pa) + (uaddr - page), src, n);
	} else if (arch_mm_query(&vm->mm, page, &pa, NULL)) {
		memcpy(dst, (char *)phys_to_virt(pa) + (uaddr - page), n);
	} else {
		memset(dst, 0, n);
	}
	vm_unlock(vm, flags);
	return err;
}

static int access_range(struct vm *vm, uintptr_t uaddr, const void *src, void *dst, size_t n)
{
	if (uaddr < USER_ADDR_MIN || uaddr > USER_ADDR_END || n > USER_ADDR_END - uaddr)
		return -EFAULT;
	while (n) {
		size_t chunk = MIN(n, PAGE_SIZE - (uaddr & (PAGE_SIZE - 1)));
		int err = access_page(vm, uaddr, src, dst, chunk);

		if (err)
			return err;
		uaddr += chunk;
		n -= chunk;
		if (src)
			src = (const char *)src + chunk;
		else
			dst = (char *)dst + chunk;
	}
	return 0;
}

int vm_write(struct vm *vm, uintptr_t uaddr, const void *src, size_t n)
{
	return n ? access_range(vm, uaddr, src, NULL, n) : 0;
}

int vm_read(struct vm *vm, uintptr_t uaddr, void *dst, size_t n)
{
	return n ? access_range(vm, uaddr, NULL, dst, n) : 0;
}

/*
 * The segment's pages are made one at a time, each in one lock hold, so a
 * large bss never keeps interrupts off for long. Page p gets the file
 * bytes that fall inside it; everything else in it stays zero.
 */
static int fill_segment(struct vm *vm, uintptr_t start, uintptr_t end, uintptr_t vaddr,
			const char *data, size_t filesz)
{
	for (uintptr_t page = start; page < end; page += PAGE_SIZE) {
		uintptr_t from = MAX(page, vaddr), to = MIN(page + PAGE_SIZE, vaddr + filesz);
		unsigned long flags = vm_lock(vm);
		struct vma *v = vma_find(vm, page);
		phys_addr_t pa;
		int err = v ? vm_populate(vm, v, page, &pa) : -EFAULT;

		if (!err && from < to)
			memcpy((char *)phys_to_virt(pa) + (from - page), data + (from - vaddr),
			       to - from);
		vm_unlock(vm, flags);
		if (err)
			return err;
	}
	return 0;
}

int vm_map_segment(struct vm *vm, uintptr_t vaddr, size_t memsz, const void *file_data,
		   size_t filesz, unsigned int prot)
{
	uintptr_t start, end;
	struct vm_op op;
	unsigned long flags;
	long ret;

	if (filesz > memsz || (prot & ~PROT_ALL) || (filesz && !file_data))
		return -EINVAL;
	if (!memsz)
		return 0;
	if (vaddr < USER_ADDR_MIN || vaddr >= USER_ADDR_END || memsz > USER_ADDR_END - vaddr)
		return -EINVAL;
	start = ALIGN_DOWN(vaddr, PAGE_SIZE);
	end = ALIGN_UP(vaddr + memsz, PAGE_SIZE);
	ret = vm_op_begin(&op, 2);
	if (ret)
		return (int)ret;
	flags = vm_lock(vm);
	ret = __vm_map(vm, start, end - start, prot, VM_MAP_NOREPLACE, VMA_SEGMENT, &op);
	vm_unlock(vm, flags);
	/* A PROT_NONE segment cannot be read: nothing to load into it. */
	if (ret >= 0 && prot) {
		ret = fill_segment(vm, start, end, vaddr, file_data, filesz);
		if (ret) {
			flags = vm_lock(vm);
			vm_unmap_range(vm, start, end, &op);
			vm_unlock(vm, flags);
		}
	}
	vm_op_end(vm, &op);
	return ret < 0 ? (int)ret : 0;
}

int vm_fault(struct vm *vm, uintptr_t addr, bool write)
{
	uintptr_t page = ALIGN_DOWN(addr, PAGE_SIZE);
	unsigned long flags;
	struct vma *v;
	phys_addr_t pa;
	int err;

	if (!vm || addr < USER_ADDR_MIN || addr >= USER_ADDR_END)
		return -EFAULT;
	flags = vm_lock(vm);
	v = vma_find(vm, page);
	if (!v || v->prot == 0 || (write && !(v->prot & PROT_WRITE)))
		err = -EFAULT;
	else
		err = vm_populate(vm, v, page, &pa);
	vm_unlock(vm, flags);
	return err;
}

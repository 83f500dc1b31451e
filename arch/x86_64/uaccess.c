/*
 * copy_from_user and friends over the fault-tolerant copies in
 * uaccess_copy.asm, and the page-fault side: a kernel-mode fault at one of
 * those instructions first asks kernel/proc to make the page (demand-zero,
 * stack growth; when memory is out, after the OOM killer has freed some)
 * and retries, else resumes at the fix-up, which reports -EFAULT. Any
 * other kernel fault stays an oops.
 */
#include <arch/uaccess.h>

#include <arch/cpu.h>
#include <arch/user.h>

#include "lib/errno.h"
#include "lib/string.h"
#include "proc/current.h"
#include "user_entry.h"

int copy_from_user(void *dst, const void *usrc, size_t n)
{
	u64 left;

	if (!n)
		return 0;
	if (!access_ok(usrc, n)) {
		memset(dst, 0, n);
		return -EFAULT;
	}
	left = uaccess_copy(dst, usrc, n);
	if (!left)
		return 0;
	memset((u8 *)dst + (n - left), 0, left); /* never hand on stale kernel bytes */
	return -EFAULT;
}

int copy_to_user(void *udst, const void *src, size_t n)
{
	if (!n)
		return 0;
	if (!access_ok(udst, n))
		return -EFAULT;
	return uaccess_copy(udst, src, n) ? -EFAULT : 0;
}

size_t copy_to_user_prefix(void *udst, const void *src, size_t n)
{
	uintptr_t a = (uintptr_t)udst;

	if (!n || !access_ok(udst, 1))
		return 0;
	/* Never past the end of user space: what lies before it is still written. */
	n = MIN((u64)n, USER_ADDR_END - a);
	return n - uaccess_copy(udst, src, n);
}

long strncpy_from_user(char *dst, const char *usrc, size_t size)
{
	u64 room, n;
	s64 len;

	if (!size)
		return -ENAMETOOLONG;
	if (!access_ok(usrc, 1))
		return -EFAULT;
	/* Never read past the end of user space, however large size is. */
	room = USER_ADDR_END - (uintptr_t)usrc;
	n = MIN((u64)size, room);
	len = uaccess_strncpy(dst, usrc, n);
	if (len < 0)
		return len;
	if ((u64)len < n)
		return len;
	dst[n - 1] = '\0';
	/* No NUL in n bytes: too long, or (n < size) no string before the end of user space. */
	return n < size ? -EFAULT : -ENAMETOOLONG;
}

static u64 extable_lookup(u64 rip)
{
	for (const struct extable_entry *e = uaccess_extable; e < uaccess_extable_end; e++)
		if (e->insn == rip)
			return e->fixup;
	return 0;
}

/* Asks kernel/mm to make the page at addr; false if it cannot (or is not there yet). */
static bool try_vm_fault(const struct trap_frame *f, u64 addr)
{
	struct vm *vm;
	bool made, write;

	if (!vm_fault_for_copy || !current_vm)
		return false;
	/* With interrupts off the faulting code cannot sleep: no paging in. */
	if (!(f->rflags & RFLAGS_IF))
		return false;
	/* With SMAP, touching user memory outside stac/clac is a bug, not a fault to serve. */
	if (uaccess_smap_on && !(f->rflags & RFLAGS_AC))
		return false;
	if (!arch_user_fault_is_page((int)f->vector, f->error_code, &write) ||
	    addr < USER_ADDR_MIN || addr >= USER_ADDR_END)
		return false;
	vm = current_vm();
	if (!vm)
		return false;
	arch_irq_enable();
	made = vm_fault_for_copy(vm, addr, write) == 0; /* out of memory: the OOM killer, then 0 */
	arch_irq_disable();
	return made;
}

bool uaccess_fixup(struct trap_frame *f, u64 cr2)
{
	u64 fixup = extable_lookup(f->rip);

	if (!fixup)
		return false;
	if (try_vm_fault(f, cr2))
		return true; /* retry the access */
	f->rip = fixup;
	return true;
}

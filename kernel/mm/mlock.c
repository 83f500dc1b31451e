/*
 * mlock, mlock2, munlock, mlockall, munlockall: accepted with Linux's
 * argument checks and nothing else to do, since Fulcrum never swaps or
 * reclaims a user page (memory that is mapped stays resident once
 * touched). A range must be mapped throughout, as on Linux (-ENOMEM).
 */
#include "mm/mlock.h"

#include "lib/errno.h"
#include "mm/vm.h"
#include "proc/syscall.h"

#define MCL_CURRENT   1
#define MCL_FUTURE    2
#define MCL_ONFAULT   4
#define MLOCK_ONFAULT 1
#define PAGE_MASK_    4095UL

/*
 * Linux aligns start down to a page and checks for wrap-around (-EINVAL)
 * and holes (-ENOMEM); madvise's advice-free walk checks the same, so
 * MADV_NORMAL (which changes nothing) does the walk.
 */
static long range_check(unsigned long start, unsigned long len)
{
	unsigned long off = start & PAGE_MASK_;

	if (len + off < len)
		return -EINVAL;
	return sys_madvise(start - off, len + off, MADV_NORMAL);
}

long sys_mlock(unsigned long start, unsigned long len)
{
	return range_check(start, len);
}
SYSCALL_DEFINE2(mlock, unsigned long, unsigned long);

long sys_mlock2(unsigned long start, unsigned long len, int flags)
{
	if (flags & ~MLOCK_ONFAULT)
		return -EINVAL;
	return range_check(start, len);
}
SYSCALL_DEFINE3(mlock2, unsigned long, unsigned long, int);

long sys_munlock(unsigned long start, unsigned long len)
{
	return range_check(start, len);
}
SYSCALL_DEFINE2(munlock, unsigned long, unsigned long);

long sys_mlockall(int flags)
{
	if (!flags || (flags & ~(MCL_CURRENT | MCL_FUTURE | MCL_ONFAULT)) || flags == MCL_ONFAULT)
		return -EINVAL;
	return 0;
}
SYSCALL_DEFINE1(mlockall, int);

long sys_munlockall(void)
{
	return 0;
}
SYSCALL_DEFINE0(munlockall);

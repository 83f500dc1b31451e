/*
 * Host stand-in for arch/uaccess.h: "user" memory is the test's own memory,
 * so the copies are memcpy; a range access_ok() refuses (below
 * USER_ADDR_MIN, past USER_ADDR_END, wrapping) gives -EFAULT as a real
 * fault would, and fake_uaccess_fail_after makes a later copy fail.
 */
#include <string.h>

#include <arch/uaccess.h>

#include "fake_uaccess.h"
#include "lib/errno.h"

long fake_uaccess_fail_after = -1;
unsigned long fake_uaccess_copies;

/* Counts the copy; false when the failure countdown says this one faults. */
static bool copy_allowed(void)
{
	fake_uaccess_copies++;
	if (fake_uaccess_fail_after < 0)
		return true;
	if (fake_uaccess_fail_after == 0)
		return false;
	fake_uaccess_fail_after--;
	return true;
}

int copy_from_user(void *dst, const void *usrc, size_t n)
{
	if (!access_ok(usrc, n) || !copy_allowed()) {
		memset(dst, 0, n);
		return -EFAULT;
	}
	memcpy(dst, usrc, n);
	return 0;
}

int copy_to_user(void *udst, const void *src, size_t n)
{
	if (!access_ok(udst, n) || !copy_allowed())
		return -EFAULT;
	memcpy(udst, src, n);
	return 0;
}

size_t copy_to_user_prefix(void *udst, const void *src, size_t n)
{
	return copy_to_user(udst, src, n) ? 0 : n;
}

long strncpy_from_user(char *dst, const char *usrc, size_t size)
{
	if (!access_ok(usrc, 1) || !copy_allowed())
		return -EFAULT;
	for (size_t i = 0; i < size; i++) {
		if (!access_ok(usrc + i, 1))
			return -EFAULT;
		dst[i] = usrc[i];
		if (!usrc[i])
			return (long)i;
	}
	return -ENAMETOOLONG;
}

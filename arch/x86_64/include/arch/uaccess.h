/*
 * Reaching user memory from the kernel. Every user pointer goes through
 * these: a bad address gives -EFAULT, and a fault inside them is fixed up
 * (after vm_fault had its chance to make the page), never an oops.
 */
#ifndef FULCRUM_ARCH_UACCESS_H
#define FULCRUM_ARCH_UACCESS_H

#include <arch/addr_space.h>

#include "lib/types.h"

/* [uptr, uptr + n) lies inside [USER_ADDR_MIN, USER_ADDR_END), without wrapping. */
static inline bool access_ok(const void *uptr, size_t n)
{
	uintptr_t a = (uintptr_t)uptr;

	return a >= USER_ADDR_MIN && a <= USER_ADDR_END && n <= USER_ADDR_END - a;
}

/* 0, or -EFAULT (the part of dst that could not be copied is zeroed). */
int copy_from_user(void *dst, const void *usrc, size_t n);

/* 0, or -EFAULT (a prefix may have been written). */
int copy_to_user(void *udst, const void *src, size_t n);

/*
 * Like copy_to_user, but says how far it got: the number of bytes written,
 * n if all were, fewer if it met an address with no page to write into (a
 * read returns that short count, as Linux's do).
 */
size_t copy_to_user_prefix(void *udst, const void *src, size_t n);

/*
 * Copies a NUL-terminated string of at most size - 1 characters, NUL
 * included, into dst (size bytes); returns its length, -EFAULT, or
 * -ENAMETOOLONG if there is no NUL in the first size bytes.
 */
long strncpy_from_user(char *dst, const char *usrc, size_t size);

#endif

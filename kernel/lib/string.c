/*
 * The kernel's own C string and memory functions: there is no C library
 * under a freestanding kernel, and GCC emits memcpy/memset calls itself.
 */
#include "lib/string.h"

#include "lib/types.h"

/*
 * GCC recognises a byte-copy or byte-fill loop and replaces it with a call
 * to memcpy or memset, which here would be the function calling itself.
 * This attribute switches that pattern matching off for the functions that
 * must not call themselves.
 */
#define __no_libcall __attribute__((optimize("no-tree-loop-distribute-patterns")))

/* A word that may alias any object, for the aligned fast paths. */
typedef u64 __attribute__((may_alias)) word_t;

#define WORD_SIZE sizeof(word_t)

static bool word_aligned(const void *p)
{
	return ((uintptr_t)p & (WORD_SIZE - 1)) == 0;
}

__no_libcall void *memcpy(void *dst, const void *src, size_t n)
{
	unsigned char *d = dst;
	const unsigned char *s = src;

	/* Whole words when both ends are aligned (page copies are). */
	if (word_aligned(d) && word_aligned(s)) {
		for (; n >= WORD_SIZE; n -= WORD_SIZE) {
			*(word_t *)d = *(const word_t *)s;
			d += WORD_SIZE;
			s += WORD_SIZE;
		}
	}
	while (n--)
		*d++ = *s++;
	return dst;
}

/* Copies forward or backward, whichever never reads a byte already overwritten. */
__no_libcall void *memmove(void *dst, const void *src, size_t n)
{
	unsigned char *d = dst;
	const unsigned char *s = src;

	if ((uintptr_t)d <= (uintptr_t)s || (uintptr_t)d >= (uintptr_t)s + n)
		return memcpy(dst, src, n);
	d += n;
	s += n;
	/* Backward by words when both ends share alignment and are a word apart or more. */
	if (word_aligned(d) && word_aligned(s) && (uintptr_t)d - (uintptr_t)s >= WORD_SIZE) {
		for (; n >= WORD_SIZE; n -= WORD_SIZE) {
			d -= WORD_SIZE;
			s -= WORD_SIZE;
			*(word_t *)d = *(const word_t *)s;
		}
	}
	while (n--)
		*--d = *--s;
	return dst;
}

__no_libcall void *memset(void *dst, int c, size_t n)
{
	unsigned char *d = dst;
	unsigned char b = (unsigned char)c;

	if (word_aligned(d)) {
		/* The byte repeated in each of the word's eight bytes. */
		word_t w = (word_t)b * 0x0101010101010101ull;

		for (; n >= WORD_SIZE; n -= WORD_SIZE) {
			*(word_t *)d = w;
			d += WORD_SIZE;
		}
	}
	while (n--)
		*d++ = b;
	return dst;
}

int memcmp(const void *a, const void *b, size_t n)
{
	const unsigned char *x = a, *y = b;

	for (size_t i = 0; i < n; i++) {
		if (x[i] != y[i])
			return x[i] < y[i] ? -1 : 1;
	}
	return 0;
}

__no_libcall size_t strlen(const char *s)
{
	size_t n = 0;

	while (s[n])
		n++;
	return n;
}

__no_libcall size_t strnlen(const char *s, size_t max)
{
	size_t n = 0;

	while (n < max && s[n])
		n++;
	return n;
}

/* Bytes compare as unsigned char, as the C library's do. */
int strcmp(const char *a, const char *b)
{
	const unsigned char *x = (const unsigned char *)a, *y = (const unsigned char *)b;

	while (*x && *x == *y) {
		x++;
		y++;
	}
	return (*x > *y) - (*x < *y);
}

int strncmp(const char *a, const char *b, size_t n)
{
	const unsigned char *x = (const unsigned char *)a, *y = (const unsigned char *)b;

	for (; n; n--, x++, y++) {
		if (*x != *y)
			return *x < *y ? -1 : 1;
		if (!*x)
			break;
	}
	return 0;
}

/* Finds c (as a char) in s; the terminating NUL counts, so strchr(s, 0) is its end. */
char *strchr(const char *s, int c)
{
	for (;; s++) {
		if (*s == (char)c)
			return (char *)s;
		if (!*s)
			return NULL;
	}
}

char *strrchr(const char *s, int c)
{
	const char *last = NULL;

	for (;; s++) {
		if (*s == (char)c)
			last = s;
		if (!*s)
			return (char *)last;
	}
}

size_t strlcpy(char *dst, const char *src, size_t size)
{
	size_t len = strlen(src);

	if (size) {
		size_t n = len < size - 1 ? len : size - 1;

		memcpy(dst, src, n);
		dst[n] = '\0';
	}
	return len;
}

/*
 * The C string and memory functions. The kernel has its own (lib/string.c);
 * host builds of kernel code use the C library's, with the same prototypes.
 */
#ifndef FULCRUM_LIB_STRING_H
#define FULCRUM_LIB_STRING_H

#include "lib/types.h"

void *memcpy(void *dst, const void *src, size_t n);
void *memmove(void *dst, const void *src, size_t n);
void *memset(void *dst, int c, size_t n);
int memcmp(const void *a, const void *b, size_t n);
size_t strlen(const char *s);
size_t strnlen(const char *s, size_t max);
int strcmp(const char *a, const char *b);
int strncmp(const char *a, const char *b, size_t n);
char *strchr(const char *s, int c);
char *strrchr(const char *s, int c);
/* Copies at most size - 1 bytes of src and always NUL-terminates (size > 0); returns strlen(src). */
size_t strlcpy(char *dst, const char *src, size_t size);

#endif

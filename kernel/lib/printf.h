/* The kernel's formatted output into a buffer, used by printk and oops reports. */
#ifndef FULCRUM_LIB_PRINTF_H
#define FULCRUM_LIB_PRINTF_H

#include <stdarg.h>

#include "lib/compiler.h"
#include "lib/types.h"

/*
 * Formats into buf (always NUL-terminated when size > 0) and returns the
 * length the full output would have had, like C's vsnprintf.
 *
 * Conversions: %d %i %u %x %X %o %c %s %p %% with flags '-', '0', '+',
 * ' ', '#', a width and a precision (numbers or '*'), and the length
 * modifiers hh h l ll z t j. %s of NULL prints "(null)". %p prints the
 * address as 16 hex digits without prefix, as Linux's oops does; NULL
 * prints 0000000000000000.
 */
int kvsnprintf(char *buf, size_t size, const char *fmt, va_list ap);
int ksnprintf(char *buf, size_t size, const char *fmt, ...) __printf(3, 4);

#endif

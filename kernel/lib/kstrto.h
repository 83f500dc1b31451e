/* Strict text-to-number conversion for command-line and other untrusted text. */
#ifndef FULCRUM_LIB_KSTRTO_H
#define FULCRUM_LIB_KSTRTO_H

#include "lib/types.h"

/*
 * Parses the whole of s[0..len) as an integer: optional sign (signed form
 * only), then decimal, or hex after 0x, and an optional size suffix K, M
 * or G (x1024^n) when allow_suffix. Returns 0, or -1 on empty text, a stray
 * character or overflow; *out is untouched on error.
 */
int kstrtos64(const char *s, size_t len, bool allow_suffix, s64 *out);
int kstrtou64(const char *s, size_t len, bool allow_suffix, u64 *out);

#endif

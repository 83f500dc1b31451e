/*
 * Host stand-in for arch_console_read_char(): the bytes a test "types"
 * with fake_console_type() come back one per call, then -1.
 */
#include <string.h>

#include <arch/console.h>

#include "fake_console_input.h"

static char typed[4096];
static size_t typed_len, typed_pos;

void fake_console_type(const char *s, size_t n)
{
	if (typed_pos == typed_len)
		typed_pos = typed_len = 0;
	if (n > sizeof(typed) - typed_len)
		n = sizeof(typed) - typed_len;
	memcpy(typed + typed_len, s, n);
	typed_len += n;
}

int arch_console_read_char(void)
{
	if (typed_pos == typed_len)
		return -1;
	return (unsigned char)typed[typed_pos++];
}

/*
 * Strict text-to-number conversion. The command line and other untrusted
 * text come through here, so anything but a clean number is an error.
 */
#include "lib/kstrto.h"

#include "lib/types.h"

#define U64_MAX (~(u64)0)
#define S64_MAX ((s64)(U64_MAX >> 1))

/* The value of c as a digit in base, or -1 if it is not one. */
static int digit_value(char c, unsigned int base)
{
	int d;

	if (c >= '0' && c <= '9')
		d = c - '0';
	else if (c >= 'a' && c <= 'f')
		d = c - 'a' + 10;
	else if (c >= 'A' && c <= 'F')
		d = c - 'A' + 10;
	else
		return -1;
	return d < (int)base ? d : -1;
}

/* How far a K, M or G suffix shifts the value, or 0 if c is none of them. */
static unsigned int suffix_shift(char c)
{
	switch (c) {
	case 'k':
	case 'K':
		return 10;
	case 'm':
	case 'M':
		return 20;
	case 'g':
	case 'G':
		return 30;
	default:
		return 0;
	}
}

/*
 * Parses an unsigned magnitude with no sign: decimal or 0x hex digits, then
 * an optional suffix. The suffix is taken off the end first; hex digits
 * stop at 'f', so "0x1G" is never ambiguous.
 */
static int parse_magnitude(const char *s, size_t len, bool allow_suffix, u64 *out)
{
	unsigned int base = 10, shift = 0;
	u64 v = 0;

	if (len >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
		len -= 2;
	}
	if (allow_suffix && len > 0) {
		shift = suffix_shift(s[len - 1]);
		if (shift)
			len--;
	}
	if (len == 0)
		return -1;

	for (size_t i = 0; i < len; i++) {
		int d = digit_value(s[i], base);

		if (d < 0)
			return -1;
		/* v * base + d must stay within 64 bits. */
		if (v > (U64_MAX - (u64)d) / base)
			return -1;
		v = v * base + (u64)d;
	}
	if (v > U64_MAX >> shift)
		return -1;
	*out = v << shift;
	return 0;
}

int kstrtou64(const char *s, size_t len, bool allow_suffix, u64 *out)
{
	u64 v;

	if (len > 0 && s[0] == '+') {
		s++;
		len--;
	}
	if (parse_magnitude(s, len, allow_suffix, &v))
		return -1;
	*out = v;
	return 0;
}

int kstrtos64(const char *s, size_t len, bool allow_suffix, s64 *out)
{
	bool negative = false;
	u64 mag;

	if (len > 0 && (s[0] == '-' || s[0] == '+')) {
		negative = s[0] == '-';
		s++;
		len--;
	}
	if (parse_magnitude(s, len, allow_suffix, &mag))
		return -1;

	/* The negative range reaches one further: -2^63 is S64_MAX + 1 negated. */
	if (negative) {
		if (mag > (u64)S64_MAX + 1)
			return -1;
		*out = mag == (u64)S64_MAX + 1 ? -S64_MAX - 1 : -(s64)mag;
	} else {
		if (mag > (u64)S64_MAX)
			return -1;
		*out = (s64)mag;
	}
	return 0;
}

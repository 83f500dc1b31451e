/*
 * The kernel's printf engine: kvsnprintf formats into a bounded buffer and
 * is the one place that turns numbers into text for printk, panic and oops.
 */
#include <stdarg.h>

#include "lib/compiler.h"
#include "lib/printf.h"
#include "lib/types.h"

/* Widths, precisions and the returned length all saturate here. */
#define FMT_INT_MAX ((int)(~0u >> 1))

enum length { LEN_NONE, LEN_HH, LEN_H, LEN_L, LEN_LL, LEN_Z, LEN_T, LEN_J };

#define FL_LEFT	  (1u << 0) /* '-': pad on the right */
#define FL_ZERO	  (1u << 1) /* '0': pad numbers with zeros after the sign */
#define FL_PLUS	  (1u << 2) /* '+': signed conversions always show a sign */
#define FL_SPACE  (1u << 3) /* ' ': a space where '+' would go */
#define FL_ALT	  (1u << 4) /* '#': 0x/0X before hex, a leading 0 for octal */
#define FL_UPPER  (1u << 5) /* %X: upper-case digits and prefix */
#define FL_SIGNED (1u << 6) /* %d/%i: the value may carry a sign */

/* One parsed conversion: everything between the '%' and the conversion letter. */
struct spec {
	unsigned int flags;
	int width;     /* 0 when none was given */
	int precision; /* -1 when none was given */
	enum length length;
	unsigned int base;
};

/*
 * The output cursor. len counts every byte the full output would hold, so
 * it keeps growing after the buffer is full; only the first size - 1 bytes
 * are stored, leaving room for the terminating NUL.
 */
struct out {
	char *buf;
	size_t size;
	size_t len;
};

static void out_char(struct out *o, char c)
{
	if (o->len + 1 < o->size)
		o->buf[o->len] = c;
	o->len++;
}

static void out_mem(struct out *o, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		out_char(o, s[i]);
}

/*
 * Emits n copies of c. Only the part that fits is stored and the rest is
 * just counted, so "%*d" with a huge width costs the buffer size, not the
 * width.
 */
static void out_repeat(struct out *o, char c, size_t n)
{
	while (n && o->len + 1 < o->size) {
		o->buf[o->len++] = c;
		n--;
	}
	o->len += n;
}

/* Reads a decimal width or precision, saturating rather than overflowing. */
static int parse_count(const char **pp)
{
	const char *p = *pp;
	int n = 0;

	while (*p >= '0' && *p <= '9') {
		int digit = *p++ - '0';

		n = n > (FMT_INT_MAX - digit) / 10 ? FMT_INT_MAX : n * 10 + digit;
	}
	*pp = p;
	return n;
}

/*
 * Parses flags, width, precision and length modifier starting just after
 * the '%'. Returns a pointer to the conversion letter (which may be the
 * terminating NUL of a truncated format). A '*' takes an int argument.
 */
static const char *parse_spec(const char *p, struct spec *sp, va_list *ap)
{
	sp->flags = 0;
	sp->width = 0;
	sp->precision = -1;
	sp->length = LEN_NONE;
	sp->base = 10;

	for (;; p++) {
		if (*p == '-')
			sp->flags |= FL_LEFT;
		else if (*p == '0')
			sp->flags |= FL_ZERO;
		else if (*p == '+')
			sp->flags |= FL_PLUS;
		else if (*p == ' ')
			sp->flags |= FL_SPACE;
		else if (*p == '#')
			sp->flags |= FL_ALT;
		else
			break;
	}

	if (*p == '*') {
		int w = va_arg(*ap, int);

		/* A negative '*' width is a '-' flag plus the positive width. */
		if (w < 0) {
			sp->flags |= FL_LEFT;
			w = w == -FMT_INT_MAX - 1 ? FMT_INT_MAX : -w;
		}
		sp->width = w;
		p++;
	} else {
		sp->width = parse_count(&p);
	}

	if (*p == '.') {
		p++;
		if (*p == '*') {
			int prec = va_arg(*ap, int);

			/* A negative '*' precision counts as no precision at all. */
			sp->precision = prec < 0 ? -1 : prec;
			p++;
		} else {
			/* A bare '.' is precision 0. */
			sp->precision = parse_count(&p);
		}
	}

	switch (*p) {
	case 'h':
		if (p[1] == 'h') {
			sp->length = LEN_HH;
			p++;
		} else {
			sp->length = LEN_H;
		}
		p++;
		break;
	case 'l':
		if (p[1] == 'l') {
			sp->length = LEN_LL;
			p++;
		} else {
			sp->length = LEN_L;
		}
		p++;
		break;
	case 'z':
		sp->length = LEN_Z;
		p++;
		break;
	case 't':
		sp->length = LEN_T;
		p++;
		break;
	case 'j':
		sp->length = LEN_J;
		p++;
		break;
	}

	/* As in C: '-' beats '0', and '+' beats ' '. */
	if (sp->flags & FL_LEFT)
		sp->flags &= ~FL_ZERO;
	if (sp->flags & FL_PLUS)
		sp->flags &= ~FL_SPACE;
	return p;
}

/*
 * Fetches a signed argument at its promoted type and narrows it as the
 * length modifier says, so "%hhd" of 300 prints 44.
 */
static s64 fetch_signed(va_list *ap, enum length length)
{
	switch (length) {
	case LEN_HH:
		return (signed char)va_arg(*ap, int);
	case LEN_H:
		return (short)va_arg(*ap, int);
	case LEN_L:
		return va_arg(*ap, long);
	case LEN_LL:
		return va_arg(*ap, long long);
	case LEN_Z:
		/* The signed type of size_t's width; GCC converts modulo 2^64. */
		return (s64)va_arg(*ap, size_t);
	case LEN_T:
		return va_arg(*ap, ptrdiff_t);
	case LEN_J:
		return va_arg(*ap, intmax_t);
	default:
		return va_arg(*ap, int);
	}
}

static u64 fetch_unsigned(va_list *ap, enum length length)
{
	switch (length) {
	case LEN_HH:
		return (unsigned char)va_arg(*ap, unsigned int);
	case LEN_H:
		return (unsigned short)va_arg(*ap, unsigned int);
	case LEN_L:
		return va_arg(*ap, unsigned long);
	case LEN_LL:
		return va_arg(*ap, unsigned long long);
	case LEN_Z:
		return va_arg(*ap, size_t);
	case LEN_T:
		return (u64)va_arg(*ap, ptrdiff_t);
	case LEN_J:
		return va_arg(*ap, uintmax_t);
	default:
		return va_arg(*ap, unsigned int);
	}
}

/*
 * Prints a magnitude with its sign or prefix. The layout, left to right, is
 *
 *	[spaces] [sign or 0x] [zeros] digits [spaces if '-']
 *
 * where zeros come from the precision (the minimum digit count), from '#'
 * on octal, or from the '0' flag filling the width when there is no
 * precision.
 */
static void put_number(struct out *o, u64 mag, bool negative, const struct spec *sp)
{
	const char *set = (sp->flags & FL_UPPER) ? "0123456789ABCDEF" : "0123456789abcdef";
	char digits[22]; /* 2^64 - 1 in octal, the longest case, is 22 digits */
	char prefix[2];
	size_t ndigits = 0, nprefix = 0, precision, zeros, total, pad = 0;
	bool nonzero = mag != 0;

	while (mag) {
		digits[ndigits++] = set[mag % sp->base];
		mag /= sp->base;
	}

	/* With no precision the minimum is one digit; "%.0d" of 0 prints nothing. */
	precision = sp->precision < 0 ? 1 : (size_t)sp->precision;
	zeros = precision > ndigits ? precision - ndigits : 0;

	if (sp->flags & FL_SIGNED) {
		if (negative)
			prefix[nprefix++] = '-';
		else if (sp->flags & FL_PLUS)
			prefix[nprefix++] = '+';
		else if (sp->flags & FL_SPACE)
			prefix[nprefix++] = ' ';
	} else if ((sp->flags & FL_ALT) && sp->base == 16 && nonzero) {
		prefix[nprefix++] = '0';
		prefix[nprefix++] = (sp->flags & FL_UPPER) ? 'X' : 'x';
	} else if ((sp->flags & FL_ALT) && sp->base == 8 && zeros == 0) {
		/* The digits never start with 0, so '#' needs exactly one more. */
		zeros = 1;
	}

	total = nprefix + zeros + ndigits;
	if ((size_t)sp->width > total)
		pad = (size_t)sp->width - total;
	if ((sp->flags & FL_ZERO) && sp->precision < 0) {
		zeros += pad;
		pad = 0;
	}

	if (!(sp->flags & FL_LEFT))
		out_repeat(o, ' ', pad);
	out_mem(o, prefix, nprefix);
	out_repeat(o, '0', zeros);
	while (ndigits)
		out_char(o, digits[--ndigits]);
	if (sp->flags & FL_LEFT)
		out_repeat(o, ' ', pad);
}

/* Text for %s and %c: the width pads with spaces; '0' is ignored here. */
static void put_text(struct out *o, const char *s, size_t n, const struct spec *sp)
{
	size_t pad = (size_t)sp->width > n ? (size_t)sp->width - n : 0;

	if (!(sp->flags & FL_LEFT))
		out_repeat(o, ' ', pad);
	out_mem(o, s, n);
	if (sp->flags & FL_LEFT)
		out_repeat(o, ' ', pad);
}

static void put_string(struct out *o, const char *s, const struct spec *sp)
{
	size_t n = 0;

	if (!s)
		s = "(null)";
	/* Stop at the precision without looking further: s need not be terminated. */
	while ((sp->precision < 0 || n < (size_t)sp->precision) && s[n])
		n++;
	put_text(o, s, n, sp);
}

/*
 * Formats the conversion starting at the '%' at start and returns where the
 * format continues. A conversion we do not know (including %n and floating
 * point) is copied out literally and consumes no argument.
 */
static const char *convert(struct out *o, const char *start, va_list *ap)
{
	struct spec sp;
	const char *p = parse_spec(start + 1, &sp, ap);
	s64 value;
	char c;

	switch (*p) {
	case 'd':
	case 'i':
		value = fetch_signed(ap, sp.length);
		sp.flags |= FL_SIGNED;
		/* Negate in u64 so INT64_MIN has a magnitude too. */
		put_number(o, value < 0 ? 0 - (u64)value : (u64)value, value < 0, &sp);
		break;
	case 'X':
		sp.flags |= FL_UPPER;
		/* fall through */
	case 'x':
		sp.base = 16;
		put_number(o, fetch_unsigned(ap, sp.length), false, &sp);
		break;
	case 'o':
		sp.base = 8;
		put_number(o, fetch_unsigned(ap, sp.length), false, &sp);
		break;
	case 'u':
		put_number(o, fetch_unsigned(ap, sp.length), false, &sp);
		break;
	case 'c':
		c = (char)va_arg(*ap, int);
		put_text(o, &c, 1, &sp);
		break;
	case 's':
		put_string(o, va_arg(*ap, const char *), &sp);
		break;
	case 'p':
		/* Always the full 16 digits, like an oops; only the width and '-' apply. */
		sp.flags &= FL_LEFT;
		sp.base = 16;
		sp.precision = 16;
		put_number(o, (uintptr_t)va_arg(*ap, void *), false, &sp);
		break;
	case '%':
		out_char(o, '%');
		break;
	case '\0':
		/* The format ended inside a conversion: show what there was. */
		out_mem(o, start, (size_t)(p - start));
		return p;
	default:
		out_mem(o, start, (size_t)(p - start) + 1);
		break;
	}
	return p + 1;
}

int kvsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
{
	struct out o = { .buf = buf, .size = size, .len = 0 };
	va_list args;

	/* A copy we can hand to helpers by pointer, which a va_list parameter is not. */
	va_copy(args, ap);
	while (*fmt) {
		if (*fmt == '%')
			fmt = convert(&o, fmt, &args);
		else
			out_char(&o, *fmt++);
	}
	va_end(args);

	if (size)
		buf[o.len < size ? o.len : size - 1] = '\0';
	/* An output longer than an int can say is reported as the longest it can. */
	return o.len > (size_t)FMT_INT_MAX ? FMT_INT_MAX : (int)o.len;
}

int ksnprintf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = kvsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n;
}

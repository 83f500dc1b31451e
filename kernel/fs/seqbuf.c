/* Growable text buffers for procfs. */
#include "fs/seqbuf.h"

#include <stdarg.h>

#include "lib/errno.h"
#include "lib/printf.h"
#include "lib/string.h"
#include "mm/heap.h"

void seqbuf_init(struct seqbuf *sb)
{
	sb->buf = NULL;
	sb->len = 0;
	sb->cap = 0;
}

void seqbuf_free(struct seqbuf *sb)
{
	kfree(sb->buf);
	seqbuf_init(sb);
}

/* Makes room for need more bytes and a NUL: 0 or -ENOMEM. */
static int reserve(struct seqbuf *sb, size_t need)
{
	size_t cap = sb->cap ? sb->cap : SEQBUF_INITIAL;
	char *buf;

	if (need > SEQBUF_MAX || sb->len + need + 1 > SEQBUF_MAX)
		return -ENOMEM;
	if (sb->len + need + 1 <= sb->cap)
		return 0;
	while (cap < sb->len + need + 1)
		cap *= 2;
	if (cap > SEQBUF_MAX)
		cap = SEQBUF_MAX;
	buf = kmalloc(cap);
	if (!buf)
		return -ENOMEM;
	if (sb->buf)
		memcpy(buf, sb->buf, sb->len + 1);
	kfree(sb->buf);
	sb->buf = buf;
	sb->cap = cap;
	return 0;
}

int seq_printf(struct seqbuf *sb, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = kvsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || reserve(sb, (size_t)n))
		return -ENOMEM;
	va_start(ap, fmt);
	kvsnprintf(sb->buf + sb->len, sb->cap - sb->len, fmt, ap);
	va_end(ap);
	sb->len += (size_t)n;
	return 0;
}

int seq_write(struct seqbuf *sb, const void *data, size_t n)
{
	if (reserve(sb, n))
		return -ENOMEM;
	memcpy(sb->buf + sb->len, data, n);
	sb->len += n;
	sb->buf[sb->len] = '\0';
	return 0;
}

/* The cpio "newc" archive builder of the unit tests (cpio_builder.h). */
#include "cpio_builder.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unit.h"

void arc_begin(struct arc *a)
{
	memset(a, 0, sizeof(*a));
	a->next_ino = 100;
}

static void arc_pad(struct arc *a)
{
	while (a->len & 3)
		a->buf[a->len++] = 0;
}

static void put_hex8(char *p, u32 v)
{
	char tmp[9];

	snprintf(tmp, sizeof(tmp), "%08x", v);
	memcpy(p, tmp, 8);
}

size_t arc_entry_h(struct arc *a, const char *name, u32 mode, const void *data, size_t size,
		   struct hdr h)
{
	size_t off = a->len, nsz = strlen(name) + 1;
	char *p = (char *)a->buf + off;
	u32 sum = 0;

	ck_assert_uint_le(off + CPIO_HEADER_SIZE + nsz + 3 + size + 3, sizeof(a->buf));
	for (size_t i = 0; i < size; i++)
		sum += ((const u8 *)data)[i];
	memcpy(p, h.magic ? h.magic : CPIO_MAGIC_NEWC, 6);
	put_hex8(p + 6, h.ino >= 0 ? (u32)h.ino : a->next_ino++); /* ino */
	put_hex8(p + 14, mode);
	put_hex8(p + 22, 0); /* uid */
	put_hex8(p + 30, 0); /* gid */
	put_hex8(p + 38, h.nlink >= 0 ? (u32)h.nlink : 1);
	put_hex8(p + 46, 0); /* mtime */
	put_hex8(p + 54, h.filesize >= 0 ? (u32)h.filesize : (u32)size);
	put_hex8(p + 62, 0); /* devmajor */
	put_hex8(p + 70, 0); /* devminor */
	put_hex8(p + 78, 0); /* rdevmajor */
	put_hex8(p + 86, 0); /* rdevminor */
	put_hex8(p + 94, h.namesize >= 0 ? (u32)h.namesize : (u32)nsz);
	put_hex8(p + 102, h.check >= 0 ? (u32)h.check :
					 (h.magic && !strcmp(h.magic, CPIO_MAGIC_CRC) ? sum : 0));
	a->len += CPIO_HEADER_SIZE;
	memcpy(a->buf + a->len, name, nsz);
	a->len += nsz;
	arc_pad(a);
	if (size)
		memcpy(a->buf + a->len, data, size);
	a->len += size;
	arc_pad(a);
	return off;
}

size_t arc_entry(struct arc *a, const char *name, u32 mode, const void *data, size_t size)
{
	return arc_entry_h(a, name, mode, data, size, HDR_DEFAULT);
}

size_t arc_file(struct arc *a, const char *name, const char *text)
{
	return arc_entry(a, name, REG(0644), text, strlen(text));
}

size_t arc_dir(struct arc *a, const char *name)
{
	return arc_entry(a, name, DIR(0755), NULL, 0);
}

void arc_trailer(struct arc *a)
{
	arc_entry(a, CPIO_TRAILER, 0, NULL, 0);
}

u8 *exact_copy(const void *p, size_t len)
{
	u8 *c = malloc(len ? len : 1);

	ck_assert_ptr_nonnull(c);
	memcpy(c, p, len);
	return c;
}

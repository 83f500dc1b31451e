/*
 * cpio "newc" reader: walks an in-memory archive header by header. Pure:
 * no allocation and no globals, so the host unit tests and the fuzzer run
 * it as is. Every length is checked against what is left of the buffer
 * before anything is read through it.
 */
#include "fs/cpio.h"

#include "lib/errno.h"
#include "lib/string.h"

/* The 13 header fields after the magic, in archive order. */
enum cpio_field {
	F_INO,
	F_MODE,
	F_UID,
	F_GID,
	F_NLINK,
	F_MTIME,
	F_FILESIZE,
	F_DEVMAJOR,
	F_DEVMINOR,
	F_RDEVMAJOR,
	F_RDEVMINOR,
	F_NAMESIZE,
	F_CHECK,
	NR_FIELDS
};

#define MAGIC_LEN 6
#define FIELD_LEN 8
_Static_assert(MAGIC_LEN + NR_FIELDS * FIELD_LEN == CPIO_HEADER_SIZE, "newc header layout");

void cpio_reader_init(struct cpio_reader *r, const void *data, size_t size)
{
	r->base = data;
	r->size = data ? size : 0;
	r->pos = 0;
	r->done = false;
	r->error = NULL;
	r->error_offset = 0;
}

static int fail(struct cpio_reader *r, size_t offset, const char *why)
{
	r->error = why;
	r->error_offset = offset;
	return -EINVAL;
}

/* Exactly 8 hex digits, either case; false for anything else. */
static bool parse_hex8(const u8 *p, u32 *out)
{
	u32 v = 0;

	for (int i = 0; i < FIELD_LEN; i++) {
		u8 c = p[i];
		u32 d;

		if (c >= '0' && c <= '9')
			d = c - '0';
		else if (c >= 'a' && c <= 'f')
			d = c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			d = c - 'A' + 10;
		else
			return false;
		v = v << 4 | d;
	}
	*out = v;
	return true;
}

static bool valid_type(u32 mode)
{
	switch (mode & CPIO_S_IFMT) {
	case CPIO_S_IFREG:
	case CPIO_S_IFDIR:
	case CPIO_S_IFLNK:
	case CPIO_S_IFCHR:
	case CPIO_S_IFBLK:
	case CPIO_S_IFIFO:
	case CPIO_S_IFSOCK:
		return true;
	default:
		return false;
	}
}

/* Distance from off up to the next multiple of 4 (offsets count from the archive's start). */
static size_t pad4(size_t off)
{
	return (4 - (off & 3)) & 3;
}

int cpio_next(struct cpio_reader *r, struct cpio_entry *e)
{
	const u8 *h;
	size_t pos = r->pos, left, name_off, data_off, name_len;
	u32 f[NR_FIELDS];
	bool crc, trailer;

	if (r->error)
		return -EINVAL;
	if (r->done)
		return 0;
	if (pos >= r->size)
		return fail(r, pos, "archive ends without a TRAILER!!! entry");
	left = r->size - pos;
	if (left < CPIO_HEADER_SIZE)
		return fail(r, pos, "truncated header");
	h = r->base + pos;

	if (!memcmp(h, CPIO_MAGIC_NEWC, MAGIC_LEN))
		crc = false;
	else if (!memcmp(h, CPIO_MAGIC_CRC, MAGIC_LEN))
		crc = true;
	else
		return fail(r, pos, "bad magic (not 070701 or 070702)");
	for (int i = 0; i < NR_FIELDS; i++)
		if (!parse_hex8(h + MAGIC_LEN + i * FIELD_LEN, &f[i]))
			return fail(r, pos, "header field is not 8 hex digits");

	/* namesize counts the NUL; the name must be non-empty and NUL-free before it. */
	if (f[F_NAMESIZE] < 2)
		return fail(r, pos, "empty name");
	if (f[F_NAMESIZE] > CPIO_NAME_MAX)
		return fail(r, pos, "name longer than CPIO_NAME_MAX");
	name_len = f[F_NAMESIZE] - 1;
	name_off = CPIO_HEADER_SIZE;
	if (f[F_NAMESIZE] > left - name_off)
		return fail(r, pos, "name runs past the end of the archive");
	if (h[name_off + name_len] != '\0' ||
	    strnlen((const char *)h + name_off, name_len) != name_len)
		return fail(r, pos, "name is not NUL-terminated where namesize says");

	/* Sizes so far are at most 110 + 512 + 3, so this cannot wrap. */
	data_off = name_off + f[F_NAMESIZE];
	data_off += pad4(pos + data_off);
	if (data_off > left)
		return fail(r, pos, "name padding runs past the end of the archive");
	if (f[F_FILESIZE] > left - data_off)
		return fail(r, pos, "data runs past the end of the archive");

	trailer = name_len == sizeof(CPIO_TRAILER) - 1 &&
		  !memcmp(h + name_off, CPIO_TRAILER, name_len);
	if (!trailer && !valid_type(f[F_MODE])) /* writers give the trailer mode 0 */
		return fail(r, pos, "unknown file type in mode");

	if (crc) {
		u32 sum = 0;

		for (size_t i = 0; i < f[F_FILESIZE]; i++)
			sum += h[data_off + i];
		if (sum != f[F_CHECK])
			return fail(r, pos, "070702 checksum does not match the data");
	}

	e->name = (const char *)h + name_off;
	e->name_len = name_len;
	e->data = h + data_off;
	e->size = f[F_FILESIZE];
	e->mode = f[F_MODE];
	e->ino = f[F_INO];
	e->nlink = f[F_NLINK];
	e->dev_major = f[F_DEVMAJOR];
	e->dev_minor = f[F_DEVMINOR];
	e->offset = pos;

	if (trailer) {
		r->done = true;
		return 0;
	}
	/* The next header; missing padding at the very end only shows up as "no trailer". */
	pos += data_off + f[F_FILESIZE];
	r->pos = pos + pad4(pos);
	return 1;
}

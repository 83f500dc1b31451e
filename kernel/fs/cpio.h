/*
 * The cpio "newc" archive format, the initrd's: a pure reader that walks an
 * archive in memory one entry at a time and trusts nothing in it. It knows
 * the byte layout only; initrd.c gives the entries meaning (paths, modes).
 */
#ifndef FULCRUM_FS_CPIO_H
#define FULCRUM_FS_CPIO_H

#include "lib/types.h"

/*
 * Every entry is a 110-byte ASCII header, the name (NUL included), padding
 * to a multiple of 4 bytes from the archive's start, the data, and padding
 * to 4 again. The header is the magic, then 13 fields of 8 hex digits.
 */
#define CPIO_HEADER_SIZE 110
#define CPIO_MAGIC_NEWC	 "070701"     /* c_check unused */
#define CPIO_MAGIC_CRC	 "070702"     /* c_check = sum of the data bytes */
#define CPIO_TRAILER	 "TRAILER!!!" /* the last entry's name */
/* Longest name accepted, the NUL included; a longer one makes the archive malformed. */
#define CPIO_NAME_MAX	 512

/* File types in c_mode (POSIX values; cpio stores st_mode as is). */
#define CPIO_S_IFMT   0170000
#define CPIO_S_IFSOCK 0140000
#define CPIO_S_IFLNK  0120000
#define CPIO_S_IFREG  0100000
#define CPIO_S_IFBLK  0060000
#define CPIO_S_IFDIR  0040000
#define CPIO_S_IFCHR  0020000
#define CPIO_S_IFIFO  0010000

/* One entry; the pointers point into the archive. */
struct cpio_entry {
	const char *name; /* NUL-terminated, as stored (may start with "./" or "/") */
	size_t name_len;  /* strlen(name), at least 1 */
	const void *data; /* file contents, or a symlink's target (not NUL-terminated) */
	size_t size;
	u32 mode;			      /* type and permission bits */
	u32 ino, nlink, dev_major, dev_minor; /* for hard links */
	size_t offset;			      /* of the header, from the archive's start */
};

struct cpio_reader {
	const u8 *base;
	size_t size;
	size_t pos;	     /* next header */
	bool done;	     /* the trailer was read */
	const char *error;   /* why cpio_next() failed, NULL before that */
	size_t error_offset; /* where: the offending entry's header */
};

void cpio_reader_init(struct cpio_reader *r, const void *data, size_t size);

/*
 * Reads the next entry into *e: 1 for an entry, 0 once the TRAILER!!!
 * entry has been read (bytes after it are ignored: writers pad to 512), or
 * -EINVAL when the archive is malformed (r->error and r->error_offset say
 * why and where; every later call fails the same way). An archive that ends
 * without a trailer is malformed. Every field is checked: the magic (and
 * for 070702 the data checksum), that each field is 8 hex digits, the
 * file type, the name's length and terminating NUL, and that the name,
 * the data and the name's padding lie inside the archive.
 */
int cpio_next(struct cpio_reader *r, struct cpio_entry *e);

#endif

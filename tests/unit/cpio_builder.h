/*
 * Builds cpio "newc" archives in memory for the unit tests of the reader
 * (test_cpio.c) and the initrd index (test_initrd.c), with any header
 * field overridable to make broken ones.
 */
#ifndef FULCRUM_TESTS_CPIO_BUILDER_H
#define FULCRUM_TESTS_CPIO_BUILDER_H

#include "fs/cpio.h"
#include "lib/types.h"

#define REG(perm) (CPIO_S_IFREG | (perm))
#define DIR(perm) (CPIO_S_IFDIR | (perm))
#define LNK	  (CPIO_S_IFLNK | 0777)

struct arc {
	u8 buf[256 * 1024];
	size_t len;
	u32 next_ino;
};

/* Field overrides for one header; -1 keeps what the builder would write. */
struct hdr {
	const char *magic;
	long long namesize, filesize, check, nlink, ino;
};

#define HDR_DEFAULT \
	((struct hdr){ .namesize = -1, .filesize = -1, .check = -1, .nlink = -1, .ino = -1 })

void arc_begin(struct arc *a);
/* Appends one entry, with h's overrides. Returns the header's offset. */
size_t arc_entry_h(struct arc *a, const char *name, u32 mode, const void *data, size_t size,
		   struct hdr h);
size_t arc_entry(struct arc *a, const char *name, u32 mode, const void *data, size_t size);
size_t arc_file(struct arc *a, const char *name, const char *text); /* a 0644 file */
size_t arc_dir(struct arc *a, const char *name);		    /* a 0755 directory */
void arc_trailer(struct arc *a);
/* A heap copy of exactly len bytes: ASan flags any read past it. */
u8 *exact_copy(const void *p, size_t len);

#endif

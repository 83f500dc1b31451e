/*
 * Directory entries as getdents64 hands them out: Linux's struct
 * linux_dirent64 (d_ino, d_off, d_reclen, d_type, then the name and its
 * NUL), each record padded to 8 bytes. d_off is the directory offset
 * after the entry, what lseek takes to resume there. Pure code.
 */
#ifndef FULCRUM_FS_DIRENT_H
#define FULCRUM_FS_DIRENT_H

#include "lib/types.h"

struct linux_dirent64 {
	u64 d_ino;
	s64 d_off;
	u16 d_reclen;
	u8 d_type;
	char d_name[];
};

_Static_assert(__builtin_offsetof(struct linux_dirent64, d_off) == 8, "d_off");
_Static_assert(__builtin_offsetof(struct linux_dirent64, d_reclen) == 16, "d_reclen");
_Static_assert(__builtin_offsetof(struct linux_dirent64, d_type) == 18, "d_type");
_Static_assert(__builtin_offsetof(struct linux_dirent64, d_name) == 19, "d_name");

/* d_type values: the file type bits of st_mode, shifted down (Linux's S_DT). */
#define DT_UNKNOWN 0
#define DT_FIFO	   1
#define DT_CHR	   2
#define DT_DIR	   4
#define DT_BLK	   6
#define DT_REG	   8
#define DT_LNK	   10
#define DT_SOCK	   12

static inline u8 dirent_type(u32 mode)
{
	return (u8)((mode >> 12) & 15);
}

/* A record's length for a name of name_len bytes: the header, the name, its NUL, 8-byte padding. */
size_t dirent64_reclen(size_t name_len);

/*
 * Writes one record at buf if it fits in room bytes (the padding zeroed):
 * returns its length, or 0 if it does not fit (nothing written).
 */
size_t dirent64_pack(void *buf, size_t room, u64 ino, s64 off, u8 type, const char *name,
		     size_t name_len);

#endif

/*
 * struct kstat: what fstat(2) returns, laid out exactly as Linux x86-64's
 * struct stat (arch/x86/include/uapi/asm/stat.h), so it is copied to user
 * space as is; and the file type and device-number encodings.
 */
#ifndef FULCRUM_FS_STAT_H
#define FULCRUM_FS_STAT_H

#include "lib/errno.h"
#include "lib/types.h"

#define S_IFMT	 0170000
#define S_IFSOCK 0140000
#define S_IFLNK	 0120000
#define S_IFREG	 0100000
#define S_IFBLK	 0060000
#define S_IFDIR	 0040000
#define S_IFCHR	 0020000
#define S_IFIFO	 0010000

#define S_ISDIR(m) (((m)&S_IFMT) == S_IFDIR)
#define S_ISREG(m) (((m)&S_IFMT) == S_IFREG)
#define S_ISLNK(m) (((m)&S_IFMT) == S_IFLNK)

/* Linux's new_encode_dev(): minor's low byte, major, then minor's upper bits. */
#define KDEV(major, minor) \
	((u64)(((minor)&0xff) | ((major) << 8) | (((u64)(minor) & ~0xffULL) << 12)))

struct kstat_time {
	s64 tv_sec;
	s64 tv_nsec;
};

struct kstat {
	u64 st_dev;
	u64 st_ino;
	u64 st_nlink;
	u32 st_mode;
	u32 st_uid;
	u32 st_gid;
	u32 __pad0;
	u64 st_rdev;
	s64 st_size;
	s64 st_blksize;
	s64 st_blocks; /* 512-byte units */
	struct kstat_time st_atim;
	struct kstat_time st_mtim;
	struct kstat_time st_ctim;
	s64 __reserved[3];
};

/* Linux x86-64's offsets; a user program reads these very bytes. */
_Static_assert(__builtin_offsetof(struct kstat, st_dev) == 0, "st_dev");
_Static_assert(__builtin_offsetof(struct kstat, st_ino) == 8, "st_ino");
_Static_assert(__builtin_offsetof(struct kstat, st_nlink) == 16, "st_nlink");
_Static_assert(__builtin_offsetof(struct kstat, st_mode) == 24, "st_mode");
_Static_assert(__builtin_offsetof(struct kstat, st_uid) == 28, "st_uid");
_Static_assert(__builtin_offsetof(struct kstat, st_gid) == 32, "st_gid");
_Static_assert(__builtin_offsetof(struct kstat, st_rdev) == 40, "st_rdev");
_Static_assert(__builtin_offsetof(struct kstat, st_size) == 48, "st_size");
_Static_assert(__builtin_offsetof(struct kstat, st_blksize) == 56, "st_blksize");
_Static_assert(__builtin_offsetof(struct kstat, st_blocks) == 64, "st_blocks");
_Static_assert(__builtin_offsetof(struct kstat, st_atim) == 72, "st_atim");
_Static_assert(__builtin_offsetof(struct kstat, st_mtim) == 88, "st_mtim");
_Static_assert(__builtin_offsetof(struct kstat, st_ctim) == 104, "st_ctim");
_Static_assert(sizeof(struct kstat) == 144, "struct stat is 144 bytes on x86-64");

/* Device numbers of the synthetic file systems (anonymous block devices, as Linux's 0:N). */
#define KDEV_ROOTFS   KDEV(0, 1)
#define KDEV_PROC     KDEV(0, 4)
#define KDEV_PIPEFS   KDEV(0, 12)
#define KDEV_SOCKFS   KDEV(0, 8)
#define KDEV_DEVTMPFS KDEV(0, 6)
#define KDEV_SYSFS    KDEV(0, 21)
#define KDEV_TMPFS    KDEV(0, 26)
#define KDEV_ANON     KDEV(0, 13) /* timerfd, eventfd, epoll: Linux's anon_inodefs */

/* access(2)'s mode bits. */
#define F_OK 0
#define X_OK 1
#define W_OK 2
#define R_OK 4

/*
 * Whether root may access a file of this mode, as Linux decides it for
 * root (the owner: everything Fulcrum serves belongs to uid 0): 0,
 * -EROFS (writing a regular file, directory or symlink of a read-only
 * file system; devices, FIFOs and sockets stay writable), or -EACCES
 * (executing a non-directory without any execute bit, or searching a
 * directory without one while asking to write it too). amode: R_OK |
 * W_OK | X_OK, or F_OK.
 */
static inline int access_check(u32 mode, bool read_only_fs, int amode)
{
	u32 type = mode & S_IFMT;
	bool special = type != S_IFREG && type != S_IFDIR && type != S_IFLNK;

	if ((amode & W_OK) && read_only_fs && !special)
		return -EROFS; /* checked first, as Linux's sb_permission */
	if (!(amode & ~((mode >> 6) & 7)))
		return 0; /* the owner's bits allow it */
	if (!(amode & X_OK) || (mode & 0111))
		return 0; /* CAP_DAC_OVERRIDE */
	if (S_ISDIR(mode) && !(amode & W_OK))
		return 0; /* CAP_DAC_READ_SEARCH */
	return -EACCES;
}

struct fs_node;

/* What stat says of the node at the normalised absolute path: the same as fstat of it opened. */
void fs_path_kstat(const char *path, const struct fs_node *node, struct kstat *st);

/* Linux's argument order and errors; relative paths start at the working directory (fs/cwd.h). */
long sys_stat(const char *upath, struct kstat *ust);
long sys_lstat(const char *upath, struct kstat *ust);
long sys_newfstatat(int dfd, const char *upath, struct kstat *ust, int flags);
long sys_access(const char *upath, int amode);
long sys_faccessat(int dfd, const char *upath, int amode);
long sys_faccessat2(int dfd, const char *upath, int amode, int flags);

#endif

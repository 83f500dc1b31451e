/*
 * open(2) and openat(2), and the same for the kernel: what a path names is
 * opened with Linux's checks (only /tmp is writable: writing an initrd
 * file is -EROFS, creating anything outside /tmp -EROFS, a directory
 * opened for writing -EISDIR; O_CREAT files get mode & ~umask).
 */
#ifndef FULCRUM_FS_OPEN_H
#define FULCRUM_FS_OPEN_H

#include "lib/types.h"

struct file;

#define AT_FDCWD (-100)

/* The *at() calls' flags, Linux's values. */
#define AT_SYMLINK_NOFOLLOW 0x100
#define AT_EACCESS	    0x200
#define AT_REMOVEDIR	    0x200 /* unlinkat's: the same bit as AT_EACCESS */
#define AT_SYMLINK_FOLLOW   0x400
#define AT_NO_AUTOMOUNT	    0x800
#define AT_EMPTY_PATH	    0x1000

/*
 * Opens the kernel string path (relative paths start at "/", whatever the
 * working directory) with open(2)'s
 * flags. Returns the file (one reference) or NULL with *err set. Used by
 * the process code to give init /dev/console as descriptors 0, 1 and 2.
 */
struct file *file_open(const char *path, unsigned int flags, int *err);

long sys_open(const char *upath, int flags, int mode);
/* dirfd: AT_FDCWD (the working directory, fs/cwd.h) or a directory descriptor. */
long sys_openat(int dirfd, const char *upath, int flags, int mode);

#endif

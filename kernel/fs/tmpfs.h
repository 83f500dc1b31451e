/*
 * tmpfs: the writable in-memory file system mounted at /tmp. Regular
 * files, directories, symbolic links and hard links live in kernel memory
 * (file data in 4 KiB pages made on first write); a file's memory goes
 * back when its last name is gone and its last open file is closed.
 * namei, open, stat and getdents64 reach it through the calls below with
 * the path relative to /tmp ("" is /tmp itself), already resolved by the
 * path walk (no ".", "..", symlinks or repeated slashes left).
 */
#ifndef FULCRUM_FS_TMPFS_H
#define FULCRUM_FS_TMPFS_H

#include "lib/types.h"

struct file;
struct fs_node;
struct kstat;

/* Linux's renameat2 flags. */
#define RENAME_NOREPLACE 1
#define RENAME_EXCHANGE	 2
#define RENAME_WHITEOUT	 4

/* Creates the empty root; at most max_pages of file data (0: no limit). Later calls do nothing. */
void tmpfs_init(u64 max_pages);

/* Frees an empty tmpfs's root again (the host unit tests, which count every heap object). */
void tmpfs_exit(void);

/* The part of the normalised absolute path under /tmp ("" for /tmp), or NULL if outside it. */
const char *tmpfs_rel(const char *path);

/* What rel names, as fs_lookup reports it (symlinks: size only, data NULL): 0 or -ENOENT. */
int tmpfs_lookup(const char *rel, struct fs_node *node);

/* A symlink's target into buf (not NUL-terminated): its length, -ENOENT or -EINVAL (not a link). */
long tmpfs_readlink(const char *rel, char *buf, size_t size);

/* stat of what rel names: 0 or -ENOENT. st zeroed beforehand. */
int tmpfs_kstat(const char *rel, struct kstat *st);

/*
 * Opens the regular file rel, creating it with mode (umask applied by the
 * caller) under O_CREAT if it is missing and its directory exists; O_EXCL
 * makes an existing one -EEXIST, O_TRUNC empties it. NULL and *err:
 * -ENOENT, -EEXIST, -EISDIR, -ENOSPC, -ENOMEM.
 */
struct file *tmpfs_open(const char *rel, unsigned int flags, u32 mode, int *err);

/* Entry *cookie of directory rel: 1 with the name in buf (NUL-terminated), 0 at the end. */
int tmpfs_readdir(const char *rel, size_t *cookie, char *buf, size_t size);

/* The namespace operations, Linux's errors; rel "" (the mount point) is -EBUSY where it matters. */
int tmpfs_mkdir(const char *rel, u32 mode);
int tmpfs_rmdir(const char *rel);
int tmpfs_unlink(const char *rel);
int tmpfs_link(const char *old_rel, const char *new_rel);
int tmpfs_symlink(const char *target, const char *new_rel);
int tmpfs_rename(const char *old_rel, const char *new_rel, unsigned int flags);

/* chmod: the permission bits of rel, or of open file f if not NULL (-EROFS if not a tmpfs file). */
int tmpfs_chmod(const char *rel, struct file *f, u32 mode);

/* What tmpfs_set_times takes beside a time in ns since the epoch. */
#define TMPFS_TIME_NOW	(~0ULL)	    /* the wall clock's now */
#define TMPFS_TIME_OMIT (~0ULL - 1) /* left as it is */

/*
 * utimensat on the file at rel (or the open tmpfs file f when rel is
 * NULL): atime and mtime become times[0] and times[1], ctime now.
 * -ENOENT if rel names nothing, -EROFS for an f of another file system.
 */
int tmpfs_set_times(const char *rel, struct file *f, const u64 times[2]);

/* truncate(2) by path: -ENOENT, -EISDIR, -EINVAL (not a regular file), -EFBIG, -ENOSPC. */
int tmpfs_truncate_path(const char *rel, s64 length);
/* ftruncate(2) of an open file: -EINVAL when f is not a tmpfs file open for writing. */
int tmpfs_truncate_file(struct file *f, s64 length);

struct tmpfs_usage {
	u64 inodes;    /* live inodes, the root included */
	u64 pages;     /* file data pages */
	u64 max_pages; /* the size limit in pages */
};

void tmpfs_get_usage(struct tmpfs_usage *out);

#endif

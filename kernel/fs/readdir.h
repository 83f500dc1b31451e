/*
 * Directory listings of Fulcrum's one tree (the initrd's directories,
 * with /dev and /proc laid over them) and getdents64. A listing starts
 * with "." and "..", then the directory's entries: for the root, "dev",
 * "proc", "sys" and "tmp" and then the initrd's others; for /dev, console
 * and null; under /tmp the tmpfs's entries, oldest first;
 * under /proc, procfs's files and directories in registration order,
 * then "self" and the pids (fs/proc_pid.h);
 * elsewhere the initrd's entries in byte order. A directory's offset is
 * the index of the next entry, so lseek to any d_off resumes after it.
 */
#ifndef FULCRUM_FS_READDIR_H
#define FULCRUM_FS_READDIR_H

#include "lib/types.h"

/* One entry: name points into the tree (not NUL-terminated) and stays valid. */
struct fs_dirent {
	const char *name;
	size_t name_len;
};

struct dir_iter {
	const char *path;   /* the directory: a normalised absolute path */
	u64 pos;	    /* index of the next entry */
	unsigned int extra; /* the root: overlays handed out; /proc: 1 once at the pids */
	size_t cookie;	    /* the underlying listing's */
	char name_buf[256]; /* a copied entry's name (a pid under /proc, a tmpfs name) */
};

/* Starts a listing of the directory at path at index pos (past the end: an empty listing). */
void dir_iter_seek(struct dir_iter *it, const char *path, u64 pos);
/* 1 and *ent: the entry at it->pos, which then moves on; 0 at the end. */
int dir_iter_next(struct dir_iter *it, struct fs_dirent *ent);

/*
 * getdents64: -EBADF, -ENOTDIR (not a directory), -EINVAL (count too
 * small for the next entry), -EFAULT (before any entry was copied);
 * else the bytes written (0 at the end), the offset moved past them.
 */
long sys_getdents64(int fd, void *udirent, unsigned int count);

#endif

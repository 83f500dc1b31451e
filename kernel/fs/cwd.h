/*
 * Where path walks start: a process's working directory (struct
 * fs_struct: copied by fork, shared by CLONE_FS, kept by execve), the
 * directory descriptors of the *at() calls, and path names copied in from
 * user space. The working directory is an immutable counted path (struct
 * fs_pwd) that chdir replaces whole, so a walk keeps the one it started
 * from however other threads move. The tree never loses a directory, so a
 * path is as good as a reference to one.
 */
#ifndef FULCRUM_FS_CWD_H
#define FULCRUM_FS_CWD_H

#include "lib/spinlock.h"
#include "lib/types.h"

struct file;
struct path_walk;

struct fs_pwd {
	long refcount; /* atomic */
	size_t len;    /* strlen(path) */
	char path[];   /* normalised absolute path, symlinks resolved */
};

struct fs_struct {
	long refcount;	      /* atomic: processes sharing it (CLONE_FS) */
	struct spinlock lock; /* pwd; taken with interrupts off */
	struct fs_pwd *pwd;
	u32 umask; /* atomic: umask(2), the mode bits new files and directories lose */
};

#define FS_DEFAULT_UMASK 0022

/* At "/"; NULL when out of memory. */
struct fs_struct *fs_struct_create(void);
/* fork without CLONE_FS: the same working directory (src NULL: "/"); NULL when out of memory. */
struct fs_struct *fs_struct_clone(struct fs_struct *src);
void fs_struct_get(struct fs_struct *fs);
void fs_struct_put(struct fs_struct *fs); /* NULL is ignored */

/* The working directory, counted (release with fs_pwd_put); NULL when fs is NULL, meaning "/". */
struct fs_pwd *fs_pwd_get(struct fs_struct *fs);
void fs_pwd_put(struct fs_pwd *pwd); /* NULL is ignored */
/* chdir: path must be a normalised absolute directory path. 0 or -ENOMEM. */
int fs_set_pwd(struct fs_struct *fs, const char *path);

/*
 * A user path name in a new PATH_MAX buffer (kfree it), or NULL with *err:
 * -EFAULT, -ENAMETOOLONG, -ENOMEM, or -ENOENT for "" unless empty_ok
 * (AT_EMPTY_PATH). A NULL pointer is "" when empty_ok, as Linux 6.11+.
 */
char *getname_user(const char *upath, bool empty_ok, int *err);

/* Where a relative path starts, held for the length of a walk. */
struct walk_base {
	const char *path;   /* NULL: "/" */
	struct file *dir;   /* the directory descriptor's file, or NULL */
	struct fs_pwd *pwd; /* the working directory, or NULL */
};

/*
 * The start of path for an *at() call: nothing for an absolute path,
 * dirfd's directory, or the working directory for AT_FDCWD. 0, -EBADF
 * (dirfd not open) or -ENOTDIR (dirfd not a directory).
 */
int walk_base_get(int dirfd, const char *path, struct walk_base *b);
void walk_base_put(struct walk_base *b);

/* path_walk from dirfd (as walk_base_get) or the working directory. w is large: kmalloc it. */
int path_walk_at(int dirfd, const char *path, bool follow, struct path_walk *w);

/* The caller's umask (FS_DEFAULT_UMASK when it has no fs_struct). */
u32 current_umask(void);

long sys_getcwd(char *ubuf, unsigned long size);
long sys_umask(int mask);
long sys_chdir(const char *upath);
long sys_fchdir(int fd);

#endif

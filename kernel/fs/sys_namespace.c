/*
 * mkdir, rmdir, unlink, link, symlink, rename, truncate, chmod and
 * utimensat (see sys_namespace.h): each resolves its path names without following the
 * last component, checks what Linux's namei checks in Linux's order, and
 * hands the resolved path under /tmp to the tmpfs, which checks again
 * under its lock (another thread may have changed the tree meanwhile).
 */
#include "fs/sys_namespace.h"

#include <arch/uaccess.h>

#include "fs/cwd.h"
#include "fs/fdtable.h"
#include "fs/file.h"
#include "fs/initrd_file.h"
#include "fs/namei.h"
#include "fs/open.h"
#include "fs/tmpfs.h"
#include "lib/errno.h"
#include "lib/string.h"
#include "mm/heap.h"
#include "proc/sys_time.h"
#include "proc/syscall.h"

/* A path name as the namespace calls need it. */
struct name {
	struct path_walk *w; /* w->path: the resolved path, the last component included */
	bool exists;	     /* else only the last component is missing */
	int dot;	     /* the last component as written: 1 ".", 2 "..", else 0 */
	bool slash;	     /* written with a trailing slash */
	const char *rel;     /* the part under /tmp, or NULL */
};

static int last_dot(const char *path, bool *slash)
{
	size_t end = strlen(path), start;

	while (end > 1 && path[end - 1] == '/')
		end--;
	*slash = path[end] == '/';
	for (start = end; start && path[start - 1] != '/'; start--)
		;
	if (end - start == 1 && path[start] == '.')
		return 1;
	if (end - start == 2 && path[start] == '.' && path[start + 1] == '.')
		return 2;
	return 0;
}

/* A kernel path name resolved from dfd into n (name_put it, whatever the result). */
static int name_walk(int dfd, const char *path, bool follow, struct name *n)
{
	int err;

	n->dot = last_dot(path, &n->slash);
	n->w = kmalloc(sizeof(*n->w));
	if (!n->w)
		return -ENOMEM;
	err = path_walk_at(dfd, path, follow, n->w);
	n->exists = !err;
	if (err == -ENOENT && n->w->parent_exists)
		err = 0;
	n->rel = err ? NULL : tmpfs_rel(n->w->path);
	return err;
}

static int name_get(int dfd, const char *upath, bool follow, struct name *n)
{
	char *path;
	int err;

	n->w = NULL;
	path = getname_user(upath, false, &err);
	if (!path)
		return err;
	err = name_walk(dfd, path, follow, n);
	kfree(path);
	return err;
}

static void name_put(struct name *n)
{
	kfree(n->w);
}

long sys_mkdirat(int dfd, const char *upath, int mode)
{
	struct name n;
	int err = name_get(dfd, upath, false, &n);

	if (!err && (n.dot || n.exists))
		err = -EEXIST;
	else if (!err && !n.rel)
		err = -EROFS;
	else if (!err)
		err = tmpfs_mkdir(n.rel, (u32)mode & 01777 & ~current_umask());
	name_put(&n);
	return err;
}
SYSCALL_DEFINE3(mkdirat, int, const char *, int);

long sys_mkdir(const char *upath, int mode)
{
	return sys_mkdirat(AT_FDCWD, upath, mode);
}
SYSCALL_DEFINE2(mkdir, const char *, int);

static long rmdir_at(int dfd, const char *upath)
{
	struct name n;
	int err = name_get(dfd, upath, false, &n);

	if (!err && n.dot)
		err = n.dot == 1 ? -EINVAL : -ENOTEMPTY;
	else if (!err && !n.exists)
		err = -ENOENT;
	else if (!err && n.w->node.kind != NODE_DIR)
		err = -ENOTDIR;
	else if (!err && !n.rel)
		err = -EROFS;
	else if (!err)
		err = tmpfs_rmdir(n.rel);
	name_put(&n);
	return err;
}

static long unlink_at(int dfd, const char *upath)
{
	struct name n;
	int err = name_get(dfd, upath, false, &n);

	if (!err && n.dot)
		err = -EISDIR;
	else if (!err && !n.exists)
		err = -ENOENT;
	else if (!err && n.slash)
		err = n.w->node.kind == NODE_DIR ? -EISDIR : -ENOTDIR;
	else if (!err && !n.rel)
		err = -EROFS;
	else if (!err)
		err = tmpfs_unlink(n.rel);
	name_put(&n);
	return err;
}

long sys_unlinkat(int dfd, const char *upath, int flags)
{
	if (flags & ~AT_REMOVEDIR)
		return -EINVAL;
	return flags & AT_REMOVEDIR ? rmdir_at(dfd, upath) : unlink_at(dfd, upath);
}
SYSCALL_DEFINE3(unlinkat, int, const char *, int);

long sys_unlink(const char *upath)
{
	return unlink_at(AT_FDCWD, upath);
}
SYSCALL_DEFINE1(unlink, const char *);

long sys_rmdir(const char *upath)
{
	return rmdir_at(AT_FDCWD, upath);
}
SYSCALL_DEFINE1(rmdir, const char *);

/* Where a new name goes: -EEXIST if taken, then -EXDEV or -EROFS if not beside old in /tmp. */
static int new_name_check(const struct name *n, const char *old_rel)
{
	if (n->dot || n->exists)
		return -EEXIST;
	if (!n->rel)
		return old_rel ? -EXDEV : -EROFS;
	return old_rel ? 0 : -EXDEV;
}

long sys_linkat(int olddfd, const char *uold, int newdfd, const char *unew, int flags)
{
	struct name o, n = { 0 };
	int err;

	if (flags & ~AT_SYMLINK_FOLLOW)
		return -EINVAL; /* AT_EMPTY_PATH (linking an open file) is not supported */
	err = name_get(olddfd, uold, flags & AT_SYMLINK_FOLLOW, &o);
	if (!err && !o.exists)
		err = -ENOENT;
	if (!err)
		err = name_get(newdfd, unew, false, &n);
	if (!err)
		err = new_name_check(&n, o.rel);
	if (!err && o.w->node.kind == NODE_DIR)
		err = -EPERM;
	if (!err)
		err = tmpfs_link(o.rel, n.rel);
	name_put(&n);
	name_put(&o);
	return err;
}
SYSCALL_DEFINE5(linkat, int, const char *, int, const char *, int);

long sys_link(const char *uold, const char *unew)
{
	return sys_linkat(AT_FDCWD, uold, AT_FDCWD, unew, 0);
}
SYSCALL_DEFINE2(link, const char *, const char *);

long sys_symlinkat(const char *utarget, int newdfd, const char *unew)
{
	struct name n = { 0 };
	char *target;
	int err;

	target = getname_user(utarget, false, &err);
	if (!target)
		return err;
	err = name_get(newdfd, unew, false, &n);
	if (!err && (n.dot || n.exists))
		err = -EEXIST;
	else if (!err && !n.rel)
		err = -EROFS;
	else if (!err)
		err = tmpfs_symlink(target, n.rel);
	name_put(&n);
	kfree(target);
	return err;
}
SYSCALL_DEFINE3(symlinkat, const char *, int, const char *);

long sys_symlink(const char *utarget, const char *unew)
{
	return sys_symlinkat(utarget, AT_FDCWD, unew);
}
SYSCALL_DEFINE2(symlink, const char *, const char *);

long sys_renameat2(int olddfd, const char *uold, int newdfd, const char *unew, unsigned int flags)
{
	struct name o, n = { 0 };
	int err;

	if (flags & ~(RENAME_NOREPLACE | RENAME_EXCHANGE | RENAME_WHITEOUT))
		return -EINVAL;
	if ((flags & RENAME_EXCHANGE) && (flags & (RENAME_NOREPLACE | RENAME_WHITEOUT)))
		return -EINVAL;
	err = name_get(olddfd, uold, false, &o);
	if (!err)
		err = name_get(newdfd, unew, false, &n);
	if (!err && (o.dot || n.dot))
		err = -EBUSY;
	else if (!err && !o.exists)
		err = -ENOENT;
	else if (!err && (!o.rel || !n.rel))
		err = o.rel || n.rel ? -EXDEV : -EROFS;
	else if (!err && (o.slash || n.slash) && o.w->node.kind != NODE_DIR)
		err = -ENOTDIR;
	else if (!err)
		err = tmpfs_rename(o.rel, n.rel, flags);
	name_put(&n);
	name_put(&o);
	return err;
}
SYSCALL_DEFINE5(renameat2, int, const char *, int, const char *, unsigned int);

long sys_renameat(int olddfd, const char *uold, int newdfd, const char *unew)
{
	return sys_renameat2(olddfd, uold, newdfd, unew, 0);
}
SYSCALL_DEFINE4(renameat, int, const char *, int, const char *);

long sys_rename(const char *uold, const char *unew)
{
	return sys_renameat2(AT_FDCWD, uold, AT_FDCWD, unew, 0);
}
SYSCALL_DEFINE2(rename, const char *, const char *);

long sys_truncate(const char *upath, long length)
{
	struct name n;
	int err;

	if (length < 0)
		return -EINVAL;
	err = name_get(AT_FDCWD, upath, true, &n);
	if (!err && !n.exists)
		err = -ENOENT;
	else if (!err && n.w->node.kind == NODE_DIR)
		err = -EISDIR;
	else if (!err && n.w->node.kind == NODE_FILE)
		err = -EROFS;
	else if (!err && n.w->node.kind != NODE_TMPFS)
		err = -EINVAL;
	else if (!err)
		err = tmpfs_truncate_path(n.rel, length);
	name_put(&n);
	return err;
}
SYSCALL_DEFINE2(truncate, const char *, long);

long sys_ftruncate(int fd, long length)
{
	struct file *f;
	int err;

	if (length < 0)
		return -EINVAL;
	f = fget(fd);
	if (!f)
		return -EBADF;
	err = tmpfs_truncate_file(f, length);
	fput(f);
	return err;
}
SYSCALL_DEFINE2(ftruncate, int, long);

long sys_fchmodat(int dfd, const char *upath, int mode)
{
	struct name n;
	int err = name_get(dfd, upath, true, &n);

	if (!err && !n.exists)
		err = -ENOENT;
	else if (!err && !n.rel)
		err = -EROFS;
	else if (!err)
		err = tmpfs_chmod(n.rel, NULL, (u32)mode);
	name_put(&n);
	return err;
}
SYSCALL_DEFINE3(fchmodat, int, const char *, int);

long sys_chmod(const char *upath, int mode)
{
	return sys_fchmodat(AT_FDCWD, upath, mode);
}
SYSCALL_DEFINE2(chmod, const char *, int);

/*
 * What an attribute change through a descriptor changes: a directory by
 * its path (*rel), a tmpfs file by the file itself (*rel NULL); -EROFS for
 * a directory elsewhere (the file's own tmpfs call refuses other files).
 */
static int fd_target(struct file *f, const char **rel)
{
	const char *dir = dir_path(f);

	*rel = dir ? tmpfs_rel(dir) : NULL;
	return dir && !*rel ? -EROFS : 0;
}

long sys_fchmod(int fd, int mode)
{
	struct file *f = fget(fd);
	const char *rel;
	long err;

	if (!f)
		return -EBADF;
	err = fd_target(f, &rel);
	if (!err)
		err = tmpfs_chmod(rel, rel ? NULL : f, (u32)mode);
	fput(f);
	return err;
}
SYSCALL_DEFINE2(fchmod, int, int);

/* utimensat's nanosecond markers (Linux's include/uapi/linux/stat.h). */
#define UTIME_NOW  ((1L << 30) - 1)
#define UTIME_OMIT ((1L << 30) - 2)

/* A user timespec as tmpfs_set_times takes it; false if Linux would refuse it (or, before 1970, we do). */
static bool utime_of(const struct k_timespec *t, u64 *ns)
{
	if (t->tv_nsec == UTIME_NOW || t->tv_nsec == UTIME_OMIT) {
		*ns = t->tv_nsec == UTIME_NOW ? TMPFS_TIME_NOW : TMPFS_TIME_OMIT;
		return true;
	}
	if (!timespec_valid(t))
		return false;
	*ns = timespec_to_ns(t);
	return *ns < TMPFS_TIME_OMIT;
}

static long utimes_fd(int fd, const u64 times[2])
{
	struct file *f = fget(fd);
	const char *rel;
	long err;

	if (!f)
		return -EBADF;
	err = fd_target(f, &rel);
	if (!err && (times[0] != TMPFS_TIME_OMIT || times[1] != TMPFS_TIME_OMIT))
		err = tmpfs_set_times(rel, rel ? NULL : f, times);
	fput(f);
	return err;
}

/*
 * Linux's order: the times (-EFAULT, -EINVAL), then a NULL path with a
 * descriptor (futimens; no flags), then the flags and the path. Two
 * UTIME_OMITs change nothing once the file is found.
 */
long sys_utimensat(int dfd, const char *upath, const struct k_timespec *utimes, int flags)
{
	u64 times[2] = { TMPFS_TIME_NOW, TMPFS_TIME_NOW };
	struct k_timespec t[2];
	struct name n = { 0 };
	char *path;
	int err;

	if (utimes) {
		if (copy_from_user(t, utimes, sizeof(t)))
			return -EFAULT;
		if (!utime_of(&t[0], &times[0]) || !utime_of(&t[1], &times[1]))
			return -EINVAL;
	}
	if (!upath && dfd != AT_FDCWD)
		return flags ? -EINVAL : utimes_fd(dfd, times);
	if (flags & ~(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH))
		return -EINVAL;
	path = getname_user(upath, flags & AT_EMPTY_PATH, &err);
	if (!path)
		return err;
	if (!path[0] && dfd != AT_FDCWD) {
		kfree(path);
		return utimes_fd(dfd, times);
	}
	err = name_walk(dfd, path[0] ? path : ".", !(flags & AT_SYMLINK_NOFOLLOW), &n);
	kfree(path);
	if (!err && !n.exists)
		err = -ENOENT;
	else if (!err && times[0] == TMPFS_TIME_OMIT && times[1] == TMPFS_TIME_OMIT)
		err = 0;
	else if (!err && !n.rel)
		err = -EROFS;
	else if (!err)
		err = tmpfs_set_times(n.rel, NULL, times);
	name_put(&n);
	return err;
}
SYSCALL_DEFINE4(utimensat, int, const char *, const struct k_timespec *, int);

/*
 * stat and access by path: stat, lstat, newfstatat, access, faccessat and
 * faccessat2. What a path names is described exactly as fstat describes
 * it opened (each kind's own filler), so st_ino and st_dev agree between
 * the two. Everyone is root, and everything belongs to root: access
 * applies Linux's rules for the owner with CAP_DAC_OVERRIDE (access_check
 * in stat.h), and the initrd is a read-only file system.
 */
#include "fs/stat.h"

#include <arch/uaccess.h>

#include "fs/console.h"
#include "fs/cwd.h"
#include "fs/devnull.h"
#include "fs/fdtable.h"
#include "fs/file.h"
#include "fs/initrd_file.h"
#include "fs/namei.h"
#include "fs/open.h"
#include "fs/procfs.h"
#include "fs/sys_fs.h"
#include "fs/tmpfs.h"
#include "lib/errno.h"
#include "lib/string.h"
#include "mm/heap.h"
#include "proc/syscall.h"

/* newfstatat's flags: AT_STATX_* (sync hints) are taken as statx takes them. */
#define AT_STATX_SYNC_TYPE 0x6000
#define STAT_FLAGS	   (AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT | AT_EMPTY_PATH | AT_STATX_SYNC_TYPE)
#define ACCESS_FLAGS	   (AT_EACCESS | AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH)

void fs_path_kstat(const char *path, const struct fs_node *n, struct kstat *st)
{
	memset(st, 0, sizeof(*st));
	if (n->dev == KDEV_TMPFS && !tmpfs_kstat(tmpfs_rel(path), st))
		return;
	switch (n->kind) {
	case NODE_DEVNULL:
		devnull_kstat(st);
		return;
	case NODE_CONSOLE:
		console_kstat(st);
		return;
	case NODE_PROC:
		if (n->dev == KDEV_SYSFS ? !sysfs_kstat(path + sizeof("/sys"), st) :
					   !procfs_kstat(path + sizeof("/proc"), st))
			return;
		break;
	default:
		break;
	}
	fs_node_kstat(n, st);
}

/* The stat of what path names from dfd; "" (AT_EMPTY_PATH) is dfd itself, any kind of file. */
static int stat_at(int dfd, const char *path, bool follow, struct kstat *st)
{
	struct path_walk *w;
	int err;

	if (!path[0] && dfd != AT_FDCWD) {
		struct file *f = fget(dfd);

		if (!f)
			return -EBADF;
		file_kstat(f, st);
		fput(f);
		return 0;
	}
	w = kmalloc(sizeof(*w));
	if (!w)
		return -ENOMEM;
	err = path_walk_at(dfd, path[0] ? path : ".", follow, w);
	if (!err)
		fs_path_kstat(w->path, &w->node, st);
	kfree(w);
	return err;
}

/* Linux's order: the name is copied in before the flags are checked. */
long sys_newfstatat(int dfd, const char *upath, struct kstat *ust, int flags)
{
	struct kstat st;
	char *path;
	int err;

	path = getname_user(upath, flags & AT_EMPTY_PATH, &err);
	if (!path)
		return err;
	if (flags & ~STAT_FLAGS)
		err = -EINVAL;
	else
		err = stat_at(dfd, path, !(flags & AT_SYMLINK_NOFOLLOW), &st);
	kfree(path);
	if (!err && copy_to_user(ust, &st, sizeof(st)))
		err = -EFAULT;
	return err;
}
SYSCALL_DEFINE4(newfstatat, int, const char *, struct kstat *, int);

long sys_stat(const char *upath, struct kstat *ust)
{
	return sys_newfstatat(AT_FDCWD, upath, ust, 0);
}
SYSCALL_DEFINE2(stat, const char *, struct kstat *);

long sys_lstat(const char *upath, struct kstat *ust)
{
	return sys_newfstatat(AT_FDCWD, upath, ust, AT_SYMLINK_NOFOLLOW);
}
SYSCALL_DEFINE2(lstat, const char *, struct kstat *);

/* AT_EACCESS changes nothing: real and effective ids are both root. */
long sys_faccessat2(int dfd, const char *upath, int amode, int flags)
{
	struct kstat st;
	char *path;
	int err;

	if (amode & ~(R_OK | W_OK | X_OK))
		return -EINVAL;
	if (flags & ~ACCESS_FLAGS)
		return -EINVAL;
	path = getname_user(upath, flags & AT_EMPTY_PATH, &err);
	if (!path)
		return err;
	err = stat_at(dfd, path, !(flags & AT_SYMLINK_NOFOLLOW), &st);
	kfree(path);
	if (err)
		return err;
	return access_check(st.st_mode, st.st_dev == KDEV_ROOTFS, amode);
}
SYSCALL_DEFINE4(faccessat2, int, const char *, int, int);

long sys_faccessat(int dfd, const char *upath, int amode)
{
	return sys_faccessat2(dfd, upath, amode, 0);
}
SYSCALL_DEFINE3(faccessat, int, const char *, int);

long sys_access(const char *upath, int amode)
{
	return sys_faccessat2(AT_FDCWD, upath, amode, 0);
}
SYSCALL_DEFINE2(access, const char *, int);

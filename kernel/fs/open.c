/*
 * Opening files: resolve the path, check the flags against what it names,
 * and make the open file of its kind. A descriptor is reserved before the
 * lookup, as Linux does, so a full table is -EMFILE whatever the path.
 */
#include "fs/open.h"

#include <arch/uaccess.h>

#include "fs/console.h"
#include "fs/cwd.h"
#include "fs/devnull.h"
#include "fs/fdtable.h"
#include "fs/file.h"
#include "fs/initrd_file.h"
#include "fs/namei.h"
#include "fs/procfs.h"
#include "fs/stat.h"
#include "fs/tmpfs.h"
#include "lib/errno.h"
#include "lib/string.h"
#include "mm/heap.h"
#include "proc/current.h"
#include "proc/syscall.h"

static struct file *open_node(struct path_walk *w, unsigned int flags, u32 mode, int *err)
{
	unsigned int acc = flags & O_ACCMODE;
	bool writes = acc != O_RDONLY || (flags & O_TRUNC);
	struct file *f = NULL;

	if ((flags & O_DIRECTORY) && w->node.kind != NODE_DIR && w->node.kind != NODE_SYMLINK) {
		*err = -ENOTDIR;
		return NULL;
	}
	*err = -ENOMEM;
	switch (w->node.kind) {
	case NODE_SYMLINK: /* reached only with O_NOFOLLOW */
		*err = -ELOOP;
		return NULL;
	case NODE_DIR:
		if (writes || (flags & O_CREAT)) {
			*err = -EISDIR;
			return NULL;
		}
		f = dir_open(w->path, &w->node, flags);
		break;
	case NODE_FILE:
		if (writes) {
			*err = -EROFS;
			return NULL;
		}
		f = initrd_file_open(&w->node, flags);
		break;
	case NODE_DEVNULL:
		f = devnull_open(flags);
		break;
	case NODE_CONSOLE:
		f = console_open(flags);
		break;
	case NODE_PROC:
		if (w->node.dev == KDEV_SYSFS)
			return sysfs_open(w->path + sizeof("/sys"), flags, err);
		return procfs_open(w->path + sizeof("/proc"), flags, err);
	case NODE_SPECIAL:
		*err = -ENXIO; /* device nodes in the initrd name no driver here */
		return NULL;
	case NODE_TMPFS:
		return tmpfs_open(tmpfs_rel(w->path), flags, mode, err);
	}
	if (f)
		*err = 0;
	return f;
}

static struct file *open_at(const char *path, const char *base, unsigned int flags, u32 mode, int *err)
{
	bool excl = (flags & (O_CREAT | O_EXCL)) == (O_CREAT | O_EXCL);
	struct path_walk *w;
	struct file *f;

	if (flags & O_PATH) {
		*err = -EINVAL; /* path-only descriptors are not supported */
		return NULL;
	}
	w = kmalloc(sizeof(*w));
	if (!w) {
		*err = -ENOMEM;
		return NULL;
	}
	mode = (mode & 07777) & ~current_umask();
	*err = path_walk(path, base, !(flags & O_NOFOLLOW) && !excl, w);
	if (*err == -ENOENT && (flags & O_CREAT) && w->parent_exists) {
		size_t len = strlen(path);

		if (len && path[len - 1] == '/') {
			*err = -EISDIR; /* "name/" is a directory's name: open(2) makes none */
		} else if (tmpfs_rel(w->path)) {
			w->node.kind = NODE_TMPFS; /* tmpfs_open creates it */
			*err = 0;
		} else {
			*err = -EROFS; /* the file would be created, but only /tmp is writable */
		}
	} else if (!*err && excl) {
		*err = -EEXIST;
	}
	f = *err ? NULL : open_node(w, flags, mode, err);
	kfree(w);
	return f;
}

struct file *file_open(const char *path, unsigned int flags, int *err)
{
	return open_at(path, NULL, flags, 0, err);
}

long sys_openat(int dirfd, const char *upath, int flags, int mode)
{
	struct files *files = current_files();
	struct walk_base base;
	struct file *f = NULL;
	char *path;
	long len;
	int fd, err;

	path = kmalloc(PATH_MAX);
	if (!path)
		return -ENOMEM;
	len = strncpy_from_user(path, upath, PATH_MAX);
	if (len <= 0) {
		kfree(path);
		return len ? len : -ENOENT; /* Linux's getname: before the descriptor is taken */
	}
	fd = fd_reserve(files, 0, flags & O_CLOEXEC);
	if (fd < 0) {
		kfree(path);
		return fd;
	}
	err = walk_base_get(dirfd, path, &base);
	if (err)
		goto fail;
	/* Linux x86-64 forces O_LARGEFILE on open: F_GETFL shows it. */
	f = open_at(path, base.path, (unsigned int)flags | O_LARGEFILE, (u32)mode, &err);
	walk_base_put(&base);
	if (!f)
		goto fail;
	fd_install(files, fd, f);
	kfree(path);
	return fd;
fail:
	fd_unreserve(files, fd);
	kfree(path);
	return err;
}
SYSCALL_DEFINE4(openat, int, const char *, int, int);

long sys_open(const char *upath, int flags, int mode)
{
	return sys_openat(AT_FDCWD, upath, flags, mode);
}
SYSCALL_DEFINE3(open, const char *, int, int);

/*
 * statfs and fstatfs: what file system a path or a descriptor is on, as
 * Linux reports it for the same kinds: the initrd as a read-only rootfs
 * (ramfs's magic, its size in 4 KiB blocks, none free), /proc, /dev
 * (devtmpfs, which is tmpfs), pipes and sockets.
 */
#include <arch/uaccess.h>

#include "fs/cwd.h"
#include "fs/fdtable.h"
#include "fs/file.h"
#include "fs/initrd.h"
#include "fs/namei.h"
#include "fs/open.h"
#include "fs/sendfile.h"
#include "fs/stat.h"
#include "fs/sys_fs.h"
#include "fs/tmpfs.h"
#include "lib/compiler.h"
#include "lib/errno.h"
#include "lib/string.h"
#include "mm/heap.h"
#include "proc/syscall.h"

#define RAMFS_MAGIC	 0x858458f6
#define PROC_SUPER_MAGIC 0x9fa0
#define TMPFS_MAGIC	 0x01021994
#define PIPEFS_MAGIC	 0x50495045
#define SOCKFS_MAGIC	 0x534f434b
#define SYSFS_MAGIC	 0x62656572

#define ST_RDONLY 0x0001
#define ST_VALID  0x0020 /* f_flags is filled in (Linux's ST_VALID) */

static void fill(u64 dev, struct kstatfs *sf)
{
	struct initrd_stats st;
	struct tmpfs_usage tu;

	memset(sf, 0, sizeof(*sf));
	sf->f_bsize = sf->f_frsize = 4096;
	sf->f_namelen = NAME_MAX;
	sf->f_flags = ST_VALID;
	if (dev == KDEV_ROOTFS) {
		initrd_get_stats(&st);
		sf->f_type = RAMFS_MAGIC;
		sf->f_blocks = (st.file_bytes + 4095) / 4096;
		sf->f_files = st.files + st.dirs + st.symlinks + st.others;
		sf->f_flags |= ST_RDONLY;
	} else if (dev == KDEV_PROC) {
		sf->f_type = PROC_SUPER_MAGIC;
	} else if (dev == KDEV_SYSFS) {
		sf->f_type = SYSFS_MAGIC;
	} else if (dev == KDEV_DEVTMPFS) {
		sf->f_type = TMPFS_MAGIC;
	} else if (dev == KDEV_TMPFS) {
		tmpfs_get_usage(&tu);
		sf->f_type = TMPFS_MAGIC;
		sf->f_blocks = tu.max_pages;
		sf->f_bfree = sf->f_bavail = tu.max_pages - MIN(tu.pages, tu.max_pages);
		sf->f_files = tu.inodes;
	} else if (dev == KDEV_SOCKFS) {
		sf->f_type = SOCKFS_MAGIC;
	} else {
		sf->f_type = PIPEFS_MAGIC;
	}
}

long sys_statfs(const char *upath, struct kstatfs *ubuf)
{
	struct kstatfs sf;
	struct path_walk *w;
	char *path;
	int err;

	path = getname_user(upath, false, &err);
	if (!path)
		return err;
	w = kmalloc(sizeof(*w));
	err = w ? path_walk_at(AT_FDCWD, path, true, w) : -ENOMEM;
	if (!err)
		fill(w->node.dev, &sf);
	kfree(w);
	kfree(path);
	if (!err && copy_to_user(ubuf, &sf, sizeof(sf)))
		err = -EFAULT;
	return err;
}
SYSCALL_DEFINE2(statfs, const char *, struct kstatfs *);

long sys_fstatfs(int fd, struct kstatfs *ubuf)
{
	struct file *f = fget(fd);
	struct kstatfs sf;
	struct kstat st;

	if (!f)
		return -EBADF;
	file_kstat(f, &st);
	fput(f);
	fill(st.st_dev, &sf);
	return copy_to_user(ubuf, &sf, sizeof(sf)) ? -EFAULT : 0;
}
SYSCALL_DEFINE2(fstatfs, int, struct kstatfs *);

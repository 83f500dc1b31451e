/*
 * Working directories, the starting points of *at() walks, and getcwd,
 * chdir and fchdir (see cwd.h).
 */
#include "fs/cwd.h"

#include <arch/uaccess.h>

#include "fs/fdtable.h"
#include "fs/file.h"
#include "fs/initrd_file.h"
#include "fs/namei.h"
#include "fs/open.h"
#include "lib/errno.h"
#include "lib/string.h"
#include "mm/heap.h"
#include "proc/current.h"
#include "proc/syscall.h"

static struct fs_pwd *pwd_new(const char *path)
{
	size_t len = strlen(path);
	struct fs_pwd *pwd = kmalloc(sizeof(*pwd) + len + 1);

	if (!pwd)
		return NULL;
	pwd->refcount = 1;
	pwd->len = len;
	memcpy(pwd->path, path, len + 1);
	return pwd;
}

void fs_pwd_put(struct fs_pwd *pwd)
{
	if (pwd && __atomic_sub_fetch(&pwd->refcount, 1, __ATOMIC_ACQ_REL) == 0)
		kfree(pwd);
}

static struct fs_struct *fs_new(struct fs_pwd *pwd, u32 umask)
{
	struct fs_struct *fs;

	if (!pwd)
		return NULL;
	fs = kmalloc(sizeof(*fs));
	if (!fs) {
		fs_pwd_put(pwd);
		return NULL;
	}
	fs->refcount = 1;
	fs->lock = (struct spinlock)SPINLOCK_INIT;
	fs->pwd = pwd;
	fs->umask = umask;
	return fs;
}

struct fs_struct *fs_struct_create(void)
{
	return fs_new(pwd_new("/"), FS_DEFAULT_UMASK);
}

struct fs_struct *fs_struct_clone(struct fs_struct *src)
{
	return src ? fs_new(fs_pwd_get(src), __atomic_load_n(&src->umask, __ATOMIC_RELAXED)) :
		     fs_struct_create();
}

void fs_struct_get(struct fs_struct *fs)
{
	__atomic_add_fetch(&fs->refcount, 1, __ATOMIC_RELAXED);
}

void fs_struct_put(struct fs_struct *fs)
{
	if (!fs || __atomic_sub_fetch(&fs->refcount, 1, __ATOMIC_ACQ_REL) != 0)
		return;
	fs_pwd_put(fs->pwd);
	kfree(fs);
}

struct fs_pwd *fs_pwd_get(struct fs_struct *fs)
{
	struct fs_pwd *pwd;
	unsigned long flags;

	if (!fs)
		return NULL;
	flags = spin_lock_irqsave(&fs->lock);
	pwd = fs->pwd;
	__atomic_add_fetch(&pwd->refcount, 1, __ATOMIC_RELAXED);
	spin_unlock_irqrestore(&fs->lock, flags);
	return pwd;
}

int fs_set_pwd(struct fs_struct *fs, const char *path)
{
	struct fs_pwd *pwd = pwd_new(path), *old;
	unsigned long flags;

	if (!pwd)
		return -ENOMEM;
	flags = spin_lock_irqsave(&fs->lock);
	old = fs->pwd;
	fs->pwd = pwd;
	spin_unlock_irqrestore(&fs->lock, flags);
	fs_pwd_put(old); /* a walk that took it keeps its own count */
	return 0;
}

char *getname_user(const char *upath, bool empty_ok, int *err)
{
	char *path = kmalloc(PATH_MAX);
	long len;

	if (!path) {
		*err = -ENOMEM;
		return NULL;
	}
	if (!upath && empty_ok) {
		path[0] = '\0';
		return path;
	}
	len = strncpy_from_user(path, upath, PATH_MAX);
	if (len < 0 || (len == 0 && !empty_ok)) {
		*err = len < 0 ? (int)len : -ENOENT;
		kfree(path);
		return NULL;
	}
	return path;
}

int walk_base_get(int dirfd, const char *path, struct walk_base *b)
{
	b->path = NULL;
	b->dir = NULL;
	b->pwd = NULL;
	if (path[0] == '/')
		return 0; /* dirfd is not even looked at, as on Linux */
	if (dirfd == AT_FDCWD) {
		b->pwd = fs_pwd_get(current_fs());
		b->path = b->pwd ? b->pwd->path : NULL;
		return 0;
	}
	b->dir = fget(dirfd);
	if (!b->dir)
		return -EBADF;
	b->path = dir_path(b->dir);
	if (!b->path) {
		fput(b->dir);
		b->dir = NULL;
		return -ENOTDIR;
	}
	return 0;
}

void walk_base_put(struct walk_base *b)
{
	fput(b->dir);
	fs_pwd_put(b->pwd);
	b->dir = NULL;
	b->pwd = NULL;
	b->path = NULL;
}

int path_walk_at(int dirfd, const char *path, bool follow, struct path_walk *w)
{
	struct walk_base b;
	int err = walk_base_get(dirfd, path, &b);

	if (err)
		return err;
	err = path_walk(path, b.path, follow, w);
	walk_base_put(&b);
	return err;
}

/* Linux's getcwd returns the length copied, the NUL included. */
long sys_getcwd(char *ubuf, unsigned long size)
{
	struct fs_pwd *pwd = fs_pwd_get(current_fs());
	const char *path = pwd ? pwd->path : "/";
	size_t len = strlen(path) + 1;
	long ret;

	if (len > size)
		ret = -ERANGE;
	else
		ret = copy_to_user(ubuf, path, len) ? -EFAULT : (long)len;
	fs_pwd_put(pwd);
	return ret;
}
SYSCALL_DEFINE2(getcwd, char *, unsigned long);

/* Everyone is root: a directory may always be searched, so no -EACCES. */
static long set_cwd(const char *path)
{
	struct fs_struct *fs = current_fs();

	return fs ? fs_set_pwd(fs, path) : -ENOMEM;
}

long sys_chdir(const char *upath)
{
	struct path_walk *w;
	char *path;
	int err;

	path = getname_user(upath, false, &err);
	if (!path)
		return err;
	w = kmalloc(sizeof(*w));
	if (!w) {
		kfree(path);
		return -ENOMEM;
	}
	err = path_walk_at(AT_FDCWD, path, true, w);
	if (!err)
		err = w->node.kind == NODE_DIR ? (int)set_cwd(w->path) : -ENOTDIR;
	kfree(w);
	kfree(path);
	return err;
}
SYSCALL_DEFINE1(chdir, const char *);

long sys_fchdir(int fd)
{
	struct file *f = fget(fd);
	const char *path;
	long ret;

	if (!f)
		return -EBADF;
	path = dir_path(f);
	ret = path ? set_cwd(path) : -ENOTDIR;
	fput(f);
	return ret;
}
SYSCALL_DEFINE1(fchdir, int);

u32 current_umask(void)
{
	struct fs_struct *fs = current_fs();

	return fs ? __atomic_load_n(&fs->umask, __ATOMIC_RELAXED) : FS_DEFAULT_UMASK;
}

/* Shared by CLONE_FS, as Linux keeps it in fs_struct; a caller with none keeps the default. */
long sys_umask(int mask)
{
	struct fs_struct *fs = current_fs();

	if (!fs)
		return FS_DEFAULT_UMASK;
	return __atomic_exchange_n(&fs->umask, (u32)mask & 0777, __ATOMIC_RELAXED);
}
SYSCALL_DEFINE1(umask, int);

/*
 * readlink and readlinkat: the target of a symbolic link (an initrd
 * link, /proc/self, /proc/<pid>/exe), as Linux returns it: not
 * NUL-terminated, cut to the buffer, its length returned.
 */
#include <arch/uaccess.h>

#include "fs/cwd.h"
#include "fs/namei.h"
#include "fs/open.h"
#include "fs/readlink.h"
#include "lib/errno.h"
#include "lib/string.h"
#include "mm/heap.h"
#include "proc/syscall.h"

/*
 * Linux's order: a size of 0 or less is -EINVAL before the name is
 * looked at; then the walk's errors (the last component not followed);
 * anything but a symlink is -EINVAL; a bad buffer -EFAULT.
 */
long sys_readlinkat(int dfd, const char *upath, char *ubuf, int bufsiz)
{
	struct path_walk *w;
	char *path;
	int err;
	long n;

	if (bufsiz <= 0)
		return -EINVAL;
	path = getname_user(upath, false, &err);
	if (!path)
		return err;
	w = kmalloc(sizeof(*w));
	if (!w) {
		kfree(path);
		return -ENOMEM;
	}
	err = path_walk_at(dfd, path, false, w);
	n = err;
	if (!err && w->node.kind != NODE_SYMLINK)
		n = -EINVAL;
	else if (!err) {
		n = (long)MIN(w->node.size, (size_t)bufsiz);
		if (copy_to_user(ubuf, w->node.data, (size_t)n))
			n = -EFAULT;
	}
	kfree(w);
	kfree(path);
	return n;
}
SYSCALL_DEFINE4(readlinkat, int, const char *, char *, int);

long sys_readlink(const char *upath, char *ubuf, int bufsiz)
{
	return sys_readlinkat(AT_FDCWD, upath, ubuf, bufsiz);
}
SYSCALL_DEFINE3(readlink, const char *, char *, int);

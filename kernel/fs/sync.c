/*
 * fsync, fdatasync, sync and syncfs: every file system here lives in
 * memory, so there is nothing to write back. fsync and fdatasync keep
 * Linux's errors: -EBADF, and -EINVAL for what has no fsync there (pipes,
 * sockets, character devices, event files), which here is what cannot
 * seek.
 */
#include "fs/sync.h"

#include "fs/fdtable.h"
#include "fs/file.h"
#include "lib/errno.h"
#include "proc/syscall.h"

long sys_fsync(int fd)
{
	struct file *f = fget(fd);
	long err;

	if (!f)
		return -EBADF;
	err = f->ops->lseek ? 0 : -EINVAL;
	fput(f);
	return err;
}
SYSCALL_DEFINE1(fsync, int);

long sys_fdatasync(int fd)
{
	return sys_fsync(fd);
}
SYSCALL_DEFINE1(fdatasync, int);

long sys_sync(void)
{
	return 0;
}
SYSCALL_DEFINE0(sync);

long sys_syncfs(int fd)
{
	struct file *f = fget(fd);

	if (!f)
		return -EBADF;
	fput(f);
	return 0;
}
SYSCALL_DEFINE1(syncfs, int);

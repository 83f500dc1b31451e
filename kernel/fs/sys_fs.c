/*
 * File system calls on descriptors. Each takes its own reference to the
 * file for the length of the call, so a concurrent close cannot free it
 * underneath.
 */
#include "fs/sys_fs.h"

#include <arch/uaccess.h>

#include "fs/fdtable.h"
#include "fs/file.h"
#include "fs/iov_iter.h"
#include "fs/stat.h"
#include "lib/compiler.h"
#include "lib/errno.h"
#include "lib/string.h"
#include "mm/heap.h"
#include "proc/current.h"
#include "proc/syscall.h"

#define SEEK_MAX SEEK_HOLE

static long do_read(struct file *f, struct iov_iter *it)
{
	if (!(f->f_mode & FMODE_READ))
		return -EBADF;
	if (!f->ops->read)
		return -EINVAL;
	return f->ops->read(f, it);
}

static long do_write(struct file *f, struct iov_iter *it)
{
	if (!(f->f_mode & FMODE_WRITE))
		return -EBADF;
	if (!f->ops->write)
		return -EINVAL;
	return f->ops->write(f, it);
}

long sys_read(int fd, void *buf, size_t count)
{
	struct file *f = fget(fd);
	struct iov_iter it;
	long ret;

	if (!f)
		return -EBADF;
	if (!(f->f_mode & FMODE_READ))
		ret = -EBADF;
	else if (!user_range_ok(buf, count))
		ret = -EFAULT;
	else {
		iov_iter_single(&it, buf, count);
		ret = do_read(f, &it);
	}
	fput(f);
	return ret;
}
SYSCALL_DEFINE3(read, int, void *, size_t);

long sys_write(int fd, const void *buf, size_t count)
{
	struct file *f = fget(fd);
	struct iov_iter it;
	long ret;

	if (!f)
		return -EBADF;
	if (!(f->f_mode & FMODE_WRITE))
		ret = -EBADF;
	else if (!user_range_ok(buf, count))
		ret = -EFAULT;
	else {
		iov_iter_single(&it, (void *)buf, count);
		ret = do_write(f, &it);
	}
	fput(f);
	return ret;
}
SYSCALL_DEFINE3(write, int, const void *, size_t);

/*
 * pread64/pwrite64 in Linux's order: a negative offset before the
 * descriptor, -ESPIPE for what cannot seek (pipes, sockets, the console),
 * then the mode, the operation, the buffer and rw_verify_area's range
 * check. The file offset is left alone.
 */
static long do_positional(int fd, void *buf, size_t count, s64 pos, bool write)
{
	struct file *f;
	struct iov_iter it;
	s64 end;
	long ret;

	if (pos < 0)
		return -EINVAL;
	f = fget(fd);
	if (!f)
		return -EBADF;
	if (!f->ops->lseek)
		ret = -ESPIPE;
	else if (!(f->f_mode & (write ? FMODE_WRITE : FMODE_READ)))
		ret = -EBADF;
	else if (!(write ? f->ops->pwrite : f->ops->pread))
		ret = -EINVAL;
	else if (!user_range_ok(buf, count))
		ret = -EFAULT;
	else if ((s64)count < 0 || __builtin_add_overflow(pos, (s64)count, &end))
		ret = -EINVAL;
	else {
		iov_iter_single(&it, buf, MIN(count, (size_t)MAX_RW_COUNT));
		ret = write ? f->ops->pwrite(f, &it, pos) : f->ops->pread(f, &it, pos);
	}
	fput(f);
	return ret;
}

long sys_pread64(int fd, void *buf, size_t count, s64 pos)
{
	return do_positional(fd, buf, count, pos, false);
}
SYSCALL_DEFINE4(pread64, int, void *, size_t, s64);

long sys_pwrite64(int fd, const void *buf, size_t count, s64 pos)
{
	return do_positional(fd, (void *)buf, count, pos, true);
}
SYSCALL_DEFINE4(pwrite64, int, const void *, size_t, s64);

/* readv/writev: the mode is checked first, then the vector (Linux's vfs_readv order). */
static long do_vector(int fd, const struct iovec *uvec, unsigned long vlen, bool write)
{
	struct iovec fast[UIO_FASTIOV], *alloc;
	struct file *f = fget(fd);
	struct iov_iter it;
	long ret;

	if (!f)
		return -EBADF;
	if (!(f->f_mode & (write ? FMODE_WRITE : FMODE_READ))) {
		fput(f);
		return -EBADF;
	}
	ret = iov_iter_import(&it, uvec, vlen, fast, &alloc);
	if (ret > 0)
		ret = write ? do_write(f, &it) : do_read(f, &it);
	kfree(alloc);
	fput(f);
	return ret;
}

long sys_readv(int fd, const struct iovec *uvec, unsigned long vlen)
{
	return do_vector(fd, uvec, vlen, false);
}
SYSCALL_DEFINE3(readv, int, const struct iovec *, unsigned long);

long sys_writev(int fd, const struct iovec *uvec, unsigned long vlen)
{
	return do_vector(fd, uvec, vlen, true);
}
SYSCALL_DEFINE3(writev, int, const struct iovec *, unsigned long);

long sys_close(int fd)
{
	return fd_close(current_files(), fd);
}
SYSCALL_DEFINE1(close, int);

long sys_lseek(int fd, s64 offset, unsigned int whence)
{
	struct file *f = fget(fd);
	long ret;

	if (!f)
		return -EBADF;
	if (whence > SEEK_MAX)
		ret = -EINVAL;
	else if (!f->ops->lseek)
		ret = -ESPIPE;
	else
		ret = f->ops->lseek(f, offset, (int)whence);
	fput(f);
	return ret;
}
SYSCALL_DEFINE3(lseek, int, s64, unsigned int);

void file_kstat(struct file *f, struct kstat *st)
{
	memset(st, 0, sizeof(*st));
	if (f->ops->fstat)
		f->ops->fstat(f, st);
}

long sys_fstat(int fd, struct kstat *ust)
{
	struct file *f = fget(fd);
	struct kstat st;

	if (!f)
		return -EBADF;
	file_kstat(f, &st);
	fput(f);
	return copy_to_user(ust, &st, sizeof(st));
}
SYSCALL_DEFINE2(fstat, int, struct kstat *);

long sys_dup(int oldfd)
{
	struct file *f = fget(oldfd);
	int fd;

	if (!f)
		return -EBADF;
	fd = fd_alloc(current_files(), f, 0, false);
	if (fd < 0)
		fput(f);
	return fd;
}
SYSCALL_DEFINE1(dup, int);

static long do_dup3(int oldfd, int newfd, bool cloexec)
{
	struct file *f;
	int ret;

	if (newfd < 0 || (unsigned int)newfd >= files_nofile(current_files()))
		return -EBADF;
	f = fget(oldfd);
	if (!f)
		return -EBADF;
	ret = fd_replace(current_files(), newfd, f, cloexec);
	if (ret < 0)
		fput(f);
	return ret;
}

long sys_dup3(int oldfd, int newfd, int flags)
{
	if (flags & ~O_CLOEXEC)
		return -EINVAL;
	if (oldfd == newfd)
		return -EINVAL;
	return do_dup3(oldfd, newfd, flags & O_CLOEXEC);
}
SYSCALL_DEFINE3(dup3, int, int, int);

long sys_dup2(int oldfd, int newfd)
{
	if (oldfd == newfd) {
		struct file *f = fget(oldfd);

		if (!f)
			return -EBADF;
		fput(f);
		return newfd;
	}
	return do_dup3(oldfd, newfd, false);
}
SYSCALL_DEFINE2(dup2, int, int);

/* FIONREAD on a regular file: the bytes after the offset (Linux's do_vfs_ioctl). */
static long regular_fionread(struct file *f, int *uarg)
{
	struct kstat st;
	int n;

	file_kstat(f, &st);
	if (!S_ISREG(st.st_mode))
		return -ENOTTY;
	n = (int)MAX(st.st_size - f->f_pos, 0);
	return copy_to_user(uarg, &n, sizeof(n));
}

long sys_ioctl(int fd, unsigned int cmd, unsigned long arg)
{
	struct file *f = fget(fd);
	long ret = -ENOTTY;
	int on;

	if (!f)
		return -EBADF;
	switch (cmd) {
	case FIOCLEX:
	case FIONCLEX:
		ret = fd_set_cloexec(current_files(), fd, cmd == FIOCLEX);
		break;
	case FIONBIO:
		ret = copy_from_user(&on, (const void *)arg, sizeof(on));
		if (!ret)
			file_set_status_flags(f, on ? file_flags(f) | O_NONBLOCK :
						      file_flags(f) & ~O_NONBLOCK);
		break;
	default:
		if (f->ops->ioctl)
			ret = f->ops->ioctl(f, cmd, arg);
		if (ret == -ENOTTY && cmd == FIONREAD)
			ret = regular_fionread(f, (int *)arg);
		break;
	}
	fput(f);
	return ret;
}
SYSCALL_DEFINE3(ioctl, int, unsigned int, unsigned long);

long sys_fcntl(int fd, unsigned int cmd, unsigned long arg)
{
	struct files *files = current_files();
	struct file *f = fget(fd);
	long ret;

	if (!f)
		return -EBADF;
	switch (cmd) {
	case F_DUPFD:
	case F_DUPFD_CLOEXEC:
		if (arg >= files_nofile(files)) {
			ret = -EINVAL;
			break;
		}
		ret = fd_alloc(files, f, (unsigned int)arg, cmd == F_DUPFD_CLOEXEC);
		if (ret >= 0)
			f = NULL; /* the reference went to the new descriptor */
		break;
	case F_GETFD:
		ret = fd_get_cloexec(files, fd);
		break;
	case F_SETFD:
		ret = fd_set_cloexec(files, fd, arg & FD_CLOEXEC);
		break;
	case F_GETFL:
		ret = file_flags(f);
		break;
	case F_SETFL:
		file_set_status_flags(f, (unsigned int)arg);
		ret = 0;
		break;
	default:
		ret = -EINVAL;
		break;
	}
	fput(f);
	return ret;
}
SYSCALL_DEFINE3(fcntl, int, unsigned int, unsigned long);

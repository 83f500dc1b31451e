/* /dev/null, as Linux's drivers/char/mem.c has it. */
#include "fs/devnull.h"

#include "fs/file.h"
#include "fs/iov_iter.h"
#include "fs/stat.h"

#define DEVNULL_INO 3

static long null_read(struct file *f, struct iov_iter *to)
{
	return 0;
}

static long null_write(struct file *f, struct iov_iter *from)
{
	long n = (long)iov_iter_count(from);

	iov_iter_advance(from, (size_t)n);
	return n;
}

static long null_pread(struct file *f, struct iov_iter *to, s64 pos)
{
	return 0;
}

static long null_pwrite(struct file *f, struct iov_iter *from, s64 pos)
{
	return null_write(f, from);
}

static s64 null_lseek(struct file *f, s64 offset, int whence)
{
	f->f_pos = 0;
	return 0;
}

void devnull_kstat(struct kstat *st)
{
	st->st_dev = KDEV_DEVTMPFS;
	st->st_ino = DEVNULL_INO;
	st->st_mode = S_IFCHR | 0666;
	st->st_nlink = 1;
	st->st_rdev = KDEV(1, 3);
	st->st_blksize = 4096;
}

static void null_fstat(struct file *f, struct kstat *st)
{
	devnull_kstat(st);
}

static const struct file_ops null_ops = {
	.read = null_read,
	.write = null_write,
	.lseek = null_lseek,
	.pread = null_pread,
	.pwrite = null_pwrite,
	.fstat = null_fstat,
};

struct file *devnull_open(unsigned int flags)
{
	return file_alloc(&null_ops, flags, NULL);
}

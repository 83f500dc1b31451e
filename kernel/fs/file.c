/*
 * struct file: allocation, reference counting and the object counters
 * the teardown checks read.
 */
#include "fs/file.h"

#include "mm/heap.h"

static long counts[4];

void fs_count_add(enum fs_count_kind kind, long delta)
{
	__atomic_add_fetch(&counts[kind], delta, __ATOMIC_RELAXED);
}

void fs_object_counts(struct fs_counts *out)
{
	out->files = __atomic_load_n(&counts[FS_COUNT_FILES], __ATOMIC_RELAXED);
	out->fdtables = __atomic_load_n(&counts[FS_COUNT_FDTABLES], __ATOMIC_RELAXED);
	out->pipes = __atomic_load_n(&counts[FS_COUNT_PIPES], __ATOMIC_RELAXED);
	out->sockets = __atomic_load_n(&counts[FS_COUNT_SOCKETS], __ATOMIC_RELAXED);
}

struct file *file_alloc(const struct file_ops *ops, unsigned int flags, void *private_data)
{
	struct file *f = kzalloc(sizeof(*f));

	if (!f)
		return NULL;
	f->refcount = 1;
	f->f_flags = flags & ~(O_CLOEXEC | O_CREAT | O_EXCL | O_NOCTTY | O_TRUNC);
	switch (flags & O_ACCMODE) {
	case O_RDONLY:
		f->f_mode = FMODE_READ;
		break;
	case O_WRONLY:
		f->f_mode = FMODE_WRITE;
		break;
	case O_RDWR:
		f->f_mode = FMODE_READ | FMODE_WRITE;
		break;
	default: /* 3: Linux's "no access" mode for ioctl-only opens */
		f->f_mode = 0;
		break;
	}
	f->ops = ops;
	f->private_data = private_data;
	fs_count_add(FS_COUNT_FILES, 1);
	return f;
}

void file_get(struct file *f)
{
	__atomic_add_fetch(&f->refcount, 1, __ATOMIC_RELAXED);
}

void fput(struct file *f)
{
	if (!f || __atomic_sub_fetch(&f->refcount, 1, __ATOMIC_ACQ_REL) != 0)
		return;
	if (f->ops->release)
		f->ops->release(f);
	kfree(f);
	fs_count_add(FS_COUNT_FILES, -1);
}

void file_set_status_flags(struct file *f, unsigned int flags)
{
	unsigned int old = file_flags(f), new;

	do {
		new = (old & ~FILE_SETFL_MASK) | (flags & FILE_SETFL_MASK);
	} while (!__atomic_compare_exchange_n(&f->f_flags, &old, new, false, __ATOMIC_RELAXED,
					      __ATOMIC_RELAXED));
}

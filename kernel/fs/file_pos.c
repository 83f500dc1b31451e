/* read() at f_pos and lseek() over a file without holes (see file_pos.h). */
#include "fs/file_pos.h"

#include "lib/errno.h"

long file_read_at_pos(struct file *f, struct iov_iter *to)
{
	s64 pos = __atomic_load_n(&f->f_pos, __ATOMIC_RELAXED);
	long got = f->ops->pread(f, to, pos);

	if (got > 0)
		__atomic_store_n(&f->f_pos, pos + got, __ATOMIC_RELAXED);
	return got;
}

s64 file_lseek_in_size(struct file *f, s64 offset, int whence, s64 size)
{
	s64 pos;

	switch (whence) {
	case SEEK_SET:
		pos = offset;
		break;
	case SEEK_CUR:
		if (__builtin_add_overflow(f->f_pos, offset, &pos))
			return -EINVAL;
		break;
	case SEEK_END:
		if (__builtin_add_overflow(size, offset, &pos))
			return -EINVAL;
		break;
	case SEEK_DATA:
	case SEEK_HOLE:
		if (offset < 0 || offset >= size)
			return -ENXIO;
		pos = whence == SEEK_DATA ? offset : size;
		break;
	default:
		return -EINVAL;
	}
	if (pos < 0)
		return -EINVAL;
	__atomic_store_n(&f->f_pos, pos, __ATOMIC_RELAXED);
	return pos;
}

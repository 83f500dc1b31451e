/*
 * sendfile: from one file to another through a kernel buffer, a chunk at
 * a time, with Linux's checks in Linux's order (do_sendfile). A short
 * write ends the copy; for a seekable input the bytes read but not
 * written are given back to its offset, as Linux's splice leaves it.
 */
#include <arch/uaccess.h>

#include "fs/fdtable.h"
#include "fs/file.h"
#include "fs/iov_iter.h"
#include "fs/sendfile.h"
#include "lib/compiler.h"
#include "lib/errno.h"
#include "mm/heap.h"
#include "proc/current.h"
#include "proc/syscall.h"

#define CHUNK 16384

static long copy_chunks(struct file *in, struct file *out, s64 *pos, size_t count)
{
	char *buf = kmalloc(CHUNK);
	size_t done = 0;
	long err = 0;

	if (!buf)
		return -ENOMEM;
	while (done < count) {
		struct iov_iter it;
		long got, put;

		if (done && current_signal_pending())
			break;
		iov_iter_kernel(&it, buf, MIN((size_t)CHUNK, count - done));
		got = pos ? in->ops->pread(in, &it, *pos) : in->ops->read(in, &it);
		if (got <= 0) {
			err = got;
			break;
		}
		iov_iter_kernel(&it, buf, (size_t)got);
		put = out->ops->write(out, &it);
		if (put < 0) {
			err = put;
			put = 0;
		}
		if (pos)
			*pos += put;
		else if (put < got && in->ops->lseek)
			in->f_pos -= got - put; /* not sent: the input keeps them */
		done += (size_t)put;
		if (put < got)
			break;
	}
	kfree(buf);
	return done ? (long)done : err;
}

long sys_sendfile(int out_fd, int in_fd, s64 *uoffset, size_t count)
{
	struct file *in = fget(in_fd), *out = NULL;
	s64 pos = 0;
	long ret;

	if (!in)
		return -EBADF;
	ret = -EBADF;
	if (!(in->f_mode & FMODE_READ))
		goto done;
	ret = -ESPIPE;
	if (uoffset && (!in->ops->lseek || !in->ops->pread))
		goto done;
	ret = -EFAULT;
	if (uoffset && copy_from_user(&pos, uoffset, sizeof(pos)))
		goto done;
	ret = -EINVAL;
	if (pos < 0 || (uoffset ? !in->ops->pread : !in->ops->read))
		goto done;
	out = fget(out_fd);
	ret = -EBADF;
	if (!out || !(out->f_mode & FMODE_WRITE))
		goto done;
	ret = -EINVAL;
	if ((file_flags(out) & O_APPEND) || !out->ops->write)
		goto done;
	ret = copy_chunks(in, out, uoffset ? &pos : NULL, MIN(count, (size_t)MAX_RW_COUNT));
	if (uoffset && copy_to_user(uoffset, &pos, sizeof(pos)))
		ret = -EFAULT;
done:
	fput(out);
	fput(in);
	return ret;
}
SYSCALL_DEFINE4(sendfile, int, int, s64 *, size_t);

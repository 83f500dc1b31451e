/*
 * User I/O vectors: read(2)/write(2) and readv(2)/writev(2) hand a file one
 * iov_iter over the caller's buffers, and the file copies with
 * copy_to_iter/copy_from_iter, which go through copy_{to,from}_user. A
 * readv is therefore one operation on the file (a pipe write of a vector
 * totalling at most PIPE_BUF bytes is atomic, as on Linux).
 */
#ifndef FULCRUM_FS_IOV_ITER_H
#define FULCRUM_FS_IOV_ITER_H

#include "lib/types.h"

#define UIO_MAXIOV  1024 /* most segments readv/writev take (Linux's IOV_MAX) */
#define UIO_FASTIOV 8	 /* vectors this short need no allocation */

/* The user's struct iovec (Linux x86-64 layout). */
struct iovec {
	void *iov_base;
	size_t iov_len;
};

struct iov_iter {
	const struct iovec *iov; /* kernel copy of the segments; iov[0] is the current one */
	unsigned long nr_segs;	 /* segments left, the current one included */
	size_t iov_offset;	 /* bytes of iov[0] already done */
	size_t count;		 /* bytes left in all segments */
	struct iovec single;	 /* the one segment of a read/write */
	bool kernel;		 /* the segments are kernel memory (in-kernel callers and tests) */
};

/*
 * Linux's access_ok(): [uptr, uptr + n) does not wrap and ends at or below
 * USER_ADDR_END (an empty range always passes). The copies check the rest.
 */
bool user_range_ok(const void *uptr, size_t n);

/* One user buffer, len clamped to MAX_RW_COUNT. */
void iov_iter_single(struct iov_iter *it, void *ubuf, size_t len);
/* One kernel buffer: the kernel reading or writing a file itself (in-kernel tests). */
void iov_iter_kernel(struct iov_iter *it, void *buf, size_t len);

/*
 * Copies nr user iovecs from uvec and checks them as Linux's import_iovec:
 * nr > UIO_MAXIOV or a length above SSIZE_MAX gives -EINVAL, an unreadable
 * vector or a segment outside user space -EFAULT, and the total is cut to
 * MAX_RW_COUNT. Up to UIO_FASTIOV segments are kept in fast; more in an
 * array returned in *alloc (else NULL), which the caller kfree()s. Returns
 * the total length or a negative errno.
 */
long iov_iter_import(struct iov_iter *it, const struct iovec *uvec, unsigned long nr,
		     struct iovec fast[UIO_FASTIOV], struct iovec **alloc);

static inline size_t iov_iter_count(const struct iov_iter *it)
{
	return it->count;
}

/* Copies up to n bytes to the user; returns the bytes copied (fewer on a fault or at the end). */
size_t copy_to_iter(const void *src, size_t n, struct iov_iter *it);
/* Copies up to n bytes from the user; returns the bytes copied (fewer on a fault or at the end). */
size_t copy_from_iter(void *dst, size_t n, struct iov_iter *it);
/* Skips n bytes (at most what is left) without touching them. */
void iov_iter_advance(struct iov_iter *it, size_t n);

#endif

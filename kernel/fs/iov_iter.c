/* User I/O vectors: importing readv/writev arguments and copying through them. */
#include "fs/iov_iter.h"

#include <arch/uaccess.h>

#include "fs/file.h"
#include "lib/compiler.h"
#include "lib/errno.h"
#include "lib/string.h"
#include "mm/heap.h"

bool user_range_ok(const void *uptr, size_t n)
{
	uintptr_t a = (uintptr_t)uptr;

	return n == 0 || (a + n >= a && a + n <= USER_ADDR_END);
}

void iov_iter_single(struct iov_iter *it, void *ubuf, size_t len)
{
	if (len > (size_t)MAX_RW_COUNT)
		len = MAX_RW_COUNT;
	it->single.iov_base = ubuf;
	it->single.iov_len = len;
	it->iov = &it->single;
	it->nr_segs = 1;
	it->iov_offset = 0;
	it->count = len;
	it->kernel = false;
}

void iov_iter_kernel(struct iov_iter *it, void *buf, size_t len)
{
	iov_iter_single(it, buf, len);
	it->kernel = true;
}

/* Bytes copied: n, or fewer if user memory ran out of pages on the way. */
static size_t copy_out(const struct iov_iter *it, void *dst, const void *src, size_t n)
{
	if (it->kernel) {
		memcpy(dst, src, n);
		return n;
	}
	return copy_to_user_prefix(dst, src, n);
}

static int copy_in(const struct iov_iter *it, void *dst, const void *src, size_t n)
{
	if (it->kernel) {
		memcpy(dst, src, n);
		return 0;
	}
	return copy_from_user(dst, src, n);
}

long iov_iter_import(struct iov_iter *it, const struct iovec *uvec, unsigned long nr,
		     struct iovec fast[UIO_FASTIOV], struct iovec **alloc)
{
	struct iovec *iov = fast;
	size_t total = 0;

	*alloc = NULL;
	it->iov = fast;
	it->nr_segs = 0;
	it->iov_offset = 0;
	it->count = 0;
	it->kernel = false;
	if (nr == 0)
		return 0;
	if (nr > UIO_MAXIOV)
		return -EINVAL;
	if (nr > UIO_FASTIOV) {
		iov = kmalloc(nr * sizeof(*iov));
		if (!iov)
			return -ENOMEM;
	}
	if (copy_from_user(iov, uvec, nr * sizeof(*iov)))
		goto fault;
	/* As Linux: every length is checked for sign before any address. */
	for (unsigned long i = 0; i < nr; i++) {
		if ((long)iov[i].iov_len < 0) {
			if (iov != fast)
				kfree(iov);
			return -EINVAL;
		}
	}
	for (unsigned long i = 0; i < nr; i++) {
		size_t len = iov[i].iov_len;

		if (!user_range_ok(iov[i].iov_base, len))
			goto fault;
		if (len > (size_t)MAX_RW_COUNT - total) {
			len = (size_t)MAX_RW_COUNT - total;
			iov[i].iov_len = len;
		}
		total += len;
	}
	it->iov = iov;
	it->nr_segs = nr;
	it->count = total;
	if (iov != fast)
		*alloc = iov;
	return (long)total;
fault:
	if (iov != fast)
		kfree(iov);
	return -EFAULT;
}

/* Moves to the next segment with bytes left, if the current one is done. */
static void skip_empty(struct iov_iter *it)
{
	while (it->nr_segs && it->iov_offset == it->iov[0].iov_len) {
		it->iov++;
		it->nr_segs--;
		it->iov_offset = 0;
	}
}

void iov_iter_advance(struct iov_iter *it, size_t n)
{
	n = MIN(n, it->count);
	it->count -= n;
	while (n) {
		size_t chunk;

		skip_empty(it);
		chunk = MIN(n, it->iov[0].iov_len - it->iov_offset);
		it->iov_offset += chunk;
		n -= chunk;
	}
	skip_empty(it);
}

size_t copy_to_iter(const void *src, size_t n, struct iov_iter *it)
{
	size_t done = 0, put;

	n = MIN(n, it->count);
	while (done < n) {
		size_t chunk;

		skip_empty(it);
		chunk = MIN(n - done, it->iov[0].iov_len - it->iov_offset);
		put = copy_out(it, (char *)it->iov[0].iov_base + it->iov_offset,
			       (const char *)src + done, chunk);
		it->iov_offset += put;
		it->count -= put;
		done += put;
		if (put < chunk)
			break; /* the bytes before the fault count, as on Linux */
	}
	skip_empty(it);
	return done;
}

size_t copy_from_iter(void *dst, size_t n, struct iov_iter *it)
{
	size_t done = 0;

	n = MIN(n, it->count);
	while (done < n) {
		size_t chunk;

		skip_empty(it);
		chunk = MIN(n - done, it->iov[0].iov_len - it->iov_offset);
		if (copy_in(it, (char *)dst + done,
			    (const char *)it->iov[0].iov_base + it->iov_offset, chunk))
			break;
		it->iov_offset += chunk;
		it->count -= chunk;
		done += chunk;
	}
	skip_empty(it);
	return done;
}

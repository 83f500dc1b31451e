/*
 * The socket system calls Fulcrum has: socketpair, sendto/recvfrom (send
 * and recv in musl) and shutdown, with Linux's order of checks, so a bad
 * call fails with the same errno as on Linux.
 */
#include <arch/uaccess.h>

#include "fs/fdtable.h"
#include "fs/file.h"
#include "fs/iov_iter.h"
#include "ipc/socket.h"
#include "lib/errno.h"
#include "proc/current.h"
#include "proc/syscall.h"

#define SOCKADDR_STORAGE_SIZE 128
#define IPPROTO_IP	      0
#define IPPROTO_TCP	      6
#define IPPROTO_UDP	      17

/*
 * What creating a socket of this family, type and protocol gives on Linux
 * before its socketpair operation runs (sock_create): 0 for the one kind
 * Fulcrum makes, else the error. AF_INET and AF_INET6 sockets exist on
 * Linux but cannot be paired (-EOPNOTSUPP); other families are treated as
 * not built in.
 */
static int socketpair_check(int family, int type, int protocol)
{
	if (family < 0 || family >= AF_MAX)
		return -EAFNOSUPPORT;
	if (type >= SOCK_MAX)
		return -EINVAL;
	switch (family) {
	case AF_UNIX:
		if (protocol && protocol != AF_UNIX)
			return -EPROTONOSUPPORT;
		if (type == SOCK_STREAM)
			return 0;
		/* DGRAM, SEQPACKET (and RAW as DGRAM) exist on Linux; Fulcrum has streams only. */
		return -ESOCKTNOSUPPORT;
	case AF_INET:
	case AF_INET6:
		if (type == SOCK_STREAM)
			return protocol == IPPROTO_IP || protocol == IPPROTO_TCP ? -EOPNOTSUPP :
										   -EPROTONOSUPPORT;
		if (type == SOCK_DGRAM)
			return protocol == IPPROTO_IP || protocol == IPPROTO_UDP ? -EOPNOTSUPP :
										   -EPROTONOSUPPORT;
		if (type == SOCK_RAW)
			return -EOPNOTSUPP;
		return -ESOCKTNOSUPPORT;
	default:
		return -EAFNOSUPPORT;
	}
}

long sys_socketpair(int family, int type, int protocol, int *usv)
{
	struct files *files = current_files();
	int flags = type & ~SOCK_TYPE_MASK, fds[2], err;
	struct file *sv0, *sv1;
	bool cloexec;

	if (flags & ~(SOCK_CLOEXEC | SOCK_NONBLOCK))
		return -EINVAL;
	type &= SOCK_TYPE_MASK;
	cloexec = flags & SOCK_CLOEXEC;
	/* As Linux: the descriptors are reserved and written out before the sockets exist. */
	fds[0] = fd_reserve(files, 0, cloexec);
	if (fds[0] < 0)
		return fds[0];
	fds[1] = fd_reserve(files, 0, cloexec);
	if (fds[1] < 0) {
		err = fds[1];
		goto out_fd0;
	}
	err = copy_to_user(usv, fds, sizeof(fds));
	if (!err)
		err = socketpair_check(family, type, protocol);
	if (!err)
		err = unix_stream_pair(&sv0, &sv1, (unsigned int)flags & SOCK_NONBLOCK);
	if (err) {
		fd_unreserve(files, fds[1]);
		goto out_fd0;
	}
	fd_install(files, fds[0], sv0);
	fd_install(files, fds[1], sv1);
	return 0;
out_fd0:
	fd_unreserve(files, fds[0]);
	return err;
}
SYSCALL_DEFINE4(socketpair, int, int, int, int *);

/* The socket behind fd with a reference, or NULL and *err (-EBADF, -ENOTSOCK). */
static struct file *sockfd_lookup(int fd, int *err)
{
	struct file *f = fget(fd);

	if (!f) {
		*err = -EBADF;
		return NULL;
	}
	if (!file_is_socket(f)) {
		fput(f);
		*err = -ENOTSOCK;
		return NULL;
	}
	return f;
}

long sys_sendto(int fd, const void *buf, size_t len, int flags, const void *dest_addr, int addrlen)
{
	struct iov_iter it;
	struct file *f;
	int err;
	long ret;

	if (len > 0x7fffffff)
		len = 0x7fffffff;
	if (!user_range_ok(buf, len))
		return -EFAULT;
	f = sockfd_lookup(fd, &err);
	if (!f)
		return err;
	if (dest_addr) {
		char addr[SOCKADDR_STORAGE_SIZE];

		if (addrlen < 0 || addrlen > SOCKADDR_STORAGE_SIZE) {
			ret = -EINVAL;
			goto out;
		}
		if (addrlen && copy_from_user(addr, dest_addr, (size_t)addrlen)) {
			ret = -EFAULT;
			goto out;
		}
		/* A connected stream socket takes no address (unix_stream_sendmsg, MSG_OOB first).
		 */
		if (addrlen) {
			ret = flags & MSG_OOB ? -EOPNOTSUPP : -EISCONN;
			goto out;
		}
	}
	iov_iter_single(&it, (void *)buf, len);
	ret = unix_stream_send(f, &it, flags);
out:
	fput(f);
	return ret;
}
SYSCALL_DEFINE6(sendto, int, const void *, size_t, int, const void *, int);

long sys_recvfrom(int fd, void *buf, size_t len, int flags, void *src_addr, int *addrlen)
{
	struct iov_iter it;
	struct file *f;
	int err;
	long ret;

	if (len > 0x7fffffff)
		len = 0x7fffffff;
	if (!user_range_ok(buf, len))
		return -EFAULT;
	f = sockfd_lookup(fd, &err);
	if (!f)
		return err;
	iov_iter_single(&it, buf, len);
	ret = unix_stream_recv(f, &it, flags);
	/* The peer of a socketpair has no name: the address length written back is 0. */
	if (ret >= 0 && src_addr) {
		int ulen, zero = 0;

		if (copy_from_user(&ulen, addrlen, sizeof(ulen)))
			ret = -EFAULT;
		else if (ulen < 0)
			ret = -EINVAL;
		else if (copy_to_user(addrlen, &zero, sizeof(zero)))
			ret = -EFAULT;
	}
	fput(f);
	return ret;
}
SYSCALL_DEFINE6(recvfrom, int, void *, size_t, int, void *, int *);

long sys_shutdown(int fd, int how)
{
	struct file *f;
	int err;
	long ret;

	f = sockfd_lookup(fd, &err);
	if (!f)
		return err;
	ret = unix_stream_shutdown(f, how);
	fput(f);
	return ret;
}
SYSCALL_DEFINE2(shutdown, int, int);

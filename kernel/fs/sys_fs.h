/*
 * The file system calls on descriptors, Linux's argument order and
 * errors: read/write, their vector and positional forms, close, lseek, fstat, the dup
 * family, ioctl and fcntl. open/openat are in open.h, pipes in
 * ipc/pipe.h, sockets in ipc/socket.h, poll in ipc/poll.h.
 */
#ifndef FULCRUM_FS_SYS_FS_H
#define FULCRUM_FS_SYS_FS_H

#include "lib/types.h"

struct file;
struct iovec;
struct kstat;

/* fcntl commands and descriptor flags. */
#define F_DUPFD		0
#define F_GETFD		1
#define F_SETFD		2
#define F_GETFL		3
#define F_SETFL		4
#define F_DUPFD_CLOEXEC 1030
#define FD_CLOEXEC	1

/* Generic ioctls every descriptor takes. */
#define FIONREAD 0x541b
#define FIONBIO	 0x5421
#define FIONCLEX 0x5450
#define FIOCLEX	 0x5451

long sys_read(int fd, void *buf, size_t count);
long sys_write(int fd, const void *buf, size_t count);
long sys_pread64(int fd, void *buf, size_t count, s64 pos);
long sys_pwrite64(int fd, const void *buf, size_t count, s64 pos);
long sys_readv(int fd, const struct iovec *uvec, unsigned long vlen);
long sys_writev(int fd, const struct iovec *uvec, unsigned long vlen);
long sys_close(int fd);
long sys_lseek(int fd, s64 offset, unsigned int whence);
long sys_fstat(int fd, struct kstat *ust);
/* What fstat says of f: st zeroed, then filled by the file's kind. */
void file_kstat(struct file *f, struct kstat *st);
long sys_dup(int oldfd);
long sys_dup2(int oldfd, int newfd);
long sys_dup3(int oldfd, int newfd, int flags);
long sys_ioctl(int fd, unsigned int cmd, unsigned long arg);
long sys_fcntl(int fd, unsigned int cmd, unsigned long arg);

#endif

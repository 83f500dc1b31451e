/* sendfile(2) and statfs(2)/fstatfs(2) (sendfile.c, statfs.c). */
#ifndef FULCRUM_FS_SENDFILE_H
#define FULCRUM_FS_SENDFILE_H

#include "lib/types.h"

/*
 * Copies up to count bytes from in_fd to out_fd in the kernel. With
 * offset, reads there and stores the offset after them (in_fd's own
 * offset untouched; -ESPIPE if it cannot seek); else reads at and moves
 * in_fd's offset. Returns the bytes written, or -EBADF (in_fd not open
 * for reading, out_fd not for writing), -EINVAL (out_fd O_APPEND, a
 * negative offset, a file that cannot be read or written), -EFAULT.
 */
long sys_sendfile(int out_fd, int in_fd, s64 *offset, size_t count);

/* Linux x86-64's struct statfs. */
struct kstatfs {
	s64 f_type, f_bsize;
	u64 f_blocks, f_bfree, f_bavail, f_files, f_ffree;
	s32 f_fsid[2];
	s64 f_namelen, f_frsize, f_flags;
	s64 f_spare[4];
};

long sys_statfs(const char *upath, struct kstatfs *ubuf);
long sys_fstatfs(int fd, struct kstatfs *ubuf);

#endif

/*
 * Host tests of descriptor tables and the file system calls: lowest-first
 * allocation, dup/dup2/dup3, close-on-exec, fork copies, the descriptor
 * limit, read/write/readv/writev argument checks, lseek and fstat (read
 * back through the C library's own struct stat, which is Linux's),
 * ioctl/fcntl, and open(2)'s paths and errors over a test initrd.
 */
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "fake_current.h"
#include "fake_uaccess.h"
#include "fs/fdtable.h"
#include "fs/file.h"
#include "fs/iov_iter.h"
#include "fs/namei.h"
#include "fs/open.h"
#include "fs/sys_fs.h"
#include "fs_fixture.h"
#include "ipc/pipe.h"
#include "lib/errno.h"
#include "unit.h"

/* Linux x86-64's struct stat, as the C library declares it, is what fstat fills. */
_Static_assert(sizeof(struct stat) == 144, "struct stat");
_Static_assert(offsetof(struct stat, st_mode) == 24, "st_mode");
_Static_assert(offsetof(struct stat, st_rdev) == 40, "st_rdev");
_Static_assert(offsetof(struct stat, st_size) == 48, "st_size");
_Static_assert(offsetof(struct stat, st_blksize) == 56, "st_blksize");
_Static_assert(offsetof(struct stat, st_blocks) == 64, "st_blocks");
_Static_assert(offsetof(struct stat, st_mtim) == 88, "st_mtim");

static const struct fs_test_entry tree[] = {
	{ "bin", S_IFDIR | 0755, NULL },
	{ "bin/hello", S_IFREG | 0755, "hello, world\n" },
	{ "etc", S_IFDIR | 0755, NULL },
	{ "etc/motd", S_IFREG | 0644, "0123456789abcdefghij" },
	{ "etc/link", S_IFLNK | 0777, "motd" },
	{ "etc/abs", S_IFLNK | 0777, "/bin/hello" },
	{ "etc/loop", S_IFLNK | 0777, "loop" },
	{ "etc/dirlink", S_IFLNK | 0777, "/bin" },
	{ "etc/fifo", S_IFIFO | 0644, NULL },
};

static void setup(void)
{
	fs_setup();
	fs_load_initrd(tree, sizeof(tree) / sizeof(tree[0]));
}

static long open_ro(const char *path)
{
	return sys_open(path, O_RDONLY, 0);
}

static long nulls(int n)
{
	long fd = -1;

	for (int i = 0; i < n; i++)
		fd = sys_open("/dev/null", O_RDWR, 0);
	return fd;
}

static long live_files(void)
{
	struct fs_counts c;

	fs_object_counts(&c);
	return c.files;
}

START_TEST(test_lowest_first)
{
	ck_assert_int_eq(nulls(1), 0);
	ck_assert_int_eq(nulls(1), 1);
	ck_assert_int_eq(nulls(1), 2);
	ck_assert_int_eq(sys_close(1), 0);
	ck_assert_int_eq(sys_close(1), -EBADF);
	ck_assert_int_eq(nulls(1), 1);
	ck_assert_int_eq(sys_close(0), 0);
	ck_assert_int_eq(sys_close(2), 0);
	ck_assert_int_eq(sys_dup(1), 0);
	ck_assert_int_eq(sys_dup(1), 2);
	ck_assert_int_eq(sys_dup(1), 3);
	ck_assert_int_eq(sys_close(-1), -EBADF);
	ck_assert_int_eq(sys_close(FD_MAX), -EBADF);
	ck_assert_int_eq(sys_dup(77), -EBADF);
	ck_assert_int_eq(live_files(), 1); /* one open file behind four descriptors */
}
END_TEST

START_TEST(test_dup2_dup3)
{
	struct file *a, *b;
	long rd, wr;
	int fds[2];

	ck_assert_int_eq(nulls(1), 0);
	ck_assert_int_eq(sys_pipe(fds), 0);
	rd = fds[0];
	wr = fds[1];
	/* Onto a free slot past the table's first size: the table grows. */
	ck_assert_int_eq(sys_dup2(0, 700), 700);
	a = fd_get(fake_files, 0);
	b = fd_get(fake_files, 700);
	ck_assert_ptr_eq(a, b);
	fput(a);
	fput(b);
	/* Onto an open descriptor: the old file is closed (the pipe's read end goes). */
	ck_assert_int_eq(sys_dup2(wr, rd), rd);
	ck_assert_int_eq(live_files(), 2);
	/* Same descriptor: returned if open, else EBADF. */
	ck_assert_int_eq(sys_dup2(700, 700), 700);
	ck_assert_int_eq(sys_dup2(600, 600), -EBADF);
	ck_assert_int_eq(sys_dup2(600, 5), -EBADF);
	ck_assert_int_eq(sys_dup2(0, FD_MAX), -EBADF);
	ck_assert_int_eq(sys_dup2(0, -1), -EBADF);
	/* dup3: EINVAL for the same descriptor and for flags other than O_CLOEXEC. */
	ck_assert_int_eq(sys_dup3(0, 0, 0), -EINVAL);
	ck_assert_int_eq(sys_dup3(0, 9, O_NONBLOCK), -EINVAL);
	ck_assert_int_eq(sys_dup3(0, 9, O_CLOEXEC), 9);
	ck_assert_int_eq(sys_fcntl(9, F_GETFD, 0), FD_CLOEXEC);
	/* dup2 onto it clears the flag again. */
	ck_assert_int_eq(sys_dup2(0, 9), 9);
	ck_assert_int_eq(sys_fcntl(9, F_GETFD, 0), 0);
	ck_assert_int_eq(sys_fcntl(9, F_DUPFD, 5), 5);
	ck_assert_int_eq(sys_fcntl(9, F_DUPFD_CLOEXEC, 5), 6);
	ck_assert_int_eq(sys_fcntl(6, F_GETFD, 0), FD_CLOEXEC);
	ck_assert_int_eq(sys_fcntl(9, F_DUPFD, FD_MAX), -EINVAL);
	ck_assert_int_eq(sys_fcntl(9, 12345, 0), -EINVAL);
}
END_TEST

START_TEST(test_close_on_exec)
{
	int fds[2];

	ck_assert_int_eq(sys_open("/dev/null", O_RDONLY | O_CLOEXEC, 0), 0);
	ck_assert_int_eq(nulls(1), 1);
	ck_assert_int_eq(sys_pipe2(fds, O_CLOEXEC), 0);
	ck_assert_int_eq(fds[0], 2);
	ck_assert_int_eq(fds[1], 3);
	ck_assert_int_eq(sys_fcntl(1, F_SETFD, FD_CLOEXEC), 0);
	ck_assert_int_eq(sys_ioctl(1, FIONCLEX, 0), 0); /* and off again */
	ck_assert_int_eq(sys_ioctl(3, FIONCLEX, 0), 0);
	files_close_on_exec(fake_files);
	ck_assert_int_eq(sys_fcntl(0, F_GETFD, 0), -EBADF);
	ck_assert_int_eq(sys_fcntl(1, F_GETFD, 0), 0);
	ck_assert_int_eq(sys_fcntl(2, F_GETFD, 0), -EBADF);
	ck_assert_int_eq(sys_fcntl(3, F_GETFD, 0), 0);
	/* The pipe's write end stays, alone. */
	ck_assert_int_eq(sys_write(3, "x", 1), -EPIPE);
	ck_assert_int_eq(fake_signals_sent[SIGPIPE], 1);
	ck_assert_int_eq(nulls(1), 0);
}
END_TEST

START_TEST(test_fork_copy)
{
	struct files *parent = fake_files, *child;
	int fds[2];

	ck_assert_int_eq(nulls(1), 0);
	ck_assert_int_eq(sys_pipe2(fds, O_CLOEXEC), 0);
	child = files_clone(parent);
	ck_assert_ptr_nonnull(child);
	fake_files = child;
	ck_assert_int_eq(sys_fcntl(1, F_GETFD, 0), FD_CLOEXEC);
	ck_assert_int_eq(sys_close(0), 0);
	ck_assert_int_eq(sys_write(fds[1], "hi", 2), 2);
	fake_files = parent;
	/* The parent still has descriptor 0; the pipe is shared. */
	ck_assert_int_eq(sys_fcntl(0, F_GETFD, 0), 0);
	{
		char buf[4];

		ck_assert_int_eq(sys_read(fds[0], buf, sizeof(buf)), 2);
	}
	files_put(child);
	/* A second reference (CLONE_FILES) keeps the table alive. */
	files_get(parent);
	files_put(parent);
	ck_assert_int_eq(sys_fcntl(0, F_GETFD, 0), 0);
}
END_TEST

START_TEST(test_emfile)
{
	int fds[2];

	ck_assert_int_eq(nulls(1), 0);
	for (int i = 1; i < FD_MAX; i++)
		ck_assert_int_eq(sys_dup(0), i);
	ck_assert_int_eq(sys_dup(0), -EMFILE);
	ck_assert_int_eq(sys_open("/dev/null", O_RDONLY, 0), -EMFILE);
	ck_assert_int_eq(sys_open("/no/such/file", O_RDONLY, 0), -EMFILE); /* the slot comes first */
	ck_assert_int_eq(sys_open("", O_RDONLY, 0), -ENOENT); /* but not before the name */
	ck_assert_int_eq(sys_open(BAD_UPTR, O_RDONLY, 0), -EFAULT);
	ck_assert_int_eq(sys_pipe(fds), -EMFILE);
	ck_assert_int_eq(sys_fcntl(0, F_DUPFD, 10), -EMFILE);
	/* Replacing still works when the table is full. */
	ck_assert_int_eq(sys_dup2(0, FD_MAX - 1), FD_MAX - 1);
	ck_assert_int_eq(sys_close(500), 0);
	ck_assert_int_eq(sys_pipe(fds), -EMFILE); /* needs two */
	ck_assert_int_eq(sys_close(7), 0);
	ck_assert_int_eq(sys_pipe(fds), 0);
	ck_assert_int_eq(fds[0], 7);
	ck_assert_int_eq(fds[1], 500);
	ck_assert_int_eq(live_files(), 3);
}
END_TEST

START_TEST(test_rw_checks)
{
	char buf[8];

	ck_assert_int_eq(sys_open("/dev/null", O_RDONLY, 0), 0);
	ck_assert_int_eq(sys_open("/dev/null", O_WRONLY, 0), 1);
	ck_assert_int_eq(sys_write(0, "x", 1), -EBADF);
	ck_assert_int_eq(sys_read(1, buf, 1), -EBADF);
	ck_assert_int_eq(sys_read(5, buf, 1), -EBADF);
	ck_assert_int_eq(sys_write(-3, buf, 1), -EBADF);
	ck_assert_int_eq(sys_write(1, "abc", 3), 3);
	ck_assert_int_eq(sys_read(0, buf, sizeof(buf)), 0);
	/* Linux's access_ok: a range past the end of user space is -EFAULT even for /dev/null. */
	ck_assert_int_eq(sys_write(1, (void *)0x7ffffffff000UL, 1), -EFAULT);
	ck_assert_int_eq(sys_write(1, (void *)UINTPTR_MAX, 2), -EFAULT);
	ck_assert_int_eq(sys_read(0, (void *)0x7fffffffe000UL, 0x2000), -EFAULT);
	/* Linux clamps a count to MAX_RW_COUNT. */
	ck_assert_int_eq(sys_write(1, (void *)0x10000, 0x7fffffff), MAX_RW_COUNT);
}
END_TEST

START_TEST(test_iovec_checks)
{
	static struct iovec many[UIO_MAXIOV + 1];
	char a[4], b[8];
	struct iovec iov[3] = { { a, sizeof(a) }, { NULL, 0 }, { b, sizeof(b) } };
	struct iovec big[2] = { { (void *)0x10000, MAX_RW_COUNT }, { (void *)0x10000, 5 } };
	struct iovec neg[2] = { { a, 1 }, { BAD_UPTR, (size_t)-1 } };
	struct iovec bad[1] = { { (void *)0xffff800000000000UL, 4 } }; /* past user space */
	struct iovec low[1] = { { BAD_UPTR, 4 } };
	long fd = open_ro("/etc/motd");

	ck_assert_int_eq(fd, 0);
	ck_assert_int_eq(sys_open("/dev/null", O_WRONLY, 0), 1);
	/* Scatter over segments, an empty NULL one included. */
	ck_assert_int_eq(sys_readv(0, iov, 3), 12);
	ck_assert_int_eq(memcmp(a, "0123", 4), 0);
	ck_assert_int_eq(memcmp(b, "456789ab", 8), 0);
	ck_assert_int_eq(sys_readv(0, iov, 0), 0);
	for (int i = 0; i <= UIO_MAXIOV; i++)
		many[i] = (struct iovec){ a, 1 };
	ck_assert_int_eq(sys_writev(1, many, UIO_MAXIOV), UIO_MAXIOV);
	ck_assert_int_eq(sys_writev(1, many, UIO_MAXIOV + 1), -EINVAL);
	ck_assert_int_eq(sys_writev(1, many, (unsigned long)-1), -EINVAL);
	/* A length above SSIZE_MAX is -EINVAL before any address is looked at. */
	ck_assert_int_eq(sys_writev(1, neg, 2), -EINVAL);
	ck_assert_int_eq(sys_writev(1, bad, 1), -EFAULT);
	/* As on Linux, /dev/null never touches a range access_ok() lets through. */
	ck_assert_int_eq(sys_writev(1, low, 1), 4);
	ck_assert_int_eq(sys_writev(1, BAD_UPTR, 1), -EFAULT);
	/* The total is cut to MAX_RW_COUNT. */
	ck_assert_int_eq(sys_writev(1, big, 2), MAX_RW_COUNT);
	/* Mode before vector; a bad descriptor before both. */
	ck_assert_int_eq(sys_writev(0, bad, 1), -EBADF);
	ck_assert_int_eq(sys_readv(9, neg, 2), -EBADF);
	/* A fault in the second segment: the first one's bytes count. */
	{
		struct iovec part[2] = { { a, 2 }, { b, 3 } };

		fake_uaccess_fail_after = 2; /* the vector's own copy, then the first segment */
		ck_assert_int_eq(sys_readv(0, part, 2), 2);
		fake_uaccess_fail_after = -1;
	}
}
END_TEST

START_TEST(test_lseek)
{
	char c;
	int fds[2];

	ck_assert_int_eq(open_ro("/etc/motd"), 0);
	ck_assert_int_eq(sys_lseek(0, 5, SEEK_SET), 5);
	ck_assert_int_eq(sys_read(0, &c, 1), 1);
	ck_assert_int_eq(c, '5');
	ck_assert_int_eq(sys_lseek(0, 2, SEEK_CUR), 8);
	ck_assert_int_eq(sys_lseek(0, -1, SEEK_END), 19);
	ck_assert_int_eq(sys_read(0, &c, 1), 1);
	ck_assert_int_eq(c, 'j');
	ck_assert_int_eq(sys_read(0, &c, 1), 0);
	ck_assert_int_eq(sys_lseek(0, 100, SEEK_SET), 100); /* past the end is allowed */
	ck_assert_int_eq(sys_read(0, &c, 1), 0);
	ck_assert_int_eq(sys_lseek(0, -1, SEEK_SET), -EINVAL);
	ck_assert_int_eq(sys_lseek(0, -30, SEEK_END), -EINVAL);
	ck_assert_int_eq(sys_lseek(0, INT64_MAX, SEEK_END), -EINVAL);
	ck_assert_int_eq(sys_lseek(0, 3, SEEK_DATA), 3);
	ck_assert_int_eq(sys_lseek(0, 3, SEEK_HOLE), 20);
	ck_assert_int_eq(sys_lseek(0, 20, SEEK_DATA), -ENXIO);
	ck_assert_int_eq(sys_lseek(0, 0, 5), -EINVAL);
	ck_assert_int_eq(sys_lseek(7, 0, SEEK_SET), -EBADF);
	ck_assert_int_eq(sys_pipe(fds), 0);
	ck_assert_int_eq(sys_lseek(fds[0], 0, SEEK_CUR), -ESPIPE);
	ck_assert_int_eq(sys_open("/dev/null", O_RDONLY, 0), 3);
	ck_assert_int_eq(sys_lseek(3, 123, SEEK_SET), 0);
}
END_TEST

START_TEST(test_fstat)
{
	struct stat st;
	int fds[2];

	ck_assert_int_eq(open_ro("/etc/motd"), 0);
	memset(&st, 0xa5, sizeof(st));
	ck_assert_int_eq(sys_fstat(0, (struct kstat *)&st), 0);
	ck_assert_uint_eq(st.st_mode, S_IFREG | 0644);
	ck_assert_int_eq(st.st_size, 20);
	ck_assert_uint_eq(st.st_nlink, 1);
	ck_assert_int_eq(st.st_blocks, 1);
	ck_assert_int_eq(st.st_blksize, 4096);
	ck_assert_int_eq(st.st_mtim.tv_nsec, 0);
	ck_assert_int_eq(sys_open("/dev/null", O_RDONLY, 0), 1);
	ck_assert_int_eq(sys_fstat(1, (struct kstat *)&st), 0);
	ck_assert_uint_eq(st.st_mode, S_IFCHR | 0666);
	ck_assert_uint_eq(major(st.st_rdev), 1);
	ck_assert_uint_eq(minor(st.st_rdev), 3);
	ck_assert_int_eq(sys_pipe(fds), 0);
	ck_assert_int_eq(sys_fstat(fds[1], (struct kstat *)&st), 0);
	ck_assert(S_ISFIFO(st.st_mode));
	ck_assert_int_eq(open_ro("/etc"), 4);
	ck_assert_int_eq(sys_fstat(4, (struct kstat *)&st), 0);
	ck_assert(S_ISDIR(st.st_mode));
	ck_assert_int_eq(sys_open("/dev/console", O_RDWR, 0), 5);
	ck_assert_int_eq(sys_fstat(5, (struct kstat *)&st), 0);
	ck_assert(S_ISCHR(st.st_mode));
	ck_assert_uint_eq(major(st.st_rdev), 5);
	ck_assert_uint_eq(minor(st.st_rdev), 1);
	ck_assert_int_eq(sys_fstat(0, BAD_UPTR), -EFAULT);
	ck_assert_int_eq(sys_fstat(9, (struct kstat *)&st), -EBADF);
}
END_TEST

START_TEST(test_ioctl_fcntl)
{
	unsigned short ws[4];
	int fds[2], on = 1, n;

	ck_assert_int_eq(sys_open("/dev/console", O_RDWR, 0), 0);
	ck_assert_int_eq(sys_ioctl(0, 0x5413, (unsigned long)ws), 0); /* TIOCGWINSZ */
	ck_assert_uint_eq(ws[0], 25);
	ck_assert_uint_eq(ws[1], 80);
	ck_assert_int_eq(sys_ioctl(0, 0x5413, (unsigned long)BAD_UPTR), -EFAULT);
	ck_assert_int_eq(sys_ioctl(0, 0x5401, 0), -ENOTTY); /* TCGETS */
	ck_assert_int_eq(sys_open("/dev/null", O_RDWR, 0), 1);
	ck_assert_int_eq(sys_ioctl(1, 0x5413, (unsigned long)ws), -ENOTTY);
	ck_assert_int_eq(sys_ioctl(8, 0x5413, (unsigned long)ws), -EBADF);
	ck_assert_int_eq(sys_pipe(fds), 0);
	ck_assert_int_eq(sys_fcntl(fds[0], F_GETFL, 0), O_RDONLY);
	ck_assert_int_eq(sys_ioctl(fds[0], FIONBIO, (unsigned long)&on), 0);
	ck_assert_int_eq(sys_fcntl(fds[0], F_GETFL, 0), O_RDONLY | O_NONBLOCK);
	ck_assert_int_eq(sys_read(fds[0], &n, 1), -EAGAIN);
	ck_assert_int_eq(sys_fcntl(fds[0], F_SETFL, O_APPEND | O_RDWR), 0);
	ck_assert_int_eq(sys_fcntl(fds[0], F_GETFL, 0), O_RDONLY | O_APPEND);
	ck_assert_int_eq(sys_fcntl(fds[1], F_GETFL, 0), O_WRONLY);
	ck_assert_int_eq(sys_fcntl(1, F_GETFL, 0), O_RDWR | O_LARGEFILE);
	/* FIONREAD: a pipe's queued bytes; a regular file's bytes after the offset. */
	ck_assert_int_eq(sys_write(fds[1], "abc", 3), 3);
	ck_assert_int_eq(sys_ioctl(fds[0], FIONREAD, (unsigned long)&n), 0);
	ck_assert_int_eq(n, 3);
	ck_assert_int_eq(open_ro("/etc/motd"), 4);
	ck_assert_int_eq(sys_lseek(4, 4, SEEK_SET), 4);
	ck_assert_int_eq(sys_ioctl(4, FIONREAD, (unsigned long)&n), 0);
	ck_assert_int_eq(n, 16);
	ck_assert_int_eq(sys_ioctl(1, FIONREAD, (unsigned long)&n), -ENOTTY);
}
END_TEST

START_TEST(test_open_paths)
{
	char buf[32];

	ck_assert_int_eq(open_ro("/bin/hello"), 0);
	ck_assert_int_eq(sys_read(0, buf, sizeof(buf)), 13);
	ck_assert_int_eq(memcmp(buf, "hello, world\n", 13), 0);
	/* Relative paths start at "/"; ".", ".." and repeated slashes resolve. */
	ck_assert_int_eq(open_ro("bin/hello"), 1);
	ck_assert_int_eq(open_ro("//etc/./../bin//hello"), 2);
	ck_assert_int_eq(open_ro("/../../bin/hello"), 3);
	/* Symbolic links: relative, absolute, to a directory. */
	ck_assert_int_eq(open_ro("/etc/link"), 4);
	ck_assert_int_eq(sys_read(4, buf, 4), 4);
	ck_assert_int_eq(memcmp(buf, "0123", 4), 0);
	ck_assert_int_eq(open_ro("/etc/abs"), 5);
	ck_assert_int_eq(open_ro("/etc/dirlink/hello"), 6);
	ck_assert_int_eq(open_ro("/etc/dirlink/../etc/motd"), 7);
	ck_assert_int_eq(open_ro("/"), 8);
	ck_assert_int_eq(open_ro("/dev"), 9);
	ck_assert_int_eq(open_ro("/proc"), 10);
	for (int fd = 0; fd <= 10; fd++)
		ck_assert_int_eq(sys_close(fd), 0);
}
END_TEST

START_TEST(test_open_errors)
{
	static char longpath[PATH_MAX + 10];
	char name[NAME_MAX + 2];
	char c;

	ck_assert_int_eq(open_ro("/nope"), -ENOENT);
	ck_assert_int_eq(open_ro("/nope/x"), -ENOENT);
	ck_assert_int_eq(open_ro(""), -ENOENT);
	ck_assert_int_eq(open_ro("/dev/zero"), -ENOENT);
	ck_assert_int_eq(open_ro(BAD_UPTR), -EFAULT);
	memset(longpath, 'a', sizeof(longpath) - 1);
	ck_assert_int_eq(open_ro(longpath), -ENAMETOOLONG);
	memset(name, 'b', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	ck_assert_int_eq(open_ro(name), -ENAMETOOLONG);
	name[NAME_MAX] = '\0';
	ck_assert_int_eq(open_ro(name), -ENOENT); /* NAME_MAX itself is fine */
	/* Everything is read-only. */
	ck_assert_int_eq(sys_open("/etc/motd", O_WRONLY, 0), -EROFS);
	ck_assert_int_eq(sys_open("/etc/motd", O_RDWR, 0), -EROFS);
	ck_assert_int_eq(sys_open("/etc/motd", O_RDONLY | O_TRUNC, 0), -EROFS);
	ck_assert_int_eq(sys_open("/etc/new", O_WRONLY | O_CREAT, 0644), -EROFS);
	ck_assert_int_eq(sys_open("/nodir/new", O_WRONLY | O_CREAT, 0644), -ENOENT);
	ck_assert_int_eq(sys_open("/etc/motd", O_RDONLY | O_CREAT | O_EXCL, 0644), -EEXIST);
	ck_assert_int_eq(sys_open("/etc/motd", O_RDONLY | O_CREAT, 0644), 0);
	/* Directories. */
	ck_assert_int_eq(sys_open("/etc", O_WRONLY, 0), -EISDIR);
	ck_assert_int_eq(sys_open("/etc", O_RDWR, 0), -EISDIR);
	ck_assert_int_eq(sys_open("/etc", O_RDONLY | O_CREAT, 0), -EISDIR);
	ck_assert_int_eq(open_ro("/etc"), 1);
	ck_assert_int_eq(sys_read(1, &c, 1), -EISDIR);
	ck_assert_int_eq(sys_open("/etc/", O_RDONLY | O_DIRECTORY, 0), 2);
	ck_assert_int_eq(sys_open("/etc/motd", O_RDONLY | O_DIRECTORY, 0), -ENOTDIR);
	ck_assert_int_eq(open_ro("/etc/motd/"), -ENOTDIR);
	ck_assert_int_eq(open_ro("/etc/motd/x"), -ENOTDIR);
	ck_assert_int_eq(open_ro("/etc/motd/.."), -ENOTDIR);
	/* Links. */
	ck_assert_int_eq(open_ro("/etc/loop"), -ELOOP);
	ck_assert_int_eq(sys_open("/etc/link", O_RDONLY | O_NOFOLLOW, 0), -ELOOP);
	ck_assert_int_eq(sys_open("/etc/abs", O_RDONLY | O_CREAT | O_EXCL, 0), -EEXIST);
	/* Nodes without a driver; O_PATH. */
	ck_assert_int_eq(open_ro("/etc/fifo"), -ENXIO);
	ck_assert_int_eq(sys_open("/etc/motd", O_PATH, 0), -EINVAL);
	ck_assert_int_eq(live_files(), 3);
}
END_TEST

START_TEST(test_openat)
{
	int fds[2];

	ck_assert_int_eq(open_ro("/etc"), 0);
	ck_assert_int_eq(sys_openat(0, "motd", O_RDONLY, 0), 1);
	ck_assert_int_eq(sys_openat(0, "../bin/hello", O_RDONLY, 0), 2);
	ck_assert_int_eq(sys_openat(0, "/bin/hello", O_RDONLY, 0), 3);
	ck_assert_int_eq(sys_openat(AT_FDCWD, "etc/motd", O_RDONLY, 0), 4);
	ck_assert_int_eq(sys_openat(4, "motd", O_RDONLY, 0), -ENOTDIR);
	ck_assert_int_eq(sys_openat(4, "/etc/motd", O_RDONLY, 0), 5); /* absolute: dirfd unused */
	ck_assert_int_eq(sys_openat(99, "motd", O_RDONLY, 0), -EBADF);
	ck_assert_int_eq(sys_pipe(fds), 0);
	ck_assert_int_eq(sys_openat(fds[0], "x", O_RDONLY, 0), -ENOTDIR);
	ck_assert_int_eq(sys_openat(0, "nothing", O_RDONLY, 0), -ENOENT);
	/* The failed opens gave their reserved descriptors back. */
	ck_assert_int_eq(nulls(1), 8);
}
END_TEST

START_TEST(test_kernel_open)
{
	struct file *f;
	int err;

	f = file_open("/dev/console", O_RDWR, &err);
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fd_alloc(fake_files, f, 0, false), 0);
	file_get(f);
	ck_assert_int_eq(fd_alloc(fake_files, f, 0, false), 1);
	ck_assert_ptr_null(file_open("/missing", O_RDONLY, &err));
	ck_assert_int_eq(err, -ENOENT);
	ck_assert_int_eq(sys_write(1, "to the console\n", 15), 15);
}
END_TEST

Suite *file_suite(void)
{
	Suite *s = suite_create("file");
	TCase *tc = tcase_create("fdtable");
	TCase *calls = tcase_create("calls");
	TCase *open = tcase_create("open");

	tcase_add_checked_fixture(tc, setup, fs_teardown);
	tcase_add_test(tc, test_lowest_first);
	tcase_add_test(tc, test_dup2_dup3);
	tcase_add_test(tc, test_close_on_exec);
	tcase_add_test(tc, test_fork_copy);
	tcase_add_test(tc, test_emfile);
	suite_add_tcase(s, tc);
	tcase_add_checked_fixture(calls, setup, fs_teardown);
	tcase_add_test(calls, test_rw_checks);
	tcase_add_test(calls, test_iovec_checks);
	tcase_add_test(calls, test_lseek);
	tcase_add_test(calls, test_fstat);
	tcase_add_test(calls, test_ioctl_fcntl);
	suite_add_tcase(s, calls);
	tcase_add_checked_fixture(open, setup, fs_teardown);
	tcase_add_test(open, test_open_paths);
	tcase_add_test(open, test_open_errors);
	tcase_add_test(open, test_openat);
	tcase_add_test(open, test_kernel_open);
	suite_add_tcase(s, open);
	return s;
}

/*
 * Host tests of the path calls over a test initrd: getdents64 listings
 * (the root with /dev and /proc laid over it, initrd directories in byte
 * order, /dev, procfs directories named once), their offsets and errors;
 * stat, lstat, newfstatat and the access family; the working directory
 * (getcwd, chdir, fchdir, relative opens, fork copies); pread64/pwrite64.
 */
#include <string.h>

#include "fake_arch.h"
#include "fake_current.h"
#include "fake_uaccess.h"
#include "fs/cwd.h"
#include "fs/dirent.h"
#include "fs/fdtable.h"
#include "fs/file.h"
#include "fs/open.h"
#include "fs/procfs.h"
#include "fs/readdir.h"
#include "fs/seqbuf.h"
#include "fs/stat.h"
#include "fs/sys_fs.h"
#include "fs/tmpfs.h"
#include "fs_fixture.h"
#include "ipc/pipe.h"
#include "lib/errno.h"
#include "unit.h"

static const struct fs_test_entry tree[] = {
	{ "bin", S_IFDIR | 0755, NULL },
	{ "bin/hello", S_IFREG | 0755, "hello, world\n" },
	{ "dev", S_IFDIR | 0755, NULL }, /* hidden by the kernel's /dev */
	{ "dev/junk", S_IFREG | 0644, "x" },
	{ "etc", S_IFDIR | 0755, NULL },
	{ "etc/motd", S_IFREG | 0644, "0123456789abcdefghij" },
	{ "etc/link", S_IFLNK | 0777, "motd" },
	{ "etc/loop", S_IFLNK | 0777, "loop" },
	{ "etc/dirlink", S_IFLNK | 0777, "/bin" },
	{ "etc/sub", S_IFDIR | 0700, NULL },
};

static int show_text(struct seqbuf *sb, void *arg)
{
	seq_printf(sb, "%s\n", (const char *)arg);
	return 0;
}

static void setup(void)
{
	fs_setup();
	fs_load_initrd(tree, sizeof(tree) / sizeof(tree[0]));
	ck_assert_int_eq(procfs_register("uptime", show_text, NULL, "12.5 0.00"), 0);
	ck_assert_int_eq(procfs_register("sys/kernel/a", show_text, NULL, "a"), 0);
	ck_assert_int_eq(procfs_register("meminfo", show_text, NULL, "m"), 0);
	ck_assert_int_eq(procfs_register("sys/kernel/b", show_text, NULL, "b"), 0);
	ck_assert_int_eq(procfs_register("sys/vm/c", show_text, NULL, "c"), 0);
}

static void teardown(void)
{
	fs_struct_put(fake_fs);
	fake_fs = NULL;
	fs_teardown();
}

struct listing {
	int n;
	char name[16][32];
	u64 ino[16];
	s64 off[16];
	u8 type[16];
};

/* Every entry from fd's offset on, read with calls of count bytes; the last call's result. */
static long list(long fd, unsigned int count, struct listing *l)
{
	static char buf[4096];
	long got;

	l->n = 0;
	while ((got = sys_getdents64((int)fd, buf, count)) > 0) {
		for (long at = 0; at < got;) {
			struct linux_dirent64 *d = (struct linux_dirent64 *)(buf + at);

			ck_assert_uint_eq(d->d_reclen, dirent64_reclen(strlen(d->d_name)));
			ck_assert_int_lt(l->n, 16);
			strcpy(l->name[l->n], d->d_name);
			l->ino[l->n] = d->d_ino;
			l->off[l->n] = d->d_off;
			l->type[l->n] = d->d_type;
			l->n++;
			at += d->d_reclen;
		}
	}
	return got;
}

static void expect_names(const struct listing *l, const char *const *names, int n)
{
	ck_assert_int_eq(l->n, n);
	for (int i = 0; i < n; i++) {
		ck_assert_str_eq(l->name[i], names[i]);
		ck_assert_int_eq(l->off[i], i + 1); /* the next entry's index */
	}
}

static u64 ino_of(const char *path)
{
	struct kstat st;

	ck_assert_int_eq(sys_lstat(path, &st), 0);
	return st.st_ino;
}

START_TEST(test_list_root)
{
	static const char *const names[] = { ".", "..", "dev", "proc", "sys", "tmp", "bin", "etc" };
	struct listing l;
	long fd;

	tmpfs_init(0);
	fd = sys_open("/", O_RDONLY | O_DIRECTORY, 0);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(list(fd, 4096, &l), 0);
	expect_names(&l, names, 8);
	for (int i = 0; i < 8; i++)
		ck_assert_uint_eq(l.type[i], DT_DIR);
	ck_assert_uint_eq(l.ino[0], ino_of("/"));
	ck_assert_uint_eq(l.ino[1], ino_of("/"));
	ck_assert_uint_eq(l.ino[2], ino_of("/dev"));
	ck_assert_uint_eq(l.ino[3], ino_of("/proc"));
	ck_assert_uint_eq(l.ino[4], ino_of("/sys"));
	ck_assert_uint_eq(l.ino[5], ino_of("/tmp"));
	ck_assert_uint_eq(l.ino[7], ino_of("/etc"));
	ck_assert_int_eq(sys_close((int)fd), 0);
	tmpfs_exit();
}
END_TEST

START_TEST(test_list_dir_and_resume)
{
	static const char *const names[] = { ".", "..", "dirlink", "link", "loop", "motd", "sub" };
	static const u8 types[] = { DT_DIR, DT_DIR, DT_LNK, DT_LNK, DT_LNK, DT_REG, DT_DIR };
	struct listing l, one;
	long fd = sys_open("/etc", O_RDONLY | O_DIRECTORY, 0);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(list(fd, 4096, &l), 0);
	expect_names(&l, names, 7);
	for (int i = 0; i < 7; i++)
		ck_assert_uint_eq(l.type[i], types[i]);
	ck_assert_uint_eq(l.ino[1], ino_of("/"));
	ck_assert_uint_eq(l.ino[3], ino_of("/etc/link"));
	ck_assert_uint_eq(l.ino[5], ino_of("/etc/motd"));
	/* At the end: 0, and again 0. */
	ck_assert_int_eq(sys_getdents64((int)fd, l.name, sizeof(l.name)), 0);
	/* One record per call gives the same listing. */
	ck_assert_int_eq(sys_lseek((int)fd, 0, SEEK_SET), 0);
	ck_assert_int_eq(list(fd, 24, &one), -EINVAL); /* "dirlink" needs 32: stops there */
	ck_assert_int_eq(one.n, 2);
	ck_assert_int_eq(sys_getdents64((int)fd, l.name, 24), -EINVAL);
	ck_assert_int_eq(list(fd, 32, &one), 0);
	ck_assert_int_eq(one.n, 5);
	ck_assert_str_eq(one.name[0], "dirlink");
	/* lseek to an entry's d_off resumes after it; past the end lists nothing. */
	ck_assert_int_eq(sys_lseek((int)fd, l.off[3], SEEK_SET), 4);
	ck_assert_int_eq(list(fd, 4096, &one), 0);
	ck_assert_int_eq(one.n, 3);
	ck_assert_str_eq(one.name[0], "loop");
	ck_assert_int_eq(sys_lseek((int)fd, 1000, SEEK_SET), 1000);
	ck_assert_int_eq(list(fd, 4096, &one), 0);
	ck_assert_int_eq(one.n, 0);
	ck_assert_int_eq(sys_lseek((int)fd, 0, SEEK_END), -EINVAL);
	ck_assert_int_eq(sys_close((int)fd), 0);
}
END_TEST

START_TEST(test_list_dev_proc)
{
	static const char *const dev[] = { ".", "..", "console", "null" };
	static const char *const proc[] = { ".", "..", "uptime", "sys", "meminfo" };
	static const char *const sys[] = { ".", "..", "kernel", "vm" };
	static const char *const kernel[] = { ".", "..", "a", "b" };
	struct listing l;
	long fd;

	fd = sys_open("/dev", O_RDONLY | O_DIRECTORY, 0);
	ck_assert_int_eq(list(fd, 4096, &l), 0);
	expect_names(&l, dev, 4);
	ck_assert_uint_eq(l.type[3], DT_CHR);
	ck_assert_uint_eq(l.ino[3], ino_of("/dev/null"));
	ck_assert_uint_eq(l.ino[2], ino_of("/dev/console"));
	sys_close((int)fd);
	fd = sys_open("/proc", O_RDONLY | O_DIRECTORY, 0);
	ck_assert_int_eq(list(fd, 4096, &l), 0);
	expect_names(&l, proc, 5);
	ck_assert_uint_eq(l.type[2], DT_REG);
	ck_assert_uint_eq(l.type[3], DT_DIR);
	ck_assert_uint_eq(l.ino[2], ino_of("/proc/uptime"));
	ck_assert_uint_eq(l.ino[3], ino_of("/proc/sys"));
	sys_close((int)fd);
	fd = sys_open("/proc/sys", O_RDONLY | O_DIRECTORY, 0);
	ck_assert_int_eq(list(fd, 4096, &l), 0);
	expect_names(&l, sys, 4);
	ck_assert_uint_eq(l.ino[1], ino_of("/proc"));
	sys_close((int)fd);
	fd = sys_open("/proc/sys/kernel", O_RDONLY | O_DIRECTORY, 0);
	ck_assert_int_eq(list(fd, 4096, &l), 0);
	expect_names(&l, kernel, 4);
	ck_assert_uint_eq(l.ino[3], ino_of("/proc/sys/kernel/b"));
	sys_close((int)fd);
}
END_TEST

START_TEST(test_getdents_errors)
{
	char buf[256];
	struct listing l;
	long dir = sys_open("/bin", O_RDONLY | O_DIRECTORY, 0);
	long file = sys_open("/bin/hello", O_RDONLY, 0);
	int p[2];

	ck_assert_int_eq(sys_pipe(p), 0);
	ck_assert_int_eq(sys_getdents64(99, buf, sizeof(buf)), -EBADF);
	ck_assert_int_eq(sys_getdents64((int)file, buf, sizeof(buf)), -ENOTDIR);
	ck_assert_int_eq(sys_getdents64(p[0], buf, sizeof(buf)), -ENOTDIR);
	ck_assert_int_eq(sys_getdents64((int)dir, buf, 23), -EINVAL);
	ck_assert_int_eq(sys_getdents64((int)dir, BAD_UPTR, sizeof(buf)), -EFAULT);
	/* A fault after the first record: what was copied counts. */
	fake_uaccess_fail_after = 1;
	ck_assert_int_eq(sys_getdents64((int)dir, buf, sizeof(buf)), 24);
	fake_uaccess_fail_after = -1;
	ck_assert_int_eq(list(dir, 4096, &l), 0);
	ck_assert_int_eq(l.n, 2); /* "..", "hello": nothing was lost */
	ck_assert_str_eq(l.name[0], "..");
	ck_assert_int_eq(sys_read((int)dir, buf, 1), -EISDIR);
	sys_close((int)dir);
	sys_close((int)file);
	sys_close(p[0]);
	sys_close(p[1]);
}
END_TEST

START_TEST(test_stat_paths)
{
	struct kstat a, b;
	long fd;
	int p[2];

	ck_assert_int_eq(sys_stat("/etc/motd", &a), 0);
	ck_assert_uint_eq(a.st_mode, S_IFREG | 0644);
	ck_assert_int_eq(a.st_size, 20);
	ck_assert_int_eq(sys_stat("/etc/link", &b), 0);
	ck_assert_uint_eq(b.st_ino, a.st_ino);
	ck_assert_int_eq(sys_lstat("/etc/link", &b), 0);
	ck_assert_uint_eq(b.st_mode & S_IFMT, S_IFLNK);
	ck_assert_int_eq(b.st_size, 4);
	ck_assert_int_eq(sys_stat("/etc/loop", &b), -ELOOP);
	ck_assert_int_eq(sys_lstat("/etc/loop", &b), 0);
	ck_assert_int_eq(sys_stat("/etc/motd/", &b), -ENOTDIR);
	ck_assert_int_eq(sys_stat("", &b), -ENOENT);
	ck_assert_int_eq(sys_stat("/nope", &b), -ENOENT);
	ck_assert_int_eq(sys_stat(BAD_UPTR, &b), -EFAULT);
	ck_assert_int_eq(sys_stat("/etc/motd", BAD_UPTR), -EFAULT);
	/* Every kind agrees with fstat of it opened. */
	for (int i = 0; i < 5; i++) {
		static const char *const paths[] = { "/dev/null", "/dev/console", "/proc/uptime",
						     "/proc/sys", "/etc/motd" };

		fd = sys_open(paths[i], O_RDONLY, 0);
		ck_assert_int_ge(fd, 0);
		ck_assert_int_eq(sys_fstat((int)fd, &a), 0);
		ck_assert_int_eq(sys_stat(paths[i], &b), 0);
		ck_assert_mem_eq(&a, &b, sizeof(a));
		sys_close((int)fd);
	}
	ck_assert_uint_eq(b.st_dev, KDEV_ROOTFS);
	/* newfstatat: relative to a directory, the descriptor itself, the flags. */
	fd = sys_open("/etc", O_RDONLY | O_DIRECTORY, 0);
	ck_assert_int_eq(sys_newfstatat((int)fd, "motd", &b, 0), 0);
	ck_assert_mem_eq(&a, &b, sizeof(a));
	ck_assert_int_eq(sys_newfstatat((int)fd, "link", &b, AT_SYMLINK_NOFOLLOW), 0);
	ck_assert_uint_eq(b.st_mode & S_IFMT, S_IFLNK);
	ck_assert_int_eq(sys_newfstatat((int)fd, "", &b, AT_EMPTY_PATH), 0);
	ck_assert_uint_eq(b.st_mode, S_IFDIR | 0755);
	ck_assert_int_eq(sys_newfstatat((int)fd, NULL, &b, AT_EMPTY_PATH), 0);
	ck_assert_int_eq(sys_newfstatat((int)fd, "", &b, 0), -ENOENT);
	ck_assert_int_eq(sys_newfstatat((int)fd, "motd", &b, 0x200), -EINVAL);
	ck_assert_int_eq(sys_newfstatat((int)fd, "motd", &b, AT_NO_AUTOMOUNT | 0x2000), 0);
	ck_assert_int_eq(sys_newfstatat(99, "motd", &b, 0), -EBADF);
	ck_assert_int_eq(sys_newfstatat(99, "/etc/motd", &b, 0), 0);
	ck_assert_int_eq(sys_newfstatat(99, "", &b, AT_EMPTY_PATH), -EBADF);
	ck_assert_int_eq(sys_pipe(p), 0);
	ck_assert_int_eq(sys_newfstatat(p[0], "", &b, AT_EMPTY_PATH), 0);
	ck_assert_uint_eq(b.st_mode & S_IFMT, S_IFIFO);
	ck_assert_int_eq(sys_newfstatat(p[0], "x", &b, 0), -ENOTDIR);
	sys_close(p[0]);
	sys_close(p[1]);
	sys_close((int)fd);
}
END_TEST

START_TEST(test_access)
{
	long fd;

	ck_assert_int_eq(sys_access("/etc/motd", F_OK), 0);
	ck_assert_int_eq(sys_access("/etc/motd", R_OK), 0);
	ck_assert_int_eq(sys_access("/etc/motd", W_OK), -EROFS);
	ck_assert_int_eq(sys_access("/etc/motd", X_OK), -EACCES);
	ck_assert_int_eq(sys_access("/bin/hello", R_OK | X_OK), 0);
	ck_assert_int_eq(sys_access("/etc/sub", X_OK), 0);
	ck_assert_int_eq(sys_access("/etc/sub", W_OK), -EROFS);
	ck_assert_int_eq(sys_access("/dev/null", R_OK | W_OK), 0);
	ck_assert_int_eq(sys_access("/dev/null", X_OK), -EACCES);
	ck_assert_int_eq(sys_access("/proc/uptime", W_OK), 0); /* root, a writable file system */
	ck_assert_int_eq(sys_access("/proc/sys", X_OK), 0);
	ck_assert_int_eq(sys_access("/etc/nope", F_OK), -ENOENT);
	ck_assert_int_eq(sys_access("/etc/loop", F_OK), -ELOOP);
	ck_assert_int_eq(sys_access("/etc/motd", 8), -EINVAL);
	ck_assert_int_eq(sys_access("", F_OK), -ENOENT);
	fd = sys_open("/etc", O_RDONLY | O_DIRECTORY, 0);
	ck_assert_int_eq(sys_faccessat((int)fd, "link", X_OK), -EACCES);
	ck_assert_int_eq(sys_faccessat2((int)fd, "loop", F_OK, AT_SYMLINK_NOFOLLOW), 0);
	ck_assert_int_eq(sys_faccessat2((int)fd, "loop", W_OK, AT_SYMLINK_NOFOLLOW), -EROFS);
	ck_assert_int_eq(sys_faccessat2((int)fd, "", X_OK, AT_EMPTY_PATH), 0);
	ck_assert_int_eq(sys_faccessat2((int)fd, "motd", R_OK, AT_EACCESS), 0);
	ck_assert_int_eq(sys_faccessat2((int)fd, "motd", R_OK, AT_NO_AUTOMOUNT), -EINVAL);
	ck_assert_int_eq(sys_faccessat2((int)fd, "motd", 16, 0), -EINVAL);
	ck_assert_int_eq(sys_faccessat(99, "motd", F_OK), -EBADF);
	sys_close((int)fd);
}
END_TEST

static const char *getcwd_str(void)
{
	static char buf[64];

	ck_assert_int_gt(sys_getcwd(buf, sizeof(buf)), 0);
	return buf;
}

START_TEST(test_cwd)
{
	struct fs_struct *copy;
	struct fs_pwd *held;
	struct kstat st;
	char buf[8];
	long fd;

	/* No fs (a kernel thread): relative paths start at "/". */
	ck_assert_str_eq(getcwd_str(), "/");
	ck_assert_int_eq(sys_stat("etc/motd", &st), 0);
	ck_assert_int_eq(sys_chdir("/etc"), -ENOMEM);
	fake_fs = fs_struct_create();
	ck_assert_ptr_nonnull(fake_fs);
	ck_assert_int_eq(sys_getcwd(buf, sizeof(buf)), 2);
	ck_assert_int_eq(sys_chdir("etc"), 0);
	ck_assert_int_eq(sys_getcwd(buf, 4), -ERANGE); /* "/etc" and its NUL need 5 */
	ck_assert_int_eq(sys_getcwd(buf, 0), -ERANGE);
	ck_assert_int_eq(sys_getcwd(BAD_UPTR, 64), -EFAULT);
	ck_assert_int_eq(sys_getcwd(buf, 5), 5);
	ck_assert_str_eq(buf, "/etc");
	/* Relative paths: stat, open, openat(AT_FDCWD), access. */
	ck_assert_int_eq(sys_stat("motd", &st), 0);
	ck_assert_int_eq(st.st_size, 20);
	fd = sys_openat(AT_FDCWD, "link", O_RDONLY, 0);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(sys_read((int)fd, buf, 3), 3);
	ck_assert_mem_eq(buf, "012", 3);
	sys_close((int)fd);
	ck_assert_int_eq(sys_access("../bin/hello", X_OK), 0);
	ck_assert_int_eq(sys_newfstatat(AT_FDCWD, "", &st, AT_EMPTY_PATH), 0);
	ck_assert_uint_eq(st.st_ino, ino_of("/etc"));
	/* A fork's copy moves on its own; a held path outlives a chdir. */
	copy = fs_struct_clone(fake_fs);
	held = fs_pwd_get(fake_fs);
	ck_assert_int_eq(sys_chdir("dirlink"), 0);
	ck_assert_str_eq(getcwd_str(), "/bin");
	ck_assert_str_eq(held->path, "/etc");
	fs_pwd_put(held);
	held = fs_pwd_get(copy);
	ck_assert_str_eq(held->path, "/etc");
	fs_pwd_put(held);
	fs_struct_put(copy);
	/* Errors leave it where it was. */
	ck_assert_int_eq(sys_chdir("hello"), -ENOTDIR);
	ck_assert_int_eq(sys_chdir("nope"), -ENOENT);
	ck_assert_int_eq(sys_chdir(""), -ENOENT);
	ck_assert_int_eq(sys_chdir("/etc/loop"), -ELOOP);
	ck_assert_int_eq(sys_chdir(BAD_UPTR), -EFAULT);
	ck_assert_str_eq(getcwd_str(), "/bin");
	ck_assert_int_eq(sys_chdir("../.."), 0);
	ck_assert_str_eq(getcwd_str(), "/");
	/* fchdir: directories of every kind. */
	fd = sys_open("/proc/sys", O_RDONLY | O_DIRECTORY, 0);
	ck_assert_int_eq(sys_fchdir((int)fd), 0);
	ck_assert_str_eq(getcwd_str(), "/proc/sys");
	ck_assert_int_eq(sys_stat("kernel/a", &st), 0);
	sys_close((int)fd);
	fd = sys_open("/etc/motd", O_RDONLY, 0);
	ck_assert_int_eq(sys_fchdir((int)fd), -ENOTDIR);
	ck_assert_int_eq(sys_fchdir(99), -EBADF);
	sys_close((int)fd);
	ck_assert_str_eq(getcwd_str(), "/proc/sys");
}
END_TEST

/* The tmpfs through open, write, pread, stat and getdents64; its pages go with the last close. */
START_TEST(test_tmpfs_file)
{
	static const char *const names[] = { ".", "..", "f" };
	struct tmpfs_usage before, during, after;
	char buf[8] = { 0 };
	struct listing l;
	struct kstat st;
	long fd, dir;

	tmpfs_init(0);
	tmpfs_get_usage(&before);
	fd = sys_open("/tmp/f", O_RDWR | O_CREAT | O_EXCL, 0644);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(sys_open("/tmp/f", O_RDWR | O_CREAT | O_EXCL, 0644), -EEXIST);
	ck_assert_int_eq(sys_write((int)fd, "tmpfs", 5), 5);
	ck_assert_int_eq(sys_pread64((int)fd, buf, sizeof(buf), 1), 4);
	ck_assert_mem_eq(buf, "mpfs", 4);
	ck_assert_int_eq(sys_stat("/tmp/f", &st), 0);
	ck_assert_int_eq(st.st_size, 5);
	ck_assert_uint_eq(st.st_mode, S_IFREG | 0644);
	ck_assert_uint_eq(st.st_dev, KDEV_TMPFS);
	dir = sys_open("/tmp", O_RDONLY | O_DIRECTORY, 0);
	ck_assert_int_eq(list(dir, 4096, &l), 0);
	expect_names(&l, names, 3);
	ck_assert_uint_eq(l.type[2], DT_REG);
	ck_assert_uint_eq(l.ino[2], st.st_ino);
	sys_close((int)dir);
	ck_assert_int_eq(tmpfs_unlink("f"), 0);
	tmpfs_get_usage(&during);
	ck_assert_uint_eq(during.pages, before.pages + 1); /* unlinked but open */
	ck_assert_int_eq(sys_close((int)fd), 0);
	tmpfs_get_usage(&after);
	ck_assert_uint_eq(after.pages, before.pages);
	ck_assert_uint_eq(after.inodes, before.inodes);
	ck_assert_int_eq(sys_stat("/tmp/f", &st), -ENOENT);
	/* Elsewhere nothing is made. */
	ck_assert_int_eq(sys_open("/etc/new", O_RDWR | O_CREAT, 0644), -EROFS);
	tmpfs_exit();
}
END_TEST

/* Nanoseconds of a stat timestamp. */
static u64 ts_ns(struct kstat_time t)
{
	return (u64)t.tv_sec * 1000000000ULL + (u64)t.tv_nsec;
}

/* The stat of a tmpfs path (the test fails if it is missing). */
static struct kstat tmp_stat(const char *path)
{
	struct kstat st;

	ck_assert_int_eq(sys_stat(path, &st), 0);
	return st;
}

/* tmpfs timestamps as Linux's tmpfs keeps them, on the fake clock (steps of 1 s and a day). */
START_TEST(test_tmpfs_times)
{
	const u64 sec = 1000000000ULL, day = 24 * 3600 * sec, saved = fake_clock_ns;
	u64 t0, c0, wrote, read;
	struct kstat f, d;
	char buf[4];
	long fd;

#define NOW() (t0 + (fake_clock_ns - c0)) /* the wall clock, from the file's birth */
	tmpfs_init(0);
	ck_assert_int_eq(tmpfs_mkdir("td", 0755), 0);
	c0 = fake_clock_ns;
	fd = sys_open("/tmp/td/f", O_RDWR | O_CREAT, 0644);
	ck_assert_int_ge(fd, 0);
	f = tmp_stat("/tmp/td/f");
	d = tmp_stat("/tmp/td");
	t0 = ts_ns(f.st_mtim);
	/* A new file: all three now, and so are its directory's mtime and ctime. */
	ck_assert_uint_ge(t0, fake_rtc_seconds * sec);
	ck_assert_uint_eq(ts_ns(f.st_atim), t0);
	ck_assert_uint_eq(ts_ns(f.st_ctim), t0);
	ck_assert_uint_eq(ts_ns(d.st_mtim), t0);
	ck_assert_uint_eq(ts_ns(d.st_ctim), t0);

	/* A write sets mtime and ctime to the clock, not atime; an empty one sets nothing. */
	fake_clock_ns += sec + 5;
	ck_assert_int_eq(sys_write((int)fd, "abc", 3), 3);
	wrote = NOW();
	f = tmp_stat("/tmp/td/f");
	ck_assert_uint_eq(ts_ns(f.st_mtim), wrote);
	ck_assert_uint_eq(ts_ns(f.st_ctim), wrote);
	ck_assert_uint_eq(ts_ns(f.st_atim), t0);
	fake_clock_ns += sec;
	ck_assert_int_eq(sys_write((int)fd, "", 0), 0);
	ck_assert_uint_eq(ts_ns(tmp_stat("/tmp/td/f").st_mtim), wrote);

	/* relatime: a read renews an atime older than mtime, then not again until a day passed. */
	ck_assert_int_eq(sys_pread64((int)fd, buf, sizeof(buf), 0), 3);
	read = NOW();
	ck_assert_uint_eq(ts_ns(tmp_stat("/tmp/td/f").st_atim), read);
	fake_clock_ns += sec;
	ck_assert_int_eq(sys_pread64((int)fd, buf, sizeof(buf), 0), 3);
	ck_assert_uint_eq(ts_ns(tmp_stat("/tmp/td/f").st_atim), read);
	fake_clock_ns += day;
	ck_assert_int_eq(sys_pread64((int)fd, buf, sizeof(buf), 0), 3);
	ck_assert_uint_eq(ts_ns(tmp_stat("/tmp/td/f").st_atim), NOW());

	/* chmod changes ctime only; a truncate to the same size changes nothing. */
	fake_clock_ns += sec;
	ck_assert_int_eq(tmpfs_chmod("td/f", NULL, 0600), 0);
	f = tmp_stat("/tmp/td/f");
	ck_assert_uint_eq(ts_ns(f.st_ctim), NOW());
	ck_assert_uint_eq(ts_ns(f.st_mtim), wrote);
	fake_clock_ns += sec;
	ck_assert_int_eq(tmpfs_truncate_path("td/f", 3), 0);
	ck_assert_uint_eq(ts_ns(tmp_stat("/tmp/td/f").st_mtim), wrote);

	/* A new link: the file's ctime and its directory's mtime, not the file's mtime. */
	fake_clock_ns += sec;
	ck_assert_int_eq(tmpfs_link("td/f", "td/g"), 0);
	f = tmp_stat("/tmp/td/f");
	ck_assert_uint_eq(ts_ns(f.st_ctim), NOW());
	ck_assert_uint_eq(ts_ns(f.st_mtim), wrote);
	ck_assert_uint_eq(ts_ns(tmp_stat("/tmp/td").st_mtim), NOW());

	/* A truncate that changes the size sets mtime and ctime. */
	fake_clock_ns += sec;
	ck_assert_int_eq(tmpfs_truncate_path("td/f", 1), 0);
	wrote = NOW();
	ck_assert_uint_eq(ts_ns(tmp_stat("/tmp/td/f").st_mtim), wrote);

	/* A rename: both directories and the moved file's ctime; its mtime stays. */
	fake_clock_ns += sec;
	ck_assert_int_eq(tmpfs_rename("td/g", "h", 0), 0);
	ck_assert_uint_eq(ts_ns(tmp_stat("/tmp/td").st_mtim), NOW());
	ck_assert_uint_eq(ts_ns(tmp_stat("/tmp").st_mtim), NOW());
	ck_assert_uint_eq(ts_ns(tmp_stat("/tmp/h").st_ctim), NOW());
	ck_assert_uint_eq(ts_ns(tmp_stat("/tmp/h").st_mtim), wrote);

	/* An unlink: the directory, and the ctime of the file that keeps a name. */
	fake_clock_ns += sec;
	ck_assert_int_eq(tmpfs_unlink("h"), 0);
	ck_assert_uint_eq(ts_ns(tmp_stat("/tmp/td/f").st_ctim), NOW());
	ck_assert_uint_eq(ts_ns(tmp_stat("/tmp").st_mtim), NOW());
#undef NOW

	sys_close((int)fd);
	ck_assert_int_eq(tmpfs_unlink("td/f"), 0);
	ck_assert_int_eq(tmpfs_rmdir("td"), 0);
	tmpfs_exit();
	fake_clock_ns = saved;
}
END_TEST

START_TEST(test_pread_pwrite)
{
	char buf[32] = { 0 };
	long fd = sys_open("/etc/motd", O_RDONLY, 0);
	long dir = sys_open("/etc", O_RDONLY | O_DIRECTORY, 0);
	long null_fd = sys_open("/dev/null", O_RDWR, 0);
	long up = sys_open("/proc/uptime", O_RDONLY, 0);
	int p[2];

	ck_assert_int_eq(sys_pipe(p), 0);
	ck_assert_int_eq(sys_pread64((int)fd, buf, 4, 10), 4);
	ck_assert_mem_eq(buf, "abcd", 4);
	ck_assert_int_eq(sys_lseek((int)fd, 0, SEEK_CUR), 0);
	ck_assert_int_eq(sys_pread64((int)fd, buf, 32, 18), 2);
	ck_assert_int_eq(sys_pread64((int)fd, buf, 4, 20), 0);
	ck_assert_int_eq(sys_pread64((int)fd, buf, 4, -1), -EINVAL);
	ck_assert_int_eq(sys_pread64(99, buf, 4, -1), -EINVAL);
	ck_assert_int_eq(sys_pread64(99, buf, 4, 0), -EBADF);
	ck_assert_int_eq(sys_pread64((int)fd, buf, 4, 0x7ffffffffffffffeLL), -EINVAL);
	ck_assert_int_eq(sys_pread64((int)fd, BAD_UPTR, 4, 0), -EFAULT);
	ck_assert_int_eq(sys_pwrite64((int)fd, "x", 1, 0), -EBADF);
	ck_assert_int_eq(sys_pread64((int)dir, buf, 4, 0), -EISDIR);
	ck_assert_int_eq(sys_pread64(p[0], buf, 4, 0), -ESPIPE);
	ck_assert_int_eq(sys_pwrite64(p[0], "x", 1, 0), -ESPIPE);
	ck_assert_int_eq(sys_pwrite64(p[1], "x", 1, 0), -ESPIPE);
	ck_assert_int_eq(sys_pread64((int)null_fd, buf, 4, 9), 0);
	ck_assert_int_eq(sys_pwrite64((int)null_fd, "abc", 3, 9), 3);
	ck_assert_int_eq(sys_pread64((int)up, buf, 4, 5), 4);
	ck_assert_mem_eq(buf, "0.00", 4);
	ck_assert_int_eq(sys_read((int)up, buf, 4), 4);
	ck_assert_mem_eq(buf, "12.5", 4);
	sys_close(p[0]);
	sys_close(p[1]);
	sys_close((int)fd);
	sys_close((int)dir);
	sys_close((int)null_fd);
	sys_close((int)up);
}
END_TEST

Suite *fs_paths_suite(void)
{
	Suite *s = suite_create("fs_paths");
	TCase *dirs = tcase_create("getdents");
	TCase *paths = tcase_create("paths");

	tcase_add_checked_fixture(dirs, setup, teardown);
	tcase_add_test(dirs, test_list_root);
	tcase_add_test(dirs, test_list_dir_and_resume);
	tcase_add_test(dirs, test_list_dev_proc);
	tcase_add_test(dirs, test_getdents_errors);
	suite_add_tcase(s, dirs);
	tcase_add_checked_fixture(paths, setup, teardown);
	tcase_add_test(paths, test_stat_paths);
	tcase_add_test(paths, test_access);
	tcase_add_test(paths, test_cwd);
	tcase_add_test(paths, test_pread_pwrite);
	tcase_add_test(paths, test_tmpfs_file);
	tcase_add_test(paths, test_tmpfs_times);
	suite_add_tcase(s, paths);
	return s;
}

/*
 * t_tmpfs: files that can be written, in a fresh directory under /tmp
 * (Fulcrum's tmpfs; on Linux whatever /tmp is): open with O_CREAT, O_EXCL,
 * O_TRUNC and O_APPEND, read/write/lseek/pwrite, ftruncate and truncate,
 * unlink with the file still open, mkdir/rmdir, rename and renameat2,
 * link, symlink and readlink, getdents64 through readdir, umask, mtime
 * and ctime, utimensat, and the memory given back. Results and errors as Linux gives them. Runs on Linux and
 * Fulcrum.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../common/child.h"
#include "../common/objects.h"
#include "../common/rawsys.h"
#include "../common/report.h"

#define AT_FDCWD_	  (-100)
#define AT_REMOVEDIR_	  0x200
#define RENAME_NOREPLACE_ 1
#define RENAME_EXCHANGE_  2

static char top[64]; /* this run's directory */

/* top/name into a static buffer (four in turn). */
static const char *P(const char *name)
{
	static char bufs[4][128];
	static int next;

	next = (next + 1) % 4;
	snprintf(bufs[next], sizeof(bufs[next]), "%s/%s", top, name);
	return bufs[next];
}

static long put_file(const char *path, const char *text)
{
	int fd = (int)raw4(SYS_open, path, O_WRONLY | O_CREAT | O_TRUNC, 0644, 0);
	long n;

	if (fd < 0)
		return fd;
	n = raw3(SYS_write, fd, text, strlen(text));
	raw1(SYS_close, fd);
	return n;
}

/* The file's first bytes as a string ("" on error). */
static const char *get_file(const char *path)
{
	static char buf[256];
	int fd = (int)raw3(SYS_open, path, O_RDONLY, 0);
	long n = fd < 0 ? 0 : raw3(SYS_read, fd, buf, sizeof(buf) - 1);

	if (fd >= 0)
		raw1(SYS_close, fd);
	buf[n > 0 ? n : 0] = '\0';
	return buf;
}

static const char *create_write_read(void)
{
	struct stat st;
	char buf[16] = { 0 };
	int fd = (int)EXPECT_OK(raw4(SYS_open, P("a"), O_RDWR | O_CREAT | O_EXCL, 0666, 0));

	EXPECT_EQ(raw3(SYS_write, fd, "hello, world", 12), 12);
	EXPECT_EQ(raw3(SYS_lseek, fd, 7, SEEK_SET), 7);
	EXPECT_EQ(raw3(SYS_read, fd, buf, sizeof(buf)), 5);
	EXPECT(!memcmp(buf, "world", 5), "read %s after lseek 7", buf);
	EXPECT_EQ(raw3(SYS_read, fd, buf, sizeof(buf)), 0);
	EXPECT_EQ(raw2(SYS_fstat, fd, &st), 0);
	EXPECT(S_ISREG(st.st_mode) && (st.st_mode & 07777) == 0644, "mode %o, want 0100644",
	       st.st_mode);
	EXPECT_EQ(st.st_size, 12);
	EXPECT_EQ(st.st_nlink, 1);
	EXPECT_EQ(raw3(SYS_lseek, fd, 0, SEEK_END), 12);
	EXPECT_EQ(raw1(SYS_close, fd), 0);
	/* O_EXCL on what exists; O_CREAT alone opens it. */
	EXPECT_ERR(raw4(SYS_open, P("a"), O_RDWR | O_CREAT | O_EXCL, 0666, 0), EEXIST);
	fd = (int)EXPECT_OK(raw4(SYS_open, P("a"), O_RDONLY | O_CREAT, 0666, 0));
	EXPECT_ERR(raw3(SYS_write, fd, "x", 1), EBADF);
	raw1(SYS_close, fd);
	EXPECT_ERR(raw3(SYS_open, P("missing"), O_RDONLY, 0), ENOENT);
	EXPECT_ERR(raw4(SYS_open, P("nodir/a"), O_RDWR | O_CREAT, 0666, 0), ENOENT);
	EXPECT_ERR(raw4(SYS_open, P("a/b"), O_RDWR | O_CREAT, 0666, 0), ENOTDIR);
	EXPECT_ERR(raw4(SYS_open, P("new/"), O_RDWR | O_CREAT, 0666, 0), EISDIR);
	EXPECT_ERR(raw4(SYS_open, top, O_RDWR, 0, 0), EISDIR);
	EXPECT_ERR(raw4(SYS_open, BAD_PTR_LOW, O_RDWR | O_CREAT, 0666, 0), EFAULT);
	EXPECT_EQ(raw1(SYS_unlink, P("a")), 0);
	return NULL;
}

static const char *trunc_append(void)
{
	struct stat st;
	char buf[8];
	int fd;

	EXPECT_EQ(put_file(P("t"), "0123456789"), 10);
	fd = (int)EXPECT_OK(raw3(SYS_open, P("t"), O_WRONLY | O_APPEND, 0));
	EXPECT_EQ(raw3(SYS_lseek, fd, 0, SEEK_SET), 0);
	EXPECT_EQ(raw3(SYS_write, fd, "ab", 2), 2); /* at the end whatever the offset */
	raw1(SYS_close, fd);
	EXPECT(!strcmp(get_file(P("t")), "0123456789ab"), "after append: %s", get_file(P("t")));
	/* ftruncate down, then up: the new bytes read as zeros. */
	fd = (int)EXPECT_OK(raw3(SYS_open, P("t"), O_RDWR, 0));
	EXPECT_EQ(raw2(SYS_ftruncate, fd, 3), 0);
	EXPECT_EQ(raw2(SYS_ftruncate, fd, 6), 0);
	EXPECT_EQ(raw2(SYS_fstat, fd, &st), 0);
	EXPECT_EQ(st.st_size, 6);
	EXPECT_EQ(raw4(SYS_pread64, fd, buf, sizeof(buf), 0), 6);
	EXPECT(!memcmp(buf, "012\0\0\0", 6), "after truncate 3 then 6: %.6s", buf);
	EXPECT_ERR(raw2(SYS_ftruncate, fd, -1), EINVAL);
	raw1(SYS_close, fd);
	fd = (int)EXPECT_OK(raw3(SYS_open, P("t"), O_RDONLY, 0));
	EXPECT_ERR(raw2(SYS_ftruncate, fd, 0), EINVAL); /* not open for writing */
	raw1(SYS_close, fd);
	EXPECT_ERR(raw2(SYS_ftruncate, 9999, 0), EBADF);
	/* truncate by path, O_TRUNC at open. */
	EXPECT_EQ(raw2(SYS_truncate, P("t"), 2), 0);
	EXPECT(!strcmp(get_file(P("t")), "01"), "after truncate 2: %s", get_file(P("t")));
	EXPECT_ERR(raw2(SYS_truncate, top, 0), EISDIR);
	EXPECT_ERR(raw2(SYS_truncate, P("missing"), 0), ENOENT);
	EXPECT_ERR(raw2(SYS_truncate, P("t"), -1), EINVAL);
	fd = (int)EXPECT_OK(raw3(SYS_open, P("t"), O_RDWR | O_TRUNC, 0));
	EXPECT_EQ(raw2(SYS_fstat, fd, &st), 0);
	EXPECT_EQ(st.st_size, 0);
	raw1(SYS_close, fd);
	EXPECT_EQ(raw1(SYS_unlink, P("t")), 0);
	return NULL;
}

static const char *sparse_pwrite(void)
{
	char buf[4096];
	struct stat st;
	int fd = (int)EXPECT_OK(raw4(SYS_open, P("s"), O_RDWR | O_CREAT, 0600, 0));
	size_t i;

	EXPECT_EQ(raw4(SYS_pwrite64, fd, "end", 3, 1 << 20), 3);
	EXPECT_EQ(raw3(SYS_lseek, fd, 0, SEEK_CUR), 0); /* pwrite leaves the offset */
	EXPECT_EQ(raw2(SYS_fstat, fd, &st), 0);
	EXPECT_EQ(st.st_size, (1 << 20) + 3);
	memset(buf, 'x', sizeof(buf));
	EXPECT_EQ(raw4(SYS_pread64, fd, buf, sizeof(buf), 4096 * 10), (long)sizeof(buf));
	for (i = 0; i < sizeof(buf) && !buf[i]; i++)
		;
	EXPECT(i == sizeof(buf), "the hole reads %#x at %zu", buf[i], i);
	EXPECT_EQ(raw4(SYS_pread64, fd, buf, sizeof(buf), 1 << 20), 3);
	EXPECT(!memcmp(buf, "end", 3), "read %.3s at 1 MiB", buf);
	EXPECT_ERR(raw4(SYS_pwrite64, fd, "x", 1, -1), EINVAL);
	EXPECT_ERR(raw4(SYS_pwrite64, fd, BAD_PTR_LOW, 1, 0), EFAULT);
	raw1(SYS_close, fd);
	EXPECT_EQ(raw1(SYS_unlink, P("s")), 0);
	return NULL;
}

static const char *unlink_open_file(void)
{
	struct stat st;
	char buf[8] = { 0 };
	int fd;

	EXPECT_EQ(put_file(P("u"), "kept"), 4);
	fd = (int)EXPECT_OK(raw3(SYS_open, P("u"), O_RDWR, 0));
	EXPECT_EQ(raw1(SYS_unlink, P("u")), 0);
	EXPECT_ERR(raw2(SYS_stat, P("u"), &st), ENOENT);
	EXPECT_ERR(raw1(SYS_unlink, P("u")), ENOENT);
	/* The open file lives on without a name. */
	EXPECT_EQ(raw2(SYS_fstat, fd, &st), 0);
	EXPECT_EQ(st.st_nlink, 0);
	EXPECT_EQ(raw4(SYS_pread64, fd, buf, sizeof(buf), 0), 4);
	EXPECT(!memcmp(buf, "kept", 4), "read %s after unlink", buf);
	EXPECT_EQ(raw3(SYS_write, fd, "more", 4), 4);
	raw1(SYS_close, fd);
	EXPECT_ERR(raw1(SYS_unlink, top), EISDIR);
	EXPECT_ERR(raw1(SYS_unlink, ""), ENOENT);
	EXPECT_ERR(raw1(SYS_unlink, BAD_PTR_LOW), EFAULT);
	EXPECT_ERR(raw1(SYS_unlink, P("nodir/x")), ENOENT);
	EXPECT_ERR(raw3(SYS_unlinkat, AT_FDCWD_, P("x"), 0x1), EINVAL);
	return NULL;
}

static const char *mkdir_rmdir(void)
{
	struct stat st;

	EXPECT_EQ(raw2(SYS_mkdir, P("d"), 0755), 0);
	EXPECT_ERR(raw2(SYS_mkdir, P("d"), 0755), EEXIST);
	EXPECT_EQ(raw2(SYS_stat, P("d"), &st), 0);
	EXPECT(S_ISDIR(st.st_mode) && (st.st_mode & 0777) == 0755, "mode %o", st.st_mode);
	EXPECT_EQ(st.st_nlink, 2);
	EXPECT_EQ(raw2(SYS_mkdir, P("d/e"), 0700), 0);
	EXPECT_EQ(raw3(SYS_mkdirat, AT_FDCWD_, P("d/f/"), 0700), 0); /* a trailing slash is fine */
	EXPECT_EQ(raw2(SYS_stat, P("d"), &st), 0);
	EXPECT_EQ(st.st_nlink, 4);
	EXPECT_EQ(put_file(P("d/file"), "x"), 1);
	EXPECT_ERR(raw1(SYS_rmdir, P("d")), ENOTEMPTY);
	EXPECT_ERR(raw1(SYS_rmdir, P("d/file")), ENOTDIR);
	EXPECT_ERR(raw1(SYS_rmdir, P("d/e/.")), EINVAL);
	EXPECT_ERR(raw1(SYS_rmdir, P("d/missing")), ENOENT);
	EXPECT_ERR(raw2(SYS_mkdir, P("nodir/x"), 0755), ENOENT);
	EXPECT_ERR(raw2(SYS_mkdir, P("d/file/x"), 0755), ENOTDIR);
	EXPECT_ERR(raw2(SYS_mkdir, "", 0755), ENOENT);
	EXPECT_EQ(raw1(SYS_rmdir, P("d/e")), 0);
	EXPECT_EQ(raw3(SYS_unlinkat, AT_FDCWD_, P("d/f"), AT_REMOVEDIR_), 0);
	EXPECT_ERR(raw3(SYS_unlinkat, AT_FDCWD_, P("d/file"), AT_REMOVEDIR_), ENOTDIR);
	EXPECT_EQ(raw3(SYS_unlinkat, AT_FDCWD_, P("d/file"), 0), 0);
	EXPECT_EQ(raw2(SYS_stat, P("d"), &st), 0);
	EXPECT_EQ(st.st_nlink, 2);
	EXPECT_EQ(raw1(SYS_rmdir, P("d")), 0);
	EXPECT_ERR(raw2(SYS_stat, P("d"), &st), ENOENT);
	return NULL;
}

static const char *rename_cases(void)
{
	struct stat a, b;

	EXPECT_EQ(put_file(P("r1"), "one"), 3);
	EXPECT_EQ(put_file(P("r2"), "two"), 3);
	EXPECT_EQ(raw2(SYS_stat, P("r1"), &a), 0);
	EXPECT_EQ(raw2(SYS_rename, P("r1"), P("r3")), 0);
	EXPECT_EQ(raw2(SYS_stat, P("r3"), &b), 0);
	EXPECT(a.st_ino == b.st_ino, "rename changed the inode number");
	EXPECT_ERR(raw2(SYS_stat, P("r1"), &a), ENOENT);
	/* Over an existing file: it is replaced. */
	EXPECT_EQ(raw2(SYS_rename, P("r3"), P("r2")), 0);
	EXPECT(!strcmp(get_file(P("r2")), "one"), "r2 holds %s", get_file(P("r2")));
	EXPECT_EQ(raw2(SYS_rename, P("r2"), P("r2")), 0); /* itself: nothing happens */
	EXPECT_ERR(raw2(SYS_rename, P("missing"), P("x")), ENOENT);
	EXPECT_ERR(raw2(SYS_rename, P("r2"), P("nodir/x")), ENOENT);
	/* Directories. */
	EXPECT_EQ(raw2(SYS_mkdir, P("D"), 0755), 0);
	EXPECT_EQ(raw2(SYS_mkdir, P("D/sub"), 0755), 0);
	EXPECT_EQ(raw2(SYS_mkdir, P("E"), 0755), 0);
	EXPECT_ERR(raw2(SYS_rename, P("D"), P("D/sub/in")), EINVAL);
	EXPECT_ERR(raw2(SYS_rename, P("r2"), P("E")), EISDIR);
	EXPECT_ERR(raw2(SYS_rename, P("E"), P("r2")), ENOTDIR);
	EXPECT_ERR(raw2(SYS_rename, P("E"), P("D")), ENOTEMPTY);
	EXPECT_ERR(raw2(SYS_rename, P("r2"), P("r9/")), ENOTDIR);
	EXPECT_ERR(raw2(SYS_rename, P("D/."), P("F")), EBUSY);
	EXPECT_EQ(raw2(SYS_rename, P("D/sub"), P("E/sub2")), 0);
	EXPECT_EQ(raw2(SYS_stat, P("D"), &a), 0);
	EXPECT_EQ(a.st_nlink, 2);
	EXPECT_EQ(raw2(SYS_stat, P("E"), &a), 0);
	EXPECT_EQ(a.st_nlink, 3);
	EXPECT_EQ(raw2(SYS_rename, P("E"), P("D")), 0); /* over an empty directory */
	EXPECT_EQ(raw2(SYS_stat, P("D/sub2"), &a), 0);
	/* renameat2's flags. */
	EXPECT_EQ(put_file(P("x1"), "first"), 5);
	EXPECT_EQ(put_file(P("x2"), "second"), 6);
	EXPECT_ERR(raw5(SYS_renameat2, AT_FDCWD_, P("x1"), AT_FDCWD_, P("x2"), RENAME_NOREPLACE_),
		   EEXIST);
	EXPECT_EQ(raw5(SYS_renameat2, AT_FDCWD_, P("x1"), AT_FDCWD_, P("x2"), RENAME_EXCHANGE_), 0);
	EXPECT(!strcmp(get_file(P("x1")), "second"), "x1 holds %s", get_file(P("x1")));
	EXPECT(!strcmp(get_file(P("x2")), "first"), "x2 holds %s", get_file(P("x2")));
	EXPECT_ERR(raw5(SYS_renameat2, AT_FDCWD_, P("x1"), AT_FDCWD_, P("none"), RENAME_EXCHANGE_),
		   ENOENT);
	EXPECT_ERR(raw5(SYS_renameat2, AT_FDCWD_, P("x1"), AT_FDCWD_, P("x2"),
			RENAME_EXCHANGE_ | RENAME_NOREPLACE_),
		   EINVAL);
	EXPECT_ERR(raw5(SYS_renameat2, AT_FDCWD_, P("x1"), AT_FDCWD_, P("x2"), 0x80), EINVAL);
	EXPECT_EQ(raw5(SYS_renameat2, AT_FDCWD_, P("x1"), AT_FDCWD_, P("x3"), RENAME_NOREPLACE_), 0);
	/* Another file system. */
	EXPECT_ERR(raw2(SYS_rename, P("x3"), "/proc/x3"), EXDEV);
	EXPECT_ERR(raw2(SYS_rename, BAD_PTR_LOW, P("x3")), EFAULT);
	raw1(SYS_unlink, P("x2"));
	raw1(SYS_unlink, P("x3"));
	raw1(SYS_unlink, P("r2"));
	raw1(SYS_rmdir, P("D/sub2"));
	EXPECT_EQ(raw1(SYS_rmdir, P("D")), 0);
	return NULL;
}

static const char *links(void)
{
	struct stat a, b;
	char buf[64];
	long n;

	EXPECT_EQ(put_file(P("l1"), "linked"), 6);
	EXPECT_EQ(raw2(SYS_link, P("l1"), P("l2")), 0);
	EXPECT_EQ(raw2(SYS_stat, P("l1"), &a), 0);
	EXPECT_EQ(raw2(SYS_stat, P("l2"), &b), 0);
	EXPECT(a.st_ino == b.st_ino && a.st_nlink == 2, "ino %lu/%lu nlink %lu", (long)a.st_ino,
	       (long)b.st_ino, (long)a.st_nlink);
	EXPECT_ERR(raw2(SYS_link, P("l1"), P("l2")), EEXIST);
	EXPECT_ERR(raw2(SYS_link, P("missing"), P("l3")), ENOENT);
	EXPECT_ERR(raw2(SYS_link, top, P("dirlink")), EPERM);
	EXPECT_ERR(raw5(SYS_linkat, AT_FDCWD_, P("l1"), AT_FDCWD_, P("l3"), 0x1), EINVAL);
	EXPECT_EQ(raw1(SYS_unlink, P("l1")), 0);
	EXPECT(!strcmp(get_file(P("l2")), "linked"), "l2 holds %s", get_file(P("l2")));
	EXPECT_EQ(raw2(SYS_stat, P("l2"), &b), 0);
	EXPECT_EQ(b.st_nlink, 1);
	/* Symbolic links: relative targets, lstat, following on open, dangling ones. */
	EXPECT_EQ(raw2(SYS_symlink, "l2", P("sl")), 0);
	EXPECT_ERR(raw2(SYS_symlink, "l2", P("sl")), EEXIST);
	n = EXPECT_OK(raw3(SYS_readlink, P("sl"), buf, sizeof(buf)));
	EXPECT(n == 2 && !memcmp(buf, "l2", 2), "readlink gave %.*s", (int)n, buf);
	EXPECT_EQ(raw2(SYS_lstat, P("sl"), &a), 0);
	EXPECT(S_ISLNK(a.st_mode) && a.st_size == 2, "lstat mode %o size %ld", a.st_mode,
	       (long)a.st_size);
	EXPECT(!strcmp(get_file(P("sl")), "linked"), "through the link: %s", get_file(P("sl")));
	EXPECT_ERR(raw3(SYS_open, P("sl"), O_RDONLY | O_NOFOLLOW, 0), ELOOP);
	EXPECT_ERR(raw3(SYS_readlink, P("l2"), buf, sizeof(buf)), EINVAL);
	EXPECT_ERR(raw2(SYS_symlink, "", P("empty")), ENOENT);
	EXPECT_EQ(raw2(SYS_symlink, "made", P("dangling")), 0);
	EXPECT_ERR(raw2(SYS_stat, P("dangling"), &a), ENOENT);
	EXPECT_EQ(put_file(P("dangling"), "via"), 3); /* O_CREAT through it makes the target */
	EXPECT(!strcmp(get_file(P("made")), "via"), "made holds %s", get_file(P("made")));
	EXPECT_EQ(raw1(SYS_unlink, P("sl")), 0); /* the link, not its target */
	EXPECT_EQ(raw2(SYS_stat, P("l2"), &a), 0);
	raw1(SYS_unlink, P("l2"));
	raw1(SYS_unlink, P("made"));
	raw1(SYS_unlink, P("dangling"));
	return NULL;
}

static const char *listing(void)
{
	const char *want[] = { ".", "..", "f1", "f2", "sub" };
	int seen[5] = { 0 }, others = 0;
	struct dirent *de;
	DIR *d;

	EXPECT_EQ(raw2(SYS_mkdir, P("L"), 0755), 0);
	EXPECT_EQ(put_file(P("L/f1"), "1"), 1);
	EXPECT_EQ(put_file(P("L/f2"), "2"), 1);
	EXPECT_EQ(raw2(SYS_mkdir, P("L/sub"), 0755), 0);
	d = opendir(P("L"));
	EXPECT(d, "opendir: %s", strerror(errno));
	while ((de = readdir(d))) {
		size_t i;

		for (i = 0; i < 5 && strcmp(de->d_name, want[i]); i++)
			;
		if (i == 5) {
			others++;
			continue;
		}
		seen[i]++;
		if (i >= 2)
			EXPECT(de->d_type == (i == 4 ? DT_DIR : DT_REG), "%s: d_type %d",
			       de->d_name, de->d_type);
	}
	closedir(d);
	EXPECT(!others, "%d entries that were never made", others);
	for (int i = 0; i < 5; i++)
		EXPECT(seen[i] == 1, "%s listed %d times", want[i], seen[i]);
	raw1(SYS_unlink, P("L/f1"));
	raw1(SYS_unlink, P("L/f2"));
	raw1(SYS_rmdir, P("L/sub"));
	EXPECT_EQ(raw1(SYS_rmdir, P("L")), 0);
	d = opendir(top);
	EXPECT(d, "opendir top: %s", strerror(errno));
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			others++;
	closedir(d);
	EXPECT(!others, "%d entries left in %s", others, top);
	return NULL;
}

/* A 1 MiB file's blocks are counted while it has data and gone after truncation. */
static const char *blocks_given_back(void)
{
	static char chunk[65536];
	struct stat st;
	int fd = (int)EXPECT_OK(raw4(SYS_open, P("big"), O_RDWR | O_CREAT, 0600, 0));

	memset(chunk, 'b', sizeof(chunk));
	for (int i = 0; i < 16; i++)
		EXPECT_EQ(raw3(SYS_write, fd, chunk, sizeof(chunk)), (long)sizeof(chunk));
	EXPECT_EQ(raw2(SYS_fstat, fd, &st), 0);
	EXPECT(st.st_blocks >= 2048, "1 MiB written, %ld blocks", (long)st.st_blocks);
	EXPECT_EQ(raw2(SYS_ftruncate, fd, 0), 0);
	EXPECT_EQ(raw2(SYS_fstat, fd, &st), 0);
	EXPECT_EQ(st.st_blocks, 0);
	raw1(SYS_close, fd);
	EXPECT_EQ(raw1(SYS_unlink, P("big")), 0);
	return NULL;
}

/*
 * Fulcrum: the tmpfs's page and inode counts in /proc/fulcrum/objects come
 * back once the last name and the last open file are gone. Linux has no
 * such counts; there the case only notes it.
 */
static const char *memory_given_back(void)
{
	static char chunk[65536];
	struct objects before, during, after;
	int fd;

	if (access(OBJECTS_PATH, R_OK)) {
		report_note("no %s (Linux): the counts are Fulcrum's", OBJECTS_PATH);
		return NULL;
	}
	EXPECT(!objects_take(&before), "cannot read %s", OBJECTS_PATH);
	fd = (int)EXPECT_OK(raw4(SYS_open, P("m"), O_RDWR | O_CREAT, 0600, 0));
	memset(chunk, 'm', sizeof(chunk));
	for (int i = 0; i < 8; i++)
		EXPECT_EQ(raw3(SYS_write, fd, chunk, sizeof(chunk)), (long)sizeof(chunk));
	EXPECT_EQ(raw1(SYS_unlink, P("m")), 0);
	EXPECT(!objects_take(&during), "cannot read %s", OBJECTS_PATH);
	EXPECT(objects_get(&during, "tmpfs_pages") == objects_get(&before, "tmpfs_pages") + 128,
	       "tmpfs_pages %lld with 512 KiB unlinked but open, %lld before",
	       objects_get(&during, "tmpfs_pages"), objects_get(&before, "tmpfs_pages"));
	raw1(SYS_close, fd);
	EXPECT(!objects_take(&after), "cannot read %s", OBJECTS_PATH);
	EXPECT(objects_get(&after, "tmpfs_pages") == objects_get(&before, "tmpfs_pages") &&
		       objects_get(&after, "tmpfs_inodes") == objects_get(&before, "tmpfs_inodes"),
	       "tmpfs_pages %lld -> %lld, tmpfs_inodes %lld -> %lld after close",
	       objects_get(&before, "tmpfs_pages"), objects_get(&after, "tmpfs_pages"),
	       objects_get(&before, "tmpfs_inodes"), objects_get(&after, "tmpfs_inodes"));
	return NULL;
}

/* umask: what new files and directories lose; a forked child's own, as Linux's fs_struct. */
static const char *umask_calls(void)
{
	struct stat st;
	pid_t pid;
	int status;

	EXPECT_EQ(raw1(SYS_umask, 027), 022);
	EXPECT_EQ(put_file(P("um"), ""), 0); /* put_file asks for 0644 */
	EXPECT_EQ(raw2(SYS_stat, P("um"), &st), 0);
	EXPECT((st.st_mode & 0777) == 0640, "file mode %o under umask 027", st.st_mode & 0777);
	EXPECT_EQ(raw2(SYS_mkdir, P("umd"), 0777), 0);
	EXPECT_EQ(raw2(SYS_stat, P("umd"), &st), 0);
	EXPECT((st.st_mode & 0777) == 0750, "directory mode %o under umask 027", st.st_mode & 0777);
	pid = fork();
	if (pid == 0)
		_exit(raw1(SYS_umask, 077) == 027 ? 0 : 1);
	EXPECT(pid > 0, "fork: %s", strerror(errno));
	EXPECT_EQ(waitpid(pid, &status, 0), pid);
	EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the child saw another umask");
	EXPECT_EQ(raw1(SYS_umask, 01777), 027); /* only the permission bits are kept */
	EXPECT_EQ(raw1(SYS_umask, 022), 0777);
	raw1(SYS_unlink, P("um"));
	raw1(SYS_rmdir, P("umd"));
	return NULL;
}

static const char *chmod_calls(void)
{
	struct stat st;
	int fd;

	EXPECT_EQ(put_file(P("c"), "x"), 1);
	EXPECT_EQ(raw2(SYS_chmod, P("c"), 0751), 0);
	EXPECT_EQ(raw2(SYS_stat, P("c"), &st), 0);
	EXPECT(st.st_mode == (S_IFREG | 0751), "mode %o after chmod 0751", st.st_mode);
	fd = (int)EXPECT_OK(raw3(SYS_open, P("c"), O_RDONLY, 0));
	EXPECT_EQ(raw2(SYS_fchmod, fd, 04600), 0);
	EXPECT_EQ(raw2(SYS_fstat, fd, &st), 0);
	EXPECT(st.st_mode == (S_IFREG | 04600), "mode %o after fchmod 04600", st.st_mode);
	raw1(SYS_close, fd);
	EXPECT_EQ(raw2(SYS_symlink, "c", P("cl")), 0);
	EXPECT_EQ(raw3(SYS_fchmodat, AT_FDCWD_, P("cl"), 0644), 0); /* follows the link */
	EXPECT_EQ(raw2(SYS_stat, P("c"), &st), 0);
	EXPECT(st.st_mode == (S_IFREG | 0644), "mode %o through the link", st.st_mode);
	EXPECT_EQ(raw2(SYS_mkdir, P("cd"), 0700), 0);
	fd = (int)EXPECT_OK(raw3(SYS_open, P("cd"), O_RDONLY | O_DIRECTORY, 0));
	EXPECT_EQ(raw2(SYS_fchmod, fd, 0755), 0);
	raw1(SYS_close, fd);
	EXPECT_EQ(raw2(SYS_stat, P("cd"), &st), 0);
	EXPECT(st.st_mode == (S_IFDIR | 0755), "directory mode %o", st.st_mode);
	EXPECT_ERR(raw2(SYS_chmod, P("missing"), 0644), ENOENT);
	EXPECT_ERR(raw2(SYS_chmod, BAD_PTR_LOW, 0644), EFAULT);
	EXPECT_ERR(raw2(SYS_fchmod, 9999, 0644), EBADF);
	raw1(SYS_unlink, P("cl"));
	raw1(SYS_unlink, P("c"));
	raw1(SYS_rmdir, P("cd"));
	return NULL;
}

/* A stat timestamp in ns. */
static long long ts_ns(struct timespec t)
{
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}

static long long realtime_ns(void)
{
	struct timespec t;

	raw2(SYS_clock_gettime, CLOCK_REALTIME, &t);
	return ts_ns(t);
}

static void pause_ms(long ms)
{
	struct timespec t = { 0, ms * 1000000L };

	raw2(SYS_nanosleep, &t, NULL);
}

/*
 * mtime and ctime on the wall clock: a new file is stamped now, a write
 * moves both, chmod moves ctime alone, a new name moves its directory's.
 * Linux stamps with the clock of its last tick, so "now" has a margin of
 * SLACK; the pauses are longer than a tick. atime is left out (a /tmp
 * mounted noatime never sets it).
 */
#define SLACK_NS 20000000LL
static const char *timestamps(void)
{
	long long before, after, created;
	struct stat st, dir;

	before = realtime_ns();
	EXPECT_EQ(put_file(P("ts"), "x"), 1);
	after = realtime_ns();
	EXPECT_EQ(raw2(SYS_stat, P("ts"), &st), 0);
	created = ts_ns(st.st_mtim);
	EXPECT(created >= before - SLACK_NS && created <= after + SLACK_NS,
	       "mtime %lld ns, not between %lld and %lld", created, before, after);
	EXPECT(ts_ns(st.st_ctim) == created, "ctime %lld != mtime %lld", ts_ns(st.st_ctim), created);
	EXPECT_EQ(raw2(SYS_stat, top, &dir), 0);
	EXPECT(ts_ns(dir.st_mtim) >= before - SLACK_NS && ts_ns(dir.st_mtim) <= after + SLACK_NS,
	       "directory mtime %lld, not between %lld and %lld", ts_ns(dir.st_mtim), before, after);

	pause_ms(50);
	EXPECT_EQ(put_file(P("ts"), "yz"), 2);
	EXPECT_EQ(raw2(SYS_stat, P("ts"), &st), 0);
	EXPECT(ts_ns(st.st_mtim) > created, "mtime %lld not after %lld once rewritten",
	       ts_ns(st.st_mtim), created);
	EXPECT(ts_ns(st.st_ctim) == ts_ns(st.st_mtim), "ctime %lld != mtime %lld after a write",
	       ts_ns(st.st_ctim), ts_ns(st.st_mtim));
	created = ts_ns(st.st_mtim);

	pause_ms(50);
	EXPECT_EQ(raw2(SYS_chmod, P("ts"), 0600), 0);
	EXPECT_EQ(raw2(SYS_stat, P("ts"), &st), 0);
	EXPECT(ts_ns(st.st_mtim) == created, "chmod moved mtime to %lld", ts_ns(st.st_mtim));
	EXPECT(ts_ns(st.st_ctim) > created, "chmod left ctime at %lld", ts_ns(st.st_ctim));
	raw1(SYS_unlink, P("ts"));
	return NULL;
}

#define UTIME_NOW_	     ((1L << 30) - 1)
#define UTIME_OMIT_	     ((1L << 30) - 2)
#define AT_SYMLINK_NOFOLLOW_ 0x100
#define AT_EMPTY_PATH_	     0x1000

/* utimensat and futimens: given times, UTIME_NOW and UTIME_OMIT, links, and Linux's errors. */
static const char *utimensat_calls(void)
{
	struct timespec t[2] = { { 1000, 500 }, { 2000, 7 } };
	long long before;
	struct stat st, lst;
	int fd;

	EXPECT_EQ(put_file(P("u"), "x"), 1);
	before = realtime_ns();
	EXPECT_EQ(raw4(SYS_utimensat, AT_FDCWD_, P("u"), t, 0), 0);
	EXPECT_EQ(raw2(SYS_stat, P("u"), &st), 0);
	EXPECT(ts_ns(st.st_atim) == 1000000000500LL && ts_ns(st.st_mtim) == 2000000000007LL,
	       "atime %lld mtime %lld, want 1000.000000500 and 2000.000000007", ts_ns(st.st_atim),
	       ts_ns(st.st_mtim));
	EXPECT(ts_ns(st.st_ctim) >= before - SLACK_NS, "ctime %lld not moved to now (%lld)",
	       ts_ns(st.st_ctim), before);
	/* UTIME_OMIT keeps atime, UTIME_NOW sets mtime, through a descriptor (futimens). */
	t[0].tv_nsec = UTIME_OMIT_;
	t[1].tv_nsec = UTIME_NOW_;
	fd = (int)EXPECT_OK(raw3(SYS_open, P("u"), O_RDONLY, 0));
	EXPECT_EQ(raw4(SYS_utimensat, fd, NULL, t, 0), 0);
	EXPECT_EQ(raw2(SYS_fstat, fd, &st), 0);
	EXPECT(ts_ns(st.st_atim) == 1000000000500LL, "UTIME_OMIT changed atime to %lld",
	       ts_ns(st.st_atim));
	EXPECT(ts_ns(st.st_mtim) >= before - SLACK_NS, "UTIME_NOW gave mtime %lld",
	       ts_ns(st.st_mtim));
	/* No times: both now; AT_EMPTY_PATH with "" is the descriptor. */
	EXPECT_EQ(raw4(SYS_utimensat, fd, "", NULL, AT_EMPTY_PATH_), 0);
	EXPECT_EQ(raw2(SYS_fstat, fd, &st), 0);
	EXPECT(ts_ns(st.st_atim) >= before - SLACK_NS, "atime %lld after times NULL",
	       ts_ns(st.st_atim));
	/* AT_SYMLINK_NOFOLLOW sets the link's own times, not its target's. */
	EXPECT_EQ(raw2(SYS_symlink, "u", P("ul")), 0);
	t[0] = (struct timespec){ 3000, 0 };
	t[1] = (struct timespec){ 4000, 0 };
	EXPECT_EQ(raw4(SYS_utimensat, AT_FDCWD_, P("ul"), t, AT_SYMLINK_NOFOLLOW_), 0);
	EXPECT_EQ(raw2(SYS_lstat, P("ul"), &lst), 0);
	EXPECT_EQ(raw2(SYS_stat, P("u"), &st), 0);
	EXPECT(ts_ns(lst.st_mtim) == 4000000000000LL, "the link's mtime %lld", ts_ns(lst.st_mtim));
	EXPECT(ts_ns(st.st_mtim) != 4000000000000LL, "the target's mtime changed through NOFOLLOW");
	/* Errors, in Linux's order. */
	t[0].tv_nsec = 1000000000;
	EXPECT_ERR(raw4(SYS_utimensat, AT_FDCWD_, P("u"), t, 0), EINVAL);
	t[0].tv_nsec = 0;
	EXPECT_ERR(raw4(SYS_utimensat, AT_FDCWD_, P("u"), t, 0x8000), EINVAL);
	EXPECT_ERR(raw4(SYS_utimensat, fd, NULL, t, AT_SYMLINK_NOFOLLOW_), EINVAL);
	EXPECT_ERR(raw4(SYS_utimensat, AT_FDCWD_, P("missing"), t, 0), ENOENT);
	EXPECT_ERR(raw4(SYS_utimensat, 9999, NULL, t, 0), EBADF);
	EXPECT_ERR(raw4(SYS_utimensat, AT_FDCWD_, P("u"), BAD_PTR_LOW, 0), EFAULT);
	EXPECT_ERR(raw4(SYS_utimensat, AT_FDCWD_, BAD_PTR_LOW, t, 0), EFAULT);
	raw1(SYS_close, fd);
	raw1(SYS_unlink, P("ul"));
	raw1(SYS_unlink, P("u"));
	return NULL;
}

static const struct test_case cases[] = {
	{ "create_write_read", create_write_read },
	{ "trunc_append", trunc_append },
	{ "sparse_pwrite", sparse_pwrite },
	{ "unlink_open_file", unlink_open_file },
	{ "mkdir_rmdir", mkdir_rmdir },
	{ "rename", rename_cases },
	{ "link_symlink", links },
	{ "listing", listing },
	{ "blocks_given_back", blocks_given_back },
	{ "memory_given_back", memory_given_back },
	{ "umask", umask_calls },
	{ "chmod", chmod_calls },
	{ "timestamps", timestamps },
	{ "utimensat", utimensat_calls },
};

int main(int argc, char **argv)
{
	long err;
	int status;

	(void)argc;
	test_self_init(argv[0], "t_tmpfs");
	umask(022);
	snprintf(top, sizeof(top), "/tmp/t_tmpfs.%d", getpid());
	err = raw2(SYS_mkdir, top, 0700);
	if (err) {
		report_case("mkdir_top", report_why("mkdir %s: %s", top, report_ret(err)));
		return report_done("t_tmpfs");
	}
	report_run_all(cases, REPORT_NCASES(cases));
	status = report_done("t_tmpfs");
	raw1(SYS_rmdir, top);
	return status;
}

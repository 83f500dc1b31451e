/*
 * t_files: the calls a program brought from elsewhere expects of files —
 * stat/lstat/newfstatat, access/faccessat/faccessat2, getdents64 and
 * opendir, pread64/pwrite64, getcwd/chdir/fchdir and relative paths,
 * madvise, select/pselect6/ppoll with their timeouts and signal masks.
 * Runs on Linux and Fulcrum.
 *
 * The fixture is a small tree, t_files_tree beside this program: Fulcrum's
 * initrd has it as /tests/t_files_tree (from user/rootfs/); where it is
 * missing (the host runs build/user/tests/t_files) the program makes the
 * same tree in a scratch directory under /tmp and removes it at the end.
 * Either way fixture_matches checks it against the table below first.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "../common/child.h"
#include "../common/rawsys.h"
#include "../common/report.h"

#ifndef SYS_faccessat2
#define SYS_faccessat2 439
#endif
#ifndef MADV_FREE
#define MADV_FREE 8
#endif
#ifndef AT_EACCESS
#define AT_EACCESS 0x200
#endif

#define PAGE	  4096ul
#define MS_NS	  1000000l
#define SIGBIT(s) (1ul << ((s)-1))

struct fixture_entry {
	const char *name;
	char kind; /* 'f' file, 'd' directory, 'l' symlink */
	mode_t mode;
	const char *data; /* a file's contents, a link's target */
};

/* The tree; user/rootfs/tests/t_files_tree must hold exactly this. */
static const struct fixture_entry fixture_tree[] = {
	{ "hello.txt", 'f', 0644, "hello, fulcrum\n" },
	{ "tool", 'f', 0755, "not a program\n" },
	{ "link", 'l', 0777, "hello.txt" },
	{ "loop", 'l', 0777, "loop" },
	{ "sub", 'd', 0755, NULL },
	{ "sub/inner.txt", 'f', 0644, "inner\n" },
	{ "sublink", 'l', 0777, "sub" },
};

/* The top-level names getdents must list, "." and ".." included. */
static const char *const top_names[] = { ".",	 "..",	 "hello.txt", "tool",
					 "link", "loop", "sub",	      "sublink" };

static char self_abs[PATH_MAX];	 /* this program, absolute */
static char fixture[PATH_MAX];	 /* the tree, absolute */
static char scratch[PATH_MAX];	 /* the scratch directory made for it, or "" */
static char start_cwd[PATH_MAX]; /* where the program started */

/* dir/name into buf (PATH_MAX bytes); "" if it does not fit. */
static void join(char *buf, const char *dir, const char *name)
{
	if (snprintf(buf, PATH_MAX, "%s/%s", dir, name) >= PATH_MAX)
		buf[0] = '\0';
}

static void fx(char *buf, const char *name)
{
	join(buf, fixture, name);
}

static long mono_ns(void)
{
	struct timespec ts;

	raw2(SYS_clock_gettime, CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000l + ts.tv_nsec;
}

static long open_dir(const char *path)
{
	return raw3(SYS_open, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);
}

static int make_tree(void)
{
	char path[PATH_MAX];

	snprintf(scratch, sizeof(scratch), "/tmp/t_files.XXXXXX");
	if (!mkdtemp(scratch))
		return -1;
	join(fixture, scratch, "t_files_tree");
	if (mkdir(fixture, 0755) || chmod(fixture, 0755))
		return -1;
	for (size_t i = 0; i < sizeof(fixture_tree) / sizeof(fixture_tree[0]); i++) {
		const struct fixture_entry *e = &fixture_tree[i];
		int fd;

		fx(path, e->name);
		if (e->kind == 'd') {
			if (mkdir(path, e->mode) || chmod(path, e->mode))
				return -1;
		} else if (e->kind == 'l') {
			if (symlink(e->data, path))
				return -1;
		} else {
			fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
			if (fd < 0 ||
			    write(fd, e->data, strlen(e->data)) != (ssize_t)strlen(e->data) ||
			    fchmod(fd, e->mode) || close(fd))
				return -1;
		}
	}
	return 0;
}

static void remove_tree(void)
{
	char path[PATH_MAX];

	if (!scratch[0])
		return;
	for (size_t i = sizeof(fixture_tree) / sizeof(fixture_tree[0]); i-- > 0;) {
		fx(path, fixture_tree[i].name);
		if (fixture_tree[i].kind == 'd')
			rmdir(path);
		else
			unlink(path);
	}
	rmdir(fixture);
	rmdir(scratch);
}

/* Finds or makes the tree; 0 or -1. */
static int find_fixture(void)
{
	const char *self = test_self();
	char *slash;
	long fd;

	char dir[PATH_MAX];

	if (self[0] == '/')
		snprintf(self_abs, sizeof(self_abs), "%s", self);
	else
		join(self_abs, start_cwd, self);
	snprintf(dir, sizeof(dir), "%s", self_abs);
	slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	join(fixture, dir, "t_files_tree");
	fd = open_dir(fixture);
	if (fd >= 0) {
		raw1(SYS_close, fd);
		return 0;
	}
	return make_tree();
}

static void back_to_start(void)
{
	raw1(SYS_chdir, start_cwd);
}

static size_t fixture_size(const char *name)
{
	for (size_t i = 0; i < sizeof(fixture_tree) / sizeof(fixture_tree[0]); i++)
		if (!strcmp(fixture_tree[i].name, name))
			return strlen(fixture_tree[i].data);
	return 0;
}

/* ------------------------------------------------------------ the tree */

static const char *fixture_matches(void)
{
	char path[PATH_MAX], buf[64];

	for (size_t i = 0; i < sizeof(fixture_tree) / sizeof(fixture_tree[0]); i++) {
		const struct fixture_entry *e = &fixture_tree[i];
		struct stat st;
		long fd, n;

		fx(path, e->name);
		EXPECT_OK(raw2(SYS_lstat, path, &st));
		if (e->kind == 'l') {
			EXPECT(S_ISLNK(st.st_mode), "%s: mode %o, want a symlink", e->name,
			       st.st_mode);
			EXPECT_EQ(st.st_size, strlen(e->data));
			continue;
		}
		EXPECT((st.st_mode & 0777) == e->mode, "%s: mode %o, want %o", e->name,
		       st.st_mode & 0777, e->mode);
		if (e->kind == 'd') {
			EXPECT(S_ISDIR(st.st_mode), "%s: not a directory", e->name);
			continue;
		}
		EXPECT(S_ISREG(st.st_mode), "%s: not a regular file", e->name);
		EXPECT_EQ(st.st_size, strlen(e->data));
		fd = EXPECT_OK(raw3(SYS_open, path, O_RDONLY, 0));
		n = raw3(SYS_read, fd, buf, sizeof(buf));
		raw1(SYS_close, fd);
		EXPECT(n == (long)strlen(e->data) && !memcmp(buf, e->data, (size_t)n),
		       "%s: contents differ", e->name);
	}
	return NULL;
}

/* ------------------------------------------------------------ stat */

static const char *stat_file(void)
{
	char path[PATH_MAX];
	struct stat st;

	fx(path, "hello.txt");
	EXPECT_EQ(raw2(SYS_stat, path, &st), 0);
	EXPECT(S_ISREG(st.st_mode) && (st.st_mode & 07777) == 0644, "mode %o", st.st_mode);
	EXPECT_EQ(st.st_size, fixture_size("hello.txt"));
	EXPECT_EQ(st.st_nlink, 1);
	EXPECT_EQ(st.st_uid, geteuid());
	EXPECT_EQ(st.st_gid, getegid());
	fx(path, "tool");
	EXPECT_EQ(raw2(SYS_stat, path, &st), 0);
	EXPECT((st.st_mode & 07777) == 0755, "tool mode %o", st.st_mode);
	EXPECT_EQ(raw2(SYS_stat, fixture, &st), 0);
	EXPECT(S_ISDIR(st.st_mode), "fixture mode %o", st.st_mode);
	return NULL;
}

/* stat by path describes exactly what fstat describes once it is open. */
static const char *stat_agrees_with_fstat(void)
{
	char hello[PATH_MAX];
	const char *paths[] = { hello, fixture, "/dev/null", "/" };

	fx(hello, "hello.txt");
	for (int i = 0; i < 4; i++) {
		struct stat a, b;
		long fd = EXPECT_OK(raw3(SYS_open, paths[i], O_RDONLY, 0));
		long r = raw2(SYS_fstat, fd, &b);

		raw1(SYS_close, fd);
		EXPECT_EQ(r, 0);
		EXPECT_EQ(raw2(SYS_stat, paths[i], &a), 0);
		EXPECT(a.st_dev == b.st_dev && a.st_ino == b.st_ino && a.st_mode == b.st_mode &&
			       a.st_rdev == b.st_rdev && a.st_size == b.st_size,
		       "%s: stat and fstat differ", paths[i]);
	}
	{
		struct stat st;

		EXPECT_EQ(raw2(SYS_stat, "/dev/null", &st), 0);
		EXPECT(S_ISCHR(st.st_mode) && st.st_rdev == makedev(1, 3), "/dev/null: %o %lx",
		       st.st_mode, (unsigned long)st.st_rdev);
	}
	return NULL;
}

static const char *lstat_symlinks(void)
{
	char link[PATH_MAX], hello[PATH_MAX], loop[PATH_MAX];
	struct stat l, s, h;

	fx(link, "link");
	fx(hello, "hello.txt");
	fx(loop, "loop");
	EXPECT_EQ(raw2(SYS_lstat, link, &l), 0);
	EXPECT(S_ISLNK(l.st_mode), "lstat(link) mode %o", l.st_mode);
	EXPECT_EQ(l.st_size, strlen("hello.txt"));
	EXPECT_EQ(raw2(SYS_stat, link, &s), 0);
	EXPECT_EQ(raw2(SYS_stat, hello, &h), 0);
	EXPECT(S_ISREG(s.st_mode) && s.st_ino == h.st_ino && s.st_dev == h.st_dev,
	       "stat(link) is not hello.txt");
	EXPECT(l.st_ino != h.st_ino, "the link and its target share an inode");
	EXPECT_EQ(raw2(SYS_lstat, hello, &l), 0);
	EXPECT_EQ(l.st_ino, h.st_ino);
	EXPECT_ERR(raw2(SYS_stat, loop, &s), ELOOP);
	EXPECT_EQ(raw2(SYS_lstat, loop, &l), 0);
	EXPECT(S_ISLNK(l.st_mode), "lstat(loop) mode %o", l.st_mode);
	return NULL;
}

static const char *stat_errors(void)
{
	static char longpath[5000], longname[PATH_MAX];
	char path[PATH_MAX];
	struct stat st;

	fx(path, "missing");
	EXPECT_ERR(raw2(SYS_stat, path, &st), ENOENT);
	EXPECT_ERR(raw2(SYS_stat, "", &st), ENOENT);
	EXPECT_ERR(raw2(SYS_lstat, "", &st), ENOENT);
	fx(path, "hello.txt/x");
	EXPECT_ERR(raw2(SYS_stat, path, &st), ENOTDIR);
	fx(path, "hello.txt/");
	EXPECT_ERR(raw2(SYS_stat, path, &st), ENOTDIR);
	EXPECT_ERR(raw2(SYS_lstat, path, &st), ENOTDIR);
	fx(path, "sub/missing/x");
	EXPECT_ERR(raw2(SYS_stat, path, &st), ENOENT);
	join(longname, fixture, "");
	memset(longname + strlen(longname), 'a', 300);
	EXPECT_ERR(raw2(SYS_stat, longname, &st), ENAMETOOLONG);
	memset(longpath, 'a', sizeof(longpath) - 1);
	longpath[0] = '/';
	EXPECT_ERR(raw2(SYS_stat, longpath, &st), ENAMETOOLONG);
	EXPECT_ERR(raw2(SYS_stat, BAD_PTR_LOW, &st), EFAULT);
	fx(path, "hello.txt");
	EXPECT_ERR(raw2(SYS_stat, path, BAD_PTR_KERNEL), EFAULT);
	EXPECT_ERR(raw2(SYS_lstat, path, BAD_PTR_LOW), EFAULT);
	return NULL;
}

static const char *newfstatat_cases(void)
{
	char path[PATH_MAX];
	struct stat st, hello, sub;
	long dir, file, r;
	int p[2];

	fx(path, "hello.txt");
	EXPECT_EQ(raw2(SYS_stat, path, &hello), 0);
	fx(path, "sub/inner.txt");
	EXPECT_EQ(raw2(SYS_stat, path, &sub), 0);
	dir = EXPECT_OK(open_dir(fixture));
	file = EXPECT_OK(raw3(SYS_open, path, O_RDONLY, 0));
	EXPECT_OK(raw2(SYS_pipe2, p, O_CLOEXEC));
	r = raw4(SYS_newfstatat, dir, "hello.txt", &st, 0);
	if (!r && st.st_ino != hello.st_ino)
		r = -1000;
	if (!r)
		r = raw4(SYS_newfstatat, dir, "sub/inner.txt", &st, 0);
	if (!r && st.st_ino != sub.st_ino)
		r = -1001;
	if (!r)
		r = raw4(SYS_newfstatat, dir, "link", &st, AT_SYMLINK_NOFOLLOW);
	if (!r && !S_ISLNK(st.st_mode))
		r = -1002;
	if (!r)
		r = raw4(SYS_newfstatat, dir, "link", &st, 0);
	if (!r && st.st_ino != hello.st_ino)
		r = -1003;
	if (!r) /* an absolute path ignores dirfd, even a bad one */
		r = raw4(SYS_newfstatat, -1, path, &st, 0);
	if (!r && st.st_ino != sub.st_ino)
		r = -1004;
	if (!r) /* "" with AT_EMPTY_PATH: the descriptor itself, of any kind */
		r = raw4(SYS_newfstatat, file, "", &st, AT_EMPTY_PATH);
	if (!r && st.st_ino != sub.st_ino)
		r = -1005;
	if (!r)
		r = raw4(SYS_newfstatat, p[0], "", &st, AT_EMPTY_PATH);
	if (!r && !S_ISFIFO(st.st_mode))
		r = -1006;
	if (!r)
		r = raw4(SYS_newfstatat, dir, "", &st, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW);
	if (!r && !S_ISDIR(st.st_mode))
		r = -1007;
	if (!r && raw4(SYS_newfstatat, dir, "", &st, 0) != -ENOENT)
		r = -1008;
	if (!r && raw4(SYS_newfstatat, 999, "hello.txt", &st, 0) != -EBADF)
		r = -1009;
	if (!r && raw4(SYS_newfstatat, file, "x", &st, 0) != -ENOTDIR)
		r = -1010;
	if (!r && raw4(SYS_newfstatat, dir, "hello.txt", &st, 0x4) != -EINVAL)
		r = -1011;
	if (!r && raw4(SYS_newfstatat, 999, "", &st, AT_EMPTY_PATH) != -EBADF)
		r = -1012;
	if (!r && raw4(SYS_newfstatat, dir, "hello.txt", BAD_PTR_LOW, 0) != -EFAULT)
		r = -1013;
	raw1(SYS_close, dir);
	raw1(SYS_close, file);
	raw1(SYS_close, p[0]);
	raw1(SYS_close, p[1]);
	EXPECT(r == 0, "step %s failed", report_ret(r));
	return NULL;
}

/* ------------------------------------------------------------ working directory */

/* The working directory, as the kernel says it; "" on failure. */
static const char *cwd(void)
{
	static char buf[PATH_MAX];

	if (raw2(SYS_getcwd, buf, sizeof(buf)) < 0)
		buf[0] = '\0';
	return buf;
}

static bool same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	return raw2(SYS_stat, a, &sa) == 0 && raw2(SYS_stat, b, &sb) == 0 &&
	       sa.st_ino == sb.st_ino && sa.st_dev == sb.st_dev;
}

static bool ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), m = strlen(tail);

	return n >= m && !strcmp(s + n - m, tail);
}

static const char *chdir_relative(void)
{
	const char *why = NULL;
	struct stat st, d;
	char buf[16] = { 0 };
	long fd;

	EXPECT_EQ(raw1(SYS_chdir, fixture), 0);
	if (!same_file(cwd(), fixture) || cwd()[0] != '/')
		why = report_why("getcwd says %s", cwd());
	else if (raw2(SYS_stat, "hello.txt", &st) || st.st_size != (long)fixture_size("hello.txt"))
		why = "stat(\"hello.txt\") after chdir";
	else if ((fd = raw3(SYS_open, "sub/inner.txt", O_RDONLY, 0)) < 0)
		why = report_why("open(\"sub/inner.txt\") = %s", report_ret(fd));
	else if (raw3(SYS_read, fd, buf, sizeof(buf)) != 6 || strcmp(buf, "inner\n") ||
		 raw1(SYS_close, fd))
		why = "sub/inner.txt read back wrong";
	else if ((fd = raw4(SYS_openat, AT_FDCWD, "./link", O_RDONLY, 0)) < 0 || raw1(SYS_close, fd))
		why = "openat(AT_FDCWD, \"./link\")";
	else if (raw2(SYS_access, "tool", X_OK) || raw2(SYS_access, "../t_files_tree/tool", X_OK))
		why = "access(\"tool\", X_OK) after chdir";
	else if (raw4(SYS_newfstatat, AT_FDCWD, "", &st, AT_EMPTY_PATH) ||
		 raw2(SYS_stat, fixture, &d) || st.st_ino != d.st_ino)
		why = "newfstatat(AT_FDCWD, \"\", AT_EMPTY_PATH) is not the working directory";
	else if (raw1(SYS_chdir, "sub") || !ends_with(cwd(), "/t_files_tree/sub"))
		why = report_why("chdir(\"sub\"): getcwd says %s", cwd());
	else if (raw1(SYS_chdir, "..") || !same_file(cwd(), fixture))
		why = report_why("chdir(\"..\"): getcwd says %s", cwd());
	else if (raw1(SYS_chdir, "sublink/.") || !ends_with(cwd(), "/t_files_tree/sub"))
		why = report_why("chdir through a symlink: getcwd says %s", cwd());
	else if (raw1(SYS_chdir, "../sub/../../t_files_tree") || !same_file(cwd(), fixture))
		why = report_why("chdir with ..: getcwd says %s", cwd());
	back_to_start();
	return why;
}

static const char *chdir_errors(void)
{
	const char *why = NULL;
	char path[PATH_MAX];
	long fd = -1, dir = -1;

	EXPECT_EQ(raw1(SYS_chdir, fixture), 0);
	fx(path, "hello.txt");
	if (raw1(SYS_chdir, "missing") != -ENOENT)
		why = "chdir(missing) is not ENOENT";
	else if (raw1(SYS_chdir, "hello.txt") != -ENOTDIR || raw1(SYS_chdir, "link") != -ENOTDIR)
		why = "chdir(a file) is not ENOTDIR";
	else if (raw1(SYS_chdir, "") != -ENOENT)
		why = "chdir(\"\") is not ENOENT";
	else if (raw1(SYS_chdir, "loop") != -ELOOP)
		why = "chdir(a symlink loop) is not ELOOP";
	else if (raw1(SYS_chdir, BAD_PTR_LOW) != -EFAULT)
		why = "chdir(bad pointer) is not EFAULT";
	else if (raw1(SYS_fchdir, 999) != -EBADF)
		why = "fchdir(999) is not EBADF";
	else if ((fd = raw3(SYS_open, path, O_RDONLY, 0)) < 0 || raw1(SYS_fchdir, fd) != -ENOTDIR)
		why = "fchdir(a file) is not ENOTDIR";
	else if (!same_file(cwd(), fixture))
		why = "a failed chdir moved the working directory";
	else if ((dir = raw3(SYS_open, "/", O_RDONLY | O_DIRECTORY, 0)) < 0 ||
		 raw1(SYS_fchdir, dir) || strcmp(cwd(), "/"))
		why = report_why("fchdir(\"/\"): getcwd says %s", cwd());
	else if (raw1(SYS_chdir, "dev") || strcmp(cwd(), "/dev"))
		why = report_why("chdir(\"dev\") from /: getcwd says %s", cwd());
	if (fd >= 0)
		raw1(SYS_close, fd);
	if (dir >= 0)
		raw1(SYS_close, dir);
	back_to_start();
	return why;
}

static const char *getcwd_sizes(void)
{
	char buf[PATH_MAX];
	long len;

	EXPECT_EQ(raw1(SYS_chdir, fixture), 0);
	len = raw2(SYS_getcwd, buf, sizeof(buf));
	back_to_start();
	EXPECT(len > 1 && len == (long)strlen(buf) + 1, "getcwd = %ld for \"%s\"", len, buf);
	EXPECT_EQ(raw1(SYS_chdir, fixture), 0);
	{
		char small[PATH_MAX];
		long exact = raw2(SYS_getcwd, small, (unsigned long)len);
		long less = raw2(SYS_getcwd, small, (unsigned long)len - 1);
		long zero = raw2(SYS_getcwd, small, 0ul);
		long fault = raw2(SYS_getcwd, BAD_PTR_LOW, sizeof(buf));

		back_to_start();
		EXPECT_EQ(exact, len);
		EXPECT_ERR(less, ERANGE);
		EXPECT_ERR(zero, ERANGE);
		EXPECT_ERR(fault, EFAULT);
	}
	return NULL;
}

/* The child's exit code: 0 if its working directory ends with arg. */
static int cwd_child(void *arg)
{
	if (!ends_with(cwd(), arg))
		return 1;
	/* Moving here must not move the parent. */
	return raw1(SYS_chdir, "/") ? 2 : 0;
}

static const char *cwd_inherited(void)
{
	char sibling[PATH_MAX], *slash;
	int status, pid;

	EXPECT_EQ(raw1(SYS_chdir, fixture), 0);
	EXPECT_EQ(raw1(SYS_chdir, "sub"), 0);
	status = child_run(cwd_child, "/t_files_tree/sub");
	if (!ends_with(cwd(), "/t_files_tree/sub")) {
		back_to_start();
		return report_why("the parent's working directory moved: %s", cwd());
	}
	back_to_start();
	EXPECT_EXITED(status, 0);
	/* Kept across execve; and execve takes a path relative to it. */
	snprintf(sibling, sizeof(sibling), "%s", self_abs);
	slash = strrchr(sibling, '/');
	*slash = '\0';
	for (int i = 0; i < 2; i++) {
		const char *prog = i ? "t_files" : "./t_files";

		pid = fork();
		if (pid == 0) {
			char *argv[] = { (char *)prog, "--cwd-is", sibling, NULL };

			if (raw1(SYS_chdir, sibling) == 0)
				raw3(SYS_execve, prog, argv, environ);
			_exit(127);
		}
		EXPECT(pid > 0, "fork failed");
		EXPECT_EXITED(child_wait(pid), 0);
	}
	return NULL;
}

/* ------------------------------------------------------------ access */

static const char *access_cases(void)
{
	char hello[PATH_MAX], tool[PATH_MAX], path[PATH_MAX];
	long fd;

	fx(hello, "hello.txt");
	fx(tool, "tool");
	EXPECT_EQ(raw2(SYS_access, hello, F_OK), 0);
	EXPECT_EQ(raw2(SYS_access, hello, R_OK), 0);
	EXPECT_ERR(raw2(SYS_access, hello, X_OK), EACCES);
	EXPECT_ERR(raw2(SYS_access, hello, R_OK | X_OK), EACCES);
	EXPECT_EQ(raw2(SYS_access, tool, X_OK), 0);
	EXPECT_EQ(raw2(SYS_access, tool, R_OK | X_OK), 0);
	EXPECT_EQ(raw2(SYS_access, fixture, R_OK | X_OK), 0);
	fx(path, "sub");
	EXPECT_EQ(raw2(SYS_access, path, X_OK), 0);
	fx(path, "link");
	EXPECT_ERR(raw2(SYS_access, path, X_OK), EACCES); /* followed to hello.txt */
	fx(path, "missing");
	EXPECT_ERR(raw2(SYS_access, path, F_OK), ENOENT);
	fx(path, "hello.txt/x");
	EXPECT_ERR(raw2(SYS_access, path, F_OK), ENOTDIR);
	fx(path, "loop");
	EXPECT_ERR(raw2(SYS_access, path, F_OK), ELOOP);
	EXPECT_ERR(raw2(SYS_access, hello, 8), EINVAL);
	EXPECT_ERR(raw2(SYS_access, hello, -1), EINVAL);
	EXPECT_ERR(raw2(SYS_access, "", F_OK), ENOENT);
	EXPECT_ERR(raw2(SYS_access, BAD_PTR_LOW, F_OK), EFAULT);
	EXPECT_EQ(raw2(SYS_access, "/dev/null", R_OK | W_OK), 0);
	EXPECT_ERR(raw2(SYS_access, "/dev/null", X_OK), EACCES);
	/* Writing: access says what open says (EROFS on a read-only tree). */
	fd = raw3(SYS_open, hello, O_WRONLY, 0);
	if (fd >= 0) {
		raw1(SYS_close, fd);
		EXPECT_EQ(raw2(SYS_access, hello, W_OK), 0);
	} else {
		EXPECT(fd == -EROFS, "open(O_WRONLY) = %s", report_ret(fd));
		EXPECT_ERR(raw2(SYS_access, hello, W_OK), EROFS);
	}
	return NULL;
}

static const char *faccessat_cases(void)
{
	char tool[PATH_MAX];
	long dir, file, r = 0;

	fx(tool, "tool");
	dir = EXPECT_OK(open_dir(fixture));
	file = EXPECT_OK(raw3(SYS_open, tool, O_RDONLY, 0));
	if (raw3(SYS_faccessat, dir, "tool", X_OK))
		r = 1;
	else if (raw3(SYS_faccessat, dir, "hello.txt", X_OK) != -EACCES)
		r = 2;
	else if (raw3(SYS_faccessat, dir, "sub/inner.txt", R_OK))
		r = 3;
	else if (raw3(SYS_faccessat, 999, "tool", F_OK) != -EBADF)
		r = 4;
	else if (raw3(SYS_faccessat, file, "tool", F_OK) != -ENOTDIR)
		r = 5;
	else if (raw3(SYS_faccessat, -1, tool, X_OK)) /* absolute: dirfd unused */
		r = 6;
	else if (raw4(SYS_faccessat2, dir, "loop", F_OK, AT_SYMLINK_NOFOLLOW))
		r = 7;
	else if (raw4(SYS_faccessat2, dir, "loop", F_OK, 0) != -ELOOP)
		r = 8;
	else if (raw4(SYS_faccessat2, dir, "", X_OK, AT_EMPTY_PATH))
		r = 9;
	else if (raw4(SYS_faccessat2, file, "", R_OK | X_OK, AT_EMPTY_PATH))
		r = 10;
	else if (raw4(SYS_faccessat2, dir, "", F_OK, 0) != -ENOENT)
		r = 11;
	else if (raw4(SYS_faccessat2, dir, "tool", X_OK, AT_EACCESS))
		r = 12;
	else if (raw4(SYS_faccessat2, dir, "tool", F_OK, 0x1) != -EINVAL)
		r = 13;
	else if (raw4(SYS_faccessat2, dir, "tool", 8, 0) != -EINVAL)
		r = 14;
	else if (raw4(SYS_faccessat2, dir, "hello.txt", X_OK, AT_SYMLINK_NOFOLLOW) != -EACCES)
		r = 15;
	else if (faccessat((int)dir, "tool", X_OK, AT_EACCESS)) /* musl's wrapper */
		r = 16;
	raw1(SYS_close, dir);
	raw1(SYS_close, file);
	EXPECT(r == 0, "step %ld failed", r);
	return NULL;
}

/* ------------------------------------------------------------ directories */

struct dent {
	char name[64];
	unsigned long ino;
	long off;
	unsigned char type;
};

struct raw_dirent64 {
	unsigned long d_ino;
	long d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

/*
 * Reads fd's entries from its offset with getdents64 calls of count bytes
 * into out (at most max); returns how many, or a negative errno. Checks
 * every record's shape on the way.
 */
static long read_dents(long fd, unsigned int count, struct dent *out, int max, const char **why)
{
	static char buf[8192];
	int n = 0;

	for (;;) {
		long got = raw3(SYS_getdents64, fd, buf, count);

		if (got <= 0)
			return got < 0 ? got : n;
		for (long at = 0; at < got;) {
			struct raw_dirent64 *d = (struct raw_dirent64 *)(buf + at);
			size_t len = strnlen(d->d_name, 256);
			size_t want = (19 + len + 1 + 7) & ~7ul;

			if (d->d_reclen != want || at + d->d_reclen > got) {
				*why = report_why("%s: d_reclen %u, want %zu", d->d_name,
						  d->d_reclen, want);
				return -1000;
			}
			if (n < max) {
				snprintf(out[n].name, sizeof(out[n].name), "%s", d->d_name);
				out[n].ino = d->d_ino;
				out[n].off = d->d_off;
				out[n].type = d->d_type;
				n++;
			}
			at += d->d_reclen;
		}
	}
}

static int find_dent(const struct dent *d, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(d[i].name, name))
			return i;
	return -1;
}

static const char *getdents_listing(void)
{
	const char *why = NULL;
	struct dent d[32];
	char path[PATH_MAX];
	long fd = EXPECT_OK(open_dir(fixture));
	long n = read_dents(fd, 4096, d, 32, &why);
	static const unsigned char types[] = { DT_DIR, DT_DIR, DT_REG, DT_REG,
					       DT_LNK, DT_LNK, DT_DIR, DT_LNK };

	if (n >= 0 && raw3(SYS_getdents64, fd, path, sizeof(path)) != 0)
		why = "getdents64 at the end is not 0";
	raw1(SYS_close, fd);
	if (why)
		return why;
	EXPECT(n == 8, "%ld entries, want 8", n);
	for (int i = 0; i < 8; i++) {
		int k = find_dent(d, (int)n, top_names[i]);
		struct stat st;

		EXPECT(k >= 0, "no entry %s", top_names[i]);
		EXPECT(d[k].type == types[i], "%s: d_type %u, want %u", top_names[i], d[k].type,
		       types[i]);
		fx(path, top_names[i]);
		EXPECT_EQ(raw2(SYS_lstat, path, &st), 0);
		EXPECT(d[k].ino == st.st_ino, "%s: d_ino %lu, st_ino %lu", top_names[i], d[k].ino,
		       (unsigned long)st.st_ino);
	}
	return NULL;
}

static const char *getdents_resume(void)
{
	const char *why = NULL;
	struct dent all[32], one[32], next[2];
	long fd = EXPECT_OK(open_dir(fixture));
	long n = read_dents(fd, 4096, all, 32, &why), m = -1;

	/* One entry per call (32 bytes hold any of these names), after a rewind. */
	if (n > 0 && raw3(SYS_lseek, fd, 0, SEEK_SET) == 0)
		m = read_dents(fd, 32, one, 32, &why);
	for (long k = 0; !why && m == n && k < n; k++) {
		long r, got;

		if (strcmp(all[k].name, one[k].name) || all[k].off != one[k].off) {
			why = report_why("entry %ld: %s/%ld, then %s/%ld", k, all[k].name,
					 all[k].off, one[k].name, one[k].off);
			break;
		}
		/* lseek to an entry's d_off resumes after it. */
		r = raw3(SYS_lseek, fd, all[k].off, SEEK_SET);
		got = read_dents(fd, 32, next, 1, &why);
		if (r != all[k].off)
			why = report_why("lseek to %ld = %s", all[k].off, report_ret(r));
		else if (k + 1 < n && (got < 1 || strcmp(next[0].name, all[k + 1].name)))
			why = report_why("after %s's d_off: %s, want %s", all[k].name,
					 got > 0 ? next[0].name : report_ret(got), all[k + 1].name);
		else if (k + 1 == n && got != 0)
			why = report_why("after the last d_off: %ld entries", got);
	}
	raw1(SYS_close, fd);
	if (why)
		return why;
	EXPECT(n == 8 && m == n, "listings of %ld and %ld entries", n, m);
	return NULL;
}

static const char *getdents_errors(void)
{
	const char *why = NULL;
	char path[PATH_MAX], buf[256];
	struct dent d[32];
	long fd, file, r = 0;
	int p[2];

	fx(path, "hello.txt");
	fd = EXPECT_OK(open_dir(fixture));
	file = EXPECT_OK(raw3(SYS_open, path, O_RDONLY, 0));
	EXPECT_OK(raw2(SYS_pipe2, p, O_CLOEXEC));
	if (raw3(SYS_getdents64, fd, buf, 18) != -EINVAL) /* the smallest record is 24 bytes */
		r = 1;
	else if (raw3(SYS_getdents64, fd, buf, 0) != -EINVAL)
		r = 2;
	else if (read_dents(fd, 4096, d, 32, &why) != 8) /* nothing was consumed */
		r = 3;
	else if (raw3(SYS_lseek, fd, 0, SEEK_SET) != 0 ||
		 raw3(SYS_getdents64, fd, BAD_PTR_KERNEL, 4096) != -EFAULT)
		r = 4;
	else if (raw3(SYS_getdents64, 999, buf, sizeof(buf)) != -EBADF)
		r = 5;
	else if (raw3(SYS_getdents64, file, buf, sizeof(buf)) != -ENOTDIR)
		r = 6;
	else if (raw3(SYS_getdents64, p[0], buf, sizeof(buf)) != -ENOTDIR)
		r = 7;
	else if (raw3(SYS_open, path, O_RDONLY | O_DIRECTORY, 0) != -ENOTDIR)
		r = 8;
	else if (raw3(SYS_read, fd, buf, sizeof(buf)) != -EISDIR)
		r = 9;
	raw1(SYS_close, fd);
	raw1(SYS_close, file);
	raw1(SYS_close, p[0]);
	raw1(SYS_close, p[1]);
	if (why)
		return why;
	EXPECT(r == 0, "step %ld failed", r);
	return NULL;
}

/*
 * name is listed in dir with type. (d_ino is not compared here: on Linux a
 * mount point's entry has the covered directory's inode, and a container
 * may bind-mount /dev/null or /proc files.)
 */
static const char *listed(const char *dir, const char *name, unsigned char type)
{
	const char *why = NULL;
	static struct dent d[4096];
	char path[PATH_MAX];
	long fd = open_dir(dir), n;
	int k;

	if (fd < 0)
		return report_why("open(%s, O_DIRECTORY) = %s", dir, report_ret(fd));
	n = read_dents(fd, 4096, d, 4096, &why);
	raw1(SYS_close, fd);
	if (why)
		return why;
	k = find_dent(d, (int)n, name);
	if (k < 0)
		return report_why("%s lists no %s", dir, name);
	join(path, strcmp(dir, "/") ? dir : "", name);
	if (d[k].type != type)
		return report_why("%s: d_type %u, want %u", path, d[k].type, type);
	if (find_dent(d, (int)n, ".") < 0 || find_dent(d, (int)n, "..") < 0)
		return report_why("%s lists no . or ..", dir);
	return NULL;
}

static const char *getdents_dev_proc_root(void)
{
	const char *why;

	if ((why = listed("/dev", "null", DT_CHR)) || (why = listed("/proc", "uptime", DT_REG)) ||
	    (why = listed("/proc", "meminfo", DT_REG)) || (why = listed("/", "dev", DT_DIR)) ||
	    (why = listed("/", "proc", DT_DIR)))
		return why;
	return NULL;
}

static const char *opendir_readdir(void)
{
	bool seen[8] = { false };
	struct dirent *e;
	int n = 0, again = 0;
	DIR *d = opendir(fixture);
	char path[PATH_MAX];

	EXPECT(d != NULL, "opendir: %s", report_errname(errno));
	while ((e = readdir(d))) {
		for (int i = 0; i < 8; i++)
			if (!strcmp(e->d_name, top_names[i]))
				seen[i] = true;
		n++;
	}
	rewinddir(d);
	while (readdir(d))
		again++;
	closedir(d);
	EXPECT(n == 8 && again == 8, "readdir gave %d, then %d entries", n, again);
	for (int i = 0; i < 8; i++)
		EXPECT(seen[i], "readdir gave no %s", top_names[i]);
	fx(path, "hello.txt");
	errno = 0;
	EXPECT(opendir(path) == NULL && errno == ENOTDIR, "opendir(a file): %s",
	       report_errname(errno));
	return NULL;
}

/* ------------------------------------------------------------ pread, pwrite */

static const char *pread_file(void)
{
	char path[PATH_MAX], buf[32] = { 0 };
	long fd, r[8];

	fx(path, "hello.txt");
	fd = EXPECT_OK(raw3(SYS_open, path, O_RDONLY, 0));
	r[0] = raw4(SYS_pread64, fd, buf, 5, 7);
	r[1] = raw3(SYS_lseek, fd, 0, SEEK_CUR);
	r[2] = raw4(SYS_pread64, fd, buf + 8, 100, 0);
	r[3] = raw3(SYS_read, fd, buf + 24, 5);
	r[4] = raw3(SYS_lseek, fd, 0, SEEK_CUR);
	r[5] = raw4(SYS_pread64, fd, buf, 4, 15);
	r[6] = raw4(SYS_pread64, fd, buf, 4, 1000);
	r[7] = raw4(SYS_pread64, fd, buf, 0, 3);
	raw1(SYS_close, fd);
	EXPECT_EQ(r[0], 5);
	EXPECT(!memcmp(buf, "fulcr", 5), "pread at 7 read \"%.5s\"", buf);
	EXPECT_EQ(r[1], 0);
	EXPECT_EQ(r[2], 15);
	EXPECT_EQ(r[3], 5);
	EXPECT(!memcmp(buf + 24, "hello", 5), "read after pread: \"%.5s\"", buf + 24);
	EXPECT_EQ(r[4], 5);
	EXPECT_EQ(r[5], 0);
	EXPECT_EQ(r[6], 0);
	EXPECT_EQ(r[7], 0);
	return NULL;
}

static const char *pread_errors(void)
{
	char path[PATH_MAX], buf[64];
	long fd, dir, null_w, r = 0;
	int p[2], s[2];

	fx(path, "hello.txt");
	fd = EXPECT_OK(raw3(SYS_open, path, O_RDONLY, 0));
	dir = EXPECT_OK(open_dir(fixture));
	null_w = EXPECT_OK(raw3(SYS_open, "/dev/null", O_WRONLY, 0));
	EXPECT_OK(raw2(SYS_pipe2, p, O_CLOEXEC));
	EXPECT_OK(raw4(SYS_socketpair, AF_UNIX, SOCK_STREAM, 0, s));
	if (raw4(SYS_pread64, fd, buf, 1, -1) != -EINVAL)
		r = 1;
	else if (raw4(SYS_pread64, 999, buf, 1, -1) != -EINVAL) /* the offset comes first */
		r = 2;
	else if (raw4(SYS_pread64, 999, buf, 1, 0) != -EBADF)
		r = 3;
	else if (raw4(SYS_pread64, p[0], buf, 1, 0) != -ESPIPE ||
		 raw4(SYS_pwrite64, p[1], "x", 1, 0) != -ESPIPE)
		r = 4;
	else if (raw4(SYS_pwrite64, p[0], "x", 1, 0) != -ESPIPE) /* before the mode */
		r = 5;
	else if (raw4(SYS_pread64, s[0], buf, 1, 0) != -ESPIPE ||
		 raw4(SYS_pwrite64, s[0], "x", 1, 0) != -ESPIPE)
		r = 6;
	else if (raw4(SYS_pwrite64, fd, "x", 1, 0) != -EBADF)
		r = 7;
	else if (raw4(SYS_pread64, null_w, buf, 1, 0) != -EBADF)
		r = 8;
	else if (raw4(SYS_pread64, dir, buf, sizeof(buf), 0) != -EISDIR)
		r = 9;
	else if (raw4(SYS_pread64, fd, BAD_PTR_KERNEL, 4, 0) != -EFAULT)
		r = 10;
	else if (raw4(SYS_pread64, fd, buf, 10, LONG_MAX - 5) != -EINVAL)
		r = 11;
	else if (raw4(SYS_pwrite64, p[1], "x", 1, -1) != -EINVAL)
		r = 12;
	raw1(SYS_close, fd);
	raw1(SYS_close, dir);
	raw1(SYS_close, null_w);
	raw1(SYS_close, p[0]);
	raw1(SYS_close, p[1]);
	raw1(SYS_close, s[0]);
	raw1(SYS_close, s[1]);
	EXPECT(r == 0, "step %ld failed", r);
	return NULL;
}

static const char *pread_devices_proc(void)
{
	char a[128] = { 0 }, b[128] = { 0 };
	long null_fd = EXPECT_OK(raw3(SYS_open, "/dev/null", O_RDWR, 0));
	long up = EXPECT_OK(raw3(SYS_open, "/proc/uptime", O_RDONLY, 0));
	long r0 = raw4(SYS_pread64, null_fd, a, sizeof(a), 5);
	long r1 = raw4(SYS_pwrite64, null_fd, "abc", 3, 100);
	long r2 = raw4(SYS_pread64, up, a, sizeof(a) - 1, 0);
	long r3 = raw3(SYS_read, up, b, sizeof(b) - 1);
	long r4 = raw4(SYS_pread64, up, b, 4, 2);

	raw1(SYS_close, null_fd);
	raw1(SYS_close, up);
	EXPECT_EQ(r0, 0);
	EXPECT_EQ(r1, 3);
	EXPECT(r2 > 4 && r2 == r3, "pread of /proc/uptime %ld, read %ld", r2, r3);
	EXPECT_EQ(r4, 4);
	EXPECT(!memcmp(b, a + 2, 4), "pread at 2 of /proc/uptime differs");
	return NULL;
}

/* ------------------------------------------------------------ madvise */

static char *map_pages(int n, int fill)
{
	char *p = mmap(NULL, n * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	memset(p, fill, n * PAGE);
	return p;
}

static const char *madvise_dontneed(void)
{
	volatile char *p = map_pages(4, 0xab);
	long r;

	EXPECT(p != NULL, "mmap failed");
	r = raw3(SYS_madvise, p + PAGE, 2 * PAGE, MADV_DONTNEED);
	EXPECT_EQ(r, 0);
	EXPECT(p[PAGE] == 0 && p[2 * PAGE - 1] == 0 && p[3 * PAGE - 1] == 0,
	       "dropped pages are not zero");
	EXPECT((unsigned char)p[0] == 0xab && (unsigned char)p[PAGE - 1] == 0xab &&
		       (unsigned char)p[3 * PAGE] == 0xab,
	       "pages outside the range changed");
	p[PAGE] = 7;
	EXPECT(p[PAGE] == 7, "a dropped page is not writable again");
	/* A length that is not a multiple of the page size covers the last page. */
	EXPECT_EQ(raw3(SYS_madvise, p, 1, MADV_DONTNEED), 0);
	EXPECT(p[0] == 0 && p[PAGE - 1] == 0, "madvise(1 byte) did not drop the page");
	munmap((void *)p, 4 * PAGE);
	return NULL;
}

static const char *madvise_hints_free(void)
{
	static const int hints[] = { MADV_NORMAL, MADV_RANDOM, MADV_SEQUENTIAL, MADV_WILLNEED };
	volatile unsigned char *p = (volatile unsigned char *)map_pages(2, 0x5a);

	EXPECT(p != NULL, "mmap failed");
	for (int i = 0; i < 4; i++) {
		EXPECT_EQ(raw3(SYS_madvise, p, 2 * PAGE, hints[i]), 0);
		EXPECT(p[0] == 0x5a && p[2 * PAGE - 1] == 0x5a, "advice %d changed the data",
		       hints[i]);
	}
	/* MADV_FREE: the data may stay or be zeros, and the page stays usable. */
	EXPECT_EQ(raw3(SYS_madvise, p, PAGE, MADV_FREE), 0);
	EXPECT(p[1] == 0x5a || p[1] == 0, "after MADV_FREE: %#x", p[1]);
	p[1] = 9;
	EXPECT(p[1] == 9 && p[PAGE] == 0x5a, "after MADV_FREE the page is not usable");
	munmap((void *)p, 2 * PAGE);
	return NULL;
}

static const char *madvise_errors(void)
{
	volatile char *p = map_pages(3, 0x11);
	long r[9];

	EXPECT(p != NULL, "mmap failed");
	EXPECT_EQ(munmap((void *)(p + PAGE), PAGE), 0);
	r[0] = raw3(SYS_madvise, p + 1, PAGE, MADV_DONTNEED);
	r[1] = raw3(SYS_madvise, p, PAGE, 999);
	r[2] = raw3(SYS_madvise, p, PAGE, 5);
	r[3] = raw3(SYS_madvise, p, 0, MADV_DONTNEED);
	r[4] = raw3(SYS_madvise, p + 1, 0, MADV_DONTNEED);
	r[5] = raw3(SYS_madvise, p, -1l, MADV_NORMAL);	  /* rounds up past the top */
	r[6] = raw3(SYS_madvise, p, -4096l, MADV_NORMAL); /* wraps around */
	r[7] = raw3(SYS_madvise, p + PAGE, PAGE, MADV_NORMAL);
	/* A hole: ENOMEM, and the mapped parts were done anyway. */
	r[8] = raw3(SYS_madvise, p, 3 * PAGE, MADV_DONTNEED);
	EXPECT_ERR(r[0], EINVAL);
	EXPECT_ERR(r[1], EINVAL);
	EXPECT_ERR(r[2], EINVAL);
	EXPECT_EQ(r[3], 0);
	EXPECT_ERR(r[4], EINVAL);
	EXPECT_ERR(r[5], EINVAL);
	EXPECT_ERR(r[6], EINVAL);
	EXPECT_ERR(r[7], ENOMEM);
	EXPECT_ERR(r[8], ENOMEM);
	EXPECT(p[0] == 0 && p[2 * PAGE] == 0, "the mapped parts kept their data");
	munmap((void *)p, 3 * PAGE);
	return NULL;
}

static const char *madvise_prot_none(void)
{
	volatile char *p = map_pages(1, 0x33);

	EXPECT(p != NULL, "mmap failed");
	EXPECT_EQ(mprotect((void *)p, PAGE, PROT_NONE), 0);
	EXPECT_EQ(raw3(SYS_madvise, p, PAGE, MADV_DONTNEED), 0);
	EXPECT_EQ(mprotect((void *)p, PAGE, PROT_READ | PROT_WRITE), 0);
	EXPECT(p[0] == 0 && p[PAGE - 1] == 0, "a PROT_NONE page kept its data");
	munmap((void *)p, PAGE);
	return NULL;
}

/* ------------------------------------------------------------ select, pselect6, ppoll */

static inline void set_bit(unsigned long *set, int fd)
{
	set[fd / 64] |= 1ul << (fd % 64);
}

static inline bool has_bit(const unsigned long *set, int fd)
{
	return (set[fd / 64] >> (fd % 64)) & 1;
}

struct k_timeval {
	long tv_sec, tv_usec;
};

static const char *select_ready(void)
{
	unsigned long rd[16], wr[16], ex[16];
	struct k_timeval tv = { 0, 0 };
	int p[2], s[2], n;
	long r[4];

	EXPECT_OK(raw2(SYS_pipe2, p, O_CLOEXEC));
	EXPECT_OK(raw4(SYS_socketpair, AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, s));
	n = (p[0] > p[1] ? p[0] : p[1]);
	n = (n > s[0] ? n : s[0]) + 1;
	memset(rd, 0, sizeof(rd));
	memset(wr, 0, sizeof(wr));
	memset(ex, 0, sizeof(ex));
	set_bit(rd, p[0]);
	set_bit(wr, p[1]);
	set_bit(ex, p[0]);
	r[0] = raw5(SYS_select, n, rd, wr, ex, &tv);
	EXPECT_EQ(r[0], 1);
	EXPECT(!has_bit(rd, p[0]) && has_bit(wr, p[1]) && !has_bit(ex, p[0]),
	       "empty pipe: wrong bits");
	raw3(SYS_write, p[1], "x", 1);
	raw3(SYS_write, s[1], "y", 1);
	memset(rd, 0, sizeof(rd));
	memset(wr, 0, sizeof(wr));
	set_bit(rd, p[0]);
	set_bit(wr, p[1]);
	set_bit(rd, s[0]);
	set_bit(wr, s[0]);
	r[1] = raw5(SYS_select, n, rd, wr, NULL, &tv);
	EXPECT_EQ(r[1], 4); /* s[0] counts once per set */
	EXPECT(has_bit(rd, p[0]) && has_bit(wr, p[1]) && has_bit(rd, s[0]) && has_bit(wr, s[0]),
	       "ready bits missing");
	/* A closed reader: the writer is "writable" (an error); the reader after EOF readable. */
	raw1(SYS_close, p[0]);
	memset(wr, 0, sizeof(wr));
	set_bit(wr, p[1]);
	r[2] = raw5(SYS_select, n, NULL, wr, NULL, &tv);
	EXPECT_EQ(r[2], 1);
	raw1(SYS_close, p[1]);
	raw1(SYS_close, s[0]);
	raw1(SYS_close, s[1]);
	return NULL;
}

static const char *select_timeouts(void)
{
	unsigned long rd[16] = { 0 };
	struct k_timeval tv = { 0, 50000 };
	long t0, t1, r;
	int p[2];

	EXPECT_OK(raw2(SYS_pipe2, p, O_CLOEXEC));
	set_bit(rd, p[0]);
	t0 = mono_ns();
	r = raw5(SYS_select, p[0] + 1, rd, NULL, NULL, &tv);
	t1 = mono_ns();
	EXPECT_EQ(r, 0);
	EXPECT(t1 - t0 >= 50 * MS_NS, "returned after %ld ns, before the 50 ms timeout", t1 - t0);
	EXPECT(tv.tv_sec == 0 && tv.tv_usec == 0, "time left %ld.%06ld, want 0", tv.tv_sec,
	       tv.tv_usec);
	EXPECT(!has_bit(rd, p[0]), "the set was not cleared");
	/* Nothing to wait on: a sleep. */
	tv = (struct k_timeval){ 0, 20000 };
	t0 = mono_ns();
	EXPECT_EQ(raw5(SYS_select, 0, NULL, NULL, NULL, &tv), 0);
	EXPECT(mono_ns() - t0 >= 20 * MS_NS, "select(0) slept %ld ns", mono_ns() - t0);
	/* Ready at once: the time left comes back; usec may exceed a second. */
	raw3(SYS_write, p[1], "x", 1);
	set_bit(rd, p[0]);
	tv = (struct k_timeval){ 3, 1500000 };
	EXPECT_EQ(raw5(SYS_select, p[0] + 1, rd, NULL, NULL, &tv), 1);
	EXPECT(tv.tv_usec >= 0 && tv.tv_usec < 1000000 && tv.tv_sec <= 4 &&
		       (tv.tv_sec >= 2 || tv.tv_sec * 1000000 + tv.tv_usec > 2500000),
	       "time left %ld.%06ld of 4.5 s", tv.tv_sec, tv.tv_usec);
	raw1(SYS_close, p[0]);
	raw1(SYS_close, p[1]);
	return NULL;
}

static const char *select_errors(void)
{
	unsigned long rd[16] = { 0 };
	struct k_timeval tv = { 0, 0 };
	long closed, r[6];
	int p[2];

	EXPECT_OK(raw2(SYS_pipe2, p, O_CLOEXEC));
	closed = EXPECT_OK(raw3(SYS_open, "/dev/null", O_RDONLY, 0));
	raw1(SYS_close, closed);
	set_bit(rd, (int)closed);
	set_bit(rd, p[1]);
	r[0] = raw5(SYS_select, closed + 1, rd, NULL, NULL, &tv);
	r[1] = raw5(SYS_select, -1, NULL, NULL, NULL, &tv);
	tv = (struct k_timeval){ 0, -1 };
	r[2] = raw5(SYS_select, 0, NULL, NULL, NULL, &tv);
	tv = (struct k_timeval){ -1, 0 };
	r[3] = raw5(SYS_select, 0, NULL, NULL, NULL, &tv);
	tv = (struct k_timeval){ 0, 0 };
	r[4] = raw5(SYS_select, p[1] + 1, BAD_PTR_LOW, NULL, NULL, &tv);
	r[5] = raw5(SYS_select, 0, NULL, NULL, NULL, BAD_PTR_LOW);
	raw1(SYS_close, p[0]);
	raw1(SYS_close, p[1]);
	EXPECT_ERR(r[0], EBADF);
	EXPECT(has_bit(rd, (int)closed) && has_bit(rd, p[1]), "a failed select changed the set");
	EXPECT_ERR(r[1], EINVAL);
	EXPECT_ERR(r[2], EINVAL);
	EXPECT_ERR(r[3], EINVAL);
	EXPECT_ERR(r[4], EFAULT);
	EXPECT_ERR(r[5], EFAULT);
	return NULL;
}

struct sigset_pack {
	const unsigned long *ss;
	unsigned long len;
};

static const char *pselect6_cases(void)
{
	unsigned long rd[16] = { 0 }, mask = 0;
	struct timespec ts = { 0, 20 * MS_NS };
	struct sigset_pack pack = { &mask, 8 }, bad = { &mask, 4 };
	long t0, r[6];
	int p[2];

	EXPECT_OK(raw2(SYS_pipe2, p, O_CLOEXEC));
	set_bit(rd, p[0]);
	t0 = mono_ns();
	r[0] = raw6(SYS_pselect6, p[0] + 1, rd, NULL, NULL, &ts, &pack);
	t0 = mono_ns() - t0;
	EXPECT_EQ(r[0], 0);
	EXPECT(t0 >= 20 * MS_NS, "returned after %ld ns, before the 20 ms timeout", t0);
	EXPECT(ts.tv_sec == 0 && ts.tv_nsec == 0, "time left %ld.%09ld", ts.tv_sec, ts.tv_nsec);
	raw3(SYS_write, p[1], "x", 1);
	set_bit(rd, p[0]);
	r[1] = raw6(SYS_pselect6, p[0] + 1, rd, NULL, NULL, NULL, NULL);
	r[2] = raw6(SYS_pselect6, p[0] + 1, rd, NULL, NULL, NULL, &bad);
	ts = (struct timespec){ 0, 1000000000 };
	r[3] = raw6(SYS_pselect6, 0, NULL, NULL, NULL, &ts, NULL);
	r[4] = raw6(SYS_pselect6, 0, NULL, NULL, NULL, NULL, BAD_PTR_LOW);
	pack.ss = BAD_PTR_LOW;
	ts = (struct timespec){ 0, 0 };
	r[5] = raw6(SYS_pselect6, 0, NULL, NULL, NULL, &ts, &pack);
	raw1(SYS_close, p[0]);
	raw1(SYS_close, p[1]);
	EXPECT_EQ(r[1], 1);
	EXPECT_ERR(r[2], EINVAL);
	EXPECT_ERR(r[3], EINVAL);
	EXPECT_ERR(r[4], EFAULT);
	EXPECT_ERR(r[5], EFAULT);
	return NULL;
}

static const char *ppoll_cases(void)
{
	struct pollfd fds[2];
	struct timespec ts = { 0, 30 * MS_NS };
	unsigned long mask = 0;
	long t0, r[7];
	int p[2];

	EXPECT_OK(raw2(SYS_pipe2, p, O_CLOEXEC));
	fds[0] = (struct pollfd){ .fd = p[0], .events = POLLIN };
	fds[1] = (struct pollfd){ .fd = p[1], .events = POLLOUT };
	t0 = mono_ns();
	r[0] = raw5(SYS_ppoll, fds, 1, &ts, &mask, 8);
	t0 = mono_ns() - t0;
	EXPECT_EQ(r[0], 0);
	EXPECT(t0 >= 30 * MS_NS, "returned after %ld ns, before the 30 ms timeout", t0);
	EXPECT(ts.tv_sec == 0 && ts.tv_nsec == 0, "time left %ld.%09ld", ts.tv_sec, ts.tv_nsec);
	ts = (struct timespec){ 10, 0 };
	r[1] = raw5(SYS_ppoll, fds, 2, &ts, NULL, 0);
	EXPECT_EQ(r[1], 1);
	EXPECT(fds[1].revents == POLLOUT && fds[0].revents == 0, "revents %#x %#x", fds[0].revents,
	       fds[1].revents);
	EXPECT(ts.tv_sec <= 10 && ts.tv_sec >= 5 && ts.tv_nsec >= 0 && ts.tv_nsec < 1000000000,
	       "time left %ld.%09ld of 10 s", ts.tv_sec, ts.tv_nsec);
	r[2] = raw5(SYS_ppoll, fds, 2, NULL, NULL, 3); /* no mask: its size is not looked at */
	ts = (struct timespec){ 0, 1000000000 };
	r[3] = raw5(SYS_ppoll, fds, 2, &ts, NULL, 8);
	ts = (struct timespec){ -1, 0 };
	r[4] = raw5(SYS_ppoll, fds, 2, &ts, NULL, 8);
	r[5] = raw5(SYS_ppoll, fds, 2, NULL, &mask, 4);
	r[6] = raw5(SYS_ppoll, BAD_PTR_LOW, 2, NULL, NULL, 8);
	raw1(SYS_close, p[0]);
	raw1(SYS_close, p[1]);
	EXPECT_EQ(r[2], 1);
	EXPECT_ERR(r[3], EINVAL);
	EXPECT_ERR(r[4], EINVAL);
	EXPECT_ERR(r[5], EINVAL);
	EXPECT_ERR(r[6], EFAULT);
	return NULL;
}

static volatile int handled;
static volatile unsigned long handler_mask;

static void on_usr(int sig)
{
	unsigned long m = 0;

	(void)sig;
	raw4(SYS_rt_sigprocmask, SIG_BLOCK, NULL, &m, 8);
	handler_mask = m;
	handled++;
}

static void catch (int sig, int flags)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr;
	sa.sa_flags = flags;
	sigaction(sig, &sa, NULL);
}

static unsigned long mask_now(void)
{
	unsigned long m = 0;

	raw4(SYS_rt_sigprocmask, SIG_BLOCK, NULL, &m, 8);
	return m;
}

static void set_mask(unsigned long m)
{
	raw4(SYS_rt_sigprocmask, SIG_SETMASK, &m, NULL, 8);
}

/*
 * A pending, blocked SIGUSR1 that the call's own mask unblocks interrupts
 * it (EINTR even with SA_RESTART); the handler runs under the call's mask,
 * and afterwards the old mask is back.
 */
static const char *masked_wait_interrupted(bool use_ppoll)
{
	unsigned long old = SIGBIT(SIGUSR1), during = SIGBIT(SIGUSR2), got_mask, after;
	unsigned long rd[16] = { 0 };
	struct timespec ts = { 5, 0 };
	struct sigset_pack pack = { &during, 8 };
	struct pollfd fd;
	int p[2], got_handled;
	long r;

	EXPECT_OK(raw2(SYS_pipe2, p, O_CLOEXEC));
	catch (SIGUSR1, SA_RESTART);
	set_mask(old);
	handled = 0;
	raw2(SYS_kill, raw0(SYS_getpid), SIGUSR1);
	fd = (struct pollfd){ .fd = p[0], .events = POLLIN };
	set_bit(rd, p[0]);
	if (use_ppoll)
		r = raw5(SYS_ppoll, &fd, 1, &ts, &during, 8);
	else
		r = raw6(SYS_pselect6, p[0] + 1, rd, NULL, NULL, &ts, &pack);
	after = mask_now();
	got_handled = handled;
	got_mask = handler_mask;
	set_mask(0);
	signal(SIGUSR1, SIG_DFL);
	raw1(SYS_close, p[0]);
	raw1(SYS_close, p[1]);
	EXPECT_ERR(r, EINTR);
	EXPECT_EQ(got_handled, 1);
	EXPECT(got_mask == (SIGBIT(SIGUSR1) | SIGBIT(SIGUSR2)),
	       "the handler ran with mask %#lx, want the call's plus SIGUSR1", got_mask);
	EXPECT(after == old, "mask after the call %#lx, want %#lx", after, old);
	EXPECT(ts.tv_sec <= 5 && ts.tv_sec >= 1, "time left %ld s of 5", ts.tv_sec);
	return NULL;
}

static const char *ppoll_mask_interrupted(void)
{
	return masked_wait_interrupted(true);
}

static const char *pselect6_mask_interrupted(void)
{
	return masked_wait_interrupted(false);
}

static int send_usr2_later(void *arg)
{
	(void)arg;
	raw2(SYS_nanosleep, TS(0, 30 * MS_NS), 0);
	raw2(SYS_kill, raw0(SYS_getppid), SIGUSR2);
	return 0;
}

/* The call's mask blocks a signal that comes during it; it is taken after the call. */
static const char *ppoll_mask_blocks(void)
{
	struct timespec ts = { 0, 300 * MS_NS };
	struct pollfd fd;
	unsigned long during = SIGBIT(SIGUSR2), after;
	int p[2], pid;
	long r;

	EXPECT_OK(raw2(SYS_pipe2, p, O_CLOEXEC));
	catch (SIGUSR2, 0);
	set_mask(0);
	handled = 0;
	pid = fork();
	if (pid == 0)
		_exit(send_usr2_later(NULL));
	fd = (struct pollfd){ .fd = p[0], .events = POLLIN };
	r = raw5(SYS_ppoll, &fd, 1, &ts, &during, 8);
	after = mask_now();
	child_wait(pid);
	raw1(SYS_close, p[0]);
	raw1(SYS_close, p[1]);
	EXPECT(pid > 0, "fork failed");
	EXPECT_EQ(r, 0);
	EXPECT_EQ(after, 0);
	EXPECT_EQ(handled, 1);
	signal(SIGUSR2, SIG_DFL);
	return NULL;
}

/*
 * A signal without a handler (SIGCHLD, ignored by default) that the call's
 * mask lets through wakes it, and it goes on with the time left: still 0
 * after the whole timeout, never EINTR.
 */
static const char *ppoll_restarts_without_handler(void)
{
	struct timespec ts = { 0, 100 * MS_NS };
	unsigned long empty = 0, pending = 0;
	struct pollfd fd;
	int p[2], pid;
	long t0, r;

	EXPECT_OK(raw2(SYS_pipe2, p, O_CLOEXEC));
	set_mask(SIGBIT(SIGCHLD));
	pid = fork();
	if (pid == 0)
		_exit(0);
	child_wait(pid);
	raw2(SYS_rt_sigpending, &pending, 8);
	fd = (struct pollfd){ .fd = p[0], .events = POLLIN };
	t0 = mono_ns();
	r = raw5(SYS_ppoll, &fd, 1, &ts, &empty, 8);
	t0 = mono_ns() - t0;
	raw2(SYS_rt_sigpending, &empty, 8);
	set_mask(0);
	raw1(SYS_close, p[0]);
	raw1(SYS_close, p[1]);
	EXPECT(pid > 0, "fork failed");
	EXPECT(pending & SIGBIT(SIGCHLD), "SIGCHLD was not pending before ppoll");
	EXPECT_EQ(r, 0);
	EXPECT(t0 >= 100 * MS_NS, "ppoll returned after %ld ns of 100 ms", t0);
	EXPECT(!(empty & SIGBIT(SIGCHLD)), "SIGCHLD still pending after ppoll");
	return NULL;
}

static const struct test_case cases[] = {
	{ "fixture_matches", fixture_matches },
	{ "stat_file", stat_file },
	{ "stat_agrees_with_fstat", stat_agrees_with_fstat },
	{ "lstat_symlinks", lstat_symlinks },
	{ "stat_errors", stat_errors },
	{ "newfstatat_cases", newfstatat_cases },
	{ "chdir_relative", chdir_relative },
	{ "chdir_errors", chdir_errors },
	{ "getcwd_sizes", getcwd_sizes },
	{ "cwd_inherited", cwd_inherited },
	{ "access_cases", access_cases },
	{ "faccessat_cases", faccessat_cases },
	{ "getdents_listing", getdents_listing },
	{ "getdents_resume", getdents_resume },
	{ "getdents_errors", getdents_errors },
	{ "getdents_dev_proc_root", getdents_dev_proc_root },
	{ "opendir_readdir", opendir_readdir },
	{ "pread_file", pread_file },
	{ "pread_errors", pread_errors },
	{ "pread_devices_proc", pread_devices_proc },
	{ "madvise_dontneed", madvise_dontneed },
	{ "madvise_hints_free", madvise_hints_free },
	{ "madvise_errors", madvise_errors },
	{ "madvise_prot_none", madvise_prot_none },
	{ "select_ready", select_ready },
	{ "select_timeouts", select_timeouts },
	{ "select_errors", select_errors },
	{ "pselect6_cases", pselect6_cases },
	{ "ppoll_cases", ppoll_cases },
	{ "ppoll_mask_interrupted", ppoll_mask_interrupted },
	{ "pselect6_mask_interrupted", pselect6_mask_interrupted },
	{ "ppoll_mask_blocks", ppoll_mask_blocks },
	{ "ppoll_restarts_without_handler", ppoll_restarts_without_handler },
};

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "--cwd-is")) /* a re-executed copy */
		return same_file(cwd(), argv[2]) ? 0 : 1;
	test_self_init(argv[0], "t_files");
	if (raw2(SYS_getcwd, start_cwd, sizeof(start_cwd)) < 0)
		snprintf(start_cwd, sizeof(start_cwd), "/");
	if (find_fixture()) {
		report_case("fixture",
			    report_why("no t_files_tree beside %s and none could be made", self_abs));
		remove_tree();
		return report_done("t_files");
	}
	report_note("fixture: %s", fixture);
	report_run_all(cases, REPORT_NCASES(cases));
	remove_tree();
	return report_done("t_files");
}

/*
 * t_basic: the plain system calls one by one, success and error cases —
 * files and descriptors, bad pointers and flags, identity, time, CPU
 * placement and nice, brk/mmap/mprotect, TLS.  Runs on Linux and Fulcrum.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysinfo.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/utsname.h>
#include <termios.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "../common/child.h"
#include "../common/rawsys.h"
#include "../common/report.h"

#define PAGE	     4096ul
#define ARCH_SET_FS  0x1002
#define NSEC_PER_SEC 1000000000l

/* A pipe, or a failed case if it cannot be made. */
#define MAKE_PIPE(p) EXPECT_OK(raw2(SYS_pipe2, (p), 0))

static void close2(int p[2])
{
	raw1(SYS_close, p[0]);
	raw1(SYS_close, p[1]);
}

/* An address that was mapped and is not any more. */
static void *unmapped_page(void)
{
	void *p = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return BAD_PTR_LOW;
	munmap(p, PAGE);
	return p;
}

static long mono_ns(void)
{
	struct timespec ts;

	raw2(SYS_clock_gettime, CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

/* ------------------------------------------------------------ files */

static const char *pipe_write_read(void)
{
	int p[2];
	char buf[16] = { 0 };

	MAKE_PIPE(p);
	EXPECT_EQ(raw3(SYS_write, p[1], "hello", 5), 5);
	EXPECT_EQ(raw3(SYS_read, p[0], buf, sizeof(buf)), 5);
	EXPECT(memcmp(buf, "hello", 5) == 0, "read back \"%.5s\"", buf);
	close2(p);
	return NULL;
}

static const char *writev_pipe(void)
{
	int p[2];
	char buf[32] = { 0 };
	struct iovec iov[3] = { { "ab", 2 }, { "", 0 }, { "cdefg", 5 } };

	MAKE_PIPE(p);
	EXPECT_EQ(raw3(SYS_writev, p[1], iov, 3), 7);
	EXPECT_EQ(raw3(SYS_read, p[0], buf, sizeof(buf)), 7);
	EXPECT(memcmp(buf, "abcdefg", 7) == 0, "read back \"%.7s\"", buf);
	close2(p);
	return NULL;
}

static const char *readv_pipe(void)
{
	int p[2];
	char a[4] = { 0 }, b[10] = { 0 };
	struct iovec iov[2] = { { a, sizeof(a) }, { b, sizeof(b) } };

	MAKE_PIPE(p);
	EXPECT_EQ(raw3(SYS_write, p[1], "0123456789", 10), 10);
	EXPECT_EQ(raw3(SYS_readv, p[0], iov, 2), 10);
	EXPECT(memcmp(a, "0123", 4) == 0 && memcmp(b, "456789", 6) == 0, "readv split wrong");
	close2(p);
	return NULL;
}

static const char *rw_zero_length(void)
{
	int p[2];
	char c;

	MAKE_PIPE(p);
	EXPECT_EQ(raw3(SYS_write, p[1], "x", 0), 0);
	EXPECT_EQ(raw3(SYS_write, p[1], "x", 1), 1);
	EXPECT_EQ(raw3(SYS_read, p[0], &c, 0), 0);
	EXPECT_EQ(raw3(SYS_read, p[0], &c, 1), 1);
	close2(p);
	return NULL;
}

static const char *devnull_rw(void)
{
	char buf[64];
	int fd = EXPECT_OK(raw3(SYS_open, "/dev/null", O_RDWR, 0));

	memset(buf, 'z', sizeof(buf));
	EXPECT_EQ(raw3(SYS_write, fd, buf, sizeof(buf)), sizeof(buf));
	EXPECT_EQ(raw3(SYS_read, fd, buf, sizeof(buf)), 0);
	EXPECT_EQ(raw1(SYS_close, fd), 0);
	EXPECT_ERR(raw1(SYS_close, fd), EBADF);
	return NULL;
}

static const char *open_enoent(void)
{
	EXPECT_ERR(raw3(SYS_open, "/no/such/file-fulcrum", O_RDONLY, 0), ENOENT);
	EXPECT_ERR(raw4(SYS_openat, AT_FDCWD, "/no-such-file-fulcrum", O_RDONLY, 0), ENOENT);
	return NULL;
}

static const char *openat_devnull(void)
{
	int fd = EXPECT_OK(raw4(SYS_openat, AT_FDCWD, "/dev/null", O_WRONLY, 0));

	EXPECT_EQ(raw3(SYS_write, fd, "abc", 3), 3);
	raw1(SYS_close, fd);
	return NULL;
}

static const char *openat_bad_dirfd(void)
{
	/* A relative path needs a valid directory descriptor. */
	EXPECT_ERR(raw4(SYS_openat, 999, "dev/null", O_RDONLY, 0), EBADF);
	return NULL;
}

static const char *open_self_elf(void)
{
	struct stat st;
	unsigned char magic[4];
	int fd = EXPECT_OK(raw3(SYS_open, test_self(), O_RDONLY, 0));

	EXPECT_EQ(raw2(SYS_fstat, fd, &st), 0);
	EXPECT(S_ISREG(st.st_mode), "st_mode 0%o is not a regular file", st.st_mode);
	EXPECT(st.st_size > 4096, "st_size %ld", (long)st.st_size);
	EXPECT_EQ(raw3(SYS_read, fd, magic, 4), 4);
	EXPECT(memcmp(magic, "\177ELF", 4) == 0, "no ELF magic");
	EXPECT_EQ(raw1(SYS_close, fd), 0);
	return NULL;
}

static const char *lseek_self(void)
{
	struct stat st;
	char c, d;
	int fd = EXPECT_OK(raw3(SYS_open, test_self(), O_RDONLY, 0));

	EXPECT_EQ(raw2(SYS_fstat, fd, &st), 0);
	EXPECT_EQ(raw3(SYS_lseek, fd, 100, SEEK_SET), 100);
	EXPECT_EQ(raw3(SYS_lseek, fd, 10, SEEK_CUR), 110);
	EXPECT_EQ(raw3(SYS_read, fd, &c, 1), 1);
	EXPECT_EQ(raw3(SYS_lseek, fd, 0, SEEK_CUR), 111);
	EXPECT_EQ(raw3(SYS_lseek, fd, -1, SEEK_CUR), 110);
	EXPECT_EQ(raw3(SYS_read, fd, &d, 1), 1);
	EXPECT(c == d, "re-read byte differs");
	EXPECT_EQ(raw3(SYS_lseek, fd, 0, SEEK_END), st.st_size);
	EXPECT_EQ(raw3(SYS_read, fd, &c, 1), 0);
	EXPECT_ERR(raw3(SYS_lseek, fd, -1, SEEK_SET), EINVAL);
	EXPECT_ERR(raw3(SYS_lseek, fd, 0, 77), EINVAL);
	raw1(SYS_close, fd);
	return NULL;
}

static const char *lseek_pipe_espipe(void)
{
	int p[2];

	MAKE_PIPE(p);
	EXPECT_ERR(raw3(SYS_lseek, p[0], 0, SEEK_SET), ESPIPE);
	EXPECT_ERR(raw3(SYS_lseek, p[1], 0, SEEK_CUR), ESPIPE);
	close2(p);
	return NULL;
}

static const char *fstat_kinds(void)
{
	struct stat st;
	int p[2];
	int fd = EXPECT_OK(raw3(SYS_open, "/dev/null", O_RDONLY, 0));

	EXPECT_EQ(raw2(SYS_fstat, fd, &st), 0);
	EXPECT(S_ISCHR(st.st_mode), "/dev/null st_mode 0%o", st.st_mode);
	raw1(SYS_close, fd);
	MAKE_PIPE(p);
	EXPECT_EQ(raw2(SYS_fstat, p[0], &st), 0);
	EXPECT(S_ISFIFO(st.st_mode), "pipe st_mode 0%o", st.st_mode);
	close2(p);
	return NULL;
}

static const char *bad_fd_ebadf(void)
{
	char buf[4];
	struct stat st;
	static const int fds[] = { -1, 999, 1 << 20 };

	for (unsigned i = 0; i < sizeof(fds) / sizeof(fds[0]); i++) {
		int fd = fds[i];
		EXPECT_ERR(raw3(SYS_read, fd, buf, 1), EBADF);
		EXPECT_ERR(raw3(SYS_write, fd, "x", 1), EBADF);
		EXPECT_ERR(raw1(SYS_close, fd), EBADF);
		EXPECT_ERR(raw2(SYS_fstat, fd, &st), EBADF);
		EXPECT_ERR(raw3(SYS_lseek, fd, 0, SEEK_SET), EBADF);
		EXPECT_ERR(raw1(SYS_dup, fd), EBADF);
	}
	return NULL;
}

static const char *wrong_pipe_end_ebadf(void)
{
	int p[2];
	char c;

	MAKE_PIPE(p);
	EXPECT_ERR(raw3(SYS_write, p[0], "x", 1), EBADF);
	EXPECT_ERR(raw3(SYS_read, p[1], &c, 1), EBADF);
	close2(p);
	return NULL;
}

/* ------------------------------------------------------------ bad pointers */

static const char *write_efault(void)
{
	int p[2];
	char c;

	MAKE_PIPE(p);
	EXPECT_ERR(raw3(SYS_write, p[1], BAD_PTR_LOW, 5), EFAULT);
	EXPECT_ERR(raw3(SYS_write, p[1], unmapped_page(), 5), EFAULT);
	EXPECT_ERR(raw3(SYS_write, p[1], BAD_PTR_KERNEL, 5), EFAULT);
	EXPECT_ERR(raw3(SYS_write, p[1], BAD_PTR_NONCANON, 5), EFAULT);
	/* Nothing reached the pipe. */
	EXPECT_EQ(raw3(SYS_write, p[1], "k", 1), 1);
	EXPECT_EQ(raw3(SYS_read, p[0], &c, 1), 1);
	EXPECT(c == 'k', "pipe held stray data");
	close2(p);
	return NULL;
}

static const char *read_efault(void)
{
	int p[2];
	char c;

	MAKE_PIPE(p);
	EXPECT_EQ(raw3(SYS_write, p[1], "abc", 3), 3);
	EXPECT_ERR(raw3(SYS_read, p[0], BAD_PTR_LOW, 3), EFAULT);
	EXPECT_ERR(raw3(SYS_read, p[0], unmapped_page(), 3), EFAULT);
	EXPECT_ERR(raw3(SYS_read, p[0], BAD_PTR_KERNEL, 3), EFAULT);
	/* The data is still there for a good buffer. */
	EXPECT_EQ(raw3(SYS_read, p[0], &c, 1), 1);
	EXPECT(c == 'a', "first byte lost");
	close2(p);
	return NULL;
}

static const char *iov_efault(void)
{
	int p[2];
	struct iovec bad[1] = { { BAD_PTR_LOW, 4 } };

	MAKE_PIPE(p);
	EXPECT_ERR(raw3(SYS_writev, p[1], BAD_PTR_LOW, 1), EFAULT);
	EXPECT_ERR(raw3(SYS_readv, p[0], BAD_PTR_KERNEL, 1), EFAULT);
	EXPECT_ERR(raw3(SYS_writev, p[1], bad, 1), EFAULT);
	close2(p);
	return NULL;
}

static const char *iov_einval(void)
{
	int p[2];
	struct iovec iov[1] = { { "x", 1 } };

	MAKE_PIPE(p);
	EXPECT_ERR(raw3(SYS_writev, p[1], iov, -1), EINVAL);
	EXPECT_ERR(raw3(SYS_writev, p[1], iov, 1025), EINVAL);
	EXPECT_ERR(raw3(SYS_readv, p[0], iov, -1), EINVAL);
	close2(p);
	return NULL;
}

static const char *misc_efault(void)
{
	int fd = EXPECT_OK(raw3(SYS_open, "/dev/null", O_RDONLY, 0));

	EXPECT_ERR(raw2(SYS_fstat, fd, BAD_PTR_LOW), EFAULT);
	EXPECT_ERR(raw2(SYS_fstat, fd, BAD_PTR_KERNEL), EFAULT);
	raw1(SYS_close, fd);
	EXPECT_ERR(raw3(SYS_open, BAD_PTR_LOW, O_RDONLY, 0), EFAULT);
	EXPECT_ERR(raw3(SYS_open, BAD_PTR_KERNEL, O_RDONLY, 0), EFAULT);
	EXPECT_ERR(raw1(SYS_uname, BAD_PTR_LOW), EFAULT);
	EXPECT_ERR(raw1(SYS_sysinfo, BAD_PTR_KERNEL), EFAULT);
	EXPECT_ERR(raw2(SYS_clock_gettime, CLOCK_MONOTONIC, BAD_PTR_LOW), EFAULT);
	EXPECT_ERR(raw2(SYS_gettimeofday, BAD_PTR_LOW, 0), EFAULT);
	EXPECT_ERR(raw2(SYS_getrusage, RUSAGE_SELF, BAD_PTR_LOW), EFAULT);
	EXPECT_ERR(raw2(SYS_nanosleep, BAD_PTR_LOW, 0), EFAULT);
	return NULL;
}

static const char *pipe_efault(void)
{
	EXPECT_ERR(raw1(SYS_pipe, BAD_PTR_LOW), EFAULT);
	EXPECT_ERR(raw2(SYS_pipe2, BAD_PTR_KERNEL, 0), EFAULT);
	return NULL;
}

static const char *pipe2_bad_flags(void)
{
	int p[2];

	EXPECT_ERR(raw2(SYS_pipe2, p, 0x40000000), EINVAL);
	EXPECT_ERR(raw2(SYS_pipe2, p, O_WRONLY), EINVAL);
	return NULL;
}

/* ------------------------------------------------------------ dup */

static const char *dup_lowest(void)
{
	int p[2];
	char c;

	MAKE_PIPE(p);
	/* Free the lower of the two numbers: dup must reuse it. */
	int low = p[0] < p[1] ? p[0] : p[1], other = p[0] + p[1] - low;
	int keep = EXPECT_OK(raw1(SYS_dup, low));
	EXPECT_EQ(raw1(SYS_close, low), 0);
	EXPECT_EQ(raw1(SYS_dup, other), low);
	/* The duplicate shares the pipe. */
	int wr = (other == p[1]) ? low : keep, rd = (other == p[1]) ? keep : low;
	EXPECT_EQ(raw3(SYS_write, wr, "q", 1), 1);
	EXPECT_EQ(raw3(SYS_read, rd, &c, 1), 1);
	EXPECT(c == 'q', "wrong byte through the duplicate");
	raw1(SYS_close, low);
	raw1(SYS_close, keep);
	raw1(SYS_close, other);
	return NULL;
}

static const char *dup2_cases(void)
{
	int p[2];
	char c;

	MAKE_PIPE(p);
	EXPECT_EQ(raw2(SYS_dup2, p[1], p[1]), p[1]);
	EXPECT_EQ(raw2(SYS_dup2, p[1], 50), 50);
	/* dup2 onto an open descriptor closes it first. */
	int fd = EXPECT_OK(raw3(SYS_open, "/dev/null", O_RDONLY, 0));
	EXPECT_EQ(raw2(SYS_dup2, p[1], fd), fd);
	EXPECT_EQ(raw3(SYS_write, fd, "d", 1), 1);
	EXPECT_EQ(raw3(SYS_write, 50, "e", 1), 1);
	EXPECT_EQ(raw3(SYS_read, p[0], &c, 1), 1);
	EXPECT(c == 'd', "first byte '%c'", c);
	EXPECT_EQ(raw3(SYS_read, p[0], &c, 1), 1);
	EXPECT(c == 'e', "second byte '%c'", c);
	EXPECT_ERR(raw2(SYS_dup2, 999, 51), EBADF);
	EXPECT_ERR(raw2(SYS_dup2, p[1], -1), EBADF);
	EXPECT_ERR(raw2(SYS_dup2, p[1], 1 << 30), EBADF);
	EXPECT_ERR(raw2(SYS_dup2, 999, 999), EBADF);
	raw1(SYS_close, fd);
	raw1(SYS_close, 50);
	close2(p);
	return NULL;
}

static const char *dup3_einval(void)
{
	int p[2];

	MAKE_PIPE(p);
	EXPECT_ERR(raw3(SYS_dup3, p[0], p[0], 0), EINVAL);
	EXPECT_ERR(raw3(SYS_dup3, p[0], 60, 0x40000000), EINVAL);
	EXPECT_ERR(raw3(SYS_dup3, 999, 60, 0), EBADF);
	EXPECT_EQ(raw3(SYS_dup3, p[0], 60, 0), 60);
	raw1(SYS_close, 60);
	close2(p);
	return NULL;
}

static const char *dup3_cloexec(void)
{
	int p[2];

	MAKE_PIPE(p);
	EXPECT_EQ(raw3(SYS_dup3, p[0], 61, O_CLOEXEC), 61);
	EXPECT_EQ(raw3(SYS_dup3, p[0], 62, 0), 62);
	int status = fdprobe_run(61, 62);
	EXPECT(status >= 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0,
	       "after execve: %s (1: O_CLOEXEC fd stayed open, 2: plain fd closed)",
	       child_describe(status));
	raw1(SYS_close, 61);
	raw1(SYS_close, 62);
	close2(p);
	return NULL;
}

/* ------------------------------------------------------------ identity and system */

static int ppid_child(void *arg)
{
	long parent = *(long *)arg;

	if (raw0(SYS_getppid) != parent)
		return 1;
	if (raw0(SYS_getpid) == parent || raw0(SYS_gettid) != raw0(SYS_getpid))
		return 2;
	return 0;
}

static const char *ids(void)
{
	long pid = raw0(SYS_getpid);

	EXPECT(pid > 0, "getpid = %ld", pid);
	EXPECT_EQ(raw0(SYS_gettid), pid);
	EXPECT(raw0(SYS_getppid) > 0, "getppid = %ld", raw0(SYS_getppid));
	EXPECT_EQ(getpid(), pid);
	EXPECT_EXITED(child_run(ppid_child, &pid), 0);
	return NULL;
}

static const char *uname_fields(void)
{
	struct utsname u;

	memset(&u, 0xff, sizeof(u));
	EXPECT_EQ(raw1(SYS_uname, &u), 0);
	EXPECT(memchr(u.sysname, 0, sizeof(u.sysname)) && u.sysname[0], "sysname unset");
	EXPECT(memchr(u.release, 0, sizeof(u.release)) && u.release[0], "release unset");
	EXPECT(memchr(u.nodename, 0, sizeof(u.nodename)), "nodename not terminated");
	EXPECT(memchr(u.version, 0, sizeof(u.version)), "version not terminated");
	EXPECT(strcmp(u.machine, "x86_64") == 0, "machine \"%.64s\"", u.machine);
	return NULL;
}

static const char *sysinfo_fields(void)
{
	struct sysinfo si;

	memset(&si, 0, sizeof(si));
	EXPECT_EQ(raw1(SYS_sysinfo, &si), 0);
	EXPECT(si.mem_unit >= 1, "mem_unit %u", si.mem_unit);
	EXPECT(si.totalram > 0, "totalram 0");
	EXPECT(si.freeram <= si.totalram, "freeram %lu > totalram %lu", si.freeram, si.totalram);
	EXPECT(si.procs >= 1, "procs %u", si.procs);
	return NULL;
}

static const char *getrusage_cases(void)
{
	struct rusage ru;

	EXPECT_EQ(raw2(SYS_getrusage, RUSAGE_SELF, &ru), 0);
	EXPECT(ru.ru_utime.tv_usec >= 0 && ru.ru_utime.tv_usec < 1000000, "ru_utime.tv_usec %ld",
	       (long)ru.ru_utime.tv_usec);
	EXPECT(ru.ru_stime.tv_usec >= 0 && ru.ru_stime.tv_usec < 1000000, "ru_stime.tv_usec %ld",
	       (long)ru.ru_stime.tv_usec);
	EXPECT_EQ(raw2(SYS_getrusage, RUSAGE_CHILDREN, &ru), 0);
	EXPECT_EQ(raw2(SYS_getrusage, RUSAGE_THREAD, &ru), 0);
	EXPECT_ERR(raw2(SYS_getrusage, 5, &ru), EINVAL);
	return NULL;
}

static const char *ioctl_enotty(void)
{
	struct winsize ws;
	int p[2];
	int fd = EXPECT_OK(raw3(SYS_open, "/dev/null", O_RDONLY, 0));

	MAKE_PIPE(p);
	EXPECT_ERR(raw3(SYS_ioctl, p[0], TIOCGWINSZ, &ws), ENOTTY);
	EXPECT_ERR(raw3(SYS_ioctl, fd, TIOCGWINSZ, &ws), ENOTTY);
	EXPECT_ERR(raw3(SYS_ioctl, 999, TIOCGWINSZ, &ws), EBADF);
	raw1(SYS_close, fd);
	close2(p);
	return NULL;
}

static const char *unknown_syscall_enosys(void)
{
	EXPECT_ERR(raw0(500), ENOSYS);
	EXPECT_ERR(raw3(1000, 1, 2, 3), ENOSYS);
	EXPECT_ERR(raw0(100000), ENOSYS);
	/* and the process is fine afterwards */
	EXPECT(raw0(SYS_getpid) > 0, "getpid failed after ENOSYS");
	return NULL;
}

/* ------------------------------------------------------------ time */

static const char *clock_monotonic(void)
{
	struct timespec a, b;

	EXPECT_EQ(raw2(SYS_clock_gettime, CLOCK_MONOTONIC, &a), 0);
	for (int i = 0; i < 100; i++) {
		EXPECT_EQ(raw2(SYS_clock_gettime, CLOCK_MONOTONIC, &b), 0);
		EXPECT(b.tv_nsec >= 0 && b.tv_nsec < NSEC_PER_SEC, "tv_nsec %ld", b.tv_nsec);
		EXPECT(b.tv_sec > a.tv_sec || (b.tv_sec == a.tv_sec && b.tv_nsec >= a.tv_nsec),
		       "went back: %ld.%09ld -> %ld.%09ld", a.tv_sec, a.tv_nsec, b.tv_sec, b.tv_nsec);
		a = b;
	}
	/* the libc path (vDSO on Linux) agrees in direction */
	EXPECT_EQ(clock_gettime(CLOCK_MONOTONIC, &b), 0);
	EXPECT(b.tv_sec >= a.tv_sec, "libc monotonic behind the system call");
	return NULL;
}

static const char *clock_realtime(void)
{
	struct timespec ts;

	EXPECT_EQ(raw2(SYS_clock_gettime, CLOCK_REALTIME, &ts), 0);
	EXPECT(ts.tv_nsec >= 0 && ts.tv_nsec < NSEC_PER_SEC, "tv_nsec %ld", ts.tv_nsec);
	EXPECT(ts.tv_sec > 0, "tv_sec %ld", ts.tv_sec);
	return NULL;
}

static const char *clock_gettime_einval(void)
{
	struct timespec ts;

	EXPECT_ERR(raw2(SYS_clock_gettime, 12345, &ts), EINVAL);
	EXPECT_ERR(raw2(SYS_clock_gettime, 100, &ts), EINVAL);
	return NULL;
}

static const char *gettimeofday_agrees(void)
{
	struct timespec before, after;
	struct timeval tv;

	EXPECT_EQ(raw2(SYS_clock_gettime, CLOCK_REALTIME, &before), 0);
	EXPECT_EQ(raw2(SYS_gettimeofday, &tv, 0), 0);
	EXPECT_EQ(raw2(SYS_clock_gettime, CLOCK_REALTIME, &after), 0);
	EXPECT(tv.tv_usec >= 0 && tv.tv_usec < 1000000, "tv_usec %ld", (long)tv.tv_usec);
	EXPECT(tv.tv_sec >= before.tv_sec && tv.tv_sec <= after.tv_sec,
	       "gettimeofday %ld outside clock_gettime [%ld, %ld]", (long)tv.tv_sec, before.tv_sec,
	       after.tv_sec);
	EXPECT_EQ(raw2(SYS_gettimeofday, 0, 0), 0);
	return NULL;
}

static const char *nanosleep_sleeps(void)
{
	struct timespec req = { 0, 10 * 1000 * 1000 }, rem = { 7, 7 };
	long t0 = mono_ns();

	EXPECT_EQ(raw2(SYS_nanosleep, &req, &rem), 0);
	long slept = mono_ns() - t0;
	/* A sleep never ends early (no timing assert beyond that). */
	EXPECT(slept >= req.tv_nsec, "slept %ld ns, asked for %ld", slept, req.tv_nsec);
	EXPECT_EQ(raw2(SYS_nanosleep, TS(0, 0), 0), 0);
	return NULL;
}

static const char *nanosleep_einval(void)
{
	EXPECT_ERR(raw2(SYS_nanosleep, TS(0, NSEC_PER_SEC), 0), EINVAL);
	EXPECT_ERR(raw2(SYS_nanosleep, TS(0, -1), 0), EINVAL);
	EXPECT_ERR(raw2(SYS_nanosleep, TS(-1, 0), 0), EINVAL);
	return NULL;
}

static const char *clock_nanosleep_cases(void)
{
	struct timespec req = { 0, 5 * 1000 * 1000 }, now;
	long t0 = mono_ns();

	EXPECT_EQ(raw4(SYS_clock_nanosleep, CLOCK_MONOTONIC, 0, &req, 0), 0);
	EXPECT(mono_ns() - t0 >= req.tv_nsec, "relative sleep ended early");
	/* absolute: a deadline 5 ms ahead, then one in the past */
	raw2(SYS_clock_gettime, CLOCK_MONOTONIC, &now);
	long deadline = now.tv_sec * NSEC_PER_SEC + now.tv_nsec + 5 * 1000 * 1000;
	struct timespec abs = { deadline / NSEC_PER_SEC, deadline % NSEC_PER_SEC };
	EXPECT_EQ(raw4(SYS_clock_nanosleep, CLOCK_MONOTONIC, TIMER_ABSTIME, &abs, 0), 0);
	EXPECT(mono_ns() >= deadline, "absolute sleep ended before its deadline");
	struct timespec past = { 0, 1 };
	EXPECT_EQ(raw4(SYS_clock_nanosleep, CLOCK_MONOTONIC, TIMER_ABSTIME, &past, 0), 0);
	EXPECT_EQ(raw4(SYS_clock_nanosleep, CLOCK_REALTIME, 0, TS(0, 1000), 0), 0);
	EXPECT_ERR(raw4(SYS_clock_nanosleep, 12345, 0, &req, 0), EINVAL);
	EXPECT_ERR(raw4(SYS_clock_nanosleep, CLOCK_MONOTONIC, 0, TS(0, NSEC_PER_SEC), 0), EINVAL);
	EXPECT_ERR(raw4(SYS_clock_nanosleep, CLOCK_MONOTONIC, 0, BAD_PTR_LOW, 0), EFAULT);
	return NULL;
}

/* ------------------------------------------------------------ CPUs and scheduling */

static const char *sched_yield_ok(void)
{
	for (int i = 0; i < 20; i++)
		EXPECT_EQ(raw0(SYS_sched_yield), 0);
	return NULL;
}

static const char *getcpu_in_affinity(void)
{
	unsigned cpu = ~0u, node = ~0u;
	cpu_set_t set;

	EXPECT_EQ(raw3(SYS_getcpu, &cpu, &node, 0), 0);
	EXPECT(cpu < CPU_SETSIZE, "cpu %u", cpu);
	EXPECT(node < 1024, "node %u", node);
	EXPECT(raw3(SYS_sched_getaffinity, 0, sizeof(set), &set) > 0, "getaffinity failed");
	EXPECT(CPU_ISSET(cpu, &set), "running on cpu %u outside the affinity mask", cpu);
	EXPECT_EQ(raw3(SYS_getcpu, &cpu, 0, 0), 0);
	EXPECT_ERR(raw3(SYS_getcpu, BAD_PTR_LOW, 0, 0), EFAULT);
	return NULL;
}

static const char *getaffinity_size(void)
{
	cpu_set_t set;

	memset(&set, 0, sizeof(set));
	/* The kernel returns how many bytes of mask it wrote; musl relies on it. */
	long n = raw3(SYS_sched_getaffinity, 0, sizeof(set), &set);
	EXPECT(n > 0 && n <= (long)sizeof(set) && n % (long)sizeof(long) == 0,
	       "sched_getaffinity returned %s", report_ret(n));
	EXPECT(CPU_COUNT(&set) >= 1, "empty mask");
	EXPECT_EQ(raw3(SYS_sched_getaffinity, raw0(SYS_gettid), sizeof(set), &set), n);
	EXPECT_ERR(raw3(SYS_sched_getaffinity, 0, 4, &set), EINVAL);
	EXPECT_ERR(raw3(SYS_sched_getaffinity, 0, 0, &set), EINVAL);
	EXPECT_ERR(raw3(SYS_sched_getaffinity, 0, sizeof(set), BAD_PTR_LOW), EFAULT);
	EXPECT_ERR(raw3(SYS_sched_getaffinity, 0x3ffffff0, sizeof(set), &set), ESRCH);
	return NULL;
}

static const char *setaffinity_follows(void)
{
	cpu_set_t orig, one;
	int tried = 0;

	EXPECT(raw3(SYS_sched_getaffinity, 0, sizeof(orig), &orig) > 0, "getaffinity failed");
	for (int cpu = 0; cpu < CPU_SETSIZE && tried < 64; cpu++) {
		if (!CPU_ISSET(cpu, &orig))
			continue;
		tried++;
		CPU_ZERO(&one);
		CPU_SET(cpu, &one);
		EXPECT_EQ(raw3(SYS_sched_setaffinity, 0, sizeof(one), &one), 0);
		unsigned now = ~0u;
		EXPECT_EQ(raw3(SYS_getcpu, &now, 0, 0), 0);
		EXPECT((int)now == cpu, "pinned to cpu %d, running on %u", cpu, now);
		raw0(SYS_sched_yield);
		EXPECT_EQ(raw3(SYS_getcpu, &now, 0, 0), 0);
		EXPECT((int)now == cpu, "pinned to cpu %d, after yield on %u", cpu, now);
		cpu_set_t back;
		CPU_ZERO(&back); /* the kernel writes only its mask's bytes (32 on Linux and Fulcrum) */
		EXPECT(raw3(SYS_sched_getaffinity, 0, sizeof(back), &back) > 0, "getaffinity failed");
		EXPECT(CPU_EQUAL(&back, &one), "getaffinity does not show the pinned mask");
	}
	EXPECT_EQ(raw3(SYS_sched_setaffinity, 0, sizeof(orig), &orig), 0);
	report_note("setaffinity_follows: pinned to %d cpu(s) in turn", tried);
	return NULL;
}

static const char *setaffinity_errors(void)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	EXPECT_ERR(raw3(SYS_sched_setaffinity, 0, sizeof(set), &set), EINVAL);
	/* only a CPU that does not exist */
	CPU_SET(CPU_SETSIZE - 1, &set);
	EXPECT_ERR(raw3(SYS_sched_setaffinity, 0, sizeof(set), &set), EINVAL);
	EXPECT_ERR(raw3(SYS_sched_setaffinity, 0, sizeof(set), BAD_PTR_LOW), EFAULT);
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	EXPECT_ERR(raw3(SYS_sched_setaffinity, 0x3ffffff0, sizeof(set), &set), ESRCH);
	return NULL;
}

/* Raising nice is allowed to anyone; done in a child so the parent keeps its nice. */
static int nice_child(void *arg)
{
	long base = 20 - raw2(SYS_getpriority, PRIO_PROCESS, 0);
	long target = base <= 14 ? base + 5 : 19;

	(void)arg;
	if (raw3(SYS_setpriority, PRIO_PROCESS, 0, target) != 0)
		return 1;
	if (raw2(SYS_getpriority, PRIO_PROCESS, 0) != 20 - target)
		return 2;
	if (getpriority(PRIO_PROCESS, 0) != target)
		return 3;
	if (raw3(SYS_setpriority, PRIO_PROCESS, raw0(SYS_getpid), 19) != 0)
		return 4;
	if (getpriority(PRIO_PROCESS, 0) != 19)
		return 5;
	/* out of range values are clamped to 19 */
	if (raw3(SYS_setpriority, PRIO_PROCESS, 0, 100) != 0)
		return 6;
	if (raw2(SYS_getpriority, PRIO_PROCESS, 0) != 1)
		return 7;
	return 0;
}

static const char *priority_nice(void)
{
	/* The raw call returns 20 - nice, so it is never negative. */
	long raw = raw2(SYS_getpriority, PRIO_PROCESS, 0);
	EXPECT(raw >= 1 && raw <= 40, "raw getpriority = %s", report_ret(raw));
	EXPECT_EQ(getpriority(PRIO_PROCESS, 0), 20 - raw);
	int status = child_run(nice_child, NULL);
	EXPECT(status >= 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0,
	       "child: %s (step that failed)", child_describe(status));
	return NULL;
}

static const char *priority_errors(void)
{
	EXPECT_ERR(raw2(SYS_getpriority, 7, 0), EINVAL);
	EXPECT_ERR(raw3(SYS_setpriority, 7, 0, 0), EINVAL);
	EXPECT_ERR(raw2(SYS_getpriority, PRIO_PROCESS, 0x3ffffff0), ESRCH);
	EXPECT_ERR(raw3(SYS_setpriority, PRIO_PROCESS, 0x3ffffff0, 1), ESRCH);
	return NULL;
}

static const char *scheduler_policy(void)
{
	struct sched_param sp = { .sched_priority = 0 };

	/* musl's wrappers are stubs (ENOSYS), so these go straight to the kernel. */
	EXPECT_EQ(raw1(SYS_sched_getscheduler, 0), SCHED_OTHER);
	EXPECT_EQ(raw1(SYS_sched_getscheduler, raw0(SYS_getpid)), SCHED_OTHER);
	EXPECT_EQ(raw3(SYS_sched_setscheduler, 0, SCHED_OTHER, &sp), 0);
	EXPECT_EQ(raw1(SYS_sched_getscheduler, 0), SCHED_OTHER);
	EXPECT_ERR(raw3(SYS_sched_setscheduler, 0, 42, &sp), EINVAL);
	EXPECT_ERR(raw3(SYS_sched_setscheduler, 0, -5, &sp), EINVAL);
	sp.sched_priority = 1;
	EXPECT_ERR(raw3(SYS_sched_setscheduler, 0, SCHED_OTHER, &sp), EINVAL);
	EXPECT_ERR(raw3(SYS_sched_setscheduler, 0, SCHED_OTHER, 0), EINVAL);
	sp.sched_priority = 0;
	EXPECT_ERR(raw3(SYS_sched_setscheduler, 0x3ffffff0, SCHED_OTHER, &sp), ESRCH);
	EXPECT_ERR(raw1(SYS_sched_getscheduler, 0x3ffffff0), ESRCH);
	EXPECT_ERR(raw1(SYS_sched_getscheduler, -1), EINVAL);
	return NULL;
}

/* ------------------------------------------------------------ memory */

static int touch_read(void *arg)
{
	return *(volatile char *)arg == 123 ? 3 : 0;
}

static int touch_write(void *arg)
{
	*(volatile char *)arg = 1;
	return 0;
}

static const char *brk_grow_shrink(void)
{
	uintptr_t cur = (uintptr_t)raw1(SYS_brk, 0);

	EXPECT(cur >= 0x10000, "brk(0) = %#lx", (unsigned long)cur);
	uintptr_t want = cur + 16 * PAGE;
	EXPECT_EQ(raw1(SYS_brk, want), want);
	/* new memory reads as zero and is writable */
	volatile char *p = (volatile char *)cur;
	for (uintptr_t off = 0; off < 16 * PAGE; off += PAGE) {
		EXPECT(p[off] == 0, "byte at brk+%#lx not zero", (unsigned long)off);
		p[off] = 7;
	}
	p[16 * PAGE - 1] = 9;
	EXPECT_EQ(raw1(SYS_brk, 0), want);
	EXPECT_EQ(raw1(SYS_brk, cur), cur);
	EXPECT_EQ(raw1(SYS_brk, 0), cur);
	return NULL;
}

static const char *brk_shrink_unmaps(void)
{
	uintptr_t cur = (uintptr_t)raw1(SYS_brk, 0);
	uintptr_t aligned = (cur + PAGE - 1) & ~(PAGE - 1);

	EXPECT_EQ(raw1(SYS_brk, aligned + 8 * PAGE), aligned + 8 * PAGE);
	*(volatile char *)(aligned + 4 * PAGE) = 1;
	EXPECT_EQ(raw1(SYS_brk, cur), cur);
	EXPECT_KILLED(child_run(touch_write, (void *)(aligned + 4 * PAGE)), SIGSEGV);
	/* growing again gives fresh zeroed pages */
	EXPECT_EQ(raw1(SYS_brk, aligned + 8 * PAGE), aligned + 8 * PAGE);
	EXPECT(*(volatile char *)(aligned + 4 * PAGE) == 0, "re-grown brk page not zero");
	EXPECT_EQ(raw1(SYS_brk, cur), cur);
	return NULL;
}

static const char *brk_refuses_bad(void)
{
	uintptr_t cur = (uintptr_t)raw1(SYS_brk, 0);

	/* a failed brk returns the unchanged break */
	EXPECT_EQ(raw1(SYS_brk, 0x10000), cur);
	EXPECT_EQ(raw1(SYS_brk, BAD_PTR_KERNEL), cur);
	EXPECT_EQ(raw1(SYS_brk, 0), cur);
	return NULL;
}

static const char *mmap_anon_rw(void)
{
	size_t len = 8 * PAGE;
	char *p = (char *)EXPECT_OK(
		raw6(SYS_mmap, 0, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));

	EXPECT(((uintptr_t)p & (PAGE - 1)) == 0, "mmap returned unaligned %p", (void *)p);
	for (size_t i = 0; i < len; i += 512)
		EXPECT(p[i] == 0, "byte %zu not zero", i);
	for (size_t i = 0; i < len; i++)
		p[i] = (char)(i * 7);
	for (size_t i = 0; i < len; i++)
		EXPECT(p[i] == (char)(i * 7), "byte %zu changed", i);
	EXPECT_EQ(raw2(SYS_munmap, p, len), 0);
	return NULL;
}

static const char *mmap_private_after_fork(void)
{
	/* a private mapping is copied by fork: the child's write stays in the child */
	char *p = (char *)EXPECT_OK(raw6(SYS_mmap, 0, PAGE, PROT_READ | PROT_WRITE,
					 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
	p[0] = 5;
	EXPECT_EXITED(child_run(touch_write, p), 0);
	EXPECT(p[0] == 5, "child's write reached the parent");
	raw2(SYS_munmap, p, PAGE);
	return NULL;
}

static const char *munmap_faults(void)
{
	char *p = (char *)EXPECT_OK(raw6(SYS_mmap, 0, 3 * PAGE, PROT_READ | PROT_WRITE,
					 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
	p[0] = p[PAGE] = p[2 * PAGE] = 1;
	/* unmap the middle page only */
	EXPECT_EQ(raw2(SYS_munmap, p + PAGE, PAGE), 0);
	EXPECT(p[0] == 1 && p[2 * PAGE] == 1, "neighbour pages lost their contents");
	EXPECT_KILLED(child_run(touch_read, p + PAGE), SIGSEGV);
	EXPECT_EQ(raw2(SYS_munmap, p, 3 * PAGE), 0);
	EXPECT_KILLED(child_run(touch_read, p), SIGSEGV);
	/* unmapping what is not mapped is fine */
	EXPECT_EQ(raw2(SYS_munmap, p, 3 * PAGE), 0);
	return NULL;
}

static const char *mprotect_faults(void)
{
	char *p = (char *)EXPECT_OK(raw6(SYS_mmap, 0, 2 * PAGE, PROT_READ | PROT_WRITE,
					 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
	p[0] = 42;
	EXPECT_EQ(raw3(SYS_mprotect, p, PAGE, PROT_READ), 0);
	EXPECT(p[0] == 42, "read after PROT_READ lost data");
	EXPECT_KILLED(child_run(touch_write, p), SIGSEGV);
	EXPECT_EXITED(child_run(touch_write, p + PAGE), 0);
	EXPECT_EQ(raw3(SYS_mprotect, p, PAGE, PROT_NONE), 0);
	EXPECT_KILLED(child_run(touch_read, p), SIGSEGV);
	EXPECT_EQ(raw3(SYS_mprotect, p, 2 * PAGE, PROT_READ | PROT_WRITE), 0);
	EXPECT(p[0] == 42, "data lost across PROT_NONE");
	p[0] = 43;
	EXPECT_EQ(raw2(SYS_munmap, p, 2 * PAGE), 0);
	return NULL;
}

static const char *mmap_prot_none(void)
{
	char *p = (char *)EXPECT_OK(
		raw6(SYS_mmap, 0, PAGE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));

	EXPECT_KILLED(child_run(touch_read, p), SIGSEGV);
	EXPECT_KILLED(child_run(touch_write, p), SIGSEGV);
	EXPECT_EQ(raw2(SYS_munmap, p, PAGE), 0);
	return NULL;
}

static const char *mmap_fixed(void)
{
	char *p = (char *)EXPECT_OK(raw6(SYS_mmap, 0, 4 * PAGE, PROT_READ | PROT_WRITE,
					 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
	p[PAGE] = 9;
	/* MAP_FIXED replaces the page at exactly that address with a fresh one */
	EXPECT_EQ(raw6(SYS_mmap, p + PAGE, PAGE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0),
		  (long)(p + PAGE));
	EXPECT(p[PAGE] == 0, "MAP_FIXED page kept old contents");
	EXPECT_EQ(raw2(SYS_munmap, p, 4 * PAGE), 0);
	return NULL;
}

static const char *mmap_einval(void)
{
	EXPECT_ERR(raw6(SYS_mmap, 0, 0, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), EINVAL);
	EXPECT_ERR(raw6(SYS_mmap, 0, PAGE, PROT_READ, MAP_ANONYMOUS, -1, 0), EINVAL);
	EXPECT_ERR(raw6(SYS_mmap, 0x10000001, PAGE, PROT_READ,
			MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0),
		   EINVAL);
	EXPECT_ERR(raw6(SYS_mmap, 0, PAGE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 100), EINVAL);
	EXPECT_ERR(raw2(SYS_munmap, 0x10000001, PAGE), EINVAL);
	EXPECT_ERR(raw2(SYS_munmap, 0x10000000, 0), EINVAL);
	EXPECT_ERR(raw3(SYS_mprotect, 0x10000001, PAGE, PROT_READ), EINVAL);
	char *p = (char *)EXPECT_OK(
		raw6(SYS_mmap, 0, PAGE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
	EXPECT_ERR(raw3(SYS_mprotect, p, PAGE, 0x100), EINVAL);
	raw2(SYS_munmap, p, PAGE);
	return NULL;
}

static const char *mprotect_unmapped_enomem(void)
{
	char *p = unmapped_page();

	EXPECT_ERR(raw3(SYS_mprotect, p, PAGE, PROT_READ), ENOMEM);
	return NULL;
}

static const char *mmap_cycles(void)
{
	/* map, touch, unmap: every round trip must give memory back */
	for (int i = 0; i < 200; i++) {
		size_t len = (size_t)(1 + i % 7) * PAGE;
		char *p = (char *)EXPECT_OK(raw6(SYS_mmap, 0, len, PROT_READ | PROT_WRITE,
						 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
		EXPECT(p[len - 1] == 0, "round %d: not zeroed", i);
		p[0] = p[len - 1] = (char)i;
		EXPECT_EQ(raw2(SYS_munmap, p, len), 0);
	}
	return NULL;
}

/* ------------------------------------------------------------ TLS and thread ids */

static __thread int tls_var = 42;
static __thread char tls_zero[64];

static const char *tls_variable(void)
{
	EXPECT_EQ(tls_var, 42);
	for (size_t i = 0; i < sizeof(tls_zero); i++)
		EXPECT(tls_zero[i] == 0, "tbss byte %zu not zero", i);
	tls_var = 43;
	EXPECT_EQ(*(volatile int *)&tls_var, 43);
	tls_var = 42;
	return NULL;
}

static unsigned long fake_tcb[4];

static const char *arch_prctl_set_fs(void)
{
	unsigned long old, seen, self;

	/* musl keeps the thread pointer at %fs:0 */
	__asm__ volatile("mov %%fs:0, %0" : "=r"(old));
	fake_tcb[0] = (unsigned long)fake_tcb;
	fake_tcb[1] = 0x5eedf00dul;
	/* between the two calls nothing may touch libc's TLS (errno): raw calls only */
	long r = raw2(SYS_arch_prctl, ARCH_SET_FS, fake_tcb);
	__asm__ volatile("mov %%fs:8, %0" : "=r"(seen));
	__asm__ volatile("mov %%fs:0, %0" : "=r"(self));
	long r2 = raw2(SYS_arch_prctl, ARCH_SET_FS, old);
	EXPECT_EQ(r, 0);
	EXPECT_EQ(r2, 0);
	EXPECT(seen == 0x5eedf00dul, "%%fs:8 = %#lx after ARCH_SET_FS", seen);
	EXPECT(self == (unsigned long)fake_tcb, "%%fs:0 = %#lx", self);
	EXPECT_EQ(tls_var, 42);
	return NULL;
}

static const char *arch_prctl_errors(void)
{
	EXPECT_ERR(raw2(SYS_arch_prctl, 0x9999, 0), EINVAL);
	/* the FS base may not point into the kernel half */
	EXPECT_ERR(raw2(SYS_arch_prctl, ARCH_SET_FS, 0xffff800000000000ul), EPERM);
	EXPECT_EQ(tls_var, 42);
	return NULL;
}

static int tid_child(void *arg)
{
	static int word = 1;

	(void)arg;
	return raw1(SYS_set_tid_address, &word) == raw0(SYS_gettid) ? 0 : 1;
}

static const char *set_tid_address_returns_tid(void)
{
	EXPECT_EXITED(child_run(tid_child, NULL), 0);
	return NULL;
}

static const struct test_case cases[] = {
	{ "pipe_write_read", pipe_write_read },
	{ "writev_pipe", writev_pipe },
	{ "readv_pipe", readv_pipe },
	{ "rw_zero_length", rw_zero_length },
	{ "devnull_rw", devnull_rw },
	{ "open_enoent", open_enoent },
	{ "openat_devnull", openat_devnull },
	{ "openat_bad_dirfd", openat_bad_dirfd },
	{ "open_self_elf", open_self_elf },
	{ "lseek_self", lseek_self },
	{ "lseek_pipe_espipe", lseek_pipe_espipe },
	{ "fstat_kinds", fstat_kinds },
	{ "bad_fd_ebadf", bad_fd_ebadf },
	{ "wrong_pipe_end_ebadf", wrong_pipe_end_ebadf },
	{ "write_efault", write_efault },
	{ "read_efault", read_efault },
	{ "iov_efault", iov_efault },
	{ "iov_einval", iov_einval },
	{ "misc_efault", misc_efault },
	{ "pipe_efault", pipe_efault },
	{ "pipe2_bad_flags", pipe2_bad_flags },
	{ "dup_lowest", dup_lowest },
	{ "dup2_cases", dup2_cases },
	{ "dup3_einval", dup3_einval },
	{ "dup3_cloexec", dup3_cloexec },
	{ "ids", ids },
	{ "uname_fields", uname_fields },
	{ "sysinfo_fields", sysinfo_fields },
	{ "getrusage_cases", getrusage_cases },
	{ "ioctl_enotty", ioctl_enotty },
	{ "unknown_syscall_enosys", unknown_syscall_enosys },
	{ "clock_monotonic", clock_monotonic },
	{ "clock_realtime", clock_realtime },
	{ "clock_gettime_einval", clock_gettime_einval },
	{ "gettimeofday_agrees", gettimeofday_agrees },
	{ "nanosleep_sleeps", nanosleep_sleeps },
	{ "nanosleep_einval", nanosleep_einval },
	{ "clock_nanosleep_cases", clock_nanosleep_cases },
	{ "sched_yield_ok", sched_yield_ok },
	{ "getcpu_in_affinity", getcpu_in_affinity },
	{ "getaffinity_size", getaffinity_size },
	{ "setaffinity_follows", setaffinity_follows },
	{ "setaffinity_errors", setaffinity_errors },
	{ "priority_nice", priority_nice },
	{ "priority_errors", priority_errors },
	{ "scheduler_policy", scheduler_policy },
	{ "brk_grow_shrink", brk_grow_shrink },
	{ "brk_shrink_unmaps", brk_shrink_unmaps },
	{ "brk_refuses_bad", brk_refuses_bad },
	{ "mmap_anon_rw", mmap_anon_rw },
	{ "mmap_private_after_fork", mmap_private_after_fork },
	{ "munmap_faults", munmap_faults },
	{ "mprotect_faults", mprotect_faults },
	{ "mmap_prot_none", mmap_prot_none },
	{ "mmap_fixed", mmap_fixed },
	{ "mmap_einval", mmap_einval },
	{ "mprotect_unmapped_enomem", mprotect_unmapped_enomem },
	{ "mmap_cycles", mmap_cycles },
	{ "tls_variable", tls_variable },
	{ "arch_prctl_set_fs", arch_prctl_set_fs },
	{ "arch_prctl_errors", arch_prctl_errors },
	{ "set_tid_address_returns_tid", set_tid_address_returns_tid },
};

int main(int argc, char **argv)
{
	int probe = fdprobe_main(argc, argv);

	if (probe >= 0)
		return probe;
	test_self_init(argv[0], "t_basic");
	report_run_all(cases, REPORT_NCASES(cases));
	return report_done("t_basic");
}

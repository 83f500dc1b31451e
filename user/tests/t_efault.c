/*
 * t_efault: the kernel's copies to and from user memory that find no page
 * there (an address never mapped or unmapped since, PROT_NONE, a read-only
 * page written to, a buffer that runs past the end of its mapping) fail
 * with EFAULT, as on Linux, and take nothing away: the file offset stays,
 * the pipe or socket keeps its bytes. The process goes on, nobody is
 * killed. Runs on Linux and Fulcrum.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "../common/child.h"
#include "../common/rawsys.h"
#include "../common/report.h"

#define PAGE 4096

/*
 * Four pages in a row: page 0 read-write, page 1 unmapped, page 2
 * PROT_NONE, page 3 read-only. A fresh set for each case.
 */
static char *area;

#define RW_PAGE	  (area)
#define HOLE	  (area + PAGE)
#define NONE_PAGE (area + 2 * PAGE)
#define RO_PAGE	  (area + 3 * PAGE)
/* 100 good bytes at the end of page 0, then the hole. */
#define STRADDLE  (area + PAGE - 100)

static const char *area_make(void)
{
	area = mmap(NULL, 4 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	EXPECT(area != MAP_FAILED, "mmap: %s", strerror(errno));
	EXPECT(munmap(HOLE, PAGE) == 0, "munmap: %s", strerror(errno));
	EXPECT(mprotect(NONE_PAGE, PAGE, PROT_NONE) == 0, "mprotect: %s", strerror(errno));
	EXPECT(mprotect(RO_PAGE, PAGE, PROT_READ) == 0, "mprotect: %s", strerror(errno));
	return NULL;
}

static void area_drop(void)
{
	munmap(area, 4 * PAGE);
}

/* The places a kernel copy out to user memory must refuse, with their names. */
static const struct {
	const char *name;
	int offset; /* from area; -1: NULL */
} bad_out[] = {
	{ "NULL", -1 },
	{ "an unmapped page", PAGE },
	{ "a PROT_NONE page", 2 * PAGE },
	{ "a read-only page", 3 * PAGE },
};

#define NBAD_OUT ((int)(sizeof(bad_out) / sizeof(bad_out[0])))

static void *bad_at(int i)
{
	return bad_out[i].offset < 0 ? NULL : area + bad_out[i].offset;
}

/* ------------------------------------------------------------ regular files */

static const char *file_read_refused(void)
{
	const char *why = area_make();
	int fd = (int)raw2(SYS_open, test_self(), O_RDONLY);

	if (why)
		return why;
	EXPECT(fd >= 0, "open %s: %s", test_self(), report_ret(fd));
	for (int i = 0; i < NBAD_OUT; i++) {
		long n = raw3(SYS_read, fd, bad_at(i), 64);

		EXPECT(n == -EFAULT, "read into %s = %s, want -EFAULT", bad_out[i].name,
		       report_ret(n));
		n = raw3(SYS_lseek, fd, 0, SEEK_CUR);
		EXPECT(n == 0, "after the read into %s the offset is %s, want 0", bad_out[i].name,
		       report_ret(n));
	}
	raw1(SYS_close, fd);
	area_drop();
	return NULL;
}

/*
 * A read whose buffer runs off the end of its mapping: Linux copies what
 * fits, 100 bytes, and returns that short count; the offset moves by 100
 * and the bytes are the file's. (Pipes and sockets differ: below.)
 */
static const char *file_read_straddling(void)
{
	const char *why = area_make();
	char want[200];
	int fd = (int)raw2(SYS_open, test_self(), O_RDONLY);
	long n;

	if (why)
		return why;
	EXPECT(fd >= 0, "open %s: %s", test_self(), report_ret(fd));
	EXPECT(raw3(SYS_read, fd, want, sizeof(want)) == (long)sizeof(want), "first read short");
	raw3(SYS_lseek, fd, 0, SEEK_SET);
	memset(STRADDLE, 0x5a, 100);
	n = raw3(SYS_read, fd, STRADDLE, sizeof(want));
	EXPECT(n == 100, "a 200-byte read with 100 bytes mapped = %s, want 100", report_ret(n));
	EXPECT_EQ(raw3(SYS_lseek, fd, 0, SEEK_CUR), 100);
	EXPECT(memcmp(STRADDLE, want, 100) == 0, "the 100 bytes read are not the file's");
	/* A readv whose second buffer is unmapped: the first one's count. */
	struct iovec iov[2] = { { RW_PAGE, 50 }, { HOLE, 50 } };

	n = raw3(SYS_readv, fd, iov, 2);
	EXPECT(n == 50, "readv with its second buffer unmapped = %s, want 50", report_ret(n));
	EXPECT(memcmp(RW_PAGE, want + 100, 50) == 0, "readv's 50 bytes are not the file's");
	raw1(SYS_close, fd);
	area_drop();
	return NULL;
}

/* ------------------------------------------------------------ pipes and sockets */

/* Reads what is left in a non-blocking fd: the count, -EAGAIN when empty. */
static long drain(int fd, char *buf, size_t size)
{
	return raw3(SYS_read, fd, buf, size);
}

/* fds[0] reads what fds[1] writes; both non-blocking. */
static const char *make_pair(int kind, int fds[2])
{
	long r = kind ? raw4(SYS_socketpair, AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, fds) :
			raw2(SYS_pipe2, fds, O_NONBLOCK);

	EXPECT(r == 0, "%s: %s", kind ? "socketpair" : "pipe2", report_ret(r));
	return NULL;
}

static const char *write_refused(int kind)
{
	const char *why = area_make();
	/* A write reads user memory: only the places with nothing readable. */
	void *from[] = { NULL, HOLE, NONE_PAGE, STRADDLE };
	const char *name[] = { "NULL", "an unmapped page", "a PROT_NONE page",
			       "a buffer running off its mapping" };
	int fds[2];
	char buf[256];

	if (why || (why = make_pair(kind, fds)))
		return why;
	memset(STRADDLE, 'x', 100);
	for (int i = 0; i < 4; i++) {
		long n = raw3(SYS_write, fds[1], from[i], 200);

		EXPECT(n == -EFAULT, "write from %s = %s, want -EFAULT", name[i], report_ret(n));
		n = drain(fds[0], buf, sizeof(buf));
		EXPECT(n == -EAGAIN, "after the write from %s the reader gets %s, want -EAGAIN",
		       name[i], report_ret(n));
	}
	/* And the channel still works. */
	EXPECT_EQ(raw3(SYS_write, fds[1], "ok", 2), 2);
	EXPECT(drain(fds[0], buf, sizeof(buf)) == 2 && !memcmp(buf, "ok", 2), "no 'ok' after");
	raw1(SYS_close, fds[0]);
	raw1(SYS_close, fds[1]);
	area_drop();
	return NULL;
}

static const char *read_refused(int kind)
{
	const char *why = area_make();
	char msg[200], buf[256];
	int fds[2];

	if (why || (why = make_pair(kind, fds)))
		return why;
	for (size_t i = 0; i < sizeof(msg); i++)
		msg[i] = (char)('a' + i % 26);
	EXPECT_EQ(raw3(SYS_write, fds[1], msg, sizeof(msg)), sizeof(msg));
	for (int i = 0; i < NBAD_OUT; i++) {
		long n = raw3(SYS_read, fds[0], bad_at(i), sizeof(msg));

		EXPECT(n == -EFAULT, "read into %s = %s, want -EFAULT", bad_out[i].name,
		       report_ret(n));
	}
	/* The message is all still there, none of it lost to the failed reads. */
	long n = drain(fds[0], buf, sizeof(buf));

	EXPECT(n == (long)sizeof(msg) && !memcmp(buf, msg, sizeof(msg)),
	       "then the read gets %s bytes, want all %zu", report_ret(n), sizeof(msg));
	raw1(SYS_close, fds[0]);
	raw1(SYS_close, fds[1]);
	area_drop();
	return NULL;
}

/* A read across a mapping's end: EFAULT, and the bytes stay (pipes and sockets copy whole). */
static const char *read_straddling(int kind)
{
	const char *why = area_make();
	char msg[200], buf[256];
	int fds[2];
	long n;

	if (why || (why = make_pair(kind, fds)))
		return why;
	memset(msg, 'q', sizeof(msg));
	EXPECT_EQ(raw3(SYS_write, fds[1], msg, sizeof(msg)), sizeof(msg));
	n = raw3(SYS_read, fds[0], STRADDLE, sizeof(msg));
	EXPECT(n == -EFAULT, "read across the end = %s, want -EFAULT", report_ret(n));
	n = drain(fds[0], buf, sizeof(buf));
	EXPECT(n == (long)sizeof(msg), "then the read gets %s bytes, want all %zu", report_ret(n),
	       sizeof(msg));
	raw1(SYS_close, fds[0]);
	raw1(SYS_close, fds[1]);
	area_drop();
	return NULL;
}

static const char *pipe_write_refused(void)
{
	return write_refused(0);
}

static const char *pipe_read_refused(void)
{
	return read_refused(0);
}

static const char *pipe_read_straddling(void)
{
	return read_straddling(0);
}

static const char *socket_write_refused(void)
{
	return write_refused(1);
}

static const char *socket_read_refused(void)
{
	return read_refused(1);
}

static const char *socket_read_straddling(void)
{
	return read_straddling(1);
}

/* ------------------------------------------------------------ results written out */

/* Calls that write a struct out: each refuses every bad place. */
static const char *structs_refused(void)
{
	const char *why = area_make();

	if (why)
		return why;
	for (int i = 0; i < NBAD_OUT; i++) {
		void *p = bad_at(i);

		EXPECT(raw2(SYS_fstat, 0, p) == -EFAULT, "fstat into %s", bad_out[i].name);
		EXPECT(raw2(SYS_clock_gettime, CLOCK_MONOTONIC, p) == -EFAULT,
		       "clock_gettime into %s", bad_out[i].name);
		EXPECT(raw1(SYS_uname, p) == -EFAULT, "uname into %s", bad_out[i].name);
		EXPECT(raw2(SYS_pipe2, p, 0) == -EFAULT, "pipe2 into %s", bad_out[i].name);
		EXPECT(raw2(SYS_getcwd, p, 64) == -EFAULT, "getcwd into %s", bad_out[i].name);
	}
	area_drop();
	return NULL;
}

/* A page given back with MADV_DONTNEED is still mapped: the copy makes a zero page. */
static const char *read_into_dontneed_page(void)
{
	const char *why = area_make();
	int fds[2];
	long n;

	if (why || (why = make_pair(0, fds)))
		return why;
	memset(RW_PAGE, 1, PAGE);
	EXPECT(madvise(RW_PAGE, PAGE, MADV_DONTNEED) == 0, "madvise: %s", strerror(errno));
	EXPECT_EQ(raw3(SYS_write, fds[1], "page", 4), 4);
	n = raw3(SYS_read, fds[0], RW_PAGE + 10, 4);
	EXPECT(n == 4 && !memcmp(RW_PAGE + 10, "page", 4) && RW_PAGE[0] == 0 && RW_PAGE[PAGE - 1] == 0,
	       "read into a DONTNEED page = %s", report_ret(n));
	raw1(SYS_close, fds[0]);
	raw1(SYS_close, fds[1]);
	area_drop();
	return NULL;
}

/* None of the above killed anybody: a child doing them all exits normally. */
static int all_in_child(void *arg)
{
	(void)arg;
	return file_read_refused() || pipe_read_refused() || socket_write_refused() ? 1 : 0;
}

static const char *nobody_killed(void)
{
	EXPECT_EXITED(child_run(all_in_child, NULL), 0);
	return NULL;
}

static const struct test_case cases[] = {
	{ "file_read_refused", file_read_refused },
	{ "file_read_straddling", file_read_straddling },
	{ "pipe_write_refused", pipe_write_refused },
	{ "pipe_read_refused", pipe_read_refused },
	{ "pipe_read_straddling", pipe_read_straddling },
	{ "socket_write_refused", socket_write_refused },
	{ "socket_read_refused", socket_read_refused },
	{ "socket_read_straddling", socket_read_straddling },
	{ "structs_refused", structs_refused },
	{ "read_into_dontneed_page", read_into_dontneed_page },
	{ "nobody_killed", nobody_killed },
};

int main(int argc, char **argv)
{
	(void)argc;
	test_self_init(argv[0], "t_efault");
	report_run_all(cases, REPORT_NCASES(cases));
	return report_done("t_efault");
}

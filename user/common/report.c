/*
 * Result lines of the user test programs.  Lines go out with one write(2)
 * each, unbuffered, so a fork never duplicates pending output and lines
 * from different processes never interleave mid-line.
 */
#include "report.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int passed, failed;
static char why_buf[512];

static void put_line(const char *line)
{
	size_t len = strlen(line), off = 0;

	while (off < len) {
		ssize_t n = write(1, line + off, len - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		off += (size_t)n;
	}
}

void report_case(const char *name, const char *why)
{
	char line[700];

	if (why) {
		failed++;
		snprintf(line, sizeof(line), "FAIL %s: %s\n", name, why);
	} else {
		passed++;
		snprintf(line, sizeof(line), "PASS %s\n", name);
	}
	put_line(line);
}

void report_run_all(const struct test_case *cases, int n)
{
	for (int i = 0; i < n; i++)
		report_case(cases[i].name, cases[i].run());
}

void report_note(const char *fmt, ...)
{
	char line[600] = "# ";
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line + 2, sizeof(line) - 3, fmt, ap);
	va_end(ap);
	strcat(line, "\n");
	put_line(line);
}

int report_done(const char *prog)
{
	char line[200];

	snprintf(line, sizeof(line), "%s: %d passed, %d failed\n", prog, passed, failed);
	put_line(line);
	return failed ? 1 : 0;
}

const char *report_why(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why_buf, sizeof(why_buf), fmt, ap);
	va_end(ap);
	return why_buf;
}

static const struct {
	int err;
	const char *name;
} errnames[] = {
	{ EPERM, "EPERM" },
	{ ENOENT, "ENOENT" },
	{ ESRCH, "ESRCH" },
	{ EINTR, "EINTR" },
	{ EIO, "EIO" },
	{ E2BIG, "E2BIG" },
	{ ENOEXEC, "ENOEXEC" },
	{ EBADF, "EBADF" },
	{ ECHILD, "ECHILD" },
	{ EAGAIN, "EAGAIN" },
	{ ENOMEM, "ENOMEM" },
	{ EACCES, "EACCES" },
	{ EFAULT, "EFAULT" },
	{ EBUSY, "EBUSY" },
	{ EEXIST, "EEXIST" },
	{ EXDEV, "EXDEV" },
	{ ENODEV, "ENODEV" },
	{ ENOTDIR, "ENOTDIR" },
	{ EISDIR, "EISDIR" },
	{ EINVAL, "EINVAL" },
	{ ENFILE, "ENFILE" },
	{ EMFILE, "EMFILE" },
	{ ENOTTY, "ENOTTY" },
	{ ETXTBSY, "ETXTBSY" },
	{ EFBIG, "EFBIG" },
	{ ENOSPC, "ENOSPC" },
	{ ESPIPE, "ESPIPE" },
	{ EROFS, "EROFS" },
	{ EPIPE, "EPIPE" },
	{ ERANGE, "ERANGE" },
	{ ENAMETOOLONG, "ENAMETOOLONG" },
	{ ELOOP, "ELOOP" },
	{ ENOSYS, "ENOSYS" },
	{ ENOTEMPTY, "ENOTEMPTY" },
	{ ETIMEDOUT, "ETIMEDOUT" },
	{ ENOTSOCK, "ENOTSOCK" },
	{ EPROTONOSUPPORT, "EPROTONOSUPPORT" },
	{ ESOCKTNOSUPPORT, "ESOCKTNOSUPPORT" },
	{ EOPNOTSUPP, "EOPNOTSUPP" },
	{ EAFNOSUPPORT, "EAFNOSUPPORT" },
	{ ENOTCONN, "ENOTCONN" },
	{ ECONNRESET, "ECONNRESET" },
	{ EDEADLK, "EDEADLK" },
};

const char *report_errname(long err)
{
	static char bufs[4][24];
	static int next;

	for (size_t i = 0; i < sizeof(errnames) / sizeof(errnames[0]); i++)
		if (errnames[i].err == err)
			return errnames[i].name;
	next = (next + 1) % 4;
	snprintf(bufs[next], sizeof(bufs[next]), "%ld", err);
	return bufs[next];
}

const char *report_ret(long ret)
{
	static char bufs[4][32];
	static int next;

	next = (next + 1) % 4;
	if (ret < 0 && ret >= -4095)
		snprintf(bufs[next], sizeof(bufs[next]), "-%s", report_errname(-ret));
	else
		snprintf(bufs[next], sizeof(bufs[next]), "%ld", ret);
	return bufs[next];
}

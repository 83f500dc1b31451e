/* Whole reads and writes over the raw system calls: see rawio.h. */
#include "rawio.h"

#include <errno.h>

#include "rawsys.h"

long raw_write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		long n = raw3(SYS_write, fd, p, len);

		if (n == -EINTR)
			continue;
		if (n <= 0)
			return n ? n : -EIO;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

long raw_read_full(int fd, void *buf, size_t len)
{
	char *p = buf;
	size_t got = 0;

	while (got < len) {
		long n = raw3(SYS_read, fd, p + got, len - got);

		if (n == -EINTR)
			continue;
		if (n < 0)
			return n;
		if (n == 0)
			break;
		got += (size_t)n;
	}
	return (long)got;
}

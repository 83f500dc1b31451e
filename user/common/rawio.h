/* Whole reads and writes over the raw system calls (rawsys.h), for the test programs. */
#ifndef USER_COMMON_RAWIO_H
#define USER_COMMON_RAWIO_H

#include <stddef.h>

/* Writes all of buf, retrying short writes and EINTR; 0 or a negative errno. */
long raw_write_all(int fd, const void *buf, size_t len);

/* Reads exactly len bytes unless end of file comes first; bytes read or a negative errno. */
long raw_read_full(int fd, void *buf, size_t len);

#endif

/*
 * Open files: struct file is one open instance of something readable or
 * writable (an initrd file, a pipe end, a socket, a device, a procfs
 * snapshot), shared by every descriptor and process that refers to it
 * and freed when the last reference goes. What a file does is its
 * struct file_ops; descriptors and their tables are in fdtable.h.
 */
#ifndef FULCRUM_FS_FILE_H
#define FULCRUM_FS_FILE_H

#include "lib/types.h"

/* open(2) flags, Linux x86-64 values (octal, as in Linux's fcntl.h). */
#define O_ACCMODE   00000003
#define O_RDONLY    00000000
#define O_WRONLY    00000001
#define O_RDWR	    00000002
#define O_CREAT	    00000100
#define O_EXCL	    00000200
#define O_NOCTTY    00000400
#define O_TRUNC	    00001000
#define O_APPEND    00002000
#define O_NONBLOCK  00004000
#define O_DIRECT    00040000
#define O_LARGEFILE 00100000
#define O_DIRECTORY 00200000
#define O_NOFOLLOW  00400000
#define O_CLOEXEC   02000000
#define O_PATH	    010000000
#define O_TMPFILE   (020000000 | O_DIRECTORY)

/* The status flags F_SETFL may change; the rest of f_flags is fixed at open. */
#define FILE_SETFL_MASK (O_APPEND | O_NONBLOCK)

/* lseek whence values. */
#define SEEK_SET  0
#define SEEK_CUR  1
#define SEEK_END  2
#define SEEK_DATA 3
#define SEEK_HOLE 4

/* Largest single read or write, as Linux's MAX_RW_COUNT (INT_MAX rounded down to a page). */
#define MAX_RW_COUNT 0x7ffff000L

#define FMODE_READ  0x1
#define FMODE_WRITE 0x2

struct file;
struct iov_iter;
struct kstat;
struct poll_table;

/*
 * What a kind of file does. Every operation runs in process context and may
 * sleep; a NULL entry means the defaults named here. read/write move bytes
 * between the file and the user buffers of the iov_iter and return the bytes
 * moved or a negative errno (a partial count when some moved before an
 * error). Blocking ones honour O_NONBLOCK (-EAGAIN) and return -EINTR
 * (or the partial count) when current_signal_pending().
 */
struct file_ops {
	long (*read)(struct file *f, struct iov_iter *to);    /* NULL: -EINVAL */
	long (*write)(struct file *f, struct iov_iter *from); /* NULL: -EINVAL */
	/* Ready mask (POLLIN...), registering on the file's queues via pt. NULL: always ready */
	unsigned int (*poll)(struct file *f, struct poll_table *pt);
	s64 (*lseek)(struct file *f, s64 offset, int whence); /* NULL: -ESPIPE */
	/*
	 * pread64/pwrite64: read/write at pos, f_pos untouched. Only files
	 * with lseek get here (the others are -ESPIPE); NULL: -EINVAL.
	 */
	long (*pread)(struct file *f, struct iov_iter *to, s64 pos);
	long (*pwrite)(struct file *f, struct iov_iter *from, s64 pos);
	void (*fstat)(struct file *f, struct kstat *st); /* fills st (zeroed beforehand) */
	long (*ioctl)(struct file *f, unsigned int cmd, unsigned long arg); /* NULL: -ENOTTY */
	void (*release)(struct file *f); /* the last reference went */
};

struct file {
	long refcount;	      /* atomic */
	unsigned int f_flags; /* O_ACCMODE and status flags; read with file_flags() */
	unsigned int f_mode;  /* FMODE_READ | FMODE_WRITE, from the access mode */
	s64 f_pos;	      /* offset of seekable files */
	const struct file_ops *ops;
	void *private_data; /* the kind's own state */
};

/*
 * A new file with one reference: flags are open(2)'s (the access mode
 * decides f_mode; O_CLOEXEC and creation flags are not kept). NULL when out
 * of memory.
 */
struct file *file_alloc(const struct file_ops *ops, unsigned int flags, void *private_data);

/* Takes another reference; the caller already holds one. */
void file_get(struct file *f);

/* Drops a reference; the last one calls ops->release and frees f. May sleep. NULL is ignored. */
void fput(struct file *f);

static inline unsigned int file_flags(const struct file *f)
{
	return __atomic_load_n(&f->f_flags, __ATOMIC_RELAXED);
}

static inline bool file_nonblock(const struct file *f)
{
	return file_flags(f) & O_NONBLOCK;
}

/* Replaces the F_SETFL-changeable status flags (FILE_SETFL_MASK) with those in flags. */
void file_set_status_flags(struct file *f, unsigned int flags);

/*
 * Live objects of the file layer, so teardown can be checked: after every
 * process is gone they are back where they started (issue 5, item 9).
 */
struct fs_counts {
	long files;    /* struct file */
	long fdtables; /* struct files */
	long pipes;    /* struct pipe */
	long sockets;  /* AF_UNIX socket endpoints */
};

enum fs_count_kind { FS_COUNT_FILES, FS_COUNT_FDTABLES, FS_COUNT_PIPES, FS_COUNT_SOCKETS };

void fs_object_counts(struct fs_counts *out);
/* For the modules that create and free those objects: delta is +1 or -1. */
void fs_count_add(enum fs_count_kind kind, long delta);

#endif

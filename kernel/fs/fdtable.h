/*
 * Descriptor tables: struct files maps a process's file descriptors to
 * struct file references, with a close-on-exec flag per descriptor. A
 * table starts empty, is copied by fork (files_clone), shared by
 * CLONE_FILES threads (files_get), closed-on-exec by execve and released
 * at exit (files_put). Descriptors are handed out lowest-first, as POSIX
 * requires, up to FD_MAX.
 */
#ifndef FULCRUM_FS_FDTABLE_H
#define FULCRUM_FS_FDTABLE_H

#include "lib/spinlock.h"
#include "lib/types.h"

struct file;

#define FD_MAX	  1024 /* RLIMIT_NOFILE's ceiling: descriptors are 0 .. FD_MAX - 1 */
#define FD_INLINE 64   /* a new table's size; it grows by doubling */

struct files {
	long refcount;	       /* atomic: processes/threads sharing the table */
	struct spinlock lock;  /* the fields below; taken with interrupts off */
	unsigned int capacity; /* slots, a multiple of 64 */
	unsigned int next_fd;  /* no free slot below it */
	/*
	 * RLIMIT_NOFILE, soft and hard (atomic reads): no new descriptor at
	 * or above nofile. Kept with the table, which threads share as they
	 * share Linux's rlimits and fork copies; execve keeps both.
	 */
	unsigned int nofile, nofile_max;
	struct file **fd;  /* installed files; NULL in a free or reserved slot */
	u64 *open_bits;	   /* set: slot in use (installed or reserved) */
	u64 *cloexec_bits; /* set: close on execve */
	struct file *fd_inline[FD_INLINE];
	u64 open_inline[FD_INLINE / 64], cloexec_inline[FD_INLINE / 64];
};

/* An empty table with one reference; NULL when out of memory. */
struct files *files_create(void);
/*
 * fork: a new table (one reference) holding the same files under the same
 * numbers and close-on-exec flags; NULL when out of memory.
 */
struct files *files_clone(struct files *src);
void files_get(struct files *files);
/* Drops a reference; the last one closes every descriptor and frees the table. May sleep. */
void files_put(struct files *files);
/* execve: closes the descriptors marked close-on-exec. May sleep. */
void files_close_on_exec(struct files *files);

/*
 * Installs f (the caller's reference passes to the table) at the lowest
 * free descriptor >= min. Returns it, or -EMFILE (none below the
 * RLIMIT_NOFILE soft limit, or min at or above it; Linux gives -EINVAL for
 * the latter in fcntl) or -ENOMEM;
 * on error the caller keeps its reference.
 */
int fd_alloc(struct files *files, struct file *f, unsigned int min, bool cloexec);
/*
 * Two-step form for calls that must not publish a descriptor before they
 * can no longer fail (pipe2, socketpair): fd_reserve takes the lowest free
 * number (-EMFILE, -ENOMEM), then fd_install fills it or fd_unreserve
 * gives it back. A reserved slot reads as not open (-EBADF).
 */
int fd_reserve(struct files *files, unsigned int min, bool cloexec);
void fd_install(struct files *files, int fd, struct file *f);
void fd_unreserve(struct files *files, int fd);

/*
 * dup2/dup3 core: puts f at newfd (the caller's reference passes to the
 * table), closing what was there. Returns newfd, -EBADF (newfd outside
 * 0 .. the RLIMIT_NOFILE soft limit - 1), -EBUSY (newfd reserved by an open in progress) or -ENOMEM;
 * on error the caller keeps its reference.
 */
int fd_replace(struct files *files, int newfd, struct file *f, bool cloexec);

/* The file at fd with a new reference (release it with fput), or NULL if fd is not open. */
struct file *fd_get(struct files *files, int fd);
/* Removes fd and drops its reference: 0, or -EBADF. May sleep. */
int fd_close(struct files *files, int fd);
/* 1 or 0, or -EBADF. */
int fd_get_cloexec(struct files *files, int fd);
/* 0, or -EBADF. */
int fd_set_cloexec(struct files *files, int fd, bool cloexec);

/* The table's RLIMIT_NOFILE soft limit (FD_MAX unless lowered). */
static inline unsigned int files_nofile(const struct files *files)
{
	return files ? __atomic_load_n(&files->nofile, __ATOMIC_RELAXED) : FD_MAX;
}

/* fd_get on the calling process's table (current_files()). */
struct file *fget(int fd);

#endif

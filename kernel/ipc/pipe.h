/*
 * Pipes, as Linux 3.8 makes them: sixteen one-page buffers used as a ring
 * (64 KiB), small writes merged into the last page, writes of at most
 * PIPE_BUF bytes never split, blocking readers and writers on one wait
 * queue woken with the sync hint, EOF once every writer is gone, and
 * EPIPE plus SIGPIPE once every reader is.
 */
#ifndef FULCRUM_IPC_PIPE_H
#define FULCRUM_IPC_PIPE_H

#include "lib/types.h"

struct file;

#define PIPE_BUFFERS   16 /* pages in the ring: Linux's PIPE_DEF_BUFFERS */
#define PIPE_PAGE_SIZE 4096
#define PIPE_BUF       4096 /* writes up to this size are atomic (POSIX) */

#ifndef SIGPIPE
#define SIGPIPE 13
#endif

/*
 * A new pipe: *rd reads from it, *wr writes to it (one reference each).
 * flags: O_NONBLOCK on both. 0 or -ENOMEM.
 */
int pipe_create(struct file **rd, struct file **wr, unsigned int flags);

/* Bytes waiting in the pipe behind file f (either end); -EINVAL if f is not a pipe. */
long pipe_bytes_queued(struct file *f);

long sys_pipe(int *fds);
/* flags: O_NONBLOCK and O_CLOEXEC; anything else is -EINVAL. */
long sys_pipe2(int *fds, int flags);

#endif

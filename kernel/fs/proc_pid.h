/*
 * The per-process part of /proc: /proc/self, /proc/<pid>/... and
 * /proc/<pid>/task/<tid>/..., which come and go with the processes.
 * kernel/proc (proc_pid.c) provides these; procfs.c has weak stand-ins
 * that name no process, for the host unit tests. rel is a path under
 * /proc, relative and normalised ("1/stat").
 */
#ifndef FULCRUM_FS_PROC_PID_H
#define FULCRUM_FS_PROC_PID_H

#include "lib/types.h"

struct fs_node;
struct seqbuf;

/*
 * What rel names when its first component is "self" or a number: 0 and
 * *n (kind, mode; a symlink's target in n->link or an interned string),
 * -ENOENT when there is no such process or file, 1 when rel is not a
 * per-process path at all.
 */
int procfs_pid_lookup(const char *rel, struct fs_node *n);

/* Prints the file at rel (a per-process file): 0, or -ENOENT if the process has gone. */
int procfs_pid_show(const char *rel, struct seqbuf *sb);

/*
 * Lists a per-process directory ("", for the pids after procfs's own
 * files; "<pid>", "<pid>/task", "<pid>/task/<tid>"). Call with *cookie
 * = 0 until it returns 0; 1 means the next name is in buf (NUL-terminated,
 * size bytes at least 16). -ENOENT: rel is no such directory.
 */
int procfs_pid_readdir(const char *rel, size_t *cookie, char *buf, size_t size);

#endif

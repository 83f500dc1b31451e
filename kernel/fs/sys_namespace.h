/*
 * The calls that change the tree's names: mkdir, rmdir, unlink, link,
 * symlink, rename (and their *at forms), truncate, ftruncate and the
 * chmod family, with Linux's argument order, checks and errors. Only /tmp (fs/tmpfs.h) is
 * writable: elsewhere they are -EROFS once the name is found (or its
 * directory, for the calls that make a name), and a rename or link
 * between /tmp and elsewhere is -EXDEV.
 */
#ifndef FULCRUM_FS_SYS_NAMESPACE_H
#define FULCRUM_FS_SYS_NAMESPACE_H

#include "lib/types.h"

long sys_mkdirat(int dfd, const char *upath, int mode);
long sys_mkdir(const char *upath, int mode);
long sys_rmdir(const char *upath);
long sys_unlinkat(int dfd, const char *upath, int flags);
long sys_unlink(const char *upath);
long sys_linkat(int olddfd, const char *uold, int newdfd, const char *unew, int flags);
long sys_link(const char *uold, const char *unew);
long sys_symlinkat(const char *utarget, int newdfd, const char *unew);
long sys_symlink(const char *utarget, const char *unew);
long sys_renameat2(int olddfd, const char *uold, int newdfd, const char *unew, unsigned int flags);
long sys_renameat(int olddfd, const char *uold, int newdfd, const char *unew);
long sys_rename(const char *uold, const char *unew);
long sys_truncate(const char *upath, long length);
long sys_ftruncate(int fd, long length);
long sys_fchmodat(int dfd, const char *upath, int mode);
long sys_chmod(const char *upath, int mode);
long sys_fchmod(int fd, int mode);

struct k_timespec;
/* atime and mtime of a tmpfs file: times[2] or now, UTIME_NOW/UTIME_OMIT as Linux. */
long sys_utimensat(int dfd, const char *upath, const struct k_timespec *times, int flags);

#endif

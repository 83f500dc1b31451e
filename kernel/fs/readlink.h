/* readlink(2) and readlinkat(2) (readlink.c). */
#ifndef FULCRUM_FS_READLINK_H
#define FULCRUM_FS_READLINK_H

/*
 * The target of the symlink path names (its last component not
 * followed), cut to bufsiz bytes, no NUL added: its length, or -EINVAL
 * (bufsiz <= 0, not a symlink), the walk's errors, -EFAULT.
 */
long sys_readlinkat(int dfd, const char *upath, char *ubuf, int bufsiz);
long sys_readlink(const char *upath, char *ubuf, int bufsiz);

#endif

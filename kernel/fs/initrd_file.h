/*
 * Open files over what the tree holds in memory: initrd regular files
 * (read-only, seekable, served from the archive) and directories (any of
 * the tree's; read() is -EISDIR, the path is kept for openat).
 */
#ifndef FULCRUM_FS_INITRD_FILE_H
#define FULCRUM_FS_INITRD_FILE_H

struct file;
struct fs_node;
struct kstat;

/* An initrd regular file opened read-only; NULL when out of memory. */
struct file *initrd_file_open(const struct fs_node *node, unsigned int flags);

/* A directory at the normalised absolute path; NULL when out of memory. */
struct file *dir_open(const char *path, const struct fs_node *node, unsigned int flags);

/* The path of directory file f, or NULL if f is not a directory. */
const char *dir_path(struct file *f);

/*
 * What stat and fstat say of an initrd node, a directory (any of the
 * tree's) or a symlink (its size: the target's length); st zeroed beforehand.
 */
void fs_node_kstat(const struct fs_node *node, struct kstat *st);

#endif

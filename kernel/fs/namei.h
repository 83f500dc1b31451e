/*
 * Path names: what a path names in Fulcrum's one tree, the initrd at "/"
 * with /dev (null, console), /proc (procfs), /sys and /tmp (tmpfs) laid
 * over it, and the walk that resolves ".", "..", repeated slashes and
 * symbolic links, with Linux's errors for a path too long, a component
 * that is not a directory and a loop.
 */
#ifndef FULCRUM_FS_NAMEI_H
#define FULCRUM_FS_NAMEI_H

#include "lib/types.h"

#define PATH_MAX     4096 /* a path's length, NUL included */
#define NAME_MAX     255  /* one component's length */
#define MAX_SYMLINKS 40	  /* links followed in one walk (Linux's MAXSYMLINKS) */

enum fs_node_kind {
	NODE_DIR,
	NODE_FILE,    /* an initrd regular file: data, size */
	NODE_SYMLINK, /* data, size: the target */
	NODE_DEVNULL,
	NODE_CONSOLE,
	NODE_PROC,    /* a procfs file */
	NODE_SPECIAL, /* an initrd device, FIFO or socket node: not openable */
	NODE_TMPFS,   /* a regular file of the tmpfs at /tmp (fs/tmpfs.h) */
};

struct fs_node {
	enum fs_node_kind kind;
	u32 mode; /* S_IF* and permission bits */
	const void *data;
	size_t size;
	u64 ino; /* stable per path */
	u64 dev;
	char link[24]; /* a made-up symlink's target (/proc/self), when data points here */
};

/* What the normalised absolute path (no ".", "..", repeated or trailing slash) names: 0 or -ENOENT.
 */
int fs_lookup(const char *path, struct fs_node *node);

struct path_walk {
	struct fs_node node;   /* what the path names (when 0 is returned) */
	char path[PATH_MAX];   /* its normalised absolute path, symlinks resolved */
	bool parent_exists;    /* on -ENOENT: only the last component is missing */
	char rest[PATH_MAX];   /* scratch: what is left to walk */
	char target[PATH_MAX]; /* a tmpfs symlink's target, copied out: node.data points here */
};

/*
 * Resolves path (absolute, or relative to the directory at base, an
 * absolute normalised path; "/" when base is NULL). The last component is
 * followed if it is a symlink only when follow is set (or the path ends in
 * a slash). Returns 0, -ENOENT (empty path, a missing component),
 * -ENOTDIR, -ENAMETOOLONG (a component over NAME_MAX, a path over
 * PATH_MAX), -ELOOP (more than MAX_SYMLINKS links). w is large: kmalloc it.
 */
int path_walk(const char *path, const char *base, bool follow, struct path_walk *w);

#endif

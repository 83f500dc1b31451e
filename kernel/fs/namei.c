/*
 * Path lookup. The tree is the initrd's, with four directories over it:
 * /dev (only null and console), /proc (procfs), /sys (its /sys part) and
 * /tmp (the writable tmpfs), which hide whatever the archive has at those
 * paths.
 */
#include "fs/namei.h"

#include "fs/initrd.h"
#include "fs/proc_pid.h"
#include "fs/procfs.h"
#include "fs/stat.h"
#include "fs/tmpfs.h"
#include "lib/errno.h"
#include "lib/string.h"

/* FNV-1a: a stable inode number per path. */
static u64 path_ino(const char *path)
{
	u64 h = 0xcbf29ce484222325ULL;

	for (; *path; path++)
		h = (h ^ (u8)*path) * 0x100000001b3ULL;
	return h | 1;
}

static bool has_prefix(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	return strncmp(path, dir, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

static int lookup_dev(const char *name, struct fs_node *n)
{
	n->dev = KDEV_DEVTMPFS;
	if (!*name) {
		n->kind = NODE_DIR;
		n->mode = S_IFDIR | 0755;
	} else if (!strcmp(name, "null")) {
		n->kind = NODE_DEVNULL;
		n->mode = S_IFCHR | 0666;
	} else if (!strcmp(name, "console")) {
		n->kind = NODE_CONSOLE;
		n->mode = S_IFCHR | 0600;
	} else {
		return -ENOENT;
	}
	return 0;
}

static int lookup_proc(const char *rel, struct fs_node *n)
{
	int err;

	n->dev = KDEV_PROC;
	err = procfs_pid_lookup(rel, n);
	if (err <= 0)
		return err;
	switch (procfs_lookup(rel)) {
	case PROCFS_DIR:
		n->kind = NODE_DIR;
		n->mode = S_IFDIR | 0555;
		return 0;
	case PROCFS_FILE:
		n->kind = NODE_PROC;
		n->mode = S_IFREG | 0444;
		return 0;
	default:
		return -ENOENT;
	}
}

static int lookup_sys(const char *rel, struct fs_node *n)
{
	n->dev = KDEV_SYSFS;
	switch (sysfs_lookup(rel)) {
	case PROCFS_DIR:
		n->kind = NODE_DIR;
		n->mode = S_IFDIR | 0755;
		return 0;
	case PROCFS_FILE:
		n->kind = NODE_PROC;
		n->mode = S_IFREG | 0444;
		return 0;
	default:
		return -ENOENT;
	}
}

int fs_lookup(const char *path, struct fs_node *n)
{
	u32 mode;

	memset(n, 0, sizeof(*n));
	n->ino = path_ino(path);
	if (has_prefix(path, "/dev"))
		return lookup_dev(path[4] ? path + 5 : "", n);
	if (has_prefix(path, "/proc"))
		return lookup_proc(path[5] ? path + 6 : "", n);
	if (has_prefix(path, "/sys"))
		return lookup_sys(path[4] ? path + 5 : "", n);
	if (has_prefix(path, "/tmp"))
		return tmpfs_lookup(path[4] ? path + 5 : "", n);
	n->dev = KDEV_ROOTFS;
	if (!strcmp(path, "/")) {
		/* The root exists even without an initrd. */
		n->kind = NODE_DIR;
		n->mode = S_IFDIR | 0755;
		return 0;
	}
	if (initrd_find(path, &n->data, &n->size, &mode))
		return -ENOENT;
	n->mode = mode;
	switch (mode & S_IFMT) {
	case S_IFDIR:
		n->kind = NODE_DIR;
		break;
	case S_IFREG:
		n->kind = NODE_FILE;
		break;
	case S_IFLNK:
		n->kind = NODE_SYMLINK;
		break;
	default:
		n->kind = NODE_SPECIAL;
		break;
	}
	return 0;
}

/* fs_lookup into w->node; a tmpfs symlink's target is copied out, as it may go once unlocked. */
static int walk_lookup(const char *path, struct path_walk *w)
{
	const char *rel;
	long n;

	if (fs_lookup(path, &w->node))
		return -ENOENT;
	if (w->node.kind != NODE_SYMLINK || !(rel = tmpfs_rel(path)))
		return 0;
	n = tmpfs_readlink(rel, w->target, sizeof(w->target));
	if (n < 0)
		return -ENOENT;
	w->node.data = w->target;
	w->node.size = (size_t)n;
	return 0;
}

int path_walk(const char *path, const char *base, bool follow, struct path_walk *w)
{
	size_t len = strlen(path), rlen = 0;
	char *res = w->path, *p = w->rest;
	int links = 0;

	w->parent_exists = false;
	if (len == 0)
		return -ENOENT;
	if (len >= PATH_MAX)
		return -ENAMETOOLONG;
	memcpy(w->rest, path, len + 1);
	if (path[0] != '/' && base && strcmp(base, "/")) {
		rlen = strlen(base);
		if (rlen >= PATH_MAX)
			return -ENAMETOOLONG;
		memcpy(res, base, rlen);
	}
	res[rlen] = '\0';
	for (;;) {
		const char *comp, *q;
		size_t clen, saved = rlen;
		bool last, slash_after;

		while (*p == '/')
			p++;
		if (!*p)
			break;
		comp = p;
		while (*p && *p != '/')
			p++;
		clen = (size_t)(p - comp);
		for (q = p; *q == '/'; q++)
			;
		last = !*q;
		slash_after = last && q != p;
		if (clen == 1 && comp[0] == '.')
			continue;
		if (clen == 2 && comp[0] == '.' && comp[1] == '.') {
			while (rlen && res[rlen - 1] != '/')
				rlen--;
			if (rlen)
				rlen--; /* the slash before the popped name */
			res[rlen] = '\0';
			continue;
		}
		if (clen > NAME_MAX || rlen + 1 + clen >= PATH_MAX)
			return -ENAMETOOLONG;
		res[rlen] = '/';
		memcpy(res + rlen + 1, comp, clen);
		rlen += 1 + clen;
		res[rlen] = '\0';
		if (walk_lookup(res, w)) {
			w->parent_exists = last;
			return -ENOENT;
		}
		if (w->node.kind == NODE_SYMLINK && (!last || follow || slash_after)) {
			const char *target = w->node.data;
			size_t tlen = w->node.size, remain = strlen(p);

			if (++links > MAX_SYMLINKS)
				return -ELOOP;
			if (tlen == 0)
				return -ENOENT;
			if (tlen + remain >= PATH_MAX)
				return -ENAMETOOLONG;
			/* rest becomes the target followed by what was left ("/..." or nothing). */
			memmove(w->rest + tlen, p, remain + 1);
			memcpy(w->rest, target, tlen);
			p = w->rest;
			rlen = target[0] == '/' ? 0 : saved;
			res[rlen] = '\0';
			continue;
		}
		if ((!last || slash_after) && w->node.kind != NODE_DIR)
			return -ENOTDIR;
	}
	if (rlen == 0) {
		res[0] = '/';
		res[1] = '\0';
	}
	return walk_lookup(res, w);
}

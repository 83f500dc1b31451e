/*
 * Directory listings and getdents64 (see readdir.h). d_ino and d_type of
 * each entry come from the same lookup and stat as stat(2) of its path,
 * so they agree with it.
 */
#include "fs/readdir.h"

#include <arch/uaccess.h>

#include "fs/dirent.h"
#include "fs/fdtable.h"
#include "fs/file.h"
#include "fs/initrd.h"
#include "fs/initrd_file.h"
#include "fs/namei.h"
#include "fs/proc_pid.h"
#include "fs/procfs.h"
#include "fs/stat.h"
#include "fs/tmpfs.h"
#include "lib/compiler.h"
#include "lib/errno.h"
#include "lib/string.h"
#include "mm/heap.h"
#include "proc/syscall.h"

#define RECORD_MAX 1024 /* a record: 19 bytes, a name of at most 511, its NUL, padding */

static const char *const dev_names[] = { "console", "null" };
static const char *const overlays[] = { "dev", "proc", "sys", "tmp" }; /* over the root's initrd */

static bool under(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	return strncmp(path, dir, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

static void set_name(struct fs_dirent *ent, const char *name)
{
	ent->name = name;
	ent->name_len = strlen(name);
}

static bool is_overlay(const char *name, size_t len)
{
	for (size_t i = 0; i < ARRAY_SIZE(overlays); i++)
		if (len == strlen(overlays[i]) && !memcmp(name, overlays[i], len))
			return true;
	return false;
}

/* The directory's own entries, after "." and "..". */
static int source_next(struct dir_iter *it, struct fs_dirent *ent)
{
	bool root = !strcmp(it->path, "/"), is_dir;
	struct initrd_dirent d;
	int ret;

	if (under(it->path, "/proc")) {
		const char *rel = it->path[5] ? it->path + 6 : "";

		/* procfs's own files first (extra 0), then the processes' (extra 1). */
		if (!it->extra) {
			ret = procfs_readdir(rel, &it->cookie, &ent->name, &ent->name_len, &is_dir);
			if (ret == 1)
				return 1;
			if (ret == 0 && *rel)
				return 0;
			it->extra = 1;
			it->cookie = 0;
		}
		if (procfs_pid_readdir(rel, &it->cookie, it->name_buf, sizeof(it->name_buf)) != 1)
			return 0;
		set_name(ent, it->name_buf);
		return 1;
	}
	if (under(it->path, "/sys"))
		return sysfs_readdir(it->path[4] ? it->path + 5 : "", &it->cookie, &ent->name,
				     &ent->name_len, &is_dir) == 1;
	if (under(it->path, "/tmp")) {
		if (tmpfs_readdir(it->path[4] ? it->path + 5 : "", &it->cookie, it->name_buf,
				  sizeof(it->name_buf)) != 1)
			return 0;
		set_name(ent, it->name_buf);
		return 1;
	}
	if (!strcmp(it->path, "/dev")) {
		if (it->cookie >= ARRAY_SIZE(dev_names))
			return 0;
		set_name(ent, dev_names[it->cookie++]);
		return 1;
	}
	if (root && it->extra < ARRAY_SIZE(overlays)) {
		set_name(ent, overlays[it->extra++]);
		return 1;
	}
	for (;;) {
		ret = initrd_readdir(it->path, &it->cookie, &d);
		if (ret != 1)
			return 0; /* the end, or no initrd at all (the root is there anyway) */
		if (root && is_overlay(d.name, d.name_len))
			continue; /* hidden by /dev, /proc, /sys and /tmp */
		ent->name = d.name;
		ent->name_len = d.name_len;
		return 1;
	}
}

int dir_iter_next(struct dir_iter *it, struct fs_dirent *ent)
{
	if (it->pos < 2) {
		set_name(ent, it->pos ? ".." : ".");
		it->pos++;
		return 1;
	}
	if (!source_next(it, ent))
		return 0;
	it->pos++;
	return 1;
}

void dir_iter_seek(struct dir_iter *it, const char *path, u64 pos)
{
	struct fs_dirent ent;

	it->path = path;
	it->pos = 0;
	it->extra = 0;
	it->cookie = 0;
	while (it->pos < pos && dir_iter_next(it, &ent))
		;
}

/* The path of entry ent of directory dir into buf (PATH_MAX bytes); false if too long. */
static bool entry_path(const char *dir, const struct fs_dirent *ent, char *buf)
{
	size_t dlen = strlen(dir);

	if (ent->name_len == 1 && ent->name[0] == '.') {
		memcpy(buf, dir, dlen + 1);
		return true;
	}
	if (ent->name_len == 2 && !memcmp(ent->name, "..", 2)) {
		const char *slash = strrchr(dir, '/');
		size_t plen = slash && slash != dir ? (size_t)(slash - dir) : 1;

		memcpy(buf, dir, plen); /* the root's parent is the root */
		buf[plen] = '\0';
		return true;
	}
	if (strcmp(dir, "/") == 0)
		dlen = 0;
	if (dlen + 1 + ent->name_len >= PATH_MAX)
		return false;
	memcpy(buf, dir, dlen);
	buf[dlen] = '/';
	memcpy(buf + dlen + 1, ent->name, ent->name_len);
	buf[dlen + 1 + ent->name_len] = '\0';
	return true;
}

/* d_ino and d_type from the entry's stat. */
static void entry_ids(const char *path, u64 *ino, u8 *type)
{
	struct fs_node node;
	struct kstat st;

	*ino = 0;
	*type = DT_UNKNOWN;
	if (fs_lookup(path, &node))
		return;
	fs_path_kstat(path, &node, &st);
	*ino = st.st_ino;
	*type = dirent_type(st.st_mode);
}

long sys_getdents64(int fd, void *udirent, unsigned int count)
{
	struct file *f = fget(fd);
	struct fs_dirent ent;
	struct dir_iter it;
	const char *dir;
	size_t done = 0;
	char *buf;
	long err = 0;

	if (!f)
		return -EBADF;
	dir = dir_path(f);
	if (!dir) {
		fput(f);
		return -ENOTDIR;
	}
	buf = kmalloc(PATH_MAX + RECORD_MAX);
	if (!buf) {
		fput(f);
		return -ENOMEM;
	}
	/* Threads sharing the descriptor race on the offset (Linux serialises them). */
	dir_iter_seek(&it, dir, (u64)__atomic_load_n(&f->f_pos, __ATOMIC_RELAXED));
	while (dir_iter_next(&it, &ent)) {
		char *rec = buf + PATH_MAX;
		size_t len;
		u64 ino = 0;
		u8 type = DT_UNKNOWN;

		if (entry_path(dir, &ent, buf))
			entry_ids(buf, &ino, &type);
		len = dirent64_pack(rec, MIN((size_t)RECORD_MAX, (size_t)count - done), ino,
				    (s64)it.pos, type, ent.name, ent.name_len);
		if (!len) {
			if (!done)
				err = -EINVAL; /* not even one entry fits */
			break;
		}
		if (copy_to_user((char *)udirent + done, rec, len)) {
			if (!done)
				err = -EFAULT;
			break;
		}
		done += len;
		__atomic_store_n(&f->f_pos, (s64)it.pos, __ATOMIC_RELAXED);
	}
	kfree(buf);
	fput(f);
	return done ? (long)done : err;
}
SYSCALL_DEFINE3(getdents64, int, void *, unsigned int);

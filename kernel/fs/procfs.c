/*
 * procfs: a table of registered files and the file operations of an open
 * one. The table only grows after boot (procfs_reset is for tests), so an
 * entry found under the lock stays valid after it is dropped.
 */
#include "fs/procfs.h"

#include "fs/file.h"
#include "fs/iov_iter.h"
#include "fs/namei.h"
#include "fs/proc_pid.h"
#include "fs/seqbuf.h"
#include "fs/stat.h"
#include "lib/compiler.h"
#include "lib/errno.h"
#include "lib/spinlock.h"
#include "lib/string.h"
#include "mm/heap.h"

#define PROCFS_INO_BASE 0x1000

struct proc_entry {
	char path[PROCFS_PATH_MAX];
	procfs_show_fn show;
	procfs_store_fn store;
	void *arg;
};

/*
 * An open file: its entry (NULL for a per-process file, which has its
 * inode number instead) and, if opened for reading, the snapshot show
 * printed.
 */
struct proc_file {
	const struct proc_entry *entry;
	u64 ino;
	struct seqbuf text;
};

static struct spinlock table_lock = SPINLOCK_INIT;
static struct proc_entry entries[PROCFS_MAX_ENTRIES];
static unsigned int nr_entries;

/* Components separated by single slashes, none empty, "." or "..". */
static bool path_ok(const char *p)
{
	const char *c = p;

	if (!*p)
		return false;
	for (;;) {
		const char *end = strchr(c, '/');
		size_t n = end ? (size_t)(end - c) : strlen(c);

		if (n == 0 || (n == 1 && c[0] == '.') || (n == 2 && c[0] == '.' && c[1] == '.'))
			return false;
		if (!end)
			return true;
		c = end + 1;
	}
}

/* a is a directory above b: b starts with a and a slash. */
static bool is_parent(const char *a, const char *b)
{
	size_t n = strlen(a);

	return strncmp(a, b, n) == 0 && b[n] == '/';
}

static enum procfs_kind lookup_locked(const char *rel, const struct proc_entry **found)
{
	if (!*rel)
		return PROCFS_DIR;
	for (unsigned int i = 0; i < nr_entries; i++) {
		if (strcmp(entries[i].path, rel) == 0) {
			if (found)
				*found = &entries[i];
			return PROCFS_FILE;
		}
	}
	for (unsigned int i = 0; i < nr_entries; i++)
		if (is_parent(rel, entries[i].path))
			return PROCFS_DIR;
	return PROCFS_NONE;
}

int procfs_register(const char *path, procfs_show_fn show, procfs_store_fn store, void *arg)
{
	unsigned long flags;
	int err = 0;

	if (!show || !path_ok(path))
		return -EINVAL;
	if (strlen(path) >= PROCFS_PATH_MAX)
		return -ENAMETOOLONG;
	flags = spin_lock_irqsave(&table_lock);
	for (unsigned int i = 0; i < nr_entries && !err; i++) {
		const char *other = entries[i].path;

		if (!strcmp(other, path) || is_parent(other, path) || is_parent(path, other))
			err = -EEXIST;
	}
	if (!err && nr_entries == PROCFS_MAX_ENTRIES)
		err = -ENOSPC;
	if (!err) {
		struct proc_entry *e = &entries[nr_entries];

		memcpy(e->path, path, strlen(path) + 1);
		e->show = show;
		e->store = store;
		e->arg = arg;
		/* Published last: a lookup never sees a half-made entry. */
		__atomic_store_n(&nr_entries, nr_entries + 1, __ATOMIC_RELEASE);
	}
	spin_unlock_irqrestore(&table_lock, flags);
	return err;
}

void procfs_reset(void)
{
	unsigned long flags = spin_lock_irqsave(&table_lock);

	nr_entries = 0;
	spin_unlock_irqrestore(&table_lock, flags);
}

static enum procfs_kind raw_lookup(const char *rel)
{
	unsigned long flags = spin_lock_irqsave(&table_lock);
	enum procfs_kind kind = lookup_locked(rel, NULL);

	spin_unlock_irqrestore(&table_lock, flags);
	return kind;
}

/* The component of entry path e right under the directory rel, or NULL if e is not below it. */
static const char *child_of(const char *rel, const char *e, size_t *len, bool *is_dir)
{
	const char *c = e, *slash;

	if (*rel) {
		if (!is_parent(rel, e))
			return NULL;
		c = e + strlen(rel) + 1;
	}
	slash = strchr(c, '/');
	*len = slash ? (size_t)(slash - c) : strlen(c);
	*is_dir = slash != NULL;
	return c;
}

static int raw_readdir(const char *rel, size_t *cookie, const char **name, size_t *name_len,
		       bool *is_dir)
{
	unsigned long flags = spin_lock_irqsave(&table_lock);
	unsigned int i = (unsigned int)MIN(*cookie, (size_t)nr_entries);
	int ret = 0;

	if (lookup_locked(rel, NULL) != PROCFS_DIR) {
		spin_unlock_irqrestore(&table_lock, flags);
		return -ENOENT;
	}
	for (; i < nr_entries && !ret; i++) {
		size_t len, other_len;
		bool dir, other_dir, seen = false;
		const char *c = child_of(rel, entries[i].path, &len, &dir);

		if (!c || (!*rel && c[0] == SYSFS_MARK))
			continue; /* /sys's files are not under /proc */
		/* A directory is implied by every file under it: name it once, at its first. */
		for (unsigned int j = 0; j < i && !seen; j++) {
			const char *o = child_of(rel, entries[j].path, &other_len, &other_dir);

			seen = o && other_len == len && !memcmp(o, c, len);
		}
		if (seen)
			continue;
		*name = c;
		*name_len = len;
		*is_dir = dir;
		ret = 1;
	}
	*cookie = i;
	spin_unlock_irqrestore(&table_lock, flags);
	return ret;
}

static struct proc_file *pf_of(struct file *f)
{
	return f->private_data;
}

static long proc_pread(struct file *f, struct iov_iter *to, s64 pos)
{
	struct proc_file *pf = pf_of(f);
	size_t n, got;

	if (pos < 0 || (size_t)pos >= pf->text.len)
		return 0;
	n = MIN(pf->text.len - (size_t)pos, iov_iter_count(to));
	got = copy_to_iter(pf->text.buf + pos, n, to);
	if (!got && n)
		return -EFAULT;
	return (long)got;
}

static long proc_read(struct file *f, struct iov_iter *to)
{
	long got = proc_pread(f, to, f->f_pos);

	if (got > 0)
		f->f_pos += got;
	return got;
}

static long proc_write(struct file *f, struct iov_iter *from)
{
	const struct proc_entry *e = pf_of(f)->entry;
	size_t n = iov_iter_count(from);
	char *buf;
	int err;

	if (n > PROCFS_STORE_MAX)
		return -EINVAL;
	buf = kmalloc(n + 1);
	if (!buf)
		return -ENOMEM;
	if (copy_from_iter(buf, n, from) != n) {
		kfree(buf);
		return -EFAULT;
	}
	buf[n] = '\0';
	err = e->store(buf, n, e->arg);
	kfree(buf);
	return err < 0 ? err : (long)n;
}

/* A store takes the whole write whatever the offset. */
static long proc_pwrite(struct file *f, struct iov_iter *from, s64 pos)
{
	return proc_write(f, from);
}

/* seq_lseek: SEEK_SET and SEEK_CUR within the snapshot's positions. */
static s64 proc_lseek(struct file *f, s64 offset, int whence)
{
	s64 pos;

	if (whence == SEEK_SET)
		pos = offset;
	else if (whence == SEEK_CUR)
		pos = f->f_pos + offset;
	else
		return -EINVAL;
	if (pos < 0)
		return -EINVAL;
	f->f_pos = pos;
	return pos;
}

static void entry_kstat(const struct proc_entry *e, struct kstat *st)
{
	st->st_dev = e->path[0] == SYSFS_MARK ? KDEV_SYSFS : KDEV_PROC;
	st->st_ino = PROCFS_INO_BASE + (u64)(e - entries);
	st->st_mode = S_IFREG | (e->store ? 0644 : 0444);
	st->st_nlink = 1;
	st->st_blksize = 1024;
}

static void proc_fstat(struct file *f, struct kstat *st)
{
	const struct proc_file *pf = pf_of(f);

	if (pf->entry) {
		entry_kstat(pf->entry, st);
		return;
	}
	st->st_dev = KDEV_PROC; /* a per-process file */
	st->st_ino = pf->ino;
	st->st_mode = S_IFREG | 0444;
	st->st_nlink = 1;
	st->st_blksize = 1024;
}

static int raw_kstat(const char *rel, struct kstat *st)
{
	const struct proc_entry *e = NULL;
	unsigned long flags = spin_lock_irqsave(&table_lock);
	enum procfs_kind kind = lookup_locked(rel, &e);

	spin_unlock_irqrestore(&table_lock, flags);
	if (kind != PROCFS_FILE)
		return -ENOENT;
	entry_kstat(e, st);
	return 0;
}

static void proc_release(struct file *f)
{
	struct proc_file *pf = pf_of(f);

	seqbuf_free(&pf->text);
	kfree(pf);
}

static const struct file_ops proc_ops = {
	.read = proc_read,
	.write = proc_write,
	.lseek = proc_lseek,
	.pread = proc_pread,
	.pwrite = proc_pwrite,
	.fstat = proc_fstat,
	.release = proc_release,
};

/* A per-process file (proc_pid.h): read-only, printed at open. */
static struct file *open_pid_file(const char *rel, unsigned int flags, int *err)
{
	struct fs_node *n = kmalloc(sizeof(*n));
	struct proc_file *pf = NULL;
	struct file *f = NULL;

	*err = -ENOMEM;
	if (!n)
		return NULL;
	*err = procfs_pid_lookup(rel, n);
	if (*err > 0)
		*err = -ENOENT;
	else if (!*err && n->kind != NODE_PROC)
		*err = n->kind == NODE_DIR ? -EISDIR : -ENOENT;
	else if (!*err && (flags & O_ACCMODE) != O_RDONLY)
		*err = -EACCES;
	if (!*err) {
		pf = kzalloc(sizeof(*pf));
		*err = pf ? 0 : -ENOMEM;
	}
	if (!*err) {
		pf->ino = n->ino;
		seqbuf_init(&pf->text);
		*err = procfs_pid_show(rel, &pf->text);
	}
	if (!*err) {
		f = file_alloc(&proc_ops, flags, pf);
		*err = f ? 0 : -ENOMEM;
	}
	if (*err && pf) {
		seqbuf_free(&pf->text);
		kfree(pf);
	}
	kfree(n);
	return f;
}

static struct file *raw_open(const char *rel, unsigned int flags, int *err)
{
	const struct proc_entry *e = NULL;
	unsigned long lf = spin_lock_irqsave(&table_lock);
	enum procfs_kind kind = lookup_locked(rel, &e);
	unsigned int acc = flags & O_ACCMODE;
	struct proc_file *pf;
	struct file *f;

	spin_unlock_irqrestore(&table_lock, lf);
	if (kind == PROCFS_NONE)
		return open_pid_file(rel, flags, err);
	if (kind != PROCFS_FILE) {
		*err = kind == PROCFS_DIR ? -EISDIR : -ENOENT;
		return NULL;
	}
	if ((acc == O_WRONLY || acc == O_RDWR) && !e->store) {
		*err = -EACCES;
		return NULL;
	}
	pf = kzalloc(sizeof(*pf));
	if (!pf) {
		*err = -ENOMEM;
		return NULL;
	}
	pf->entry = e;
	seqbuf_init(&pf->text);
	if (acc == O_RDONLY || acc == O_RDWR) {
		*err = e->show(&pf->text, e->arg);
		if (*err) {
			seqbuf_free(&pf->text);
			kfree(pf);
			return NULL;
		}
	}
	f = file_alloc(&proc_ops, flags, pf);
	if (!f) {
		seqbuf_free(&pf->text);
		kfree(pf);
		*err = -ENOMEM;
	}
	return f;
}

/* Stand-ins without processes (the host unit tests); kernel/proc/proc_pid.c has the real ones. */
__attribute__((weak)) int procfs_pid_lookup(const char *rel, struct fs_node *n)
{
	return 1;
}

__attribute__((weak)) int procfs_pid_show(const char *rel, struct seqbuf *sb)
{
	return -ENOENT;
}

__attribute__((weak)) int procfs_pid_readdir(const char *rel, size_t *cookie, char *buf, size_t size)
{
	return *rel ? -ENOENT : 0;
}

/* /proc's own view: a path starting with SYSFS_MARK is /sys's, not /proc's. */
static bool hidden(const char *rel)
{
	return rel[0] == SYSFS_MARK;
}

enum procfs_kind procfs_lookup(const char *rel)
{
	return hidden(rel) ? PROCFS_NONE : raw_lookup(rel);
}

int procfs_readdir(const char *rel, size_t *cookie, const char **name, size_t *name_len, bool *is_dir)
{
	return hidden(rel) ? -ENOENT : raw_readdir(rel, cookie, name, name_len, is_dir);
}

int procfs_kstat(const char *rel, struct kstat *st)
{
	return hidden(rel) ? -ENOENT : raw_kstat(rel, st);
}

struct file *procfs_open(const char *rel, unsigned int flags, int *err)
{
	if (hidden(rel)) {
		*err = -ENOENT;
		return NULL;
	}
	return raw_open(rel, flags, err);
}

/* rel under /sys as the table names it: SYSFS_PREFIX and rel ("" is /sys itself). */
static bool sys_path(const char *rel, char *buf)
{
	size_t n = strlen(rel), p = strlen(SYSFS_PREFIX);

	if (p + 1 + n >= PROCFS_PATH_MAX)
		return false;
	memcpy(buf, SYSFS_PREFIX, p);
	if (n) {
		buf[p] = '/';
		memcpy(buf + p + 1, rel, n + 1);
	} else {
		buf[p] = '\0';
	}
	return true;
}

enum procfs_kind sysfs_lookup(const char *rel)
{
	char path[PROCFS_PATH_MAX];

	if (!*rel)
		return PROCFS_DIR; /* /sys exists with nothing in it */
	return sys_path(rel, path) ? raw_lookup(path) : PROCFS_NONE;
}

int sysfs_readdir(const char *rel, size_t *cookie, const char **name, size_t *name_len, bool *is_dir)
{
	char path[PROCFS_PATH_MAX];

	if (!sys_path(rel, path))
		return -ENOENT;
	if (!*rel && raw_lookup(path) == PROCFS_NONE)
		return 0; /* an empty /sys */
	return raw_readdir(path, cookie, name, name_len, is_dir);
}

int sysfs_kstat(const char *rel, struct kstat *st)
{
	char path[PROCFS_PATH_MAX];

	return sys_path(rel, path) ? raw_kstat(path, st) : -ENOENT;
}

struct file *sysfs_open(const char *rel, unsigned int flags, int *err)
{
	char path[PROCFS_PATH_MAX];

	if (!sys_path(rel, path)) {
		*err = -ENOENT;
		return NULL;
	}
	return raw_open(path, flags, err);
}

/*
 * tmpfs at /tmp (see tmpfs.h): a tree of inodes in kernel memory under
 * one sleeping lock, which stays held across the copies to and from user
 * memory of read and write (they may fault and sleep). An inode lives
 * while it has a name (nlink) or an open file (opens); the last of the
 * two to go frees its pages, as Linux's shmem_evict_inode.
 *
 * Timestamps follow Linux's tmpfs: a write or a size change sets mtime
 * and ctime, a new or removed name sets its directory's, a link count or
 * mode change sets ctime, and reads set atime under relatime (only when
 * atime is not already after mtime and ctime, or is a day old).
 */
#include "fs/tmpfs.h"

#include "fs/file.h"
#include "fs/file_pos.h"
#include "fs/iov_iter.h"
#include "fs/namei.h"
#include "fs/stat.h"
#include "ipc/sleeplock.h"
#include "lib/compiler.h"
#include "lib/errno.h"
#include "lib/string.h"
#include "mm/heap.h"
#include "proc/sys_time.h"
#include "time/realtime.h"

#define TMPFS_PAGE     4096
#define TMPFS_MAX_SIZE ((s64)1 << 40)		  /* bytes per file; more is -EFBIG */
#define RELATIME_NS    (24 * 3600 * NSEC_PER_SEC) /* an atime older than this is renewed */

/* Which timestamps stamp() sets. */
#define T_ACCESS 1u
#define T_MODIFY 2u
#define T_CHANGE 4u

struct tmpfs_inode;

struct tmpfs_dirent {
	struct tmpfs_dirent *next;
	struct tmpfs_inode *inode;
	size_t len;
	char name[]; /* NUL-terminated */
};

struct tmpfs_inode {
	u64 ino;
	u32 mode;  /* S_IF* and permission bits */
	u32 nlink; /* names; a directory: 2 + its subdirectories */
	long opens;
	u64 size;     /* a file's bytes; a symlink's target length */
	void **pages; /* a file: nslots pages, NULL for one never written (zeros) */
	size_t nslots;
	char *target;		       /* a symlink's */
	struct tmpfs_dirent *children; /* a directory's, oldest first */
	u64 atime, mtime, ctime;       /* ns since the epoch */
};

static struct sleeplock tmpfs_lock;
static struct tmpfs_inode *tmpfs_root;
static u64 next_ino = 2;
static u64 live_inodes, live_pages, max_pages;
static const char zero_page[TMPFS_PAGE];

static const struct file_ops tmpfs_file_ops;

/* Sets the timestamps in what (T_*) to now. Lock held (or the inode not yet shared). */
static void stamp(struct tmpfs_inode *ip, unsigned int what)
{
	u64 now = clock_realtime_ns();

	if (what & T_ACCESS)
		ip->atime = now;
	if (what & T_MODIFY)
		ip->mtime = now;
	if (what & T_CHANGE)
		ip->ctime = now;
}

/* A read or a directory listing: atime renewed as Linux's relatime does. Lock held. */
static void accessed(struct tmpfs_inode *ip)
{
	u64 now = clock_realtime_ns();

	if (ip->mtime >= ip->atime || ip->ctime >= ip->atime || now - ip->atime >= RELATIME_NS)
		ip->atime = now;
}

static struct tmpfs_inode *inode_new(u32 mode)
{
	struct tmpfs_inode *ip = kzalloc(sizeof(*ip));

	if (!ip)
		return NULL;
	ip->ino = next_ino++;
	ip->mode = mode;
	ip->nlink = S_ISDIR(mode) ? 2 : 1;
	stamp(ip, T_ACCESS | T_MODIFY | T_CHANGE);
	live_inodes++;
	return ip;
}

/* Frees pages from index first on. */
static void drop_pages(struct tmpfs_inode *ip, size_t first)
{
	for (size_t i = first; i < ip->nslots; i++) {
		if (ip->pages[i]) {
			kfree(ip->pages[i]);
			ip->pages[i] = NULL;
			live_pages--;
		}
	}
}

/* The inode goes once it has neither a name nor an open file. Lock held. */
static void inode_put_if_unused(struct tmpfs_inode *ip)
{
	if (ip->nlink || ip->opens)
		return;
	drop_pages(ip, 0);
	kfree(ip->pages);
	kfree(ip->target);
	kfree(ip);
	live_inodes--;
}

void tmpfs_init(u64 limit)
{
	if (tmpfs_root)
		return; /* once: a second call (the host unit tests') keeps what is there */
	sleeplock_init(&tmpfs_lock);
	max_pages = limit ? limit : ~0ULL;
	tmpfs_root = inode_new(S_IFDIR | 01777);
}

void tmpfs_exit(void)
{
	if (!tmpfs_root || tmpfs_root->children)
		return;
	live_inodes--;
	kfree(tmpfs_root);
	tmpfs_root = NULL;
}

const char *tmpfs_rel(const char *path)
{
	if (strncmp(path, "/tmp", 4) || (path[4] && path[4] != '/'))
		return NULL;
	return path[4] ? path + 5 : "";
}

static struct tmpfs_dirent *dir_find(struct tmpfs_inode *dir, const char *name, size_t len)
{
	for (struct tmpfs_dirent *d = dir->children; d; d = d->next)
		if (d->len == len && !memcmp(d->name, name, len))
			return d;
	return NULL;
}

/* The inode at the first len bytes of rel; NULL if missing. Lock held. */
static struct tmpfs_inode *walk(const char *rel, size_t len)
{
	struct tmpfs_inode *ip = tmpfs_root;
	size_t i = 0;

	while (ip && i < len) {
		size_t start = i;
		struct tmpfs_dirent *d;

		while (i < len && rel[i] != '/')
			i++;
		if (!S_ISDIR(ip->mode))
			return NULL;
		d = dir_find(ip, rel + start, i - start);
		ip = d ? d->inode : NULL;
		if (i < len)
			i++; /* the slash */
	}
	return ip;
}

static struct tmpfs_inode *lookup(const char *rel)
{
	return tmpfs_root ? walk(rel, strlen(rel)) : NULL;
}

/* rel's directory and last name. -ENOENT or -ENOTDIR for a missing or non-directory parent. */
static int split(const char *rel, struct tmpfs_inode **dir, const char **name, size_t *len)
{
	const char *slash = strrchr(rel, '/');
	size_t plen = slash ? (size_t)(slash - rel) : 0;

	if (!tmpfs_root)
		return -ENOENT;
	*dir = walk(rel, plen);
	if (!*dir)
		return -ENOENT;
	if (!S_ISDIR((*dir)->mode))
		return -ENOTDIR;
	*name = slash ? slash + 1 : rel;
	*len = strlen(*name);
	return 0;
}

static int dir_add(struct tmpfs_inode *dir, const char *name, size_t len, struct tmpfs_inode *ip)
{
	struct tmpfs_dirent *d = kmalloc(sizeof(*d) + len + 1), **tail;

	if (!d)
		return -ENOMEM;
	d->next = NULL;
	d->inode = ip;
	d->len = len;
	memcpy(d->name, name, len);
	d->name[len] = '\0';
	for (tail = &dir->children; *tail; tail = &(*tail)->next)
		;
	*tail = d;
	stamp(dir, T_MODIFY | T_CHANGE);
	return 0;
}

static void dir_remove(struct tmpfs_inode *dir, struct tmpfs_dirent *victim)
{
	for (struct tmpfs_dirent **p = &dir->children; *p; p = &(*p)->next) {
		if (*p == victim) {
			*p = victim->next;
			kfree(victim);
			stamp(dir, T_MODIFY | T_CHANGE);
			return;
		}
	}
}

static struct kstat_time kstat_time_of(u64 ns)
{
	return (struct kstat_time){ (s64)(ns / NSEC_PER_SEC), (s64)(ns % NSEC_PER_SEC) };
}

static void fill_kstat(const struct tmpfs_inode *ip, struct kstat *st)
{
	size_t pages = 0;

	for (size_t i = 0; i < ip->nslots; i++)
		pages += ip->pages[i] != NULL;
	st->st_dev = KDEV_TMPFS;
	st->st_ino = ip->ino;
	st->st_mode = ip->mode;
	st->st_nlink = ip->nlink;
	st->st_size = S_ISDIR(ip->mode) ? 40 : (s64)ip->size; /* Linux's tmpfs: 20 per entry */
	st->st_blksize = TMPFS_PAGE;
	st->st_blocks = (s64)pages * (TMPFS_PAGE / 512);
	st->st_atim = kstat_time_of(ip->atime);
	st->st_mtim = kstat_time_of(ip->mtime);
	st->st_ctim = kstat_time_of(ip->ctime);
}

int tmpfs_lookup(const char *rel, struct fs_node *n)
{
	struct tmpfs_inode *ip;
	int err = -ENOENT;

	if (!tmpfs_root)
		return -ENOENT;
	sleeplock_acquire(&tmpfs_lock);
	ip = lookup(rel);
	if (ip) {
		n->dev = KDEV_TMPFS;
		n->ino = ip->ino;
		n->mode = ip->mode;
		n->size = ip->size;
		n->data = NULL;
		n->kind = S_ISDIR(ip->mode) ? NODE_DIR :
			  S_ISLNK(ip->mode) ? NODE_SYMLINK :
					      NODE_TMPFS;
		err = 0;
	}
	sleeplock_release(&tmpfs_lock);
	return err;
}

long tmpfs_readlink(const char *rel, char *buf, size_t size)
{
	struct tmpfs_inode *ip;
	long n = -ENOENT;

	if (!tmpfs_root)
		return -ENOENT;
	sleeplock_acquire(&tmpfs_lock);
	ip = lookup(rel);
	if (ip && !S_ISLNK(ip->mode))
		n = -EINVAL;
	else if (ip) {
		n = (long)MIN(ip->size, size);
		memcpy(buf, ip->target, (size_t)n);
		accessed(ip);
	}
	sleeplock_release(&tmpfs_lock);
	return n;
}

int tmpfs_kstat(const char *rel, struct kstat *st)
{
	struct tmpfs_inode *ip;

	if (!tmpfs_root)
		return -ENOENT;
	sleeplock_acquire(&tmpfs_lock);
	ip = lookup(rel);
	if (ip)
		fill_kstat(ip, st);
	sleeplock_release(&tmpfs_lock);
	return ip ? 0 : -ENOENT;
}

/* Size becomes length: pages past it go, the tail of the last one kept is zeroed. Lock held. */
static int set_size(struct tmpfs_inode *ip, s64 length)
{
	size_t keep = (size_t)(((u64)length + TMPFS_PAGE - 1) / TMPFS_PAGE);

	if (length < 0)
		return -EINVAL;
	if (length > TMPFS_MAX_SIZE)
		return -EFBIG;
	if ((u64)length != ip->size)
		stamp(ip, T_MODIFY | T_CHANGE);
	if ((u64)length < ip->size) {
		size_t off = (size_t)length % TMPFS_PAGE;

		drop_pages(ip, keep);
		if (off && keep - 1 < ip->nslots && ip->pages[keep - 1])
			memset((char *)ip->pages[keep - 1] + off, 0, TMPFS_PAGE - off);
	}
	ip->size = (u64)length;
	return 0;
}

struct file *tmpfs_open(const char *rel, unsigned int flags, u32 mode, int *err)
{
	struct tmpfs_inode *ip, *dir;
	const char *name;
	struct file *f;
	size_t len;

	sleeplock_acquire(&tmpfs_lock);
	ip = lookup(rel);
	if (ip && (flags & (O_CREAT | O_EXCL)) == (O_CREAT | O_EXCL)) {
		*err = -EEXIST;
		goto fail;
	}
	if (!ip) {
		*err = (flags & O_CREAT) ? split(rel, &dir, &name, &len) : -ENOENT;
		if (*err)
			goto fail;
		*err = -ENOSPC;
		ip = inode_new(S_IFREG | (mode & 07777));
		if (!ip)
			goto fail;
		*err = dir_add(dir, name, len, ip);
		if (*err) {
			ip->nlink = 0;
			inode_put_if_unused(ip);
			goto fail;
		}
	} else if (!S_ISREG(ip->mode)) {
		*err = S_ISDIR(ip->mode) ? -EISDIR : -ELOOP;
		goto fail;
	}
	/* Linux truncates for O_TRUNC even with O_RDONLY, and stamps the file even if it was empty. */
	if (flags & O_TRUNC) {
		set_size(ip, 0);
		stamp(ip, T_MODIFY | T_CHANGE);
	}
	f = file_alloc(&tmpfs_file_ops, flags, ip);
	if (!f) {
		*err = -ENOMEM;
		goto fail;
	}
	ip->opens++;
	sleeplock_release(&tmpfs_lock);
	*err = 0;
	return f;
fail:
	sleeplock_release(&tmpfs_lock);
	return NULL;
}

static struct tmpfs_inode *inode_of(struct file *f)
{
	return f->private_data;
}

static long tmpfs_pread(struct file *f, struct iov_iter *to, s64 pos)
{
	struct tmpfs_inode *ip = inode_of(f);
	size_t done = 0;

	if (pos < 0)
		return -EINVAL;
	sleeplock_acquire(&tmpfs_lock);
	while (iov_iter_count(to) && (u64)pos < ip->size) {
		size_t idx = (size_t)((u64)pos / TMPFS_PAGE), off = (size_t)((u64)pos % TMPFS_PAGE);
		size_t want = MIN(MIN((size_t)(TMPFS_PAGE - off), iov_iter_count(to)),
				  (size_t)(ip->size - (u64)pos));
		const char *src = idx < ip->nslots && ip->pages[idx] ? ip->pages[idx] : zero_page;
		size_t got = copy_to_iter(src + off, want, to);

		done += got;
		pos += (s64)got;
		if (got < want)
			break;
	}
	accessed(ip);
	sleeplock_release(&tmpfs_lock);
	if (!done && iov_iter_count(to) && (u64)pos < ip->size)
		return -EFAULT;
	return (long)done;
}

/* Makes room for page idx (its slot and the page). Lock held. */
static void *page_for_write(struct tmpfs_inode *ip, size_t idx, int *err)
{
	if (idx >= ip->nslots) {
		size_t n = MAX(idx + 1, ip->nslots * 2);
		void **slots = kzalloc(n * sizeof(*slots));

		if (!slots) {
			*err = -ENOSPC;
			return NULL;
		}
		if (ip->nslots)
			memcpy(slots, ip->pages, ip->nslots * sizeof(*slots));
		kfree(ip->pages);
		ip->pages = slots;
		ip->nslots = n;
	}
	if (!ip->pages[idx]) {
		if (live_pages >= max_pages) {
			*err = -ENOSPC;
			return NULL;
		}
		ip->pages[idx] = kzalloc(TMPFS_PAGE);
		if (!ip->pages[idx]) {
			*err = -ENOSPC;
			return NULL;
		}
		live_pages++;
	}
	return ip->pages[idx];
}

/* pos < 0: append (O_APPEND); returns the bytes written and the end in *end. */
static long tmpfs_write_at(struct file *f, struct iov_iter *from, s64 pos, s64 *end)
{
	struct tmpfs_inode *ip = inode_of(f);
	size_t done = 0;
	int err = 0;

	sleeplock_acquire(&tmpfs_lock);
	if (pos < 0 || (file_flags(f) & O_APPEND))
		pos = (s64)ip->size;
	if (iov_iter_count(from) && pos >= TMPFS_MAX_SIZE)
		err = -EFBIG;
	while (!err && iov_iter_count(from) && pos < TMPFS_MAX_SIZE) {
		size_t idx = (size_t)pos / TMPFS_PAGE, off = (size_t)pos % TMPFS_PAGE;
		size_t want = MIN((size_t)(TMPFS_PAGE - off), iov_iter_count(from));
		char *page = page_for_write(ip, idx, &err);
		size_t got;

		if (!page)
			break;
		got = copy_from_iter(page + off, want, from);
		done += got;
		pos += (s64)got;
		if ((u64)pos > ip->size)
			ip->size = (u64)pos;
		if (got < want) {
			err = -EFAULT;
			break;
		}
	}
	if (done)
		stamp(ip, T_MODIFY | T_CHANGE);
	sleeplock_release(&tmpfs_lock);
	*end = pos;
	return done ? (long)done : err;
}

static long tmpfs_pwrite(struct file *f, struct iov_iter *from, s64 pos)
{
	s64 end;

	if (pos < 0)
		return -EINVAL;
	return tmpfs_write_at(f, from, pos, &end);
}

static long tmpfs_write(struct file *f, struct iov_iter *from)
{
	s64 end;
	long n = tmpfs_write_at(f, from, __atomic_load_n(&f->f_pos, __ATOMIC_RELAXED), &end);

	/* Threads sharing the file race on the offset, as initrd files do. */
	if (n > 0)
		__atomic_store_n(&f->f_pos, end, __ATOMIC_RELAXED);
	return n;
}

/* The file is all data: holes read as zeros but are not reported. */
static s64 tmpfs_lseek(struct file *f, s64 offset, int whence)
{
	return file_lseek_in_size(f, offset, whence,
				  (s64)__atomic_load_n(&inode_of(f)->size, __ATOMIC_RELAXED));
}

static void tmpfs_fstat(struct file *f, struct kstat *st)
{
	sleeplock_acquire(&tmpfs_lock);
	fill_kstat(inode_of(f), st);
	sleeplock_release(&tmpfs_lock);
}

static void tmpfs_release(struct file *f)
{
	struct tmpfs_inode *ip = inode_of(f);

	sleeplock_acquire(&tmpfs_lock);
	ip->opens--;
	inode_put_if_unused(ip);
	sleeplock_release(&tmpfs_lock);
}

static const struct file_ops tmpfs_file_ops = {
	.read = file_read_at_pos,
	.write = tmpfs_write,
	.lseek = tmpfs_lseek,
	.pread = tmpfs_pread,
	.pwrite = tmpfs_pwrite,
	.fstat = tmpfs_fstat,
	.release = tmpfs_release,
};

int tmpfs_readdir(const char *rel, size_t *cookie, char *buf, size_t size)
{
	struct tmpfs_inode *dir;
	struct tmpfs_dirent *d = NULL;
	int ret = 0;

	if (!tmpfs_root)
		return 0;
	sleeplock_acquire(&tmpfs_lock);
	dir = lookup(rel);
	if (dir && S_ISDIR(dir->mode)) {
		size_t i = 0;

		for (d = dir->children; d && i < *cookie; d = d->next)
			i++;
		accessed(dir);
	}
	if (d && d->len < size) {
		memcpy(buf, d->name, d->len + 1);
		(*cookie)++;
		ret = 1;
	}
	sleeplock_release(&tmpfs_lock);
	return ret;
}

int tmpfs_mkdir(const char *rel, u32 mode)
{
	struct tmpfs_inode *dir, *ip;
	const char *name;
	size_t len;
	int err;

	sleeplock_acquire(&tmpfs_lock);
	err = *rel ? split(rel, &dir, &name, &len) : -EEXIST;
	if (!err && dir_find(dir, name, len))
		err = -EEXIST;
	if (!err) {
		ip = inode_new(S_IFDIR | (mode & 07777));
		err = ip ? dir_add(dir, name, len, ip) : -ENOSPC;
		if (!err) {
			dir->nlink++;
		} else if (ip) {
			ip->nlink = 0;
			inode_put_if_unused(ip);
		}
	}
	sleeplock_release(&tmpfs_lock);
	return err;
}

/* The entry rel names and its directory; -ENOENT if either is missing. Lock held. */
static int find_entry(const char *rel, struct tmpfs_inode **dir, struct tmpfs_dirent **d)
{
	const char *name;
	size_t len;
	int err = split(rel, dir, &name, &len);

	if (err)
		return err;
	*d = dir_find(*dir, name, len);
	return *d ? 0 : -ENOENT;
}

/* The last name of a directory goes: it and its parent's link to it. Lock held. */
static void remove_dir_entry(struct tmpfs_inode *parent, struct tmpfs_dirent *d)
{
	struct tmpfs_inode *ip = d->inode;

	dir_remove(parent, d);
	parent->nlink--;
	ip->nlink = 0;
	inode_put_if_unused(ip);
}

static void remove_file_entry(struct tmpfs_inode *parent, struct tmpfs_dirent *d)
{
	struct tmpfs_inode *ip = d->inode;

	dir_remove(parent, d);
	ip->nlink--;
	stamp(ip, T_CHANGE);
	inode_put_if_unused(ip);
}

int tmpfs_rmdir(const char *rel)
{
	struct tmpfs_inode *dir;
	struct tmpfs_dirent *d;
	int err;

	if (!*rel)
		return -EBUSY; /* the mount point */
	sleeplock_acquire(&tmpfs_lock);
	err = find_entry(rel, &dir, &d);
	if (!err && !S_ISDIR(d->inode->mode))
		err = -ENOTDIR;
	else if (!err && d->inode->children)
		err = -ENOTEMPTY;
	if (!err)
		remove_dir_entry(dir, d);
	sleeplock_release(&tmpfs_lock);
	return err;
}

int tmpfs_unlink(const char *rel)
{
	struct tmpfs_inode *dir;
	struct tmpfs_dirent *d;
	int err;

	if (!*rel)
		return -EISDIR;
	sleeplock_acquire(&tmpfs_lock);
	err = find_entry(rel, &dir, &d);
	if (!err && S_ISDIR(d->inode->mode))
		err = -EISDIR;
	if (!err)
		remove_file_entry(dir, d);
	sleeplock_release(&tmpfs_lock);
	return err;
}

int tmpfs_link(const char *old_rel, const char *new_rel)
{
	struct tmpfs_inode *ip, *dir;
	const char *name;
	size_t len;
	int err;

	sleeplock_acquire(&tmpfs_lock);
	ip = lookup(old_rel);
	err = ip ? 0 : -ENOENT;
	if (!err && S_ISDIR(ip->mode))
		err = -EPERM;
	if (!err)
		err = *new_rel ? split(new_rel, &dir, &name, &len) : -EEXIST;
	if (!err && dir_find(dir, name, len))
		err = -EEXIST;
	if (!err)
		err = dir_add(dir, name, len, ip);
	if (!err) {
		ip->nlink++;
		stamp(ip, T_CHANGE);
	}
	sleeplock_release(&tmpfs_lock);
	return err;
}

int tmpfs_symlink(const char *target, const char *new_rel)
{
	size_t tlen = strlen(target), len;
	struct tmpfs_inode *dir, *ip;
	const char *name;
	int err;

	sleeplock_acquire(&tmpfs_lock);
	err = *new_rel ? split(new_rel, &dir, &name, &len) : -EEXIST;
	if (!err && dir_find(dir, name, len))
		err = -EEXIST;
	if (!err) {
		err = -ENOSPC;
		ip = inode_new(S_IFLNK | 0777);
		if (ip) {
			ip->target = kmalloc(tlen + 1);
			ip->size = tlen;
			err = ip->target ? dir_add(dir, name, len, ip) : -ENOSPC;
			if (ip->target)
				memcpy(ip->target, target, tlen + 1);
			if (err) {
				ip->nlink = 0;
				inode_put_if_unused(ip);
			}
		}
	}
	sleeplock_release(&tmpfs_lock);
	return err;
}

/* Whether path b is a inside a (a proper descendant). */
static bool is_descendant(const char *a, const char *b)
{
	size_t n = strlen(a);

	return !*a ? *b != '\0' : !strncmp(a, b, n) && b[n] == '/';
}

/* Linux's checks for putting old where new is (new_d may be NULL), in vfs_rename's order. */
static int rename_check(struct tmpfs_inode *old, struct tmpfs_dirent *new_d, unsigned int flags)
{
	struct tmpfs_inode *victim = new_d ? new_d->inode : NULL;

	if (!victim)
		return (flags & RENAME_EXCHANGE) ? -ENOENT : 0;
	if (flags & RENAME_NOREPLACE)
		return -EEXIST;
	if (flags & RENAME_EXCHANGE)
		return 0;
	if (S_ISDIR(old->mode) && !S_ISDIR(victim->mode))
		return -ENOTDIR;
	if (!S_ISDIR(old->mode) && S_ISDIR(victim->mode))
		return -EISDIR;
	if (S_ISDIR(victim->mode) && victim->children)
		return -ENOTEMPTY;
	return 0;
}

int tmpfs_rename(const char *old_rel, const char *new_rel, unsigned int flags)
{
	struct tmpfs_inode *odir, *ndir, *old;
	struct tmpfs_dirent *od, *nd;
	const char *name;
	size_t len;
	int err;

	if (flags & ~(RENAME_NOREPLACE | RENAME_EXCHANGE | RENAME_WHITEOUT))
		return -EINVAL;
	if ((flags & RENAME_EXCHANGE) && (flags & (RENAME_NOREPLACE | RENAME_WHITEOUT)))
		return -EINVAL;
	if (flags & RENAME_WHITEOUT)
		return -EINVAL; /* no overlay file systems here: whiteouts mean nothing */
	if (!*old_rel || !*new_rel)
		return -EBUSY;
	sleeplock_acquire(&tmpfs_lock);
	err = find_entry(old_rel, &odir, &od);
	if (!err)
		err = split(new_rel, &ndir, &name, &len);
	if (err)
		goto out;
	old = od->inode;
	nd = dir_find(ndir, name, len);
	if (nd && nd->inode == old)
		goto out; /* the same file: nothing to do, as POSIX says */
	err = rename_check(old, nd, flags);
	/* A directory cannot go inside itself, nor (exchanged) take the place of its own parent. */
	if (!err && S_ISDIR(old->mode) && is_descendant(old_rel, new_rel))
		err = -EINVAL;
	if (!err && nd && (flags & RENAME_EXCHANGE) && S_ISDIR(nd->inode->mode) &&
	    is_descendant(new_rel, old_rel))
		err = -EINVAL;
	if (err)
		goto out;
	if (flags & RENAME_EXCHANGE) {
		bool odir_is = S_ISDIR(old->mode), ndir_is = S_ISDIR(nd->inode->mode);

		od->inode = nd->inode;
		nd->inode = old;
		stamp(odir, T_MODIFY | T_CHANGE);
		stamp(ndir, T_MODIFY | T_CHANGE);
		stamp(old, T_CHANGE);
		stamp(od->inode, T_CHANGE);
		if (odir != ndir && odir_is != ndir_is) {
			/* A directory changed parents: move its ".." link. */
			if (odir_is) {
				odir->nlink--;
				ndir->nlink++;
			} else {
				ndir->nlink--;
				odir->nlink++;
			}
		}
		goto out;
	}
	if (nd) {
		struct tmpfs_inode *victim = nd->inode;

		nd->inode = old;
		stamp(ndir, T_MODIFY | T_CHANGE);
		stamp(victim, T_CHANGE);
		if (S_ISDIR(victim->mode)) {
			ndir->nlink--;
			victim->nlink = 0;
		} else {
			victim->nlink--;
		}
		inode_put_if_unused(victim);
	} else {
		err = dir_add(ndir, name, len, old);
		if (err)
			goto out;
	}
	dir_remove(odir, od);
	stamp(old, T_CHANGE);
	if (S_ISDIR(old->mode)) {
		odir->nlink--;
		ndir->nlink++;
	}
out:
	sleeplock_release(&tmpfs_lock);
	return err;
}

int tmpfs_chmod(const char *rel, struct file *f, u32 mode)
{
	struct tmpfs_inode *ip;

	if (f && f->ops != &tmpfs_file_ops)
		return -EROFS;
	sleeplock_acquire(&tmpfs_lock);
	ip = f ? inode_of(f) : lookup(rel);
	if (ip) {
		ip->mode = (ip->mode & S_IFMT) | (mode & 07777);
		stamp(ip, T_CHANGE);
	}
	sleeplock_release(&tmpfs_lock);
	return ip ? 0 : -ENOENT;
}

int tmpfs_set_times(const char *rel, struct file *f, const u64 times[2])
{
	struct tmpfs_inode *ip;
	u64 now = clock_realtime_ns();

	if (f && f->ops != &tmpfs_file_ops)
		return -EROFS;
	sleeplock_acquire(&tmpfs_lock);
	ip = f ? inode_of(f) : lookup(rel);
	if (ip) {
		if (times[0] != TMPFS_TIME_OMIT)
			ip->atime = times[0] == TMPFS_TIME_NOW ? now : times[0];
		if (times[1] != TMPFS_TIME_OMIT)
			ip->mtime = times[1] == TMPFS_TIME_NOW ? now : times[1];
		ip->ctime = now;
	}
	sleeplock_release(&tmpfs_lock);
	return ip ? 0 : -ENOENT;
}

int tmpfs_truncate_path(const char *rel, s64 length)
{
	struct tmpfs_inode *ip;
	int err;

	sleeplock_acquire(&tmpfs_lock);
	ip = lookup(rel);
	if (!ip)
		err = -ENOENT;
	else if (S_ISDIR(ip->mode))
		err = -EISDIR;
	else if (!S_ISREG(ip->mode))
		err = -EINVAL;
	else
		err = set_size(ip, length);
	sleeplock_release(&tmpfs_lock);
	return err;
}

int tmpfs_truncate_file(struct file *f, s64 length)
{
	int err;

	if (f->ops != &tmpfs_file_ops || !(f->f_mode & FMODE_WRITE))
		return -EINVAL;
	sleeplock_acquire(&tmpfs_lock);
	err = set_size(inode_of(f), length);
	sleeplock_release(&tmpfs_lock);
	return err;
}

void tmpfs_get_usage(struct tmpfs_usage *out)
{
	out->inodes = __atomic_load_n(&live_inodes, __ATOMIC_RELAXED);
	out->pages = __atomic_load_n(&live_pages, __ATOMIC_RELAXED);
	out->max_pages = max_pages;
}

/* Initrd regular files and directories as open files (see initrd_file.h). */
#include "fs/initrd_file.h"

#include "fs/file.h"
#include "fs/file_pos.h"
#include "fs/iov_iter.h"
#include "fs/namei.h"
#include "fs/stat.h"
#include "lib/compiler.h"
#include "lib/errno.h"
#include "lib/string.h"
#include "mm/heap.h"

#define ROOTFS_BLKSIZE 4096

struct mem_node {
	struct fs_node node;
	char path[]; /* directories only */
};

static const struct fs_node *node_of(struct file *f)
{
	return &((struct mem_node *)f->private_data)->node;
}

static long file_pread(struct file *f, struct iov_iter *to, s64 pos)
{
	const struct fs_node *n = node_of(f);
	size_t want, got;

	if (pos < 0 || (u64)pos >= n->size)
		return 0;
	want = MIN(n->size - (size_t)pos, iov_iter_count(to));
	got = copy_to_iter((const char *)n->data + pos, want, to);
	if (!got && want)
		return -EFAULT;
	return (long)got;
}

static s64 file_lseek(struct file *f, s64 offset, int whence)
{
	return file_lseek_in_size(f, offset, whence, (s64)node_of(f)->size);
}

void fs_node_kstat(const struct fs_node *n, struct kstat *st)
{
	st->st_dev = n->dev;
	st->st_ino = n->ino;
	st->st_mode = n->mode;
	st->st_nlink = n->kind == NODE_DIR ? 2 : 1;
	st->st_size = n->kind == NODE_DIR ? 0 : (s64)n->size;
	st->st_blksize = ROOTFS_BLKSIZE;
	st->st_blocks = (st->st_size + 511) / 512;
}

static void node_fstat(struct file *f, struct kstat *st)
{
	fs_node_kstat(node_of(f), st);
}

static void node_release(struct file *f)
{
	kfree(f->private_data);
}

static const struct file_ops initrd_file_ops = {
	.read = file_read_at_pos,
	.lseek = file_lseek,
	.pread = file_pread,
	.fstat = node_fstat,
	.release = node_release,
};

static long dir_read(struct file *f, struct iov_iter *to)
{
	return -EISDIR;
}

static long dir_pread(struct file *f, struct iov_iter *to, s64 pos)
{
	return -EISDIR;
}

/* A directory's offset is a cookie for a listing (getdents); any value that is not negative. */
static s64 dir_lseek(struct file *f, s64 offset, int whence)
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

static const struct file_ops dir_ops = {
	.read = dir_read,
	.write = NULL,
	.lseek = dir_lseek,
	.pread = dir_pread,
	.fstat = node_fstat,
	.release = node_release,
};

static struct file *open_node(const struct file_ops *ops, const struct fs_node *node,
			      const char *path, unsigned int flags)
{
	size_t plen = path ? strlen(path) + 1 : 0;
	struct mem_node *m = kmalloc(sizeof(*m) + plen);
	struct file *f;

	if (!m)
		return NULL;
	m->node = *node;
	if (path)
		memcpy(m->path, path, plen);
	f = file_alloc(ops, flags, m);
	if (!f)
		kfree(m);
	return f;
}

struct file *initrd_file_open(const struct fs_node *node, unsigned int flags)
{
	return open_node(&initrd_file_ops, node, NULL, flags);
}

struct file *dir_open(const char *path, const struct fs_node *node, unsigned int flags)
{
	return open_node(&dir_ops, node, path, flags);
}

const char *dir_path(struct file *f)
{
	return f->ops == &dir_ops ? ((struct mem_node *)f->private_data)->path : NULL;
}

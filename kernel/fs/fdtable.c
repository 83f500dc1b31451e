/*
 * Descriptor tables. Every change happens under the table's spinlock; a
 * file leaving the table is fput() only after the lock is dropped, since
 * a release may sleep (a pipe takes its sleeping lock).
 */
#include "fs/fdtable.h"

#include "fs/file.h"
#include "lib/compiler.h"
#include "lib/errno.h"
#include "lib/string.h"
#include "mm/heap.h"
#include "proc/current.h"

static bool test_bit(const u64 *bits, unsigned int n)
{
	return bits[n / 64] >> (n % 64) & 1;
}

static void assign_bit(u64 *bits, unsigned int n, bool v)
{
	if (v)
		bits[n / 64] |= 1ULL << (n % 64);
	else
		bits[n / 64] &= ~(1ULL << (n % 64));
}

/* Lowest clear bit in [from, limit), or limit. */
static unsigned int find_zero_bit(const u64 *bits, unsigned int from, unsigned int limit)
{
	for (unsigned int n = from; n < limit;) {
		u64 w = ~bits[n / 64] >> (n % 64);

		if (w)
			return MIN(n + (unsigned int)__builtin_ctzll(w), limit);
		n = ALIGN_DOWN(n, 64) + 64;
	}
	return limit;
}

/* Byte size of one allocation holding cap file pointers and both bitmaps. */
static size_t table_bytes(unsigned int cap)
{
	return cap * sizeof(struct file *) + 2 * (cap / 64) * sizeof(u64);
}

static void free_arrays(struct files *files)
{
	if (files->fd != files->fd_inline)
		kfree(files->fd);
}

/* Makes room for descriptor fd (< FD_MAX). Lock held; 0 or -ENOMEM. */
static int expand(struct files *files, unsigned int fd)
{
	unsigned int cap = files->capacity, words;
	struct file **fds;
	u64 *open_bits, *cloexec_bits;

	if (fd < cap)
		return 0;
	while (cap <= fd)
		cap *= 2;
	cap = MIN(cap, FD_MAX);
	fds = kzalloc(table_bytes(cap));
	if (!fds)
		return -ENOMEM;
	open_bits = (u64 *)(fds + cap);
	cloexec_bits = open_bits + cap / 64;
	words = files->capacity / 64;
	memcpy(fds, files->fd, files->capacity * sizeof(*fds));
	memcpy(open_bits, files->open_bits, words * sizeof(u64));
	memcpy(cloexec_bits, files->cloexec_bits, words * sizeof(u64));
	free_arrays(files);
	files->fd = fds;
	files->open_bits = open_bits;
	files->cloexec_bits = cloexec_bits;
	files->capacity = cap;
	return 0;
}

struct files *files_create(void)
{
	struct files *files = kzalloc(sizeof(*files));

	if (!files)
		return NULL;
	files->refcount = 1;
	files->lock = (struct spinlock)SPINLOCK_INIT;
	files->capacity = FD_INLINE;
	files->nofile = files->nofile_max = FD_MAX;
	files->fd = files->fd_inline;
	files->open_bits = files->open_inline;
	files->cloexec_bits = files->cloexec_inline;
	fs_count_add(FS_COUNT_FDTABLES, 1);
	return files;
}

struct files *files_clone(struct files *src)
{
	struct files *dst = files_create();
	unsigned long flags;
	unsigned int top = 0;

	if (!dst)
		return NULL;
	flags = spin_lock_irqsave(&src->lock);
	dst->nofile = src->nofile;
	dst->nofile_max = src->nofile_max;
	for (unsigned int fd = 0; fd < src->capacity; fd++)
		if (src->fd[fd])
			top = fd + 1;
	if (top && expand(dst, top - 1)) {
		spin_unlock_irqrestore(&src->lock, flags);
		files_put(dst);
		return NULL;
	}
	/* A slot reserved by an open in progress is not copied: that open installs into src only.
	 */
	for (unsigned int fd = 0; fd < top; fd++) {
		struct file *f = src->fd[fd];

		if (!f)
			continue;
		file_get(f);
		dst->fd[fd] = f;
		assign_bit(dst->open_bits, fd, true);
		assign_bit(dst->cloexec_bits, fd, test_bit(src->cloexec_bits, fd));
	}
	spin_unlock_irqrestore(&src->lock, flags);
	return dst;
}

void files_get(struct files *files)
{
	__atomic_add_fetch(&files->refcount, 1, __ATOMIC_RELAXED);
}

void files_put(struct files *files)
{
	if (!files || __atomic_sub_fetch(&files->refcount, 1, __ATOMIC_ACQ_REL) != 0)
		return;
	/* The last user: nobody else can reach the table, so no lock. */
	for (unsigned int fd = 0; fd < files->capacity; fd++)
		fput(files->fd[fd]);
	free_arrays(files);
	kfree(files);
	fs_count_add(FS_COUNT_FDTABLES, -1);
}

/* Empties slot fd (lock held) and returns the file that was there. */
static struct file *take_slot(struct files *files, unsigned int fd)
{
	struct file *f = files->fd[fd];

	files->fd[fd] = NULL;
	assign_bit(files->open_bits, fd, false);
	assign_bit(files->cloexec_bits, fd, false);
	files->next_fd = MIN(files->next_fd, fd);
	return f;
}

void files_close_on_exec(struct files *files)
{
	unsigned int fd = 0;

	for (;;) {
		unsigned long flags = spin_lock_irqsave(&files->lock);
		struct file *f = NULL;

		while (fd < files->capacity && !(test_bit(files->cloexec_bits, fd) && files->fd[fd]))
			fd++;
		if (fd < files->capacity)
			f = take_slot(files, fd);
		spin_unlock_irqrestore(&files->lock, flags);
		if (!f)
			return;
		fput(f);
	}
}

/* Takes the lowest free slot >= min (lock held): the descriptor, or -EMFILE / -ENOMEM. */
static int claim_slot(struct files *files, unsigned int min, bool cloexec)
{
	unsigned int fd, limit = files_nofile(files);
	int err;

	if (min >= limit)
		return -EMFILE;
	fd = find_zero_bit(files->open_bits, MAX(min, files->next_fd), files->capacity);
	if (fd >= limit)
		return -EMFILE;
	err = expand(files, fd);
	if (err)
		return err;
	assign_bit(files->open_bits, fd, true);
	assign_bit(files->cloexec_bits, fd, cloexec);
	if (min <= files->next_fd)
		files->next_fd = fd + 1;
	return (int)fd;
}

int fd_alloc(struct files *files, struct file *f, unsigned int min, bool cloexec)
{
	unsigned long flags = spin_lock_irqsave(&files->lock);
	int fd = claim_slot(files, min, cloexec);

	if (fd >= 0)
		files->fd[fd] = f;
	spin_unlock_irqrestore(&files->lock, flags);
	return fd;
}

int fd_reserve(struct files *files, unsigned int min, bool cloexec)
{
	unsigned long flags = spin_lock_irqsave(&files->lock);
	int fd = claim_slot(files, min, cloexec);

	spin_unlock_irqrestore(&files->lock, flags);
	return fd;
}

void fd_install(struct files *files, int fd, struct file *f)
{
	unsigned long flags = spin_lock_irqsave(&files->lock);

	files->fd[fd] = f;
	spin_unlock_irqrestore(&files->lock, flags);
}

void fd_unreserve(struct files *files, int fd)
{
	unsigned long flags = spin_lock_irqsave(&files->lock);

	take_slot(files, (unsigned int)fd);
	spin_unlock_irqrestore(&files->lock, flags);
}

int fd_replace(struct files *files, int newfd, struct file *f, bool cloexec)
{
	struct file *old;
	unsigned long flags;
	int err;

	if (newfd < 0 || (unsigned int)newfd >= files_nofile(files))
		return -EBADF;
	flags = spin_lock_irqsave(&files->lock);
	err = expand(files, (unsigned int)newfd);
	if (err)
		goto out;
	old = files->fd[newfd];
	if (!old && test_bit(files->open_bits, (unsigned int)newfd)) {
		err = -EBUSY;
		goto out;
	}
	files->fd[newfd] = f;
	assign_bit(files->open_bits, (unsigned int)newfd, true);
	assign_bit(files->cloexec_bits, (unsigned int)newfd, cloexec);
	spin_unlock_irqrestore(&files->lock, flags);
	fput(old);
	return newfd;
out:
	spin_unlock_irqrestore(&files->lock, flags);
	return err;
}

struct file *fd_get(struct files *files, int fd)
{
	struct file *f = NULL;
	unsigned long flags;

	if (fd < 0)
		return NULL;
	flags = spin_lock_irqsave(&files->lock);
	if ((unsigned int)fd < files->capacity) {
		f = files->fd[fd];
		if (f)
			file_get(f);
	}
	spin_unlock_irqrestore(&files->lock, flags);
	return f;
}

struct file *fget(int fd)
{
	return fd_get(current_files(), fd);
}

int fd_close(struct files *files, int fd)
{
	struct file *f = NULL;
	unsigned long flags;

	if (fd < 0)
		return -EBADF;
	flags = spin_lock_irqsave(&files->lock);
	if ((unsigned int)fd < files->capacity && files->fd[fd])
		f = take_slot(files, (unsigned int)fd);
	spin_unlock_irqrestore(&files->lock, flags);
	if (!f)
		return -EBADF;
	fput(f);
	return 0;
}

int fd_get_cloexec(struct files *files, int fd)
{
	unsigned long flags;
	int ret = -EBADF;

	if (fd < 0)
		return -EBADF;
	flags = spin_lock_irqsave(&files->lock);
	if ((unsigned int)fd < files->capacity && files->fd[fd])
		ret = test_bit(files->cloexec_bits, (unsigned int)fd);
	spin_unlock_irqrestore(&files->lock, flags);
	return ret;
}

int fd_set_cloexec(struct files *files, int fd, bool cloexec)
{
	unsigned long flags;
	int ret = -EBADF;

	if (fd < 0)
		return -EBADF;
	flags = spin_lock_irqsave(&files->lock);
	if ((unsigned int)fd < files->capacity && files->fd[fd]) {
		assign_bit(files->cloexec_bits, (unsigned int)fd, cloexec);
		ret = 0;
	}
	spin_unlock_irqrestore(&files->lock, flags);
	return ret;
}

/*
 * The initrd index: every path of the boot cpio archive, normalised and
 * sorted, so a lookup is a binary search and a directory's entries are one
 * contiguous run (all names with the prefix "dir/" sort together). Built
 * once at boot by initrd_init(); read without locks afterwards.
 */
#include "fs/initrd.h"

#include <arch/memory.h>

#include "lib/compiler.h"
#include "lib/errno.h"
#include "lib/string.h"
#include "mm/heap.h"
#include "printk.h"

#define INITRD_MODULE_NAME "initrd"

struct initrd_node {
	const char *path; /* normalised, not NUL-terminated; "" is the root */
	size_t len;
	u32 mode;
	const void *data; /* regular file contents or symlink target, in the archive */
	size_t size;
	/* Only while building: who wins a duplicate, and hard links. */
	u32 order; /* 0: an implied directory; else 1 + position in the archive */
	u32 ino, nlink, dev_major, dev_minor;
};

static struct initrd_index {
	struct initrd_node *nodes; /* sorted by path, no duplicates; nodes[0] is the root */
	size_t nr;
	char *names; /* the normalised names nodes[].path point into */
	struct initrd_stats stats;
} idx;

static inline bool is_type(u32 mode, u32 type)
{
	return (mode & CPIO_S_IFMT) == type;
}

/*
 * Writes the canonical form of in[0, n) to out: components joined by one
 * slash, no leading or trailing slash, no "." components; "" is the root.
 * A ".." component removes the one before it (none at the root) when
 * dotdot is true, and makes the path invalid otherwise. Returns the length,
 * or -1 when invalid or longer than out_max. Without "..", the result is
 * never longer than the input.
 */
static long normalise(const char *in, size_t n, char *out, size_t out_max, bool dotdot)
{
	size_t i = 0, o = 0;

	while (i < n) {
		size_t start, clen;

		while (i < n && in[i] == '/')
			i++;
		start = i;
		while (i < n && in[i] != '/')
			i++;
		clen = i - start;
		if (clen == 0 || (clen == 1 && in[start] == '.'))
			continue;
		if (clen == 2 && in[start] == '.' && in[start + 1] == '.') {
			if (!dotdot)
				return -1;
			while (o > 0 && out[o - 1] != '/')
				o--;
			if (o > 0)
				o--; /* the slash before the removed component */
			continue;
		}
		if (o > 0) {
			if (o >= out_max)
				return -1;
			out[o++] = '/';
		}
		if (clen > out_max - o)
			return -1;
		memcpy(out + o, in + start, clen);
		o += clen;
	}
	return (long)o;
}

/* Byte order, a prefix before its extensions: "bin" < "bin-x" < "bin/a" < "bin0". */
static int path_cmp(const char *a, size_t alen, const char *b, size_t blen)
{
	int c = memcmp(a, b, MIN(alen, blen));

	if (c)
		return c;
	return alen < blen ? -1 : alen > blen;
}

/* Duplicates sort in archive order, after the implied directory (order 0). */
static int node_cmp(const struct initrd_node *a, const struct initrd_node *b)
{
	int c = path_cmp(a->path, a->len, b->path, b->len);

	if (c)
		return c;
	return a->order < b->order ? -1 : a->order > b->order;
}

static void sift_down(struct initrd_node *v, size_t root, size_t n)
{
	for (;;) {
		size_t child = 2 * root + 1;
		struct initrd_node t;

		if (child >= n)
			return;
		if (child + 1 < n && node_cmp(&v[child], &v[child + 1]) < 0)
			child++;
		if (node_cmp(&v[root], &v[child]) >= 0)
			return;
		t = v[root];
		v[root] = v[child];
		v[child] = t;
		root = child;
	}
}

/* Heapsort: O(n log n) whatever the archive's order, no recursion, no extra memory. */
static void sort_nodes(struct initrd_node *v, size_t n)
{
	for (size_t i = n / 2; i-- > 0;)
		sift_down(v, i, n);
	for (size_t end = n; end-- > 1;) {
		struct initrd_node t = v[0];

		v[0] = v[end];
		v[end] = t;
		sift_down(v, 0, end);
	}
}

static bool has_slash(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] == '/')
			return true;
	return false;
}

/* Index of the first node whose path is >= (path, len): the lower bound. */
static size_t lower_bound(const struct initrd_node *v, size_t n, const char *path, size_t len)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (path_cmp(v[mid].path, v[mid].len, path, len) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static const struct initrd_node *find_node(const struct initrd_node *v, size_t n, const char *path,
					   size_t len)
{
	size_t i = lower_bound(v, n, path, len);

	if (i < n && !path_cmp(v[i].path, v[i].len, path, len))
		return &v[i];
	return NULL;
}

static int refuse(size_t offset, const char *why)
{
	pr_warn("initrd: malformed archive, ignored: %s (entry at offset %zu)\n", why, offset);
	return -EINVAL;
}

/* What the reader cannot know: rules on the meaning of one entry. */
static const char *entry_problem(const struct cpio_entry *e, size_t norm_len)
{
	if (is_type(e->mode, CPIO_S_IFDIR) && e->size)
		return "a directory with data";
	if (is_type(e->mode, CPIO_S_IFLNK) && !e->size)
		return "a symlink without a target";
	if (norm_len == 0 && !is_type(e->mode, CPIO_S_IFDIR))
		return "the root is not a directory";
	return NULL;
}

/* newc stores a hard link's data once, with its last name; the others share it. */
static void share_hard_links(struct initrd_node *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (!is_type(v[i].mode, CPIO_S_IFREG) || v[i].nlink < 2 || v[i].size)
			continue;
		for (size_t j = 0; j < n; j++) {
			if (is_type(v[j].mode, CPIO_S_IFREG) && v[j].size && v[j].ino == v[i].ino &&
			    v[j].dev_major == v[i].dev_major && v[j].dev_minor == v[i].dev_minor) {
				v[i].data = v[j].data;
				v[i].size = v[j].size;
				break;
			}
		}
	}
}

/* Keeps the last of each run of equal paths (highest order); returns the new count. */
static size_t drop_duplicates(struct initrd_node *v, size_t n)
{
	size_t out = 0;

	for (size_t i = 0; i < n; i++) {
		if (out && !path_cmp(v[out - 1].path, v[out - 1].len, v[i].path, v[i].len))
			v[out - 1] = v[i];
		else
			v[out++] = v[i];
	}
	return out;
}

/* Every node but the root must sit in a directory; returns the first that does not, or NULL. */
static const struct initrd_node *misplaced_node(const struct initrd_node *v, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		size_t plen = v[i].len;
		const struct initrd_node *parent;

		while (plen > 0 && v[i].path[plen - 1] != '/')
			plen--;
		plen = plen ? plen - 1 : 0;
		parent = find_node(v, n, v[i].path, plen);
		if (!parent || !is_type(parent->mode, CPIO_S_IFDIR))
			return &v[i];
	}
	return NULL;
}

static void count_stats(const struct initrd_node *v, size_t n, struct initrd_stats *st)
{
	for (size_t i = 0; i < n; i++) {
		switch (v[i].mode & CPIO_S_IFMT) {
		case CPIO_S_IFREG:
			st->files++;
			st->file_bytes += v[i].size;
			break;
		case CPIO_S_IFDIR:
			st->dirs++;
			break;
		case CPIO_S_IFLNK:
			st->symlinks++;
			break;
		default:
			st->others++;
		}
	}
}

void initrd_reset(void)
{
	kfree(idx.nodes);
	kfree(idx.names);
	memset(&idx, 0, sizeof(idx));
}

/* Pass 1: checks every entry and counts what the index needs; 0 or -EINVAL (said why). */
static int scan_archive(const void *data, size_t size, size_t *entries, size_t *name_bytes,
			size_t *slashes)
{
	struct cpio_reader r;
	struct cpio_entry e;
	char tmp[CPIO_NAME_MAX];
	int ret;

	cpio_reader_init(&r, data, size);
	while ((ret = cpio_next(&r, &e)) > 0) {
		long len = normalise(e.name, e.name_len, tmp, sizeof(tmp), false);
		const char *why;

		if (len < 0)
			return refuse(e.offset, "a name with a '..' component");
		why = entry_problem(&e, (size_t)len);
		if (why)
			return refuse(e.offset, why);
		(*entries)++;
		*name_bytes += (size_t)len;
		for (long i = 0; i < len; i++)
			*slashes += tmp[i] == '/';
	}
	return ret < 0 ? refuse(r.error_offset, r.error) : 0;
}

/* Pass 2: one node per entry, in archive order, names normalised into names[]; returns the count. */
static size_t fill_nodes(const void *data, size_t size, struct initrd_node *nodes, size_t entries,
			 char *names, size_t name_bytes)
{
	struct cpio_reader r;
	struct cpio_entry e;
	size_t n = 0, used = 0;

	cpio_reader_init(&r, data, size);
	while (n < entries && cpio_next(&r, &e) > 0) {
		long len = normalise(e.name, e.name_len, names + used, name_bytes - used, false);

		if (len < 0) /* cannot happen: pass 1 read the same bytes */
			break;
		nodes[n] = (struct initrd_node){
			.path = names + used,
			.len = (size_t)len,
			.mode = e.mode,
			.data = is_type(e.mode, CPIO_S_IFDIR) ? NULL : e.data,
			.size = e.size,
			.order = (u32)(n + 1),
			.ino = e.ino,
			.nlink = e.nlink,
			.dev_major = e.dev_major,
			.dev_minor = e.dev_minor,
		};
		used += (size_t)len;
		n++;
	}
	return n;
}

/*
 * Appends the root and every parent of the first n nodes (one per slash in
 * a path; the path's prefix, so no copy), as directories that any listed
 * entry of the same path overrides (order 0). Returns the new count.
 */
static size_t add_implied_dirs(struct initrd_node *nodes, size_t n)
{
	size_t out = n;

	nodes[out++] = (struct initrd_node){ .path = "", .mode = INITRD_IMPLIED_DIR_MODE };
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < nodes[i].len; k++)
			if (nodes[i].path[k] == '/')
				nodes[out++] = (struct initrd_node){ .path = nodes[i].path,
								     .len = k,
								     .mode = INITRD_IMPLIED_DIR_MODE };
	return out;
}

int initrd_init(const void *data, size_t size)
{
	size_t entries = 0, name_bytes = 0, slashes = 0, cap, n;
	const struct initrd_node *bad;
	struct initrd_node *nodes;
	char *names;
	int ret;

	initrd_reset();
	ret = scan_archive(data, size, &entries, &name_bytes, &slashes);
	if (ret)
		return ret;

	/* Each entry, each parent it implies and the root: bounded by the archive's size. */
	cap = entries + slashes + 1;
	if (cap > SIZE_MAX / sizeof(*nodes))
		return refuse(0, "too many entries");
	nodes = kzalloc(cap * sizeof(*nodes));
	names = kmalloc(name_bytes + 1);
	if (!nodes || !names) {
		kfree(nodes);
		kfree(names);
		pr_warn("initrd: no memory for an index of %zu entries; ignored\n", cap);
		return -ENOMEM;
	}

	n = fill_nodes(data, size, nodes, entries, names, name_bytes);
	share_hard_links(nodes, n);
	n = add_implied_dirs(nodes, n);
	sort_nodes(nodes, n);
	n = drop_duplicates(nodes, n);
	/* nodes[0] is the root, a directory: pass 1 refused any other root. */
	bad = misplaced_node(nodes, n);
	if (bad) {
		pr_warn("initrd: malformed archive, ignored: '%.*s' is inside a non-directory\n",
			(int)bad->len, bad->path);
		kfree(nodes);
		kfree(names);
		return -EINVAL;
	}

	idx.nodes = nodes;
	idx.nr = n;
	idx.names = names;
	count_stats(nodes, n, &idx.stats);
	idx.stats.archive_bytes = size;
	return 0;
}

/* Normalises an absolute lookup path into buf (INITRD_PATH_MAX + 1 bytes); -1 if unusable. */
static long lookup_path(const char *path, char *buf)
{
	if (!path || path[0] != '/')
		return -1;
	return normalise(path, strlen(path), buf, INITRD_PATH_MAX - 1, true);
}

int initrd_find(const char *path, const void **data, size_t *size, u32 *mode)
{
	char buf[INITRD_PATH_MAX + 1];
	long len = lookup_path(path, buf);
	const struct initrd_node *nd;

	if (len < 0 || !idx.nr)
		return -ENOENT;
	nd = find_node(idx.nodes, idx.nr, buf, (size_t)len);
	if (!nd)
		return -ENOENT;
	if (data)
		*data = nd->data;
	if (size)
		*size = nd->size;
	if (mode)
		*mode = nd->mode;
	return 0;
}

size_t initrd_count(void)
{
	return idx.nr;
}

void initrd_get_stats(struct initrd_stats *st)
{
	*st = idx.stats;
}

/*
 * The cookie is 1 + the index of the next node to look at, so 0 can mean
 * "start": then the scan begins at the lower bound of "dir/" (of "" for the
 * root, skipping the root itself). Grandchildren in the run are skipped.
 */
int initrd_readdir(const char *path, size_t *cookie, struct initrd_dirent *ent)
{
	char buf[INITRD_PATH_MAX + 1];
	long len = lookup_path(path, buf);
	const struct initrd_node *dir;
	size_t plen, i;

	if (len < 0 || !idx.nr)
		return -ENOENT;
	dir = find_node(idx.nodes, idx.nr, buf, (size_t)len);
	if (!dir)
		return -ENOENT;
	if (!is_type(dir->mode, CPIO_S_IFDIR))
		return -ENOTDIR;
	plen = (size_t)len;
	if (plen)
		buf[plen++] = '/'; /* room kept by lookup_path's limit */

	i = *cookie ? *cookie - 1 : lower_bound(idx.nodes, idx.nr, buf, plen);
	for (; i < idx.nr; i++) {
		const struct initrd_node *nd = &idx.nodes[i];

		if (nd->len < plen || memcmp(nd->path, buf, plen))
			break; /* past the run of "dir/..." */
		if (nd->len == plen || has_slash(nd->path + plen, nd->len - plen))
			continue; /* the root itself, or deeper down */
		ent->name = nd->path + plen;
		ent->name_len = nd->len - plen;
		ent->mode = nd->mode;
		ent->size = nd->size;
		*cookie = i + 2;
		return 1;
	}
	*cookie = i + 1;
	return 0;
}

void initrd_boot_init(const struct boot_info *bi)
{
	const struct boot_module *m = NULL;
	struct initrd_stats st;

	for (size_t i = 0; i < bi->nr_modules; i++)
		if (!strcmp(bi->modules[i].name, INITRD_MODULE_NAME)) {
			m = &bi->modules[i];
			break;
		}
	if (!m) {
		pr_warn("initrd: no boot module named '%s'; no files\n", INITRD_MODULE_NAME);
		return;
	}
	if (m->end < m->start) {
		pr_warn("initrd: module ends before it starts; no files\n");
		return;
	}
	if (initrd_init(phys_to_virt(m->start), (size_t)(m->end - m->start)))
		return; /* initrd_init said why */
	initrd_get_stats(&st);
	pr_info("initrd: %zu files, %zu KiB (%zu directories, %zu symlinks, %zu others)\n",
		st.files, (st.archive_bytes + 1023) / 1024, st.dirs, st.symlinks, st.others);
}

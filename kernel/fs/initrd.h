/*
 * The initrd: a cpio "newc" archive GRUB loads as the module named
 * "initrd". At boot the kernel indexes it by path; afterwards lookups are
 * read-only and need no lock (the index is built once, before any process
 * exists, and never changes). Regular files are served straight from the
 * archive's memory.
 */
#ifndef FULCRUM_FS_INITRD_H
#define FULCRUM_FS_INITRD_H

#include "boot/boot_info.h"
#include "fs/cpio.h"
#include "lib/types.h"

/*
 * Longest path in the index, the NUL included. A lookup path may be
 * longer only by repeated slashes and "." components (".." is resolved
 * after the component it removes was taken in, so that one counts).
 */
#define INITRD_PATH_MAX CPIO_NAME_MAX

/* Mode of a directory the archive implies (a parent of an entry) without listing it. */
#define INITRD_IMPLIED_DIR_MODE (CPIO_S_IFDIR | 0755)

/*
 * Indexes the archive at data (which must stay mapped and unchanged), in
 * place of any earlier index. Names are normalised: a leading "/" or "./",
 * repeated slashes, "." components and a trailing "/" are dropped ("." or
 * "/" itself is the root). When a path appears twice, the later entry wins,
 * as when cpio extracts an archive. Parents that are not listed are implied
 * as directories (INITRD_IMPLIED_DIR_MODE), and the root always exists.
 * Refused with -EINVAL, keeping no index, and a warning saying why: a
 * malformed archive (cpio_next), a name with a ".." component, the root or
 * an entry's parent that is not a directory, a directory with data, a
 * symlink without a target. -ENOMEM if the index does not fit in memory.
 * Hard links (newc stores the data once, with the last name of the link;
 * the others have size 0) share that data.
 */
int initrd_init(const void *data, size_t size);

/* Drops the index (the archive's memory is not ours to free). */
void initrd_reset(void);

/*
 * Looks up an absolute path; "." and ".." (at the root, ".." stays there)
 * and repeated slashes are resolved lexically, symlinks are not followed.
 * Returns 0 and fills those of data, size and mode that are non-NULL (for
 * a symlink, data and size are its target, not NUL-terminated; for a
 * directory, NULL and 0), or -ENOENT: no index, a relative or too long
 * path, or no such entry.
 */
int initrd_find(const char *path, const void **data, size_t *size, u32 *mode);

/* Entries in the index: files, directories (the root and implied ones included), symlinks, others. */
size_t initrd_count(void);

struct initrd_stats {
	size_t files, dirs, symlinks, others; /* dirs includes the root */
	size_t file_bytes;		      /* sum of regular files' sizes */
	size_t archive_bytes;		      /* the archive as given to initrd_init */
};

void initrd_get_stats(struct initrd_stats *st);

/* One entry of a directory listing; name points into the index and is not NUL-terminated. */
struct initrd_dirent {
	const char *name;
	size_t name_len;
	u32 mode;
	size_t size;
};

/*
 * Lists the entries directly inside the directory at path, in byte order
 * of their names, without "." and "..". Start with *cookie = 0 and call
 * until it returns 0 (the end); 1 means *ent holds the next entry.
 * -ENOENT: no such path (as initrd_find); -ENOTDIR: not a directory.
 */
int initrd_readdir(const char *path, size_t *cookie, struct initrd_dirent *ent);

/*
 * At boot, after the heap: indexes the boot module named "initrd" and
 * prints "initrd: N files, K KiB (...)", or a warning when there is no such
 * module or it is malformed (the boot goes on without files).
 */
void initrd_boot_init(const struct boot_info *bi);

#endif

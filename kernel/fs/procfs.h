/*
 * A small procfs: files under /proc made by a show function, which prints
 * the file's text into a buffer when it is opened (the reader sees that
 * snapshot, however long it takes), and an optional store function, which
 * takes what is written (run-time knobs). Paths may have directories
 * ("sys/kernel/foo"); a directory exists while a file is under it.
 */
#ifndef FULCRUM_FS_PROCFS_H
#define FULCRUM_FS_PROCFS_H

#include "lib/types.h"

struct file;
struct kstat;
struct seqbuf;

#define PROCFS_MAX_ENTRIES 1024
#define PROCFS_PATH_MAX	   96 /* a registered path's length, NUL included */

/*
 * /sys shares the table: a file registered as SYSFS_PREFIX "/devices/..."
 * is /sys/devices/... and is not seen under /proc. The sysfs_* calls are
 * the procfs_* ones for a path relative to /sys.
 */
#define SYSFS_MARK	 '!'
#define SYSFS_PREFIX	 "!sys"
#define PROCFS_STORE_MAX 4096 /* longest single write a store takes */

/* Prints the file's contents; 0 or a negative errno (which open then returns). */
typedef int (*procfs_show_fn)(struct seqbuf *sb, void *arg);
/* Takes buf[0..n) as written (not NUL-terminated); 0 or a negative errno (which write returns). */
typedef int (*procfs_store_fn)(const char *buf, size_t n, void *arg);

/*
 * Adds /proc/<path> (path relative to /proc, components separated by single
 * slashes, no "." or ".."). store may be NULL (read-only). Returns 0,
 * -EINVAL (bad path, no show), -ENAMETOOLONG, -EEXIST (the path, or a
 * file where a directory is needed, or the reverse), -ENOSPC (table full).
 */
int procfs_register(const char *path, procfs_show_fn show, procfs_store_fn store, void *arg);

/* Removes every entry (tests). */
void procfs_reset(void);

/* What a path under /proc (relative, normalised; "" is /proc itself) names. */
enum procfs_kind { PROCFS_NONE, PROCFS_FILE, PROCFS_DIR };
enum procfs_kind procfs_lookup(const char *rel);

/*
 * Opens the file at rel: runs show if the file is opened for reading.
 * Opening for writing a file without store is -EACCES. Returns the file
 * (one reference) or NULL with *err set.
 */
struct file *procfs_open(const char *rel, unsigned int flags, int *err);

/* What stat and fstat say of the file at rel (st zeroed beforehand): 0, or -ENOENT if it is none. */
int procfs_kstat(const char *rel, struct kstat *st);

/*
 * Lists the directory at rel ("" is /proc): call with *cookie = 0 until it
 * returns 0; 1 means *name (not NUL-terminated, name_len bytes, valid
 * while the table lives) and *is_dir hold the next entry. Registration
 * order, each name once. -ENOENT: rel is no directory.
 */
int procfs_readdir(const char *rel, size_t *cookie, const char **name, size_t *name_len,
		   bool *is_dir);

enum procfs_kind sysfs_lookup(const char *rel);
struct file *sysfs_open(const char *rel, unsigned int flags, int *err);
int sysfs_kstat(const char *rel, struct kstat *st);
int sysfs_readdir(const char *rel, size_t *cookie, const char **name, size_t *name_len, bool *is_dir);

/* Registers the built-in files: /proc/uptime and /proc/meminfo. */
void procfs_init(void);

#endif

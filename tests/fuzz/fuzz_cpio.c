/*
 * libFuzzer target over the initrd: each input is a cpio archive for the
 * newc reader and the index (kernel/fs/initrd.c). Besides ASan and UBSan,
 * the index is checked against itself: a walk of every directory listing
 * reaches each entry once, and initrd_find agrees with the listings.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fs/cpio.h"
#include "fs/initrd.h"
#include "mm/heap.h"
#include "printk.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The index's memory from the C library, so ASan sees every block exactly. */
void *kmalloc(size_t size)
{
	return size ? malloc(size) : NULL;
}

void *kzalloc(size_t size)
{
	return size ? calloc(1, size) : NULL;
}

void kfree(const void *p)
{
	free((void *)p);
}

static void check(bool ok, const char *what, const char *path)
{
	if (!ok) {
		fprintf(stderr, "fuzz_cpio: %s: %s\n", what, path);
		abort();
	}
}

/* Lists dir (an absolute path of len bytes in a buffer with room to grow); returns entries seen below it. */
static size_t walk(char *path, size_t len, int depth)
{
	struct initrd_dirent d;
	size_t cookie = 0, seen = 0;
	int ret;

	check(depth < INITRD_PATH_MAX, "walk deeper than any path", path);
	while ((ret = initrd_readdir(path, &cookie, &d)) == 1) {
		size_t sub = len + (len > 1) + d.name_len;
		const void *p;
		size_t sz;
		u32 mode;

		check(d.name_len > 0 && !memchr(d.name, '/', d.name_len), "bad name in listing",
		      path);
		check(sub <= INITRD_PATH_MAX, "listed path too long", path);
		if (len > 1)
			path[len] = '/';
		memcpy(path + len + (len > 1), d.name, d.name_len);
		path[sub] = '\0';
		check(initrd_find(path, &p, &sz, &mode) == 0, "listed entry not found", path);
		check(mode == d.mode && sz == d.size, "listing and lookup disagree", path);
		seen++;
		if ((mode & CPIO_S_IFMT) == CPIO_S_IFDIR)
			seen += walk(path, sub, depth + 1);
		path[len] = '\0';
	}
	check(ret == 0, "readdir of a directory failed", path);
	return seen;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* An exact-size copy: libFuzzer's buffer may have slack ASan cannot see. */
	u8 *buf = malloc(size ? size : 1);
	struct cpio_reader r;
	struct cpio_entry e;
	char path[INITRD_PATH_MAX + 8];
	u32 mode;

	console_loglevel = 0; /* warnings are logged, not printed */
	memcpy(buf, data, size);

	cpio_reader_init(&r, buf, size);
	while (cpio_next(&r, &e) > 0)
		check(e.name[e.name_len] == '\0' && (const u8 *)e.data + e.size <= buf + size,
		      "entry outside the archive", e.name);

	if (initrd_init(buf, size) == 0) {
		check(initrd_find("/", NULL, NULL, &mode) == 0 && (mode & CPIO_S_IFMT) == CPIO_S_IFDIR,
		      "no root directory", "/");
		strcpy(path, "/");
		check(walk(path, 1, 0) + 1 == initrd_count(), "listings miss or repeat entries", "/");
		/* Every archive name resolves, also behind "./" and a ".." detour. */
		cpio_reader_init(&r, buf, size);
		while (cpio_next(&r, &e) > 0) {
			snprintf(path, sizeof(path), "/x/..//./%s", e.name);
			if (strlen(path) < INITRD_PATH_MAX - 1)
				check(initrd_find(path, NULL, NULL, NULL) == 0,
				      "archive name not found", path);
		}
	} else {
		check(initrd_count() == 0, "a refused archive left an index", "-");
	}
	initrd_reset();
	free(buf);
	return 0;
}

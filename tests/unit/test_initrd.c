/*
 * Unit tests of the initrd index (kernel/fs/initrd.c): lookups with "."
 * and "..", normalised archive names, duplicates, implied directories,
 * listings, hard links, the archives it refuses, and the boot step that
 * finds the "initrd" module. The kernel heap runs over fake RAM.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <arch/memory.h>

#include "cpio_builder.h"
#include "fake_arch.h"
#include "fs/initrd.h"
#include "lib/errno.h"
#include "mm/heap.h"
#include "mm/memmap.h"
#include "mm/page_alloc.h"
#include "unit.h"

#define MiB 0x100000ULL

static struct memmap mm;

static void heap_setup(void)
{
	const struct mem_entry e[] = { { 0, 16 * MiB, MEM_USABLE } };

	fake_ram_init(32 * MiB); /* the top half holds modules for initrd_boot_init */
	fake_console_reset();
	memmap_init(&mm, e, 1);
	ck_assert_int_eq(page_alloc_init(&mm), 0);
	heap_init();
}

static void heap_teardown(void)
{
	initrd_reset();
	fake_ram_free();
}

/* The archive stays alive while the index points into it: one per test. */
static u8 *live;

static int index_arc(const struct arc *a)
{
	free(live);
	live = exact_copy(a->buf, a->len);
	return initrd_init(live, a->len);
}

static void free_live(void)
{
	initrd_reset();
	free(live);
	live = NULL;
}

static void expect_file(const char *path, const char *text)
{
	const void *data;
	size_t size;
	u32 mode;

	ck_assert_msg(initrd_find(path, &data, &size, &mode) == 0, "%s not found", path);
	ck_assert_msg((mode & CPIO_S_IFMT) == CPIO_S_IFREG, "%s: mode %o", path, mode);
	ck_assert_uint_eq(size, strlen(text));
	ck_assert_mem_eq(data, text, size);
}

static u32 mode_of(const char *path)
{
	u32 mode = 0;

	ck_assert_msg(initrd_find(path, NULL, NULL, &mode) == 0, "%s not found", path);
	return mode;
}

static void expect_absent(const char *path)
{
	ck_assert_msg(initrd_find(path, NULL, NULL, NULL) == -ENOENT, "%s found", path);
}

/* The listing of dir as "name name ...". */
static const char *listing(const char *dir)
{
	static char out[4096];
	struct initrd_dirent d;
	size_t cookie = 0, o = 0;
	int ret;

	out[0] = '\0';
	while ((ret = initrd_readdir(dir, &cookie, &d)) == 1) {
		ck_assert_uint_lt(o + d.name_len + 2, sizeof(out));
		if (o)
			out[o++] = ' ';
		memcpy(out + o, d.name, d.name_len);
		o += d.name_len;
		out[o] = '\0';
	}
	ck_assert_int_eq(ret, 0);
	return out;
}

static void rootfs(struct arc *a)
{
	arc_begin(a);
	arc_dir(a, ".");
	arc_file(a, "./init", "init program");
	arc_dir(a, "./bin");
	arc_file(a, "./bin/sh", "shell");
	arc_file(a, "./bin/cat", "cat");
	arc_dir(a, "./tests");
	arc_file(a, "./tests/t_fork", "fork test");
	arc_dir(a, "./etc");
	arc_file(a, "./etc/motd", "Welcome\n");
	arc_entry(a, "./bin/ls", LNK, "cat", 3);
	arc_trailer(a);
}

START_TEST(index_and_find)
{
	struct arc a;
	struct initrd_stats st;
	const void *data;
	size_t size;
	u32 mode;

	rootfs(&a);
	ck_assert_int_eq(index_arc(&a), 0);
	ck_assert_uint_eq(initrd_count(), 10); /* root + 3 dirs + 5 files + 1 symlink */
	initrd_get_stats(&st);
	ck_assert_uint_eq(st.files, 5);
	ck_assert_uint_eq(st.dirs, 4);
	ck_assert_uint_eq(st.symlinks, 1);
	ck_assert_uint_eq(st.others, 0);
	ck_assert_uint_eq(st.file_bytes, 12 + 5 + 3 + 9 + 8);
	ck_assert_uint_eq(st.archive_bytes, a.len);

	expect_file("/init", "init program");
	expect_file("/bin/sh", "shell");
	expect_file("/etc/motd", "Welcome\n");
	ck_assert_int_eq(initrd_find("/", &data, &size, &mode), 0);
	ck_assert_uint_eq(mode, DIR(0755));
	ck_assert_ptr_null(data);
	ck_assert_uint_eq(size, 0);
	ck_assert_uint_eq(mode_of("/bin"), DIR(0755));
	ck_assert_int_eq(initrd_find("/bin/ls", &data, &size, &mode), 0);
	ck_assert_uint_eq(mode, LNK);
	ck_assert_uint_eq(size, 3);
	ck_assert_mem_eq(data, "cat", 3); /* not followed */
	/* Data points into the archive itself: no copy. */
	ck_assert_int_eq(initrd_find("/init", &data, NULL, NULL), 0);
	ck_assert((const u8 *)data > live && (const u8 *)data < live + a.len);

	expect_absent("/nope");
	expect_absent("/bi");
	expect_absent("/bin/s");
	expect_absent("/bin/shx");
	expect_absent("/init/x");
	expect_absent("init"); /* relative */
	expect_absent("");
	expect_absent(NULL);
	free_live();
}
END_TEST

START_TEST(lookup_resolves_dots_and_slashes)
{
	struct arc a;
	char longpath[INITRD_PATH_MAX + 64];

	rootfs(&a);
	ck_assert_int_eq(index_arc(&a), 0);
	expect_file("//init", "init program");
	expect_file("/./init", "init program");
	expect_file("/bin/../init", "init program");
	expect_file("/bin/./sh", "shell");
	expect_file("/bin//sh/", "shell");
	expect_file("/../init", "init program"); /* ".." at the root stays there */
	expect_file("/../../bin/../../etc/motd", "Welcome\n");
	expect_file("/tests/../bin/../tests/t_fork", "fork test");
	ck_assert_uint_eq(mode_of("/.."), DIR(0755));
	ck_assert_uint_eq(mode_of("/."), DIR(0755));
	ck_assert_uint_eq(mode_of("///"), DIR(0755));
	ck_assert_uint_eq(mode_of("/bin/.."), DIR(0755));
	expect_absent("/bin/sh/..x");
	expect_absent("/...");

	/* Long only by slashes: still found; long for real: not. */
	memset(longpath, '/', sizeof(longpath));
	strcpy(longpath + sizeof(longpath) - 6, "init");
	expect_file(longpath, "init program");
	memset(longpath, 'a', sizeof(longpath));
	longpath[0] = '/';
	longpath[sizeof(longpath) - 1] = '\0';
	expect_absent(longpath);
	free_live();
}
END_TEST

START_TEST(archive_names_normalised)
{
	struct arc a;

	arc_begin(&a);
	arc_file(&a, "/abs", "1");
	arc_file(&a, "./dot", "2");
	arc_file(&a, "././twice", "3");
	arc_file(&a, "a//b", "4");
	arc_file(&a, "c/./d", "5");
	arc_dir(&a, "e/");
	arc_dir(&a, "./");
	arc_trailer(&a);
	ck_assert_int_eq(index_arc(&a), 0);
	expect_file("/abs", "1");
	expect_file("/dot", "2");
	expect_file("/twice", "3");
	expect_file("/a/b", "4");
	expect_file("/c/d", "5");
	ck_assert_uint_eq(mode_of("/e") & CPIO_S_IFMT, CPIO_S_IFDIR);
	ck_assert_str_eq(listing("/"), "a abs c dot e twice");
	free_live();
}
END_TEST

START_TEST(duplicates_last_wins)
{
	struct arc a;

	arc_begin(&a);
	arc_file(&a, "f", "first");
	arc_file(&a, "g", "only");
	arc_file(&a, "./f", "second");
	arc_entry(&a, "x", LNK, "f", 1);
	arc_dir(&a, "x"); /* a symlink replaced by a directory */
	arc_file(&a, "x/in", "in x");
	arc_file(&a, "/f", "third");
	arc_trailer(&a);
	ck_assert_int_eq(index_arc(&a), 0);
	expect_file("/f", "third");
	expect_file("/g", "only");
	ck_assert_uint_eq(mode_of("/x"), DIR(0755));
	expect_file("/x/in", "in x");
	ck_assert_uint_eq(initrd_count(), 5); /* root, f, g, x, x/in */
	free_live();
}
END_TEST

START_TEST(implied_parents)
{
	struct arc a;

	arc_begin(&a);
	arc_file(&a, "usr/share/doc/readme", "r");
	arc_entry(&a, "usr", DIR(0700), NULL, 0); /* listed after its child: still wins */
	arc_trailer(&a);
	ck_assert_int_eq(index_arc(&a), 0);
	ck_assert_uint_eq(mode_of("/"), INITRD_IMPLIED_DIR_MODE);
	ck_assert_uint_eq(mode_of("/usr"), DIR(0700));
	ck_assert_uint_eq(mode_of("/usr/share"), INITRD_IMPLIED_DIR_MODE);
	ck_assert_uint_eq(mode_of("/usr/share/doc"), INITRD_IMPLIED_DIR_MODE);
	expect_file("/usr/share/doc/readme", "r");
	ck_assert_uint_eq(initrd_count(), 5);
	ck_assert_str_eq(listing("/"), "usr");
	ck_assert_str_eq(listing("/usr/share"), "doc");
	free_live();
}
END_TEST

START_TEST(readdir_lists_children_only)
{
	struct arc a;
	struct initrd_dirent d;
	size_t cookie;

	arc_begin(&a);
	arc_dir(&a, "bin");
	arc_file(&a, "bin0", "sorts after bin/");
	arc_file(&a, "bin-x", "sorts before bin/");
	arc_file(&a, "bin.y", "also before");
	arc_file(&a, "bin/b", "");
	arc_file(&a, "bin/a", "aa");
	arc_file(&a, "bin/sub/deep", "");
	arc_entry(&a, "bin/l", LNK, "a", 1);
	arc_dir(&a, "empty");
	arc_trailer(&a);
	ck_assert_int_eq(index_arc(&a), 0);

	ck_assert_str_eq(listing("/"), "bin bin-x bin.y bin0 empty");
	ck_assert_str_eq(listing("/bin"), "a b l sub");
	ck_assert_str_eq(listing("/bin/"), "a b l sub");
	ck_assert_str_eq(listing("/bin/sub"), "deep");
	ck_assert_str_eq(listing("/empty"), "");
	ck_assert_str_eq(listing("/bin/sub/.."), "a b l sub");

	cookie = 0;
	ck_assert_int_eq(initrd_readdir("/bin", &cookie, &d), 1);
	ck_assert_uint_eq(d.name_len, 1);
	ck_assert_mem_eq(d.name, "a", 1);
	ck_assert_uint_eq(d.mode, REG(0644));
	ck_assert_uint_eq(d.size, 2);
	cookie = 0;
	ck_assert_int_eq(initrd_readdir("/bin/a", &cookie, &d), -ENOTDIR);
	cookie = 0;
	ck_assert_int_eq(initrd_readdir("/bin/l", &cookie, &d), -ENOTDIR);
	cookie = 0;
	ck_assert_int_eq(initrd_readdir("/nope", &cookie, &d), -ENOENT);
	cookie = 0;
	ck_assert_int_eq(initrd_readdir("bin", &cookie, &d), -ENOENT);
	/* At the end it stays at the end. */
	cookie = 0;
	while (initrd_readdir("/empty", &cookie, &d) == 1)
		;
	ck_assert_int_eq(initrd_readdir("/empty", &cookie, &d), 0);
	free_live();
}
END_TEST

START_TEST(hard_links_share_data)
{
	struct arc a;
	struct hdr h = HDR_DEFAULT;

	arc_begin(&a);
	h.nlink = 2;
	h.ino = 7;
	arc_entry_h(&a, "bin/one", REG(0755), NULL, 0, h);
	arc_entry_h(&a, "bin/two", REG(0755), "shared", 6, h);
	h.ino = 8;
	arc_entry_h(&a, "bin/lonely", REG(0755), NULL, 0, h); /* no partner with data */
	arc_trailer(&a);
	ck_assert_int_eq(index_arc(&a), 0);
	expect_file("/bin/one", "shared");
	expect_file("/bin/two", "shared");
	expect_file("/bin/lonely", "");
	free_live();
}
END_TEST

/* Each rule of meaning on its own, with the warning that names it. */
static void expect_refused(const struct arc *a, const char *why)
{
	fake_console_reset();
	ck_assert_int_eq(index_arc(a), -EINVAL);
	ck_assert_msg(strstr(fake_console_text(), "initrd: malformed archive, ignored"),
		      "console: %s", fake_console_text());
	ck_assert_msg(strstr(fake_console_text(), why), "console: %s, expected '%s'",
		      fake_console_text(), why);
	ck_assert_uint_eq(initrd_count(), 0);
	expect_absent("/");
	free_live();
}

START_TEST(refuses_bad_meaning)
{
	struct arc a;

	arc_begin(&a);
	arc_file(&a, "ok", "1");
	arc_file(&a, "a/../b", "2");
	arc_trailer(&a);
	expect_refused(&a, "'..'");

	arc_begin(&a);
	arc_file(&a, "../escape", "2");
	arc_trailer(&a);
	expect_refused(&a, "'..'");

	arc_begin(&a);
	arc_entry(&a, "d", DIR(0755), "xx", 2);
	arc_trailer(&a);
	expect_refused(&a, "directory with data");

	arc_begin(&a);
	arc_entry(&a, "l", LNK, NULL, 0);
	arc_trailer(&a);
	expect_refused(&a, "symlink without a target");

	arc_begin(&a);
	arc_file(&a, ".", "root as a file");
	arc_trailer(&a);
	expect_refused(&a, "root is not a directory");

	arc_begin(&a);
	arc_entry(&a, "/", LNK, "x", 1);
	arc_trailer(&a);
	expect_refused(&a, "root is not a directory");

	arc_begin(&a);
	arc_file(&a, "f", "a file");
	arc_file(&a, "f/inside", "under a file");
	arc_trailer(&a);
	expect_refused(&a, "'f/inside' is inside a non-directory");

	arc_begin(&a);
	arc_entry(&a, "lnk", LNK, "bin", 3);
	arc_file(&a, "lnk/x/y", "under a symlink");
	arc_trailer(&a);
	expect_refused(&a, "'lnk/x' is inside a non-directory");

	/* Structural errors come through with the reader's reason. */
	arc_begin(&a);
	arc_file(&a, "f", "no trailer");
	expect_refused(&a, "without a TRAILER");
}
END_TEST

START_TEST(refused_archive_drops_old_index)
{
	struct arc a;

	rootfs(&a);
	ck_assert_int_eq(index_arc(&a), 0);
	ck_assert_uint_gt(initrd_count(), 0);
	arc_begin(&a);
	arc_file(&a, "x", "no trailer");
	ck_assert_int_eq(index_arc(&a), -EINVAL);
	ck_assert_uint_eq(initrd_count(), 0);
	expect_absent("/init");
	free_live();
}
END_TEST

START_TEST(other_types_recorded)
{
	struct arc a;
	struct initrd_stats st;

	arc_begin(&a);
	arc_entry(&a, "dev/null", CPIO_S_IFCHR | 0666, NULL, 0);
	arc_entry(&a, "fifo", CPIO_S_IFIFO | 0600, NULL, 0);
	arc_trailer(&a);
	ck_assert_int_eq(index_arc(&a), 0);
	ck_assert_uint_eq(mode_of("/dev/null"), CPIO_S_IFCHR | 0666);
	initrd_get_stats(&st);
	ck_assert_uint_eq(st.others, 2);
	ck_assert_uint_eq(st.dirs, 2); /* root, dev */
	free_live();
}
END_TEST

/* Many entries in scrambled order: all found, listings sorted. */
START_TEST(many_entries_scrambled)
{
	static struct arc a;
	enum { N = 1500 };
	char name[32], text[32];
	struct initrd_dirent d;
	size_t cookie = 0, listed = 0;
	char prev[32] = "";

	arc_begin(&a);
	for (u32 i = 0; i < N; i++) {
		u32 k = (i * 7919u) % N; /* a permutation: 7919 is prime, N is not its multiple */

		snprintf(name, sizeof(name), "d%u/f%u", k % 13, k);
		snprintf(text, sizeof(text), "#%u", k);
		arc_file(&a, name, text);
	}
	arc_trailer(&a);
	ck_assert_int_eq(index_arc(&a), 0);
	ck_assert_uint_eq(initrd_count(), N + 13 + 1);
	for (u32 k = 0; k < N; k++) {
		snprintf(name, sizeof(name), "/d%u/f%u", k % 13, k);
		snprintf(text, sizeof(text), "#%u", k);
		expect_file(name, text);
	}
	while (initrd_readdir("/d5", &cookie, &d) == 1) {
		char cur[32];

		snprintf(cur, sizeof(cur), "%.*s", (int)d.name_len, d.name);
		ck_assert_msg(strcmp(prev, cur) < 0, "%s then %s", prev, cur);
		strcpy(prev, cur);
		listed++;
	}
	ck_assert_uint_eq(listed, N / 13 + (5 < N % 13));
	free_live();
}
END_TEST

/* ---------------------------------------------------------------- boot */

static void boot_with_module(struct boot_info *bi, const char *name, const void *p, size_t len)
{
	const phys_addr_t at = 20 * MiB; /* above the heap's RAM */

	memset(bi, 0, sizeof(*bi));
	memcpy(phys_to_virt(at), p, len);
	bi->modules[0].start = at;
	bi->modules[0].end = at + len;
	snprintf(bi->modules[0].name, sizeof(bi->modules[0].name), "%s", name);
	bi->nr_modules = 1;
}

START_TEST(boot_indexes_the_initrd_module)
{
	static struct boot_info bi;
	struct arc a;
	char want[128];

	rootfs(&a);
	boot_with_module(&bi, "initrd", a.buf, a.len);
	bi.modules[1] = bi.modules[0]; /* another module first: the name picks */
	snprintf(bi.modules[0].name, sizeof(bi.modules[0].name), "initrd.old");
	bi.modules[0].end = bi.modules[0].start + 10;
	bi.nr_modules = 2;
	fake_console_reset();
	initrd_boot_init(&bi);
	snprintf(want, sizeof(want), "initrd: 5 files, %zu KiB (4 directories, 1 symlinks, 0 others)",
		 (a.len + 1023) / 1024);
	ck_assert_msg(strstr(fake_console_text(), want), "console: %s", fake_console_text());
	expect_file("/bin/sh", "shell");
}
END_TEST

START_TEST(boot_without_module_warns)
{
	static struct boot_info bi;

	memset(&bi, 0, sizeof(bi));
	fake_console_reset();
	initrd_boot_init(&bi);
	ck_assert_ptr_nonnull(
		strstr(fake_console_text(), "initrd: no boot module named 'initrd'; no files"));
	ck_assert_uint_eq(initrd_count(), 0);
}
END_TEST

START_TEST(boot_with_garbage_warns)
{
	static struct boot_info bi;
	static const char garbage[] = "this is not a cpio archive at all, just some text ......"
				      "..................................................................";

	boot_with_module(&bi, "initrd", garbage, sizeof(garbage));
	fake_console_reset();
	initrd_boot_init(&bi);
	ck_assert_ptr_nonnull(
		strstr(fake_console_text(), "initrd: malformed archive, ignored: bad magic"));
	ck_assert_ptr_null(strstr(fake_console_text(), "files,"));
	ck_assert_uint_eq(initrd_count(), 0);
}
END_TEST

Suite *initrd_suite(void)
{
	Suite *s = suite_create("initrd");
	TCase *ix = tcase_create("index");

	tcase_add_checked_fixture(ix, heap_setup, heap_teardown);
	tcase_add_test(ix, index_and_find);
	tcase_add_test(ix, lookup_resolves_dots_and_slashes);
	tcase_add_test(ix, archive_names_normalised);
	tcase_add_test(ix, duplicates_last_wins);
	tcase_add_test(ix, implied_parents);
	tcase_add_test(ix, readdir_lists_children_only);
	tcase_add_test(ix, hard_links_share_data);
	tcase_add_test(ix, refuses_bad_meaning);
	tcase_add_test(ix, refused_archive_drops_old_index);
	tcase_add_test(ix, other_types_recorded);
	tcase_add_test(ix, many_entries_scrambled);
	tcase_add_test(ix, boot_indexes_the_initrd_module);
	tcase_add_test(ix, boot_without_module_warns);
	tcase_add_test(ix, boot_with_garbage_warns);
	suite_add_tcase(s, ix);
	return s;
}

/* The file-layer tests' common fixture (fs_fixture.h). */
#include <stdio.h>
#include <string.h>

#include "fake_arch.h"
#include "fake_current.h"
#include "fake_uaccess.h"
#include "fs/console.h"
#include "fs/fdtable.h"
#include "fs/file.h"
#include "fs/initrd.h"
#include "fs/procfs.h"
#include "fs_fixture.h"
#include "mm/heap.h"
#include "mm/memmap.h"
#include "mm/page_alloc.h"
#include "unit.h"

#define FS_RAM	    (32 * 1024 * 1024)
#define ARCHIVE_MAX (64 * 1024)

static struct memmap fs_memmap;
static u64 free_at_start;
static char archive[ARCHIVE_MAX];

void fs_setup(void)
{
	const struct mem_entry ram[] = { { 0, FS_RAM, MEM_USABLE } };

	fake_ram_init(FS_RAM);
	fake_console_reset();
	memmap_init(&fs_memmap, ram, 1);
	ck_assert_int_eq(page_alloc_init(&fs_memmap), 0);
	heap_init();
	free_at_start = page_alloc_free_pages();
	fake_current_reset();
	fake_uaccess_fail_after = -1;
	procfs_reset();
	initrd_reset();
	console_reset_input();
	fake_files = files_create();
	ck_assert_ptr_nonnull(fake_files);
}

void fs_expect_all_freed(void)
{
	struct fs_counts c;
	struct heap_stats st;

	fs_object_counts(&c);
	ck_assert_int_eq(c.files, 0);
	ck_assert_int_eq(c.fdtables, 0);
	ck_assert_int_eq(c.pipes, 0);
	ck_assert_int_eq(c.sockets, 0);
	heap_get_stats(&st);
	ck_assert_uint_eq(st.objects, 0);
	ck_assert_uint_eq(st.large_pages, 0);
	ck_assert_uint_eq(st.bad_frees, 0);
	/* Every page is free again or an empty slab the heap keeps as a spare. */
	ck_assert_uint_eq(page_alloc_free_pages() + st.slab_pages, free_at_start);
}

void fs_teardown(void)
{
	files_put(fake_files);
	fake_files = NULL;
	initrd_reset();
	fs_expect_all_freed();
	fake_ram_free();
}

static size_t put_header(size_t at, u32 ino, u32 mode, size_t size, const char *name)
{
	size_t namesize = strlen(name) + 1;
	int n = snprintf(archive + at, ARCHIVE_MAX - at,
			 "070701%08X%08X%08X%08X%08X%08X%08zX%08X%08X%08X%08X%08zX%08X", ino, mode,
			 0, 0, 1, 0, size, 0, 0, 0, 0, namesize, 0);

	ck_assert_int_eq(n, 110);
	at += 110;
	ck_assert_uint_lt(at + namesize + 3, ARCHIVE_MAX);
	memcpy(archive + at, name, namesize);
	at += namesize;
	while (at % 4)
		archive[at++] = '\0';
	return at;
}

void fs_load_initrd(const struct fs_test_entry *e, size_t n)
{
	size_t at = 0;

	for (size_t i = 0; i < n; i++) {
		size_t size = e[i].data ? strlen(e[i].data) : 0;

		at = put_header(at, (u32)i + 1, e[i].mode, size, e[i].name);
		ck_assert_uint_lt(at + size + 3, ARCHIVE_MAX);
		memcpy(archive + at, e[i].data ? e[i].data : "", size);
		at += size;
		while (at % 4)
			archive[at++] = '\0';
	}
	at = put_header(at, 0, 0, 0, "TRAILER!!!");
	ck_assert_int_eq(initrd_init(archive, at), 0);
}

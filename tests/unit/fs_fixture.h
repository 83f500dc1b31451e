/*
 * Shared set-up of the file-layer tests (test_file, test_pipe, test_socket,
 * test_poll, test_procfs, test_console): fake RAM with the real page
 * allocator and heap, a fresh descriptor table as current_files(), and at
 * the end a check that every file-layer object and every heap object is
 * gone.
 */
#ifndef FULCRUM_TESTS_FS_FIXTURE_H
#define FULCRUM_TESTS_FS_FIXTURE_H

#include "lib/types.h"

void fs_setup(void);
/* Drops the table, then fails the test if any object or page is left. */
void fs_teardown(void);
/* Fails the test unless no file, table, pipe or socket is live and the heap holds nothing. */
void fs_expect_all_freed(void);

/* A test initrd entry: mode is S_IF* | permissions; data a file's text or a link's target. */
struct fs_test_entry {
	const char *name;
	u32 mode;
	const char *data;
};

/* Builds a cpio newc archive of the entries and indexes it as the initrd. */
void fs_load_initrd(const struct fs_test_entry *e, size_t n);

/* A user buffer that copies refuse (below USER_ADDR_MIN). */
#define BAD_UPTR ((void *)0x100)

#endif

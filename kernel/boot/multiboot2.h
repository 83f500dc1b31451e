/*
 * Multiboot2 boot information parser: a byte buffer in, struct boot_info
 * out. Every tag's size is checked against the buffer before use.
 */
#ifndef FULCRUM_BOOT_MULTIBOOT2_H
#define FULCRUM_BOOT_MULTIBOOT2_H

#include "boot/boot_info.h"
#include "lib/types.h"

#define MULTIBOOT2_BOOTLOADER_MAGIC 0x36d76289u

/*
 * Parses the multiboot2 information at mbi, of which at most avail bytes
 * may be read (the total_size field is checked against it), located at
 * physical address mbi_phys. Unknown tags are skipped; a malformed tag
 * (size < 8, running past the end) stops the walk with a pr_warn and
 * counts in out->warnings. Strings are copied NUL-terminated and cut to
 * fit. Returns 0, or -EINVAL if the header itself is unusable.
 */
int multiboot2_parse(const void *mbi, size_t avail, phys_addr_t mbi_phys, struct boot_info *out);

#endif

/*
 * PVH boot information parser: the hvm_start_info that QEMU's -kernel (and
 * other PVH loaders) leave for an ELF kernel with a PVH entry note, read
 * into the same struct boot_info as multiboot2's.
 */
#ifndef FULCRUM_BOOT_PVH_H
#define FULCRUM_BOOT_PVH_H

#include "boot/boot_info.h"
#include "lib/types.h"

#define PVH_START_MAGIC 0x336ec578u

/* Maps len bytes at physical address phys for reading, or NULL if it cannot. */
typedef const void *(*pvh_map_fn)(phys_addr_t phys, size_t len, void *ctx);

/*
 * Parses the hvm_start_info at physical address info_phys, reading it and
 * everything it points to (command line, module list, memory map) through
 * map. A module without a command line is named "initrd": QEMU passes its
 * -initrd file so. Strings are copied NUL-terminated and cut to fit; odd
 * entries are skipped with a pr_warn and counted in out->warnings.
 * Returns 0, or -EINVAL if the structure itself is unusable (bad magic,
 * unmappable).
 */
int pvh_parse(phys_addr_t info_phys, pvh_map_fn map, void *ctx, struct boot_info *out);

#endif

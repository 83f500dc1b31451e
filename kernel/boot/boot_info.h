/*
 * What the bootloader told us, in plain form: the command line, the
 * memory map, boot modules (the initrd), the ACPI RSDP and the console
 * framebuffer. Filled by the multiboot2 parser; read by kernel_main.
 */
#ifndef FULCRUM_BOOT_BOOT_INFO_H
#define FULCRUM_BOOT_BOOT_INFO_H

#include "lib/types.h"
#include "mm/memmap.h"

#define BOOT_MAX_MEM_ENTRIES 128
#define BOOT_MAX_MODULES     8
#define BOOT_CMDLINE_MAX     1024
#define BOOT_NAME_MAX	     64

struct boot_module {
	phys_addr_t start, end;	  /* [start, end) */
	char name[BOOT_NAME_MAX]; /* the module's command line ("initrd") */
};

enum boot_fb_type {
	BOOT_FB_NONE = 0,
	BOOT_FB_TEXT, /* EGA text mode: 16-bit cells */
	BOOT_FB_RGB,  /* linear framebuffer: the console draws text with a font */
};

struct boot_framebuffer {
	enum boot_fb_type type;
	phys_addr_t addr;
	u32 pitch, width, height; /* text mode: in characters */
	u8 bpp;
	/* RGB: each colour's lowest bit and width in a pixel (the loader's, else the usual) */
	u8 red_pos, red_size, green_pos, green_size, blue_pos, blue_size;
};

struct boot_info {
	char cmdline[BOOT_CMDLINE_MAX];
	char loader_name[BOOT_NAME_MAX];

	struct mem_entry mem[BOOT_MAX_MEM_ENTRIES];
	size_t nr_mem;
	/* mem[] came from the EFI memory map (tag 17), which wins over tag 6 */
	bool mem_from_efi;
	u32 efi_descriptors, efi_not_wb; /* its descriptors; usable ones without WB kept out */
	bool have_basic_mem;		 /* mem_lower/mem_upper tag, used when no map is given */
	u32 mem_lower_kib, mem_upper_kib;

	struct boot_module modules[BOOT_MAX_MODULES];
	size_t nr_modules;

	/* A copy of the RSDP the loader found: ACPI 2.0+ (XSDP) if given, else 1.0. */
	u8 rsdp[36];
	size_t rsdp_len; /* 0: none given; 20: ACPI 1.0; 36: ACPI 2.0+ */

	struct boot_framebuffer fb;

	phys_addr_t mbi_start, mbi_end; /* the multiboot information itself */
	u32 warnings;			/* malformed tags skipped */
};

#endif

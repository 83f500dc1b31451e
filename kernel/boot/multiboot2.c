/*
 * Multiboot2 boot information parser: walks the tags GRUB left in memory
 * and fills struct boot_info. The bytes are untrusted: every size is
 * checked before a read, and nothing outside [mbi, mbi + total_size) is read.
 */
#include "boot/multiboot2.h"

#include "lib/compiler.h"
#include "lib/errno.h"
#include "lib/string.h"
#include "printk.h"

enum mb2_tag_type {
	MB2_TAG_END = 0,
	MB2_TAG_CMDLINE = 1,
	MB2_TAG_LOADER_NAME = 2,
	MB2_TAG_MODULE = 3,
	MB2_TAG_BASIC_MEMINFO = 4,
	MB2_TAG_MMAP = 6,
	MB2_TAG_FRAMEBUFFER = 8,
	MB2_TAG_ACPI_OLD = 14,
	MB2_TAG_ACPI_NEW = 15,
	MB2_TAG_EFI_MMAP = 17,
};

/*
 * The layouts, as the multiboot2 specification gives them. The parser
 * never casts the buffer to these: it copies bytes out with memcpy after
 * checking the size, so neither alignment nor the end of the buffer can
 * bite.
 */
struct mb2_info_header {
	u32 total_size; /* including this header and the end tag */
	u32 reserved;
} __packed;
_Static_assert(sizeof(struct mb2_info_header) == 8, "multiboot2 info header");

/* Every tag starts so; size excludes the padding up to the next 8-byte boundary. */
struct mb2_tag {
	u32 type;
	u32 size;
} __packed;
_Static_assert(sizeof(struct mb2_tag) == 8, "multiboot2 tag header");

/* Followed by the module's command line, NUL-terminated. */
struct mb2_tag_module {
	struct mb2_tag tag;
	u32 mod_start;
	u32 mod_end; /* one past the last byte */
} __packed;
_Static_assert(sizeof(struct mb2_tag_module) == 16, "multiboot2 module tag");

struct mb2_tag_basic_meminfo {
	struct mb2_tag tag;
	u32 mem_lower; /* KiB below 1 MiB */
	u32 mem_upper; /* KiB from 1 MiB to the first hole */
} __packed;
_Static_assert(sizeof(struct mb2_tag_basic_meminfo) == 16, "multiboot2 basic meminfo tag");

/* Followed by the entries, entry_size bytes apart. */
struct mb2_tag_mmap {
	struct mb2_tag tag;
	u32 entry_size; /* at least sizeof(struct mb2_mmap_entry) */
	u32 entry_version;
} __packed;
_Static_assert(sizeof(struct mb2_tag_mmap) == 16, "multiboot2 memory map tag");

struct mb2_mmap_entry {
	u64 base_addr;
	u64 length;
	u32 type;
	u32 reserved;
} __packed;
_Static_assert(sizeof(struct mb2_mmap_entry) == 24, "multiboot2 memory map entry");

/* Followed by the firmware's EFI_MEMORY_DESCRIPTORs, descr_size bytes apart. */
struct mb2_tag_efi_mmap {
	struct mb2_tag tag;
	u32 descr_size;
	u32 descr_version;
} __packed;
_Static_assert(sizeof(struct mb2_tag_efi_mmap) == 16, "multiboot2 EFI memory map tag");

struct efi_memory_descriptor {
	u32 type;
	u32 pad;
	u64 phys_start;
	u64 virt_start;
	u64 pages; /* of 4 KiB */
	u64 attribute;
} __packed;
_Static_assert(sizeof(struct efi_memory_descriptor) == 40, "EFI memory descriptor");

/* The UEFI specification's memory types and attributes that decide what a range is. */
enum efi_memory_type {
	EFI_LOADER_CODE = 1,
	EFI_LOADER_DATA = 2,
	EFI_BOOT_SERVICES_CODE = 3,
	EFI_BOOT_SERVICES_DATA = 4,
	EFI_CONVENTIONAL = 7,
	EFI_UNUSABLE = 8,
	EFI_ACPI_RECLAIM = 9,
	EFI_ACPI_NVS = 10,
};
#define EFI_MEMORY_WB (1ULL << 3)
#define EFI_MEMORY_SP (1ULL << 18) /* specific-purpose memory: for a driver, not the kernel */

/* The common part; colour information for indexed and RGB modes follows. */
struct mb2_tag_framebuffer {
	struct mb2_tag tag;
	u64 addr;
	u32 pitch; /* bytes per line */
	u32 width, height;
	u8 bpp;
	u8 type; /* MB2_FB_* */
	u16 reserved;
} __packed;
_Static_assert(sizeof(struct mb2_tag_framebuffer) == 32, "multiboot2 framebuffer tag");

enum mb2_fb_type {
	MB2_FB_INDEXED = 0,
	MB2_FB_RGB = 1,
	MB2_FB_EGA_TEXT = 2,
};

#define RSDP_V1_LEN 20 /* ACPI 1.0 RSDP */
#define RSDP_V2_LEN 36 /* ACPI 2.0+ XSDP */
_Static_assert(sizeof(((struct boot_info *)0)->rsdp) == RSDP_V2_LEN, "rsdp buffer");

/* Every complaint goes through here, so out->warnings counts them all. */
#define mb2_warn(out, fmt, ...)                             \
	do {                                                \
		(out)->warnings++;                          \
		pr_warn("multiboot2: " fmt, ##__VA_ARGS__); \
	} while (0)

/*
 * Copies the string in src[0..len) into dst[0..size), NUL-terminated.
 * The tag bounds the string: one that lacks its NUL stops at the tag's
 * end. Both oddities, a missing NUL and a cut, are reported.
 */
static void copy_string(char *dst, size_t size, const u8 *src, size_t len, const char *what,
			struct boot_info *out)
{
	size_t n = 0;

	while (n < len && src[n] != '\0')
		n++;
	if (n == len)
		mb2_warn(out, "%s is not NUL-terminated inside its tag\n", what);
	if (n >= size) {
		mb2_warn(out, "%s is %zu bytes long, cut to %zu\n", what, n, size - 1);
		n = size - 1;
	}
	memcpy(dst, src, n);
	dst[n] = '\0';
}

static void parse_module(const u8 *tag, size_t size, struct boot_info *out)
{
	struct mb2_tag_module m;
	struct boot_module *mod;

	if (size < sizeof(m)) {
		mb2_warn(out, "module tag of %zu bytes is too short, skipped\n", size);
		return;
	}
	memcpy(&m, tag, sizeof(m));
	if (m.mod_end < m.mod_start) {
		mb2_warn(out, "module at %#x ends before it starts (%#x), skipped\n", m.mod_start,
			 m.mod_end);
		return;
	}
	if (out->nr_modules == BOOT_MAX_MODULES) {
		mb2_warn(out, "more than %d modules, module at %#x skipped\n", BOOT_MAX_MODULES,
			 m.mod_start);
		return;
	}
	mod = &out->modules[out->nr_modules++];
	mod->start = m.mod_start;
	mod->end = m.mod_end;
	copy_string(mod->name, sizeof(mod->name), tag + sizeof(m), size - sizeof(m), "module name",
		    out);
}

static void parse_basic_meminfo(const u8 *tag, size_t size, struct boot_info *out)
{
	struct mb2_tag_basic_meminfo mi;

	if (size < sizeof(mi)) {
		mb2_warn(out, "basic memory tag of %zu bytes is too short, skipped\n", size);
		return;
	}
	memcpy(&mi, tag, sizeof(mi));
	out->have_basic_mem = true;
	out->mem_lower_kib = mi.mem_lower;
	out->mem_upper_kib = mi.mem_upper;
}

/*
 * Entries are entry_size apart, which may grow in later versions of the
 * spec; only the fields we know are read, and only whole entries.
 */
static void parse_mmap(const u8 *tag, size_t size, struct boot_info *out)
{
	struct mb2_tag_mmap mm;
	size_t count;

	if (size < sizeof(mm)) {
		mb2_warn(out, "memory map tag of %zu bytes is too short, skipped\n", size);
		return;
	}
	memcpy(&mm, tag, sizeof(mm));
	if (mm.entry_size < sizeof(struct mb2_mmap_entry)) {
		mb2_warn(out, "memory map entry size %u is below %zu, map skipped\n", mm.entry_size,
			 sizeof(struct mb2_mmap_entry));
		return;
	}
	if (out->mem_from_efi)
		return; /* the EFI map says more (attributes, boot-services ranges) */
	if (out->nr_mem) {
		mb2_warn(out, "second memory map tag skipped\n");
		return;
	}
	count = (size - sizeof(mm)) / mm.entry_size;
	if (count > BOOT_MAX_MEM_ENTRIES) {
		mb2_warn(out, "memory map has %zu entries, keeping the first %d\n", count,
			 BOOT_MAX_MEM_ENTRIES);
		count = BOOT_MAX_MEM_ENTRIES;
	}
	for (size_t i = 0; i < count; i++) {
		struct mb2_mmap_entry e;

		memcpy(&e, tag + sizeof(mm) + i * mm.entry_size, sizeof(e));
		out->mem[i].base = e.base_addr;
		out->mem[i].length = e.length;
		out->mem[i].type = e.type;
	}
	out->nr_mem = count;
}

/*
 * What an EFI range is to the kernel. GRUB has left boot services when the
 * kernel runs, so their code and data are free, as are the loader's (the
 * kernel, the modules and this information are reserved on their own).
 * Free memory that cannot be cached write-back, or is set aside for a
 * specific purpose, is not general RAM: kept out.
 */
static u32 efi_mem_type(const struct efi_memory_descriptor *d, bool *not_wb)
{
	*not_wb = false;
	switch (d->type) {
	case EFI_LOADER_CODE:
	case EFI_LOADER_DATA:
	case EFI_BOOT_SERVICES_CODE:
	case EFI_BOOT_SERVICES_DATA:
	case EFI_CONVENTIONAL:
		if (d->attribute & EFI_MEMORY_SP)
			return MEM_RESERVED;
		*not_wb = !(d->attribute & EFI_MEMORY_WB);
		return *not_wb ? MEM_RESERVED : MEM_USABLE;
	case EFI_UNUSABLE:
		return MEM_BAD;
	case EFI_ACPI_RECLAIM:
		return MEM_ACPI_RECLAIMABLE;
	case EFI_ACPI_NVS:
		return MEM_ACPI_NVS;
	default: /* runtime services, MMIO, reserved, persistent, ... */
		return MEM_RESERVED;
	}
}

/* Tag 17: replaces a map from tag 6; neighbours of one kind are merged into one entry. */
static void parse_efi_mmap(const u8 *tag, size_t size, struct boot_info *out)
{
	struct mb2_tag_efi_mmap em;
	size_t count, n = 0;

	if (size < sizeof(em)) {
		mb2_warn(out, "EFI memory map tag of %zu bytes is too short, skipped\n", size);
		return;
	}
	memcpy(&em, tag, sizeof(em));
	if (em.descr_size < sizeof(struct efi_memory_descriptor)) {
		mb2_warn(out, "EFI memory descriptor size %u is below %zu, map skipped\n",
			 em.descr_size, sizeof(struct efi_memory_descriptor));
		return;
	}
	if (out->mem_from_efi) {
		mb2_warn(out, "second EFI memory map tag skipped\n");
		return;
	}
	count = (size - sizeof(em)) / em.descr_size;
	out->efi_descriptors = (u32)count;
	out->efi_not_wb = 0;
	for (size_t i = 0; i < count; i++) {
		struct efi_memory_descriptor d;
		struct mem_entry *last = n ? &out->mem[n - 1] : NULL;
		bool not_wb;
		u32 type;

		memcpy(&d, tag + sizeof(em) + i * em.descr_size, sizeof(d));
		if (!d.pages || d.pages > (~0ULL - d.phys_start) / 4096 + 1)
			continue; /* empty, or wrapping: memmap_init would drop it too */
		type = efi_mem_type(&d, &not_wb);
		out->efi_not_wb += not_wb;
		if (last && last->type == type && last->base + last->length == d.phys_start) {
			last->length += d.pages * 4096;
			continue;
		}
		if (n == BOOT_MAX_MEM_ENTRIES) {
			mb2_warn(out,
				 "EFI memory map needs more than %d entries, the rest left out\n",
				 BOOT_MAX_MEM_ENTRIES);
			break;
		}
		out->mem[n++] = (struct mem_entry){ d.phys_start, d.pages * 4096, type };
	}
	out->nr_mem = n;
	out->mem_from_efi = true;
}

static void parse_framebuffer(const u8 *tag, size_t size, struct boot_info *out)
{
	struct mb2_tag_framebuffer fb;

	if (size < sizeof(fb)) {
		mb2_warn(out, "framebuffer tag of %zu bytes is too short, skipped\n", size);
		return;
	}
	memcpy(&fb, tag, sizeof(fb));
	/* Indexed colour (and anything newer) is left alone: nothing here can draw it. */
	if (fb.type != MB2_FB_EGA_TEXT && fb.type != MB2_FB_RGB)
		return;
	out->fb.type = fb.type == MB2_FB_EGA_TEXT ? BOOT_FB_TEXT : BOOT_FB_RGB;
	out->fb.addr = fb.addr;
	out->fb.pitch = fb.pitch;
	out->fb.width = fb.width;
	out->fb.height = fb.height;
	out->fb.bpp = fb.bpp;
	if (fb.type != MB2_FB_RGB)
		return;
	/* The colour layout: six bytes after the common part (position, size per colour). */
	if (size >= sizeof(fb) + 6 && (tag[33] | tag[35] | tag[37])) {
		out->fb.red_pos = tag[32];
		out->fb.red_size = tag[33];
		out->fb.green_pos = tag[34];
		out->fb.green_size = tag[35];
		out->fb.blue_pos = tag[36];
		out->fb.blue_size = tag[37];
	} else if (fb.bpp == 16) { /* RGB 5:6:5 */
		out->fb.red_pos = 11;
		out->fb.red_size = 5;
		out->fb.green_pos = 5;
		out->fb.green_size = 6;
		out->fb.blue_size = 5;
	} else { /* 8 bits each, red highest: what UEFI's GOP gives as BGRx */
		out->fb.red_pos = 16;
		out->fb.red_size = 8;
		out->fb.green_pos = 8;
		out->fb.green_size = 8;
		out->fb.blue_size = 8;
	}
}

/*
 * The loader copies the RSDP into the tag. The ACPI 2.0+ form (XSDP, tag
 * 15) wins over the 1.0 form (tag 14) whichever comes first, since only
 * it can point at an XSDT above 4 GiB.
 */
static void parse_rsdp(const u8 *tag, size_t size, bool v2, struct boot_info *out)
{
	size_t len = v2 ? RSDP_V2_LEN : RSDP_V1_LEN;

	if (size - sizeof(struct mb2_tag) < len) {
		mb2_warn(out, "ACPI %s RSDP tag of %zu bytes is too short, skipped\n",
			 v2 ? "2.0" : "1.0", size);
		return;
	}
	if (!v2 && out->rsdp_len == RSDP_V2_LEN)
		return;
	memset(out->rsdp, 0, sizeof(out->rsdp));
	memcpy(out->rsdp, tag + sizeof(struct mb2_tag), len);
	out->rsdp_len = len;
}

static void parse_tag(const u8 *tag, u32 type, size_t size, struct boot_info *out)
{
	switch (type) {
	case MB2_TAG_CMDLINE:
		copy_string(out->cmdline, sizeof(out->cmdline), tag + sizeof(struct mb2_tag),
			    size - sizeof(struct mb2_tag), "command line", out);
		break;
	case MB2_TAG_LOADER_NAME:
		copy_string(out->loader_name, sizeof(out->loader_name), tag + sizeof(struct mb2_tag),
			    size - sizeof(struct mb2_tag), "boot loader name", out);
		break;
	case MB2_TAG_MODULE:
		parse_module(tag, size, out);
		break;
	case MB2_TAG_BASIC_MEMINFO:
		parse_basic_meminfo(tag, size, out);
		break;
	case MB2_TAG_MMAP:
		parse_mmap(tag, size, out);
		break;
	case MB2_TAG_FRAMEBUFFER:
		parse_framebuffer(tag, size, out);
		break;
	case MB2_TAG_ACPI_OLD:
	case MB2_TAG_ACPI_NEW:
		parse_rsdp(tag, size, type == MB2_TAG_ACPI_NEW, out);
		break;
	case MB2_TAG_EFI_MMAP:
		parse_efi_mmap(tag, size, out);
		break;
	default:
		/* Boot device, ELF sections, APM, EFI, ...: nothing we use. */
		break;
	}
}

/*
 *  mbi                                                    mbi + total_size
 *  | total_size | reserved | type | size | payload  pad | ... | 0 | 8 |
 *                          '------ size ------------'
 *                          '------ ALIGN_UP(size, 8) ---'
 *
 * Tags start 8-aligned relative to mbi; the walk ends at the end tag
 * (type 0), or early with a warning on a tag that cannot be right.
 */
int multiboot2_parse(const void *mbi, size_t avail, phys_addr_t mbi_phys, struct boot_info *out)
{
	const u8 *base = mbi;
	struct mb2_info_header hdr;
	size_t total, off;
	bool ended = false;

	memset(out, 0, sizeof(*out));
	if (!mbi || avail < sizeof(hdr)) {
		mb2_warn(out, "no boot information (%zu bytes available)\n", mbi ? avail : 0);
		return -EINVAL;
	}
	memcpy(&hdr, base, sizeof(hdr));
	/* The smallest valid info is the header and the end tag. */
	if (hdr.total_size < sizeof(hdr) + sizeof(struct mb2_tag) || hdr.total_size > avail) {
		mb2_warn(out, "total size %u is outside %zu..%zu, ignored\n", hdr.total_size,
			 sizeof(hdr) + sizeof(struct mb2_tag), avail);
		return -EINVAL;
	}
	total = hdr.total_size;
	out->mbi_start = mbi_phys;
	out->mbi_end = mbi_phys + total;

	for (off = sizeof(hdr); off < total;) {
		struct mb2_tag tag;

		if (total - off < sizeof(tag)) {
			mb2_warn(out, "%zu stray bytes at offset %zu, walk stopped\n", total - off,
				 off);
			break;
		}
		memcpy(&tag, base + off, sizeof(tag));
		if (tag.type == MB2_TAG_END) {
			ended = true;
			break;
		}
		if (tag.size < sizeof(tag) || tag.size > total - off) {
			mb2_warn(out, "tag %u at offset %zu: bad size %u (%zu left), walk stopped\n",
				 tag.type, off, tag.size, total - off);
			break;
		}
		parse_tag(base + off, tag.type, tag.size, out);
		/* size <= total - off, so this cannot wrap; it may step past total. */
		off += ALIGN_UP((size_t)tag.size, 8);
	}
	if (!ended && off >= total)
		mb2_warn(out, "no end tag within %zu bytes\n", total);
	return 0;
}

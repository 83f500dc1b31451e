/*
 * PVH boot information parser. A PVH loader starts the kernel at the
 * address in its ELF note (boot/pvh.asm) with EBX pointing at an
 * hvm_start_info; this turns that and the tables it points to into struct
 * boot_info. Under QEMU's -kernel nothing is read from a disk before the
 * kernel runs, which is what makes an icount boot repeat exactly.
 */
#include "boot/pvh.h"

#include "lib/compiler.h"
#include "lib/errno.h"
#include "lib/string.h"
#include "printk.h"

/* The layouts of the PVH boot ABI (version 1). */
struct pvh_start_info {
	u32 magic; /* PVH_START_MAGIC */
	u32 version;
	u32 flags;
	u32 nr_modules;
	u64 modlist_paddr; /* nr_modules of struct pvh_module */
	u64 cmdline_paddr; /* NUL-terminated, or 0 */
	u64 rsdp_paddr;	   /* 0: none given */
	/* version 1 and later */
	u64 memmap_paddr; /* memmap_entries of struct pvh_memmap_entry */
	u32 memmap_entries;
	u32 reserved;
} __packed;
_Static_assert(sizeof(struct pvh_start_info) == 56, "hvm_start_info");

struct pvh_module {
	u64 paddr;
	u64 size;
	u64 cmdline_paddr; /* 0: none */
	u64 reserved;
} __packed;
_Static_assert(sizeof(struct pvh_module) == 32, "hvm_modlist_entry");

/* The type numbers are the E820 ones, as in multiboot2's map. */
struct pvh_memmap_entry {
	u64 addr;
	u64 size;
	u32 type;
	u32 reserved;
} __packed;
_Static_assert(sizeof(struct pvh_memmap_entry) == 24, "hvm_memmap_table_entry");

#define RSDP_V1_LEN 20
#define RSDP_V2_LEN 36

#define pvh_warn(out, fmt, ...)                      \
	do {                                         \
		(out)->warnings++;                   \
		pr_warn("pvh: " fmt, ##__VA_ARGS__); \
	} while (0)

/*
 * Copies the string at phys into dst[0..size), NUL-terminated, mapping one
 * byte at a time so that a string at the top of a mapping cannot be overrun.
 */
static void copy_string(char *dst, size_t size, phys_addr_t phys, pvh_map_fn map, void *ctx,
			const char *what, struct boot_info *out)
{
	size_t n = 0;

	for (;;) {
		const char *c = map(phys + n, 1, ctx);

		if (!c) {
			pvh_warn(out, "%s at %#llx cannot be read past %zu bytes\n", what,
				 (unsigned long long)phys, n);
			break;
		}
		if (*c == '\0')
			break;
		if (n == size - 1) {
			pvh_warn(out, "%s is longer than %zu bytes, cut\n", what, size - 1);
			break;
		}
		dst[n++] = *c;
	}
	dst[n] = '\0';
}

static void parse_modules(const struct pvh_start_info *si, pvh_map_fn map, void *ctx,
			  struct boot_info *out)
{
	const struct pvh_module *list;
	u32 n = si->nr_modules;

	if (!n)
		return;
	if (n > BOOT_MAX_MODULES) {
		pvh_warn(out, "%u modules, keeping the first %d\n", n, BOOT_MAX_MODULES);
		n = BOOT_MAX_MODULES;
	}
	list = map(si->modlist_paddr, n * sizeof(*list), ctx);
	if (!list) {
		pvh_warn(out, "module list at %#llx cannot be read, no modules\n",
			 (unsigned long long)si->modlist_paddr);
		return;
	}
	for (u32 i = 0; i < n; i++) {
		struct pvh_module m;
		struct boot_module *mod;

		memcpy(&m, &list[i], sizeof(m));
		if (m.paddr + m.size < m.paddr) {
			pvh_warn(out, "module at %#llx wraps around, skipped\n",
				 (unsigned long long)m.paddr);
			continue;
		}
		mod = &out->modules[out->nr_modules++];
		mod->start = m.paddr;
		mod->end = m.paddr + m.size;
		if (m.cmdline_paddr)
			copy_string(mod->name, sizeof(mod->name), m.cmdline_paddr, map, ctx,
				    "module name", out);
		if (!mod->name[0])
			memcpy(mod->name, "initrd", sizeof("initrd"));
	}
}

static void parse_memmap(const struct pvh_start_info *si, pvh_map_fn map, void *ctx,
			 struct boot_info *out)
{
	const struct pvh_memmap_entry *table;
	u32 n = si->memmap_entries;

	if (si->version < 1 || !n) {
		pvh_warn(out, "no memory map (version %u, %u entries)\n", si->version, n);
		return;
	}
	if (n > BOOT_MAX_MEM_ENTRIES) {
		pvh_warn(out, "memory map has %u entries, keeping the first %d\n", n,
			 BOOT_MAX_MEM_ENTRIES);
		n = BOOT_MAX_MEM_ENTRIES;
	}
	table = map(si->memmap_paddr, n * sizeof(*table), ctx);
	if (!table) {
		pvh_warn(out, "memory map at %#llx cannot be read\n",
			 (unsigned long long)si->memmap_paddr);
		return;
	}
	for (u32 i = 0; i < n; i++) {
		struct pvh_memmap_entry e;

		memcpy(&e, &table[i], sizeof(e));
		out->mem[out->nr_mem].base = e.addr;
		out->mem[out->nr_mem].length = e.size;
		out->mem[out->nr_mem].type = e.type;
		out->nr_mem++;
	}
}

/* A copy of the RSDP: 36 bytes when its revision says 2.0+, else 20. */
static void parse_rsdp(phys_addr_t phys, pvh_map_fn map, void *ctx, struct boot_info *out)
{
	const u8 *p = map(phys, RSDP_V1_LEN, ctx);
	size_t len = RSDP_V1_LEN;

	if (!p) {
		pvh_warn(out, "RSDP at %#llx cannot be read\n", (unsigned long long)phys);
		return;
	}
	if (p[15] >= 2) { /* revision */
		p = map(phys, RSDP_V2_LEN, ctx);
		len = RSDP_V2_LEN;
		if (!p) {
			pvh_warn(out, "ACPI 2.0 RSDP at %#llx cannot be read\n",
				 (unsigned long long)phys);
			return;
		}
	}
	memcpy(out->rsdp, p, len);
	out->rsdp_len = len;
}

int pvh_parse(phys_addr_t info_phys, pvh_map_fn map, void *ctx, struct boot_info *out)
{
	const struct pvh_start_info *p;
	struct pvh_start_info si;

	memset(out, 0, sizeof(*out));
	p = map(info_phys, sizeof(si), ctx);
	if (!p) {
		pvh_warn(out, "start info at %#llx cannot be read\n", (unsigned long long)info_phys);
		return -EINVAL;
	}
	memcpy(&si, p, sizeof(si));
	if (si.magic != PVH_START_MAGIC) {
		pvh_warn(out, "start info magic %#x, not %#x\n", si.magic, PVH_START_MAGIC);
		return -EINVAL;
	}
	memcpy(out->loader_name, "PVH", sizeof("PVH"));
	if (si.cmdline_paddr)
		copy_string(out->cmdline, sizeof(out->cmdline), si.cmdline_paddr, map, ctx,
			    "command line", out);
	parse_modules(&si, map, ctx, out);
	parse_memmap(&si, map, ctx, out);
	if (si.rsdp_paddr)
		parse_rsdp(si.rsdp_paddr, map, ctx, out);
	/* Everything is copied; the start info needs no reservation of its own. */
	return 0;
}

/*
 * ACPI table discovery: finds and checks the RSDP, walks the RSDT or XSDT
 * through the caller's map callback and lists every table with its checksum
 * verdict. Nothing is trusted: each address, length and checksum is checked.
 */
#include "acpi/tables.h"

#include "cmdline.h"
#include "lib/errno.h"
#include "lib/printf.h"
#include "lib/string.h"
#include "printk.h"

static const char *acpi_mode = "on";
static const char *const acpi_mode_choices[] = { "on", "off", NULL };
BOOT_OPTION_STRING(acpi, "acpi", &acpi_mode, acpi_mode_choices,
		   "off: ignore ACPI tables (boot CPU only, one NUMA node)");

static const char *bad_checksum = "use";
static const char *const bad_checksum_choices[] = { "use", "refuse", NULL };
BOOT_OPTION_STRING(acpi_bad_checksum, "acpi_bad_checksum", &bad_checksum, bad_checksum_choices,
		   "what to do with an ACPI table whose checksum is wrong (always warned about)");

/* The BIOS areas where an RSDP may sit when the loader did not pass one. */
#define BDA_EBDA_SEGMENT 0x40E /* 16-bit real-mode segment of the EBDA */
#define EBDA_SEARCH_LEN	 1024
#define EBDA_LOWEST	 0x80000 /* an EBDA below 512 KiB or in the VGA hole is bogus */
#define EBDA_HIGHEST	 0xA0000
#define BIOS_ROM_START	 0xE0000
#define BIOS_ROM_LEN	 0x20000

/* The FADT's DSDT/FACS fields that exist only from this length on. */
#define FADT_X_FIRMWARE_CTRL_END 140
#define FADT_X_DSDT_END		 148

/* A root table can in principle list ~4M entries; stop looking well before. */
#define ACPI_ROOT_MAX_ENTRIES 1024

bool acpi_disabled(void)
{
	return strcmp(acpi_mode, "off") == 0;
}

enum acpi_checksum_policy acpi_checksum_policy(void)
{
	return strcmp(bad_checksum, "refuse") == 0 ? ACPI_CHECKSUM_REFUSE : ACPI_CHECKSUM_USE;
}

u8 acpi_checksum(const void *buf, size_t len)
{
	const u8 *p = buf;
	u8 sum = 0;

	for (size_t i = 0; i < len; i++)
		sum = (u8)(sum + p[i]);
	return sum;
}

int acpi_rsdp_check(const void *buf, size_t len, struct acpi_rsdp_info *out)
{
	const struct acpi_rsdp *r = buf;
	const struct acpi_rsdp2 *r2 = buf;

	memset(out, 0, sizeof(*out));
	if (len < ACPI_RSDP_V1_LEN || memcmp(r->signature, ACPI_RSDP_SIGNATURE, 8) != 0 ||
	    acpi_checksum(buf, ACPI_RSDP_V1_LEN) != 0)
		return -EINVAL;
	out->revision = r->revision;
	memcpy(out->oem_id, r->oem_id, sizeof(r->oem_id));
	out->rsdt_address = r->rsdt_address;

	/*
	 * Revision 2 and later carry a length and an extended checksum; a
	 * length beyond the bytes we hold cannot be checked, so the 2.0
	 * fields are not believed then.
	 */
	if (r->revision >= 2 && len >= ACPI_RSDP_V2_LEN && r2->length >= ACPI_RSDP_V2_LEN &&
	    r2->length <= len && acpi_checksum(buf, r2->length) == 0) {
		out->v2_ok = true;
		out->xsdt_address = r2->xsdt_address;
	}
	return 0;
}

s64 acpi_rsdp_scan(const void *buf, size_t len, u64 phys)
{
	const u8 *p = buf;
	struct acpi_rsdp_info info;
	/* The first offset at which phys + off is 16-byte aligned. */
	size_t off = (size_t)((16 - (phys & 15)) & 15);

	for (; off < len && len - off >= ACPI_RSDP_V1_LEN; off += 16) {
		size_t avail = MIN(len - off, (size_t)ACPI_RSDP_V2_LEN);

		if (acpi_rsdp_check(p + off, avail, &info) == 0)
			return (s64)off;
	}
	return -ENOENT;
}

/* Scans [phys, phys + len) through map; 0 and *found on success. */
static int scan_area(acpi_map_fn map, void *ctx, u64 phys, u32 len, u64 *found)
{
	const void *area = map(phys, len, ctx);
	s64 off;

	if (!area)
		return -ENOENT;
	off = acpi_rsdp_scan(area, len, phys);
	if (off < 0)
		return -ENOENT;
	*found = phys + (u64)off;
	return 0;
}

int acpi_rsdp_find_bios(acpi_map_fn map, void *ctx, u64 *phys)
{
	const u8 *bda = map(BDA_EBDA_SEGMENT, 2, ctx);

	if (bda) {
		u64 ebda = (u64)(bda[0] | bda[1] << 8) << 4;

		if (ebda >= EBDA_LOWEST && ebda + EBDA_SEARCH_LEN <= EBDA_HIGHEST &&
		    scan_area(map, ctx, ebda, EBDA_SEARCH_LEN, phys) == 0)
			return 0;
	}
	return scan_area(map, ctx, BIOS_ROM_START, BIOS_ROM_LEN, phys);
}

u32 acpi_sdt_length(const void *buf, size_t avail, const char *signature)
{
	const struct acpi_sdt_header *h = buf;

	if (!buf || avail < ACPI_SDT_HEADER_LEN)
		return 0;
	if (signature && memcmp(h->signature, signature, 4) != 0)
		return 0;
	if (h->length < ACPI_SDT_HEADER_LEN || h->length > avail || h->length > ACPI_TABLE_MAX_LEN)
		return 0;
	return h->length;
}

int acpi_walk_entries(const void *table, u32 start, u32 end, const char *name,
		      size_t (*min_len)(u8 type), void (*fn)(const u8 *entry, void *arg), void *arg,
		      u32 *malformed)
{
	const u8 *base = table;

	for (u32 off = start; off < end;) {
		u8 type, len;
		size_t need;

		if (end - off < 2) {
			pr_warn("ACPI: %s: a stray byte at offset %u, too few for an entry; walk "
				"stopped\n",
				name, off);
			return -EINVAL;
		}
		type = base[off];
		len = base[off + 1];
		/* Length 0 would never move on; 1 cannot even hold the header. */
		if (len < 2) {
			pr_warn("ACPI: %s: entry of type %u at offset %u has length %u; walk "
				"stopped\n",
				name, type, off, len);
			return -EINVAL;
		}
		if (len > end - off) {
			pr_warn("ACPI: %s: entry of type %u at offset %u (length %u) runs past the "
				"table's end (%u); walk stopped\n",
				name, type, off, len, end);
			return -EINVAL;
		}
		need = min_len(type);
		if (len < need) {
			pr_warn("ACPI: %s: entry of type %u at offset %u is %u bytes, needs %zu; "
				"skipped\n",
				name, type, off, len, need);
			(*malformed)++;
		} else {
			fn(base + off, arg);
		}
		off += len;
	}
	return 0;
}

/* Copies a 4-byte signature as printable text, so a corrupt one cannot garble the log. */
static void signature_text(char out[5], const void *sig)
{
	const u8 *s = sig;

	for (int i = 0; i < 4; i++)
		out[i] = s[i] >= 0x20 && s[i] < 0x7f ? (char)s[i] : '?';
	out[4] = '\0';
}

/*
 * Maps and checks the table at phys: the header first (to learn the
 * length), then the whole table. Returns it, or NULL after a warning.
 * what names the table in messages ("RSDT entry 3", "DSDT").
 */
static const struct acpi_sdt_header *map_table(acpi_map_fn map, void *ctx, u64 phys, const char *what)
{
	const struct acpi_sdt_header *h;
	u32 len;

	if (phys == 0 || phys > ~(u64)0 - ACPI_TABLE_MAX_LEN) {
		pr_warn("ACPI: %s at 0x%llx: impossible address, skipped\n", what,
			(unsigned long long)phys);
		return NULL;
	}
	h = map(phys, ACPI_SDT_HEADER_LEN, ctx);
	if (!h) {
		pr_warn("ACPI: %s at 0x%llx cannot be read, skipped\n", what,
			(unsigned long long)phys);
		return NULL;
	}
	len = h->length;
	if (len < ACPI_SDT_HEADER_LEN || len > ACPI_TABLE_MAX_LEN) {
		char sig[5];

		signature_text(sig, h->signature);
		pr_warn("ACPI: %s at 0x%llx (%s) has length %u, outside %u..%u; skipped\n", what,
			(unsigned long long)phys, sig, len, ACPI_SDT_HEADER_LEN, ACPI_TABLE_MAX_LEN);
		return NULL;
	}
	h = map(phys, len, ctx);
	/* A second look: the map may hand back a different view; its length must agree. */
	if (!h || h->length != len) {
		pr_warn("ACPI: %s at 0x%llx: %u bytes cannot be read, skipped\n", what,
			(unsigned long long)phys, len);
		return NULL;
	}
	return h;
}

/* Adds a mapped table to the list, applying the checksum policy. */
static void add_table(struct acpi_tables *t, u64 phys, const void *data, const char *sig4, u32 len,
		      bool checksum_ok, enum acpi_checksum_policy policy)
{
	struct acpi_table_info *ti;
	char sig[5];

	signature_text(sig, sig4);
	if (!checksum_ok) {
		t->bad_checksums++;
		pr_warn("ACPI: %s at 0x%llx has a bad checksum, %s (acpi_bad_checksum=%s)\n", sig,
			(unsigned long long)phys,
			policy == ACPI_CHECKSUM_REFUSE ? "not used" : "used anyway",
			policy == ACPI_CHECKSUM_REFUSE ? "refuse" : "use");
	}
	if (t->nr >= ACPI_MAX_TABLES) {
		if (t->dropped++ == 0)
			pr_warn("ACPI: more than %d tables; %s at 0x%llx and later ones not "
				"listed\n",
				ACPI_MAX_TABLES, sig, (unsigned long long)phys);
		return;
	}
	ti = &t->table[t->nr++];
	memcpy(ti->signature, sig, sizeof(ti->signature));
	ti->phys = phys;
	ti->length = len;
	ti->checksum_ok = checksum_ok;
	ti->refused = !checksum_ok && policy == ACPI_CHECKSUM_REFUSE;
	ti->data = ti->refused ? NULL : data;
}

static bool listed(const struct acpi_tables *t, u64 phys)
{
	for (u32 i = 0; i < t->nr; i++)
		if (t->table[i].phys == phys)
			return true;
	return false;
}

static void add_sdt(struct acpi_tables *t, acpi_map_fn map, void *ctx, u64 phys, const char *what,
		    enum acpi_checksum_policy policy)
{
	const struct acpi_sdt_header *h;

	/* Some firmware lists a table twice; one entry is enough to reserve it. */
	if (listed(t, phys))
		return;
	h = map_table(map, ctx, phys, what);
	if (!h) {
		t->unreadable++;
		return;
	}
	add_table(t, phys, h, h->signature, h->length, acpi_checksum(h, h->length) == 0, policy);
}

/* The FACS has no checksum; it is listed (for the memory map) if its head looks right. */
static void add_facs(struct acpi_tables *t, acpi_map_fn map, void *ctx, u64 phys)
{
	const struct acpi_facs_head *f;

	if (phys == 0 || listed(t, phys))
		return;
	f = map(phys, sizeof(*f), ctx);
	if (!f || memcmp(f->signature, "FACS", 4) != 0 || f->length < ACPI_FACS_MIN_LEN ||
	    f->length > ACPI_TABLE_MAX_LEN || !map(phys, f->length, ctx)) {
		pr_warn("ACPI: FACS at 0x%llx is unreadable or malformed, not listed\n",
			(unsigned long long)phys);
		t->unreadable++;
		return;
	}
	add_table(t, phys, map(phys, f->length, ctx), f->signature, f->length, true,
		  ACPI_CHECKSUM_USE);
}

/*
 * The DSDT and FACS hang off the FADT, not the root table. ACPI 2.0+ gives
 * 64-bit fields that win over the 32-bit ones when non-zero; they exist
 * only if the FADT is long enough to hold them.
 */
static void add_fadt_children(struct acpi_tables *t, acpi_map_fn map, void *ctx,
			      const struct acpi_table_info *fadt_info,
			      enum acpi_checksum_policy policy)
{
	const struct acpi_fadt *fadt = fadt_info->data;
	u32 len = fadt_info->length;
	u64 dsdt = 0, facs = 0;

	if (len < ACPI_FADT_V1_LEN) {
		pr_warn("ACPI: FACP of %u bytes is too short to name a DSDT\n", len);
		return;
	}
	facs = fadt->firmware_ctrl;
	dsdt = fadt->dsdt;
	if (len >= FADT_X_FIRMWARE_CTRL_END && fadt->x_firmware_ctrl)
		facs = fadt->x_firmware_ctrl;
	if (len >= FADT_X_DSDT_END && fadt->x_dsdt)
		dsdt = fadt->x_dsdt;
	if (dsdt)
		add_sdt(t, map, ctx, dsdt, "DSDT", policy);
	add_facs(t, map, ctx, facs);
}

/* Maps a root table of the given signature and checks it; NULL after a warning. */
static const struct acpi_sdt_header *map_root(acpi_map_fn map, void *ctx, u64 phys, const char *sig)
{
	const struct acpi_sdt_header *h = map_table(map, ctx, phys, sig);

	if (h && memcmp(h->signature, sig, 4) != 0) {
		char got[5];

		signature_text(got, h->signature);
		pr_warn("ACPI: %s at 0x%llx has signature '%s', not used\n", sig,
			(unsigned long long)phys, got);
		return NULL;
	}
	return h;
}

/*
 * Lists the root table at phys and says whether its entries may be used:
 * not if its checksum is bad and the policy refuses such tables.
 */
static bool take_root(struct acpi_tables *t, const struct acpi_sdt_header *h, u64 phys,
		      enum acpi_checksum_policy policy)
{
	add_table(t, phys, h, h->signature, h->length, acpi_checksum(h, h->length) == 0, policy);
	t->root = t->nr - 1; /* the list is empty before: nothing is dropped */
	return !t->table[t->root].refused;
}

int acpi_tables_read(const struct acpi_rsdp_info *rsdp, acpi_map_fn map, void *ctx,
		     enum acpi_checksum_policy policy, struct acpi_tables *out)
{
	const struct acpi_sdt_header *root = NULL;
	u32 entry_size, nr_entries;
	const u8 *entries;

	memset(out, 0, sizeof(*out));
	out->rsdp = *rsdp;
	if (rsdp->v2_ok && rsdp->xsdt_address) {
		root = map_root(map, ctx, rsdp->xsdt_address, "XSDT");
		if (root && !take_root(out, root, rsdp->xsdt_address, policy))
			root = NULL;
		/* A broken XSDT is not the end: the RSDT usually lists the same tables. */
		if (!root && rsdp->rsdt_address)
			pr_warn("ACPI: falling back from the XSDT to the RSDT\n");
		out->root_is_xsdt = root != NULL;
	}
	if (!root && rsdp->rsdt_address) {
		root = map_root(map, ctx, rsdp->rsdt_address, "RSDT");
		if (root && !take_root(out, root, rsdp->rsdt_address, policy))
			root = NULL;
	}
	if (!root) {
		pr_warn("ACPI: no usable RSDT or XSDT\n");
		return -ENOENT;
	}

	entry_size = out->root_is_xsdt ? 8 : 4;
	nr_entries = (root->length - ACPI_SDT_HEADER_LEN) / entry_size;
	if ((root->length - ACPI_SDT_HEADER_LEN) % entry_size)
		pr_warn("ACPI: %.4s length %u is not a whole number of entries; last bytes "
			"ignored\n",
			root->signature, root->length);
	if (nr_entries > ACPI_ROOT_MAX_ENTRIES) {
		pr_warn("ACPI: %.4s claims %u entries; only the first %d looked at\n",
			root->signature, nr_entries, ACPI_ROOT_MAX_ENTRIES);
		nr_entries = ACPI_ROOT_MAX_ENTRIES;
	}
	entries = (const u8 *)root + ACPI_SDT_HEADER_LEN;
	for (u32 i = 0; i < nr_entries; i++) {
		u64 phys = 0;
		char what[24];

		/* Entries are not naturally aligned in an RSDT/XSDT: copy, don't cast. */
		memcpy(&phys, entries + (size_t)i * entry_size, entry_size);
		ksnprintf(what, sizeof(what), "%.4s entry %u", root->signature, i);
		add_sdt(out, map, ctx, phys, what, policy);
	}

	/* Only now, since the list may move no more: the FADT's children. */
	for (u32 i = 0, n = out->nr; i < n; i++)
		if (memcmp(out->table[i].signature, "FACP", 4) == 0 && out->table[i].data)
			add_fadt_children(out, map, ctx, &out->table[i], policy);
	return 0;
}

const struct acpi_table_info *acpi_find_table(const struct acpi_tables *t, const char *signature,
					      u32 *count)
{
	const struct acpi_table_info *first = NULL;
	u32 n = 0;

	for (u32 i = 0; i < t->nr; i++) {
		const struct acpi_table_info *ti = &t->table[i];

		if (ti->refused || memcmp(ti->signature, signature, 4) != 0)
			continue;
		if (!first)
			first = ti;
		n++;
	}
	if (count)
		*count = n;
	return first;
}

void acpi_tables_for_each(const struct acpi_tables *t,
			  void (*fn)(const struct acpi_table_info *table, void *arg), void *arg)
{
	for (u32 i = 0; i < t->nr; i++)
		fn(&t->table[i], arg);
}

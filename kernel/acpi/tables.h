/*
 * ACPI table discovery: the RSDP, the RSDT/XSDT and the common table header,
 * as checked byte layouts. Everything here reads firmware memory only through
 * a caller-supplied map callback, so it runs the same in the kernel and on a host.
 */
#ifndef FULCRUM_ACPI_TABLES_H
#define FULCRUM_ACPI_TABLES_H

#include "lib/compiler.h"
#include "lib/types.h"

#define ACPI_RSDP_SIGNATURE "RSD PTR "
#define ACPI_RSDP_V1_LEN    20
#define ACPI_RSDP_V2_LEN    36
#define ACPI_SDT_HEADER_LEN 36

/* No table is anywhere near this big; a larger length field is corrupt. */
#define ACPI_TABLE_MAX_LEN (16u << 20)
/* Tables kept in a struct acpi_tables; real machines have 10 to 60. */
#define ACPI_MAX_TABLES	   128

/* Root System Description Pointer, ACPI 1.0 part (revision 0). */
struct acpi_rsdp {
	char signature[8]; /* "RSD PTR " */
	u8 checksum;	   /* bytes 0..19 sum to 0 */
	char oem_id[6];
	u8 revision; /* 0: ACPI 1.0; 2: ACPI 2.0+ (the fields below exist) */
	u32 rsdt_address;
} __packed;
_Static_assert(sizeof(struct acpi_rsdp) == ACPI_RSDP_V1_LEN, "ACPI 1.0 RSDP");

/* ACPI 2.0+ RSDP (the "XSDP"): the 1.0 part, then the XSDT's 64-bit address. */
struct acpi_rsdp2 {
	struct acpi_rsdp v1;
	u32 length; /* of the whole structure, 36 */
	u64 xsdt_address;
	u8 extended_checksum; /* bytes 0..length-1 sum to 0 */
	u8 reserved[3];
} __packed;
_Static_assert(sizeof(struct acpi_rsdp2) == ACPI_RSDP_V2_LEN, "ACPI 2.0 RSDP");

/* The header every System Description Table starts with. */
struct acpi_sdt_header {
	char signature[4];
	u32 length; /* of the whole table, header included */
	u8 revision;
	u8 checksum; /* the whole table sums to 0 */
	char oem_id[6];
	char oem_table_id[8];
	u32 oem_revision;
	u32 creator_id;
	u32 creator_revision;
} __packed;
_Static_assert(sizeof(struct acpi_sdt_header) == ACPI_SDT_HEADER_LEN, "ACPI table header");

/* RSDT: the header, then 32-bit physical addresses of the other tables. */
struct acpi_rsdt {
	struct acpi_sdt_header header;
	u32 entry[];
} __packed;
_Static_assert(sizeof(struct acpi_rsdt) == 36, "RSDT");

/* XSDT: the same with 64-bit addresses (ACPI 2.0+). */
struct acpi_xsdt {
	struct acpi_sdt_header header;
	u64 entry[];
} __packed;
_Static_assert(sizeof(struct acpi_xsdt) == 36, "XSDT");

/*
 * The FADT up to the 64-bit DSDT pointer (ACPI 2.0 layout). Only the DSDT
 * and FACS addresses are read, to list those tables for the memory map;
 * the power-management block in between is kept opaque.
 */
struct acpi_fadt {
	struct acpi_sdt_header header;
	u32 firmware_ctrl; /* FACS, 32-bit */
	u32 dsdt;
	u8 pm_fields[88]; /* INT_MODEL .. RESET_VALUE, ARM/x86 boot flags, minor version */
	u64 x_firmware_ctrl;
	u64 x_dsdt;
} __packed;
_Static_assert(sizeof(struct acpi_fadt) == 148, "FADT up to X_DSDT");
#define ACPI_FADT_V1_LEN 44 /* through the 32-bit DSDT field */

/* The FACS has a signature and a length but no checksum and no full header. */
struct acpi_facs_head {
	char signature[4]; /* "FACS" */
	u32 length;	   /* at least 64 */
} __packed;
_Static_assert(sizeof(struct acpi_facs_head) == 8, "FACS head");
#define ACPI_FACS_MIN_LEN 64

/*
 * Reads firmware memory: returns a pointer to len bytes at physical address
 * phys, or NULL if it cannot provide them. Pointers it returns must stay
 * valid while the tables are in use (the kernel passes its direct map; host
 * tools pass views of files or of a memory dump).
 */
typedef const void *(*acpi_map_fn)(u64 phys, u32 len, void *ctx);

/* What a checked RSDP says. */
struct acpi_rsdp_info {
	u8 revision;
	char oem_id[7]; /* NUL-terminated */
	u32 rsdt_address;
	u64 xsdt_address; /* 0 unless revision >= 2 and the 2.0 part checked out */
	bool v2_ok;	  /* revision >= 2 with a sane length and a good extended checksum */
};

/*
 * Checks an RSDP held in buf[0..len): signature, the 1.0 checksum over 20
 * bytes and, when revision >= 2, the length (36 up to len) and the
 * extended checksum. A bad 2.0 part alone leaves the RSDP usable through
 * its RSDT (v2_ok false), since the 1.0 part is what every firmware gets
 * right. Returns 0 and fills *out, or -EINVAL. Prints nothing.
 */
int acpi_rsdp_check(const void *buf, size_t len, struct acpi_rsdp_info *out);

/*
 * Looks for a valid RSDP in buf[0..len), which holds physical memory from
 * phys on: the spec puts it on a 16-byte boundary. Returns the offset of
 * the first one found, or -ENOENT.
 */
s64 acpi_rsdp_scan(const void *buf, size_t len, u64 phys);

/*
 * The BIOS-area search (ACPI 5.2.5.1): the first KiB of the EBDA, whose
 * segment is at 0x40E, then the ROM area 0xE0000-0xFFFFF, both read
 * through map. Returns 0 and the RSDP's physical address, or -ENOENT.
 */
int acpi_rsdp_find_bios(acpi_map_fn map, void *ctx, u64 *phys);

/* Sum of len bytes modulo 256: 0 for a well-formed table. */
u8 acpi_checksum(const void *buf, size_t len);

/*
 * Checks the header of a table of the given signature (NULL: any) in
 * buf[0..avail): avail holds the header, 36 <= length <= avail and
 * length <= ACPI_TABLE_MAX_LEN. The checksum is not looked at. Returns the
 * table's length, or 0 if the header is unusable.
 */
u32 acpi_sdt_length(const void *buf, size_t avail, const char *signature);

/*
 * Walks the type/length entries that the MADT and SRAT share (a byte of
 * type, a byte of length, the length counting both) in table[start..end).
 * A zero or one-byte length, or an entry running past end, stops the walk
 * with a pr_warn naming the table: returns -EINVAL then, 0 after a whole
 * walk. An entry shorter than min_len(type) is reported, counted in
 * *malformed and skipped; fn sees only entries that lie within end and
 * hold at least min_len(type) bytes.
 */
int acpi_walk_entries(const void *table, u32 start, u32 end, const char *name,
		      size_t (*min_len)(u8 type), void (*fn)(const u8 *entry, void *arg), void *arg,
		      u32 *malformed);

/* What to do with a table whose checksum is wrong (boot option acpi_bad_checksum=). */
enum acpi_checksum_policy {
	ACPI_CHECKSUM_USE,    /* warn and use it: what Linux does, and many firmwares need */
	ACPI_CHECKSUM_REFUSE, /* warn and leave it out */
};

/* One table found through the RSDT/XSDT (or the FADT, for the DSDT and FACS). */
struct acpi_table_info {
	char signature[5]; /* NUL-terminated */
	u64 phys;
	u32 length;
	bool checksum_ok;
	bool refused;	  /* bad checksum under ACPI_CHECKSUM_REFUSE: listed, not used */
	const void *data; /* length bytes; NULL when refused */
};

struct acpi_tables {
	struct acpi_rsdp_info rsdp;
	bool root_is_xsdt;
	u32 root; /* index in table[] of the RSDT or XSDT walked (a refused XSDT may precede) */
	u32 nr;
	struct acpi_table_info table[ACPI_MAX_TABLES];
	u32 bad_checksums; /* listed with checksum_ok false */
	u32 unreadable;	   /* entries map() could not provide, or with a broken header */
	u32 dropped;	   /* good tables beyond ACPI_MAX_TABLES */
};

/*
 * Walks the root table named by rsdp: the XSDT when the RSDP is 2.0+ with a
 * good extended checksum and a non-zero XSDT address that maps to a sound
 * table, else the RSDT. Each entry's header is checked (length 36 ..
 * ACPI_TABLE_MAX_LEN, mappable in full) and its checksum verified; problems
 * are reported with pr_warn and the entry skipped or, for a bad checksum,
 * kept or refused by policy. The FADT's DSDT and FACS are listed too, so
 * every ACPI byte can be kept out of the page allocator.
 * Returns 0, or -ENOENT if no usable root table was found.
 */
int acpi_tables_read(const struct acpi_rsdp_info *rsdp, acpi_map_fn map, void *ctx,
		     enum acpi_checksum_policy policy, struct acpi_tables *out);

/*
 * The first usable (not refused) table with this 4-character signature, or
 * NULL. *count, if given, receives how many usable tables carry it: more
 * than one is a firmware bug the caller may want to report.
 */
const struct acpi_table_info *acpi_find_table(const struct acpi_tables *t, const char *signature,
					      u32 *count);

/* Calls fn on every listed table, refused ones included: for reserving their memory. */
void acpi_tables_for_each(const struct acpi_tables *t,
			  void (*fn)(const struct acpi_table_info *table, void *arg), void *arg);

/* Boot options: acpi=off, acpi_bad_checksum=use|refuse. */
bool acpi_disabled(void);
enum acpi_checksum_policy acpi_checksum_policy(void);

#endif

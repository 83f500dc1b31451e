/*
 * The SLIT (System Locality Information Table): the relative distance
 * between every pair of proximity domains, 10 meaning local. A pure parser
 * over a byte buffer; topology.c maps localities to nodes.
 */
#ifndef FULCRUM_ACPI_SLIT_H
#define FULCRUM_ACPI_SLIT_H

#include "acpi/tables.h"
#include "lib/compiler.h"
#include "lib/types.h"

#define ACPI_SLIT_SIGNATURE "SLIT"

struct acpi_slit {
	struct acpi_sdt_header header;
	u64 locality_count;
	u8 entry[]; /* locality_count * locality_count bytes, row-major */
} __packed;
_Static_assert(sizeof(struct acpi_slit) == 44, "SLIT header");

#define ACPI_SLIT_LOCAL		 10  /* a locality to itself */
#define ACPI_SLIT_UNREACHABLE	 255 /* no path between two localities */
/* Localities kept; a bigger SLIT is refused (every machine here has at most a handful). */
#define ACPI_SLIT_MAX_LOCALITIES 64

struct acpi_slit_info {
	u32 localities;
	u8 distance[ACPI_SLIT_MAX_LOCALITIES][ACPI_SLIT_MAX_LOCALITIES];
	/*
	 * Usable: every diagonal entry is 10 and no entry is below 10 (0-9
	 * are reserved values). Otherwise the caller should fall back to
	 * 10/20 distances, as Linux does with a SLIT it finds invalid.
	 */
	bool valid;
	u32 bad_diagonal;    /* diagonal entries other than 10 */
	u32 below_local;     /* off-diagonal entries below 10 */
	u32 remote_as_local; /* off-diagonal entries of exactly 10: odd, but allowed */
	u32 unreachable;     /* entries of 255 */
	u32 asymmetric;	     /* pairs with d[i][j] != d[j][i]: allowed, reported */
};

/*
 * Parses the SLIT in buf[0..len): the table's length must hold
 * locality_count^2 bytes after the header, and locality_count must be
 * 1..ACPI_SLIT_MAX_LOCALITIES. Oddities are reported with pr_warn and
 * counted. Returns 0 (check out->valid before using the distances), or
 * -EINVAL if the table cannot be read at all.
 */
int acpi_slit_parse(const void *buf, size_t len, struct acpi_slit_info *out);

#endif

/*
 * Hand-built ACPI tables for the unit tests of kernel/acpi/: a byte buffer
 * grown entry by entry, then finished with its length and checksum, plus a
 * fake physical address space for the table walker's map callback.
 */
#ifndef FULCRUM_TESTS_ACPI_BUILDER_H
#define FULCRUM_TESTS_ACPI_BUILDER_H

#include "lib/types.h"

#define AB_MAX 65536

struct acpi_builder {
	u8 buf[AB_MAX];
	size_t len;
};

/* Starts a table: the 36-byte header with this signature, then fixed_len - 36 zero bytes. */
void ab_begin(struct acpi_builder *b, const char *sig, u8 revision, size_t fixed_len);
/* Appends raw bytes. */
void ab_put(struct acpi_builder *b, const void *data, size_t len);
/* Overwrites bytes at off (within what is built). */
void ab_set(struct acpi_builder *b, size_t off, const void *data, size_t len);
/* Sets the header's length to what is built and fixes the checksum; returns the length. */
size_t ab_end(struct acpi_builder *b);
/* Recomputes the checksum over the header's length, after a test changed a byte. */
void ab_fix_checksum(struct acpi_builder *b);
/* A heap copy of the first len bytes, exactly that big so ASan sees any overread. */
void *ab_copy(const struct acpi_builder *b, size_t len);

/* MADT: header with the local APIC address and flags, then entries. */
void ab_madt_begin(struct acpi_builder *b, u8 revision, u32 lapic_address);
void ab_madt_lapic(struct acpi_builder *b, u8 uid, u8 apic_id, u32 flags);
void ab_madt_x2apic(struct acpi_builder *b, u32 x2apic_id, u32 uid, u32 flags);
void ab_madt_ioapic(struct acpi_builder *b, u8 id, u32 address, u32 gsi_base);
void ab_madt_override(struct acpi_builder *b, u8 bus, u8 source, u32 gsi, u16 flags);
void ab_madt_lapic_nmi(struct acpi_builder *b, u8 uid, u16 flags, u8 lint);
void ab_madt_x2apic_nmi(struct acpi_builder *b, u32 uid, u16 flags, u8 lint);
void ab_madt_lapic_address(struct acpi_builder *b, u64 address);
/* Any entry: type, declared length, and payload bytes after the 2-byte header. */
void ab_entry(struct acpi_builder *b, u8 type, u8 length, const void *payload, size_t plen);

/* SRAT entries; the processor entry splits domain over bytes 2 and 9-11. */
void ab_srat_begin(struct acpi_builder *b, u8 revision);
void ab_srat_cpu(struct acpi_builder *b, u8 apic_id, u32 domain, u32 flags);
void ab_srat_x2apic(struct acpi_builder *b, u32 x2apic_id, u32 domain, u32 flags);
void ab_srat_mem(struct acpi_builder *b, u32 domain, u64 base, u64 length, u32 flags);

/* A whole SLIT of n localities from a row-major n*n matrix. */
void ab_slit(struct acpi_builder *b, u64 n, const u8 *matrix, size_t matrix_len);

/* An RSDP in out[36]: revision 0 writes only 20 bytes' worth, with both checksums right. */
void ab_rsdp(u8 out[36], u8 revision, u32 rsdt, u64 xsdt);

/*
 * A fake physical address space: regions of bytes at physical addresses.
 * ab_map is an acpi_map_fn over it; it returns NULL for ranges not inside
 * one region, and for any range starting at a "hole" address.
 */
struct ab_mem {
	struct {
		u64 phys;
		u8 *data;
		size_t len;
	} region[32];
	int nr;
	u64 hole[8];
	int nr_holes;
	u32 calls;
};

void ab_mem_init(struct ab_mem *m);
void ab_mem_add(struct ab_mem *m, u64 phys, const void *data, size_t len);
void ab_mem_add_table(struct ab_mem *m, u64 phys, const struct acpi_builder *b);
void ab_mem_hole(struct ab_mem *m, u64 phys);
void ab_mem_free(struct ab_mem *m);
const void *ab_map(u64 phys, u32 len, void *ctx);

/* An RSDT (32-bit entries) or XSDT (64-bit) listing the given addresses. */
void ab_root(struct acpi_builder *b, bool xsdt, const u64 *phys, int n);

#endif

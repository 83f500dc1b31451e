/*
 * Hand-built ACPI tables for the unit tests: fields are written byte by
 * byte (little-endian) rather than through the kernel's structs, so a
 * wrong struct layout in kernel/acpi/ shows up as a failing test.
 */
#include "acpi_builder.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

static void put_le(u8 *p, u64 v, int bytes)
{
	for (int i = 0; i < bytes; i++)
		p[i] = (u8)(v >> (8 * i));
}

static void append_le(struct acpi_builder *b, u64 v, int bytes)
{
	ck_assert_uint_le(b->len + (size_t)bytes, AB_MAX);
	put_le(b->buf + b->len, v, bytes);
	b->len += (size_t)bytes;
}

void ab_begin(struct acpi_builder *b, const char *sig, u8 revision, size_t fixed_len)
{
	memset(b, 0, sizeof(*b));
	memcpy(b->buf, sig, 4);
	b->buf[8] = revision;
	memcpy(b->buf + 10, "FULCRM", 6);
	memcpy(b->buf + 16, "UNITTEST", 8);
	put_le(b->buf + 24, 1, 4);
	memcpy(b->buf + 28, "TEST", 4);
	put_le(b->buf + 32, 1, 4);
	b->len = fixed_len;
}

void ab_put(struct acpi_builder *b, const void *data, size_t len)
{
	ck_assert_uint_le(b->len + len, AB_MAX);
	memcpy(b->buf + b->len, data, len);
	b->len += len;
}

void ab_set(struct acpi_builder *b, size_t off, const void *data, size_t len)
{
	ck_assert_uint_le(off + len, b->len);
	memcpy(b->buf + off, data, len);
}

void ab_fix_checksum(struct acpi_builder *b)
{
	u32 len = (u32)(b->buf[4] | b->buf[5] << 8 | b->buf[6] << 16 | (u32)b->buf[7] << 24);
	u8 sum = 0;

	if (len > b->len)
		len = (u32)b->len;
	b->buf[9] = 0;
	for (u32 i = 0; i < len; i++)
		sum = (u8)(sum + b->buf[i]);
	b->buf[9] = (u8)-sum;
}

size_t ab_end(struct acpi_builder *b)
{
	put_le(b->buf + 4, b->len, 4);
	ab_fix_checksum(b);
	return b->len;
}

void *ab_copy(const struct acpi_builder *b, size_t len)
{
	u8 *p = malloc(len ? len : 1);

	ck_assert_ptr_nonnull(p);
	memcpy(p, b->buf, len);
	return p;
}

void ab_madt_begin(struct acpi_builder *b, u8 revision, u32 lapic_address)
{
	ab_begin(b, "APIC", revision, 44);
	put_le(b->buf + 36, lapic_address, 4);
	put_le(b->buf + 40, 1, 4); /* PCAT_COMPAT */
}

void ab_entry(struct acpi_builder *b, u8 type, u8 length, const void *payload, size_t plen)
{
	append_le(b, type, 1);
	append_le(b, length, 1);
	if (plen)
		ab_put(b, payload, plen);
}

void ab_madt_lapic(struct acpi_builder *b, u8 uid, u8 apic_id, u32 flags)
{
	append_le(b, 0, 1);
	append_le(b, 8, 1);
	append_le(b, uid, 1);
	append_le(b, apic_id, 1);
	append_le(b, flags, 4);
}

void ab_madt_x2apic(struct acpi_builder *b, u32 x2apic_id, u32 uid, u32 flags)
{
	append_le(b, 9, 1);
	append_le(b, 16, 1);
	append_le(b, 0, 2);
	append_le(b, x2apic_id, 4);
	append_le(b, flags, 4);
	append_le(b, uid, 4);
}

void ab_madt_ioapic(struct acpi_builder *b, u8 id, u32 address, u32 gsi_base)
{
	append_le(b, 1, 1);
	append_le(b, 12, 1);
	append_le(b, id, 1);
	append_le(b, 0, 1);
	append_le(b, address, 4);
	append_le(b, gsi_base, 4);
}

void ab_madt_override(struct acpi_builder *b, u8 bus, u8 source, u32 gsi, u16 flags)
{
	append_le(b, 2, 1);
	append_le(b, 10, 1);
	append_le(b, bus, 1);
	append_le(b, source, 1);
	append_le(b, gsi, 4);
	append_le(b, flags, 2);
}

void ab_madt_lapic_nmi(struct acpi_builder *b, u8 uid, u16 flags, u8 lint)
{
	append_le(b, 4, 1);
	append_le(b, 6, 1);
	append_le(b, uid, 1);
	append_le(b, flags, 2);
	append_le(b, lint, 1);
}

void ab_madt_x2apic_nmi(struct acpi_builder *b, u32 uid, u16 flags, u8 lint)
{
	append_le(b, 0xA, 1);
	append_le(b, 12, 1);
	append_le(b, flags, 2);
	append_le(b, uid, 4);
	append_le(b, lint, 1);
	append_le(b, 0, 3);
}

void ab_madt_lapic_address(struct acpi_builder *b, u64 address)
{
	append_le(b, 5, 1);
	append_le(b, 12, 1);
	append_le(b, 0, 2);
	append_le(b, address, 8);
}

void ab_srat_begin(struct acpi_builder *b, u8 revision)
{
	ab_begin(b, "SRAT", revision, 48);
	put_le(b->buf + 36, 1, 4);
}

void ab_srat_cpu(struct acpi_builder *b, u8 apic_id, u32 domain, u32 flags)
{
	append_le(b, 0, 1);
	append_le(b, 16, 1);
	append_le(b, domain & 0xff, 1);
	append_le(b, apic_id, 1);
	append_le(b, flags, 4);
	append_le(b, 0, 1);	      /* local SAPIC EID */
	append_le(b, domain >> 8, 3); /* domain bits 8-31 */
	append_le(b, 0, 4);	      /* clock domain */
}

void ab_srat_x2apic(struct acpi_builder *b, u32 x2apic_id, u32 domain, u32 flags)
{
	append_le(b, 2, 1);
	append_le(b, 24, 1);
	append_le(b, 0, 2);
	append_le(b, domain, 4);
	append_le(b, x2apic_id, 4);
	append_le(b, flags, 4);
	append_le(b, 0, 4);
	append_le(b, 0, 4);
}

void ab_srat_mem(struct acpi_builder *b, u32 domain, u64 base, u64 length, u32 flags)
{
	append_le(b, 1, 1);
	append_le(b, 40, 1);
	append_le(b, domain, 4);
	append_le(b, 0, 2);
	append_le(b, base, 8);
	append_le(b, length, 8);
	append_le(b, 0, 4);
	append_le(b, flags, 4);
	append_le(b, 0, 8);
}

void ab_slit(struct acpi_builder *b, u64 n, const u8 *matrix, size_t matrix_len)
{
	ab_begin(b, "SLIT", 1, 44);
	put_le(b->buf + 36, n, 8);
	ab_put(b, matrix, matrix_len);
	ab_end(b);
}

void ab_rsdp(u8 out[36], u8 revision, u32 rsdt, u64 xsdt)
{
	u8 sum = 0;

	memset(out, 0, 36);
	memcpy(out, "RSD PTR ", 8);
	memcpy(out + 9, "FULCRM", 6);
	out[15] = revision;
	put_le(out + 16, rsdt, 4);
	for (int i = 0; i < 20; i++)
		sum = (u8)(sum + out[i]);
	out[8] = (u8)-sum;
	if (revision < 2)
		return;
	put_le(out + 20, 36, 4);
	put_le(out + 24, xsdt, 8);
	sum = 0;
	for (int i = 0; i < 36; i++)
		sum = (u8)(sum + out[i]);
	out[32] = (u8)-sum;
}

void ab_mem_init(struct ab_mem *m)
{
	memset(m, 0, sizeof(*m));
}

void ab_mem_add(struct ab_mem *m, u64 phys, const void *data, size_t len)
{
	ck_assert_int_lt(m->nr, 32);
	m->region[m->nr].phys = phys;
	m->region[m->nr].data = malloc(len ? len : 1);
	ck_assert_ptr_nonnull(m->region[m->nr].data);
	memcpy(m->region[m->nr].data, data, len);
	m->region[m->nr].len = len;
	m->nr++;
}

void ab_mem_add_table(struct ab_mem *m, u64 phys, const struct acpi_builder *b)
{
	ab_mem_add(m, phys, b->buf, b->len);
}

void ab_mem_hole(struct ab_mem *m, u64 phys)
{
	ck_assert_int_lt(m->nr_holes, 8);
	m->hole[m->nr_holes++] = phys;
}

void ab_mem_free(struct ab_mem *m)
{
	for (int i = 0; i < m->nr; i++)
		free(m->region[i].data);
	m->nr = 0;
}

const void *ab_map(u64 phys, u32 len, void *ctx)
{
	struct ab_mem *m = ctx;

	m->calls++;
	for (int i = 0; i < m->nr_holes; i++)
		if (m->hole[i] == phys)
			return NULL;
	for (int i = 0; i < m->nr; i++) {
		u64 start = m->region[i].phys;

		if (phys >= start && phys - start <= m->region[i].len &&
		    len <= m->region[i].len - (phys - start))
			return m->region[i].data + (phys - start);
	}
	return NULL;
}

void ab_root(struct acpi_builder *b, bool xsdt, const u64 *phys, int n)
{
	ab_begin(b, xsdt ? "XSDT" : "RSDT", 1, 36);
	for (int i = 0; i < n; i++)
		append_le(b, phys[i], xsdt ? 8 : 4);
	ab_end(b);
}

/*
 * libFuzzer target over the ACPI parsers: each input is a table for the MADT,
 * SRAT and SLIT parsers, a table behind a built RSDT/XSDT, and a memory image.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "acpi/topology.h"
#include "printk.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Too big for the stack, and reused by every input. */
static struct acpi_madt_info madt;
static struct acpi_srat_info srat;
static struct acpi_slit_info slit;
static struct acpi_tables tables;
static struct machine machine;

struct image {
	const u8 *data;
	size_t size;
};

/* Physical memory is the input, from address 0; nothing beyond it exists. */
static const void *image_map(u64 phys, u32 len, void *ctx)
{
	const struct image *img = ctx;

	if (phys > img->size || len > img->size - phys)
		return NULL;
	return img->data + phys;
}

/* Walks the tables behind rsdp in the image and parses the ones we read. */
static void walk_tables(const struct acpi_rsdp_info *rsdp, const u8 *data, size_t size,
			enum acpi_checksum_policy policy)
{
	struct image img = { .data = data, .size = size };
	const struct acpi_table_info *t;

	if (acpi_tables_read(rsdp, image_map, &img, policy, &tables) != 0)
		return;
	t = acpi_find_table(&tables, ACPI_MADT_SIGNATURE, NULL);
	if (t)
		acpi_madt_parse(t->data, t->length, &madt);
	t = acpi_find_table(&tables, ACPI_SRAT_SIGNATURE, NULL);
	if (t)
		acpi_srat_parse(t->data, t->length, &srat);
	t = acpi_find_table(&tables, ACPI_SLIT_SIGNATURE, NULL);
	if (t)
		acpi_slit_parse(t->data, t->length, &slit);
}

/* The input as a memory image: find an RSDP anywhere, walk what it points at. */
static void walk_image(const u8 *data, size_t size)
{
	struct image img = { .data = data, .size = size };
	struct acpi_rsdp_info rsdp;
	s64 off = acpi_rsdp_scan(data, size, 0);
	u64 phys;

	/* The BIOS-area search reads 0x40E and the ROM area: only in big inputs. */
	acpi_rsdp_find_bios(image_map, &img, &phys);
	if (off < 0 || acpi_rsdp_check(data + off, size - (size_t)off, &rsdp) != 0)
		return;
	walk_tables(&rsdp, data, size, (data[0] & 1) ? ACPI_CHECKSUM_REFUSE : ACPI_CHECKSUM_USE);
}

/*
 * The input as one table behind a well-formed RSDP and RSDT/XSDT, so the
 * walker and its checksum handling see every mutated table, not only the
 * rare inputs that carry a valid RSDP of their own.
 */
#define WRAP_TABLE_AT 256
static u8 wrapped[WRAP_TABLE_AT + 4096];

static void put_le(u8 *p, u64 v, int bytes)
{
	for (int i = 0; i < bytes; i++)
		p[i] = (u8)(v >> (8 * i));
}

static void sdt_header(u8 *p, const char *sig, u32 len)
{
	memset(p, 0, ACPI_SDT_HEADER_LEN);
	memcpy(p, sig, 4);
	put_le(p + 4, len, 4);
	p[8] = 1;
	p[9] = (u8)-acpi_checksum(p, len);
}

static void walk_wrapped(const u8 *data, size_t size, bool xsdt)
{
	struct acpi_rsdp_info rsdp;
	struct acpi_rsdp2 *r = (void *)wrapped;
	size_t total = WRAP_TABLE_AT + size;

	if (size > sizeof(wrapped) - WRAP_TABLE_AT)
		return;
	memset(wrapped, 0, WRAP_TABLE_AT);
	memcpy(wrapped + WRAP_TABLE_AT, data, size);
	/* XSDT at 64 and RSDT at 128, each with the one entry. */
	put_le(wrapped + 64 + ACPI_SDT_HEADER_LEN, WRAP_TABLE_AT, 8);
	sdt_header(wrapped + 64, "XSDT", ACPI_SDT_HEADER_LEN + 8);
	put_le(wrapped + 128 + ACPI_SDT_HEADER_LEN, WRAP_TABLE_AT, 4);
	sdt_header(wrapped + 128, "RSDT", ACPI_SDT_HEADER_LEN + 4);
	memcpy(r->v1.signature, ACPI_RSDP_SIGNATURE, 8);
	r->v1.revision = xsdt ? 2 : 0;
	r->v1.rsdt_address = 128;
	r->v1.checksum = (u8)-acpi_checksum(r, ACPI_RSDP_V1_LEN);
	r->length = ACPI_RSDP_V2_LEN;
	r->xsdt_address = 64;
	r->extended_checksum = (u8)-acpi_checksum(r, ACPI_RSDP_V2_LEN);
	if (acpi_rsdp_check(wrapped, ACPI_RSDP_V2_LEN, &rsdp) != 0)
		abort(); /* the harness itself is wrong */
	walk_tables(&rsdp, wrapped, total, xsdt ? ACPI_CHECKSUM_REFUSE : ACPI_CHECKSUM_USE);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* An exact-size copy: libFuzzer's buffer may have slack ASan cannot see. */
	u8 *buf = malloc(size ? size : 1);
	struct acpi_machine_options opts = { .maxcpus = MAX_CPUS };
	bool have_madt, have_srat, have_slit;

	/* Messages are logged, not printed: keeps the run fast and quiet. */
	console_loglevel = 0;
	memcpy(buf, data, size);

	have_madt = acpi_madt_parse(buf, size, &madt) == 0;
	have_srat = acpi_srat_parse(buf, size, &srat) == 0;
	have_slit = acpi_slit_parse(buf, size, &slit) == 0;
	if (size) {
		opts.numa_off = buf[size - 1] & 1;
		opts.maxcpus = buf[size - 1] >> 1;
	}
	acpi_build_machine(have_madt ? &madt : NULL, have_srat ? &srat : NULL,
			   have_slit ? &slit : NULL,
			   size >= 4 ? (u32)buf[0] | (u32)buf[1] << 8 : ACPI_BOOT_CPU_FIRST_ENABLED,
			   &opts, &machine, NULL);

	/* The same bytes as firmware memory, and as a table an RSDT points at. */
	if (size >= ACPI_RSDP_V1_LEN)
		walk_image(buf, size);
	walk_wrapped(buf, size, size && (buf[size - 1] & 2));
	free(buf);
	return 0;
}

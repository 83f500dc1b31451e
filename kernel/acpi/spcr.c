/*
 * SPCR parser: which UART the firmware redirects its console to, where its
 * registers are and at what speed, refusing anything that is not a
 * 16550-compatible port Fulcrum can drive.
 */
#include "acpi/spcr.h"

#include "lib/errno.h"
#include "lib/string.h"
#include "printk.h"

/* SPCR's baud codes: 3 = 9600, 4 = 19200, 6 = 57600, 7 = 115200 (ACPI spec, SPCR table). */
static u32 spcr_baud(u8 code)
{
	switch (code) {
	case 3:
		return 9600;
	case 4:
		return 19200;
	case 6:
		return 57600;
	case 7:
		return 115200;
	default:
		return 0;
	}
}

int acpi_spcr_parse(const void *buf, size_t len, struct acpi_spcr_info *out)
{
	const struct acpi_spcr *spcr = buf;
	u32 table_len = acpi_sdt_length(buf, len, ACPI_SPCR_SIGNATURE);
	u8 width;

	memset(out, 0, sizeof(*out));
	/* Everything used lies in the first 59 bytes: interface type, address, baud. */
	if (table_len < __builtin_offsetof(struct acpi_spcr, parity)) {
		pr_warn("ACPI: SPCR header unusable (signature, length field or %zu bytes); "
			"ignored\n",
			len);
		return -EINVAL;
	}
	switch (spcr->interface_type) {
	case ACPI_SPCR_IFACE_16550:
	case ACPI_SPCR_IFACE_16450:
	case ACPI_SPCR_IFACE_16550_GAS:
		break;
	default:
		pr_warn("ACPI: SPCR names a UART of interface type %#x, not 16550-compatible; "
			"ignored\n",
			spcr->interface_type);
		return -EINVAL;
	}
	if (spcr->base.space_id != ACPI_GAS_IO && spcr->base.space_id != ACPI_GAS_MEMORY) {
		pr_warn("ACPI: SPCR UART in address space %u (neither memory nor I/O); ignored\n",
			spcr->base.space_id);
		return -EINVAL;
	}
	if (spcr->base.address == 0) {
		pr_warn("ACPI: SPCR UART at address 0 (console redirection off); ignored\n");
		return -EINVAL;
	}
	/* The register stride: the GAS's width, or its access size when the width is 0. */
	width = spcr->base.bit_width;
	if (width == 0 && spcr->base.access_size)
		width = (u8)(8 << (spcr->base.access_size - 1));
	if (width == 0)
		width = 8;
	if (width != 8 && width != 32) {
		pr_warn("ACPI: SPCR UART with %u-bit registers (8 or 32 supported); ignored\n",
			width);
		return -EINVAL;
	}
	if (spcr->base.space_id == ACPI_GAS_IO && (width != 8 || spcr->base.address > 0xfff8)) {
		pr_warn("ACPI: SPCR I/O UART at %#llx with %u-bit registers; ignored\n",
			(unsigned long long)spcr->base.address, width);
		return -EINVAL;
	}
	out->mmio = spcr->base.space_id == ACPI_GAS_MEMORY;
	out->address = spcr->base.address;
	out->reg_width = width / 8;
	out->baud = spcr_baud(spcr->baud);
	out->interface_type = spcr->interface_type;
	return 0;
}

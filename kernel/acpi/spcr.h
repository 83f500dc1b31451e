/*
 * The SPCR (Serial Port Console Redirection) table: the serial port a
 * server's firmware and its BMC use for the console, serial-over-LAN
 * included. A pure parser over a byte buffer; the arch console adds the
 * port it names.
 */
#ifndef FULCRUM_ACPI_SPCR_H
#define FULCRUM_ACPI_SPCR_H

#include "acpi/tables.h"
#include "lib/compiler.h"
#include "lib/types.h"

#define ACPI_SPCR_SIGNATURE "SPCR"

/* ACPI's Generic Address Structure: where a register block lives. */
struct acpi_gas {
	u8 space_id; /* ACPI_GAS_* */
	u8 bit_width;
	u8 bit_offset;
	u8 access_size; /* 1: byte, 2: word, 3: dword, 4: qword; 0: undefined */
	u64 address;
} __packed;
_Static_assert(sizeof(struct acpi_gas) == 12, "generic address structure");

#define ACPI_GAS_MEMORY 0
#define ACPI_GAS_IO	1

struct acpi_spcr {
	struct acpi_sdt_header header;
	u8 interface_type; /* ACPI_SPCR_IFACE_* (the DBG2 port subtypes) */
	u8 reserved[3];
	struct acpi_gas base;
	u8 interrupt_type;
	u8 pc_irq;
	u32 gsi;
	u8 baud; /* ACPI_SPCR_BAUD_*: 0 keeps the rate the firmware set */
	u8 parity;
	u8 stop_bits;
	u8 flow_control;
	u8 terminal_type;
	u8 language;
	u16 pci_device_id;
	u16 pci_vendor_id;
	u8 pci_bus, pci_device, pci_function;
	u32 pci_flags;
	u8 pci_segment;
	u32 reserved2;
} __packed;
_Static_assert(sizeof(struct acpi_spcr) == 80, "SPCR revision 1/2 layout");

/* The interface types Fulcrum drives: 16550-compatible UARTs. */
#define ACPI_SPCR_IFACE_16550	  0x00
#define ACPI_SPCR_IFACE_16450	  0x01
#define ACPI_SPCR_IFACE_16550_GAS 0x12 /* 16550-compatible, register width from the GAS */

struct acpi_spcr_info {
	bool mmio;    /* else I/O ports */
	u64 address;  /* port or physical address of register 0 */
	u8 reg_width; /* bytes between registers and per access: 1 (bytes) or 4 (dwords) */
	u32 baud;     /* bits per second; 0: keep what the firmware set */
	u8 interface_type;
};

/*
 * Parses an SPCR table of len bytes. Returns 0 with *out filled when it
 * names a 16550-compatible UART in I/O or memory space that can be driven;
 * else -EINVAL, after one pr_warn saying why it is not used.
 */
int acpi_spcr_parse(const void *buf, size_t len, struct acpi_spcr_info *out);

#endif

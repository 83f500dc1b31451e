/*
 * 16550-compatible UARTs: COM1-COM4 on I/O ports and UARTs with memory-mapped
 * registers (as the ACPI SPCR table names them). Every port added is a
 * console: printk's text goes to all of them, input is taken from any.
 */
#ifndef FULCRUM_X86_SERIAL_H
#define FULCRUM_X86_SERIAL_H

#include "lib/types.h"

#define SERIAL_MAX_PORTS 4
#define SERIAL_NR_COM	 4 /* ttyS0-ttyS3: COM1-COM4 */

/* The I/O port of COMn+1 (ttySn), n < SERIAL_NR_COM. */
u16 serial_com_port(unsigned int n);

/*
 * Adds a UART at an I/O port (mmio false) or a physical address below 4 GiB
 * (mmio true, registers reg_width bytes apart and wide: 1 or 4) as a
 * console, set to baud bits per second, 8N1, FIFOs on (baud 0: keep the
 * divisor the firmware set). Returns its index, or -1 if no UART answers
 * there, the table of ports is full, or the address cannot be mapped. A port
 * already added is not added again: its index is returned.
 */
int serial_add(bool mmio, u64 address, u8 reg_width, u32 baud);

/* How many ports are consoles now. */
int serial_count(void);

/* Stops writing to and reading from every port (console= chooses its own). */
void serial_remove_all(void);

/* Sets COM1 to 115200 8N1 as the first console; returns false if no UART answers. */
bool serial_init(void);

/* Writes to every port added ('\n' as CR LF); serial_write_port to one of them. */
void serial_write(const char *s, size_t len);
void serial_write_port(int index, const char *s, size_t len);

/* A received byte from any port, or -1 when none is waiting (or there is no UART). */
int serial_read_char(void);

/* "ttyS1 (I/O 0x2f8)", "MMIO 0xfe040000": what port index is, for boot lines. */
void serial_describe(int index, char *buf, size_t size);

#endif

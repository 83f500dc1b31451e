/* Where printk's text goes: the serial ports and the screen. */
#ifndef FULCRUM_ARCH_CONSOLE_H
#define FULCRUM_ARCH_CONSOLE_H

#include "lib/types.h"

/* Writes len bytes to every console device; '\n' becomes CR LF on serial. */
void arch_console_write(const char *s, size_t len);

/*
 * The next byte typed on any console (a serial port, the keyboard), or -1 if
 * none is waiting. Never blocks.
 */
int arch_console_read_char(void);

/*
 * The UART the firmware names for its console (ACPI SPCR): mmio false for
 * I/O ports, reg_width 1 or 4 bytes, baud 0 to keep the firmware's rate.
 * Added as one more serial console unless console= chose the serial
 * consoles; prints a boot line either way.
 */
void arch_console_firmware_uart(bool mmio, u64 address, u8 reg_width, u32 baud);

#endif

/* The console: printk's output goes to COM1 and the VGA text screen; input comes from COM1. */
#include <arch/console.h>

#include "serial.h"
#include "vga.h"

void arch_console_write(const char *s, size_t len)
{
	serial_write(s, len);
	vga_write(s, len);
}

int arch_console_read_char(void)
{
	return serial_read_char();
}

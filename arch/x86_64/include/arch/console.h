/* Where printk's text goes: the serial port and the screen. */
#ifndef FULCRUM_ARCH_CONSOLE_H
#define FULCRUM_ARCH_CONSOLE_H

#include "lib/types.h"

/* Writes len bytes to every console device; '\n' becomes CR LF on serial. */
void arch_console_write(const char *s, size_t len);

/* The next byte typed on the console (the serial port), or -1 if none is waiting. Never blocks. */
int arch_console_read_char(void);

#endif

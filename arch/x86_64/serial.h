/* The 16550 UART on COM1: the machine-readable console. */
#ifndef FULCRUM_X86_SERIAL_H
#define FULCRUM_X86_SERIAL_H

#include "lib/types.h"

/* Sets COM1 to 115200 8N1 with FIFOs; returns false if no UART answers. */
bool serial_init(void);
void serial_write(const char *s, size_t len);
/* A received byte, or -1 when none is waiting (or there is no UART). */
int serial_read_char(void);

#endif

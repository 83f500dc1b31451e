/*
 * PS/2 keyboard on the i8042 controller, polled: keys typed on the
 * machine's own keyboard feed the console input beside the serial ports.
 * USB keyboards reach it only through the firmware's legacy emulation.
 */
#ifndef FULCRUM_X86_KEYBOARD_H
#define FULCRUM_X86_KEYBOARD_H

#include "lib/types.h"

/*
 * Finds the controller (self-test), enables its first port with scan-code
 * translation and interrupts off, and prints one boot line saying whether a
 * keyboard is there. Returns true when keys can be read.
 */
bool keyboard_init(void);

/* The next character typed (US layout; Enter is '\r'), or -1 when none is waiting. */
int keyboard_read_char(void);

#endif

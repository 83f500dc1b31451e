/* The VGA text screen: the console a person at the machine sees. */
#ifndef FULCRUM_X86_VGA_H
#define FULCRUM_X86_VGA_H

#include "lib/types.h"

/* Starts drawing on the text buffer at phys (80x25 unless told otherwise). */
void vga_init(u64 phys, u32 width, u32 height, u32 pitch);
void vga_write(const char *s, size_t len);

#endif

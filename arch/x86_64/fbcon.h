/*
 * The framebuffer console: text drawn with the console font on the linear
 * framebuffer the loader hands over (always under UEFI), at 16, 24 or 32
 * bits per pixel and any pitch.
 */
#ifndef FULCRUM_X86_FBCON_H
#define FULCRUM_X86_FBCON_H

#include "boot/boot_info.h"
#include "lib/types.h"

/* Starts drawing on fb (BOOT_FB_RGB); returns false, drawing nothing, if it cannot. */
bool fbcon_init(const struct boot_framebuffer *fb);

/* Draws text: '\n' ends a line, '\r' returns, '\b' steps back; other bytes are Latin-1. */
void fbcon_write(const char *s, size_t len);

/*
 * Once the kernel's page tables exist: moves drawing from the direct map to
 * a write-combining mapping of the framebuffer where the CPU has a PAT.
 */
void fbcon_map_write_combining(void);

/* Prints what the console is (size, depth, font), once printk has its clock. */
void fbcon_report(void);

#endif

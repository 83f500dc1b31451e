/*
 * The framebuffer console's font: 256 glyphs, one per Latin-1 character,
 * generated at build time by tools/psf2c from a PSF font of Debian's
 * console-setup package (build/font.c).
 */
#ifndef FULCRUM_X86_FONT_H
#define FULCRUM_X86_FONT_H

#include "lib/types.h"

struct console_font {
	u32 width, height; /* pixels per glyph */
	u32 row_bytes;	   /* bytes per glyph row; the leftmost pixel is the top bit */
	const char *name;  /* the PSF file it came from */
	const u8 *bitmap;  /* 256 * height * row_bytes bytes */
};

extern const struct console_font console_font;

#endif

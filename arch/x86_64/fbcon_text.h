/*
 * The framebuffer console's text, kept in RAM: the characters that should be
 * on screen and the characters the screen shows. Writing and scrolling change
 * only the first; a sync hands the differences to a drawing function, so the
 * screen is only ever written, never read back. No hardware here: the host
 * unit tests build it.
 */
#ifndef FULCRUM_X86_FBCON_TEXT_H
#define FULCRUM_X86_FBCON_TEXT_H

#include "lib/compiler.h"
#include "lib/types.h"

#define FBCON_TEXT_MAX_COLS 480 /* a 3840-pixel-wide screen with an 8-pixel font */
#define FBCON_TEXT_MAX_ROWS 160
#define FBCON_TEXT_BLANK    ' '

struct fbcon_text {
	u32 cols, rows;
	u32 row, col; /* the cursor */
	u32 scrolls;  /* jumps so far */
	/* Word-aligned: lib/string's word loops then clear and move them. */
	u8 cells[FBCON_TEXT_MAX_ROWS][FBCON_TEXT_MAX_COLS] __aligned(8); /* what should be on screen */
	u8 shown[FBCON_TEXT_MAX_ROWS][FBCON_TEXT_MAX_COLS] __aligned(8); /* what the screen shows */
	u32 cells_len[FBCON_TEXT_MAX_ROWS]; /* cells[r] is blank from this column on */
	u32 shown_len[FBCON_TEXT_MAX_ROWS]; /* shown[r] is blank from this column on */
	u32 dirty_lo, dirty_hi;		    /* rows [lo, hi) may differ from the screen */
};

/*
 * Draws cells [col, col + n) of row: want holds the new characters, was what
 * the screen shows there now (blank or not, so a drawer may skip work).
 */
typedef void (*fbcon_draw_fn)(u32 row, u32 col, u32 n, const u8 *want, const u8 *was);

/* An empty cols x rows grid (clamped to the maxima), the screen taken as blank. */
void fbcon_text_init(struct fbcon_text *t, u32 cols, u32 rows);

/*
 * Adds text: '\n' ends a line, '\r' returns, '\b' steps back, '\t' goes to the
 * next multiple of 8; control bytes show as '?'. At the bottom the text jumps
 * up half the screen (few jumps for a boot log). Draws nothing.
 */
void fbcon_text_write(struct fbcon_text *t, const char *s, size_t len);

/* Draws every cell whose character differs from what the screen shows, in runs. */
void fbcon_text_sync(struct fbcon_text *t, fbcon_draw_fn draw);

#endif

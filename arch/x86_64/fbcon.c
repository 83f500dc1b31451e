/*
 * Framebuffer text console. The characters on screen are kept in a cell
 * array. Each glyph is rendered once, at start, into the framebuffer's own
 * pixel format (when the font is small enough), so drawing a character is
 * copying its rows. Scrolling jumps half the screen at a time: the
 * pixel rows are moved up in one copy and only the freed rows are cleared,
 * so a boot log costs few scrolls.
 */
#include "fbcon.h"

#include <arch/memory.h>

#include "cmdline.h"
#include "font.h"
#include "lib/string.h"
#include "mmu.h"
#include "printk.h"

#define MAX_COLS 480 /* a 3840-pixel-wide screen with an 8-pixel font */
#define MAX_ROWS 160
#define LOW_4G	 (4ULL << 30)
#define BLANK	 ' '
#define FG_RGB	 0xaaaaaa /* VGA's light grey on black */
#define BG_RGB	 0x000000

static volatile u8 *fb_base;
static u32 fb_pitch, fb_bytespp;
static u32 fg_pixel, bg_pixel;
static u32 cols, rows, row, col;
static u64 fb_phys;
static u32 fb_width, fb_height;
static u8 cells[MAX_ROWS][MAX_COLS];  /* what should be on screen */
static u8 drawn[MAX_ROWS][MAX_COLS];  /* what is on screen */
static struct boot_framebuffer given; /* what the loader handed over, for the boot line */
static const char *not_drawn;	      /* why it is not drawn on, or NULL */
/* Every glyph in the framebuffer's pixel format, row after row; used when it fits. */
static u8 glyph_cache[256 * 16 * 8 * 4] __aligned(8);
static bool cache_ok;
static u32 glyph_row_bytes; /* font width * bytes per pixel */

static bool nofbcon;
BOOT_OPTION_BOOL(nofbcon, "nofbcon", &nofbcon,
		 "do not draw on the framebuffer (to measure what the framebuffer console costs)");

/* A 0xRRGGBB colour as a pixel of this framebuffer's layout. */
static u32 make_pixel(const struct boot_framebuffer *fb, u32 rgb)
{
	u32 r = (rgb >> 16) & 0xff, g = (rgb >> 8) & 0xff, b = rgb & 0xff;

	return (r >> (8 - fb->red_size)) << fb->red_pos |
	       (g >> (8 - fb->green_size)) << fb->green_pos |
	       (b >> (8 - fb->blue_size)) << fb->blue_pos;
}

static void put_pixel(volatile u8 *p, u32 v)
{
	switch (fb_bytespp) {
	case 4:
		*(volatile u32 *)p = v;
		break;
	case 3:
		p[0] = (u8)v;
		p[1] = (u8)(v >> 8);
		p[2] = (u8)(v >> 16);
		break;
	default:
		*(volatile u16 *)p = (u16)v;
		break;
	}
}

/* Renders every glyph into glyph_cache in the framebuffer's pixel format, if it fits. */
static void fill_glyph_cache(void)
{
	const struct console_font *f = &console_font;

	glyph_row_bytes = f->width * fb_bytespp;
	cache_ok = (size_t)256 * f->height * glyph_row_bytes <= sizeof(glyph_cache);
	if (!cache_ok)
		return;
	for (u32 g = 0; g < 256; g++) {
		const u8 *bits = f->bitmap + (size_t)g * f->height * f->row_bytes;
		u8 *out = glyph_cache + (size_t)g * f->height * glyph_row_bytes;

		for (u32 y = 0; y < f->height; y++, bits += f->row_bytes)
			for (u32 x = 0; x < f->width; x++, out += fb_bytespp) {
				u32 v = bits[x / 8] & (0x80 >> (x % 8)) ? fg_pixel : bg_pixel;

				for (u32 b = 0; b < fb_bytespp; b++)
					out[b] = (u8)(v >> (8 * b));
			}
	}
}

/* Copies n bytes (a glyph row) to the framebuffer: a string copy of words where it can. */
static void copy_row(volatile u8 *dst, const u8 *src, u32 n)
{
	if ((((uintptr_t)dst | n) & 7) == 0) {
		size_t words = n / 8;

		__asm__ volatile("rep movsq" : "+D"(dst), "+S"(src), "+c"(words) : : "memory");
		return;
	}
	for (u32 i = 0; i < n; i++)
		dst[i] = src[i];
}

static void draw_cell(u32 r, u32 c)
{
	const struct console_font *f = &console_font;
	volatile u8 *line = fb_base + (size_t)r * f->height * fb_pitch +
			    (size_t)c * f->width * fb_bytespp;

	if (cache_ok) {
		const u8 *g = glyph_cache + (size_t)cells[r][c] * f->height * glyph_row_bytes;

		for (u32 y = 0; y < f->height; y++, line += fb_pitch, g += glyph_row_bytes)
			copy_row(line, g, glyph_row_bytes);
	} else {
		const u8 *glyph = f->bitmap + (size_t)cells[r][c] * f->height * f->row_bytes;

		for (u32 y = 0; y < f->height; y++, line += fb_pitch, glyph += f->row_bytes) {
			volatile u8 *p = line;

			for (u32 x = 0; x < f->width; x++, p += fb_bytespp)
				put_pixel(p, glyph[x / 8] & (0x80 >> (x % 8)) ? fg_pixel : bg_pixel);
		}
	}
	drawn[r][c] = cells[r][c];
}

/* Redraws the cells of row r that differ from what is on screen. */
static void sync_row(u32 r)
{
	for (u32 c = 0; c < cols; c++)
		if (cells[r][c] != drawn[r][c])
			draw_cell(r, c);
}

/* Sets pixel rows [y0, y1) to the background colour. */
static void clear_pixel_rows(u32 y0, u32 y1)
{
	for (u32 y = y0; y < y1; y++) {
		volatile u8 *p = fb_base + (size_t)y * fb_pitch;

		if (bg_pixel == 0) {
			size_t words = fb_width * fb_bytespp / 8;
			volatile u8 *q = p;

			__asm__ volatile("rep stosq" : "+D"(q), "+c"(words) : "a"(0UL) : "memory");
			for (u32 i = fb_width * fb_bytespp / 8 * 8; i < fb_width * fb_bytespp; i++)
				p[i] = 0;
		} else {
			for (u32 x = 0; x < fb_width; x++, p += fb_bytespp)
				put_pixel(p, bg_pixel);
		}
	}
}

/*
 * Copies n bytes from src down to dst < src, front to back: rep movsq over the
 * words (a string copy is also what write-combining memory handles best).
 */
static void move_up(volatile u8 *dst, const volatile u8 *src, size_t n)
{
	size_t words = n / 8;

	__asm__ volatile("rep movsq" : "+D"(dst), "+S"(src), "+c"(words) : : "memory");
	for (size_t i = 0; i < n % 8; i++)
		dst[i] = src[i];
}

/*
 * Jump scroll: half the screen at once. Rows still to be drawn are drawn
 * first, then the pixels move up in one copy and the freed rows are cleared.
 */
static void scroll(void)
{
	const struct console_font *f = &console_font;
	u32 step = rows / 2 ? rows / 2 : 1;
	u32 keep = (rows - step) * f->height;

	for (u32 r = step; r < rows; r++)
		sync_row(r);
	move_up(fb_base, fb_base + (size_t)step * f->height * fb_pitch, (size_t)keep * fb_pitch);
	clear_pixel_rows(keep, rows * f->height);
	memmove(cells[0], cells[step], (size_t)(rows - step) * MAX_COLS);
	memmove(drawn[0], drawn[step], (size_t)(rows - step) * MAX_COLS);
	memset(cells[rows - step], BLANK, (size_t)step * MAX_COLS);
	memset(drawn[rows - step], BLANK, (size_t)step * MAX_COLS);
	row = rows - step;
}

static void clear_screen(void)
{
	clear_pixel_rows(0, fb_height);
	memset(cells, BLANK, sizeof(cells));
	memset(drawn, BLANK, sizeof(drawn));
}

bool fbcon_init(const struct boot_framebuffer *fb)
{
	const struct console_font *f = &console_font;

	given = *fb;
	if (fb->type != BOOT_FB_RGB) {
		not_drawn = "not an RGB framebuffer";
		return false;
	}
	if (fb->bpp != 16 && fb->bpp != 24 && fb->bpp != 32) {
		not_drawn = "depth not 16, 24 or 32 bits";
		return false;
	}
	/* The direct map covers the first 4 GiB from the first instruction on. */
	if (fb->addr + (u64)fb->pitch * fb->height > LOW_4G) {
		not_drawn = "above 4 GiB";
		return false;
	}
	if (fb->pitch < fb->width * (fb->bpp / 8) || fb->width < f->width || fb->height < f->height) {
		not_drawn = "pitch or size too small";
		return false;
	}
	fb_phys = fb->addr;
	fb_base = phys_to_virt(fb->addr);
	fb_pitch = fb->pitch;
	fb_bytespp = fb->bpp / 8;
	fb_width = fb->width;
	fb_height = fb->height;
	fg_pixel = make_pixel(fb, FG_RGB);
	bg_pixel = make_pixel(fb, BG_RGB);
	cols = fb->width / f->width;
	rows = fb->height / f->height;
	if (cols > MAX_COLS)
		cols = MAX_COLS;
	if (rows > MAX_ROWS)
		rows = MAX_ROWS;
	row = col = 0;
	fill_glyph_cache();
	clear_screen();
	return true;
}

void fbcon_map_write_combining(void)
{
	volatile u8 *wc;

	if (!fb_base)
		return;
	wc = paging_map_write_combining(fb_phys, (u64)fb_pitch * fb_height);
	if (!wc) {
		pr_info("fbcon: framebuffer drawn through the direct map (no write-combining)\n");
		return;
	}
	fb_base = wc; /* one store: a console write sees either mapping, both valid */
	pr_info("fbcon: framebuffer mapped write-combining (PAT), %llu KiB\n",
		(unsigned long long)fb_pitch * fb_height / 1024);
}

void fbcon_report(void)
{
	if (not_drawn) {
		pr_info("fbcon: framebuffer %ux%u, %u bpp, pitch %u at %#llx not drawn on: %s\n",
			given.width, given.height, given.bpp, given.pitch,
			(unsigned long long)given.addr, not_drawn);
		return;
	}
	if (!fb_base)
		return;
	pr_info("fbcon: %ux%u, %u bpp, pitch %u at %#llx: %ux%u characters of %ux%u (%s)\n",
		fb_width, fb_height, fb_bytespp * 8, fb_pitch, (unsigned long long)fb_phys, cols,
		rows, console_font.width, console_font.height, console_font.name);
}

void fbcon_write(const char *s, size_t len)
{
	u32 first = row; /* rows from here on may hold cells not drawn yet */

	if (!fb_base || nofbcon)
		return;
	for (size_t i = 0; i < len; i++) {
		u8 c = (u8)s[i];

		if (c == '\n') {
			col = 0;
			row++;
		} else if (c == '\r') {
			col = 0;
		} else if (c == '\b') {
			if (col)
				col--;
		} else {
			if (col == cols) {
				col = 0;
				row++;
			}
			if (row == rows) {
				scroll(); /* draws every changed cell */
				first = row;
			}
			if (c == '\t') {
				col = col + 8 - col % 8 < cols ? col + 8 - col % 8 : cols;
				continue;
			}
			cells[row][col++] = c < 0x20 ? '?' : c;
		}
		if (row == rows) {
			scroll();
			first = row;
		}
	}
	for (u32 r = first; r <= row && r < rows; r++)
		sync_row(r);
}

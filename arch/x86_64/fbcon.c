/*
 * Framebuffer text console. The text lives in RAM (fbcon_text): writing and
 * scrolling change it there, and a sync draws only the cells that differ
 * from what the screen shows, so video memory is written, never read. Each
 * glyph is rendered once, at start, into the framebuffer's own pixel format
 * (when the font is small enough), so drawing a character is copying its
 * rows; a run of blanks is a fill.
 */
#include "fbcon.h"

#include <arch/memory.h>

#include "cmdline.h"
#include "fbcon_text.h"
#include "font.h"
#include "lib/string.h"
#include "mmu.h"
#include "printk.h"

#define LOW_4G (4ULL << 30)
#define FG_RGB 0xaaaaaa /* VGA's light grey on black */
#define BG_RGB 0x000000

static volatile u8 *fb_base;
static u32 fb_pitch, fb_bytespp;
static u32 fg_pixel, bg_pixel;
static u64 fb_phys;
static u32 fb_width, fb_height;
static struct fbcon_text text;
static struct boot_framebuffer given; /* what the loader handed over, for the boot line */
static const char *not_drawn;	      /* why it is not drawn on, or NULL */
/* Every glyph in the framebuffer's pixel format, row after row; used when it fits. */
static u8 glyph_cache[256 * 16 * 8 * 4] __aligned(8);
static bool cache_ok;
static u32 glyph_row_bytes; /* font width * bytes per pixel */
/*
 * Each glyph's lit words: the 8-byte words of its cell that are not all
 * background, as (byte offset in the cell on screen, value). Text is mostly
 * background, so a character is drawn by erasing the old glyph's lit words
 * and storing the new one's: about a third of the cell's words each.
 */
#define LIT_MAX 12288
static u32 lit_offset[LIT_MAX];
static u64 lit_value[LIT_MAX];
static u32 lit_first[257]; /* glyph g's words: [lit_first[g], lit_first[g + 1]) */
static bool lit_ok;

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

/*
 * Lists every glyph's lit words, if the cache exists, the background is 0,
 * a glyph row is whole words and they fit.
 */
static void fill_lit_words(void)
{
	const struct console_font *f = &console_font;
	u32 words = glyph_row_bytes / 8, n = 0;

	lit_ok = cache_ok && bg_pixel == 0 && glyph_row_bytes % 8 == 0 && fb_pitch % 8 == 0;
	for (u32 g = 0; g < 256 && lit_ok; g++) {
		const u64 *w = (const u64 *)(glyph_cache + (size_t)g * f->height * glyph_row_bytes);

		lit_first[g] = n;
		for (u32 y = 0; y < f->height; y++)
			for (u32 x = 0; x < words; x++, w++) {
				if (!*w)
					continue;
				if (n == LIT_MAX) {
					lit_ok = false;
					return;
				}
				lit_offset[n] = y * fb_pitch + x * 8;
				lit_value[n++] = *w;
			}
	}
	lit_first[256] = n;
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

static void draw_glyph(volatile u8 *line, u8 ch)
{
	const struct console_font *f = &console_font;

	if (cache_ok) {
		const u8 *g = glyph_cache + (size_t)ch * f->height * glyph_row_bytes;

		for (u32 y = 0; y < f->height; y++, line += fb_pitch, g += glyph_row_bytes)
			copy_row(line, g, glyph_row_bytes);
	} else {
		const u8 *glyph = f->bitmap + (size_t)ch * f->height * f->row_bytes;

		for (u32 y = 0; y < f->height; y++, line += fb_pitch, glyph += f->row_bytes) {
			volatile u8 *p = line;

			for (u32 x = 0; x < f->width; x++, p += fb_bytespp)
				put_pixel(p, glyph[x / 8] & (0x80 >> (x % 8)) ? fg_pixel : bg_pixel);
		}
	}
}

/* Sets n bytes from p to the background colour (n a whole number of pixels). */
static void fill_background(volatile u8 *p, size_t n)
{
	if (bg_pixel == 0) {
		size_t words = n / 8;
		volatile u8 *q = p;

		__asm__ volatile("rep stosq" : "+D"(q), "+c"(words) : "a"(0UL) : "memory");
		for (size_t i = n / 8 * 8; i < n; i++)
			p[i] = 0;
	} else {
		for (size_t x = 0; x < n; x += fb_bytespp)
			put_pixel(p + x, bg_pixel);
	}
}

/* Turns the cell at `at` from glyph was into glyph want through their lit words. */
static void redraw_lit(volatile u8 *at, u8 want, u8 was)
{
	for (u32 i = lit_first[was]; i < lit_first[was + 1]; i++)
		*(volatile u64 *)(at + lit_offset[i]) = 0;
	for (u32 i = lit_first[want]; i < lit_first[want + 1]; i++)
		*(volatile u64 *)(at + lit_offset[i]) = lit_value[i];
}

/* fbcon_text's drawing function: by lit words, else glyph by glyph with blank runs filled. */
static void draw_cells(u32 r, u32 c, u32 n, const u8 *want, const u8 *was)
{
	const struct console_font *f = &console_font;
	volatile u8 *top = fb_base + (size_t)r * f->height * fb_pitch;
	u32 cell_bytes = f->width * fb_bytespp;

	if (lit_ok) {
		for (u32 i = 0; i < n; i++)
			redraw_lit(top + (size_t)(c + i) * cell_bytes, want[i], was[i]);
		return;
	}
	for (u32 i = 0; i < n;) {
		volatile u8 *at = top + (size_t)(c + i) * cell_bytes;
		u32 blanks = 0;

		while (i + blanks < n && want[i + blanks] == FBCON_TEXT_BLANK)
			blanks++;
		if (!blanks) {
			draw_glyph(at, want[i++]);
			continue;
		}
		for (u32 y = 0; y < f->height; y++)
			fill_background(at + (size_t)y * fb_pitch, (size_t)blanks * cell_bytes);
		i += blanks;
	}
}

static void clear_screen(void)
{
	for (u32 y = 0; y < fb_height; y++)
		fill_background(fb_base + (size_t)y * fb_pitch, (size_t)fb_width * fb_bytespp);
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
	fbcon_text_init(&text, fb->width / f->width, fb->height / f->height);
	fill_glyph_cache();
	fill_lit_words();
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
		fb_width, fb_height, fb_bytespp * 8, fb_pitch, (unsigned long long)fb_phys,
		text.cols, text.rows, console_font.width, console_font.height, console_font.name);
}

void fbcon_write(const char *s, size_t len)
{
	if (!fb_base || nofbcon)
		return;
	fbcon_text_write(&text, s, len);
	fbcon_text_sync(&text, draw_cells);
}

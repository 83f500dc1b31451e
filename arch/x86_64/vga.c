/* VGA text-mode console: 16-bit cells (attribute, character), scrolling. */
#include "vga.h"

#include <arch/memory.h>

#include "lib/string.h"
#include "x86.h"

#define VGA_ATTR   0x07 /* light grey on black */
#define CRTC_INDEX 0x3d4
#define CRTC_DATA  0x3d5

static volatile u16 *vga_buf;
static u32 vga_width, vga_height, vga_stride; /* stride in cells */
static u32 row, col;

static void vga_set_cursor(void)
{
	u16 pos = (u16)(row * vga_stride + col);

	outb(CRTC_INDEX, 0x0f);
	outb(CRTC_DATA, (u8)pos);
	outb(CRTC_INDEX, 0x0e);
	outb(CRTC_DATA, (u8)(pos >> 8));
}

static void vga_scroll(void)
{
	for (u32 r = 1; r < vga_height; r++)
		for (u32 c = 0; c < vga_width; c++)
			vga_buf[(r - 1) * vga_stride + c] = vga_buf[r * vga_stride + c];
	for (u32 c = 0; c < vga_width; c++)
		vga_buf[(vga_height - 1) * vga_stride + c] = (VGA_ATTR << 8) | ' ';
	row = vga_height - 1;
}

void vga_init(u64 phys, u32 width, u32 height, u32 pitch)
{
	vga_buf = phys_to_virt(phys);
	vga_width = width;
	vga_height = height;
	vga_stride = pitch ? pitch / 2 : width;
	for (u32 i = 0; i < vga_height * vga_stride; i++)
		vga_buf[i] = (VGA_ATTR << 8) | ' ';
	row = col = 0;
	vga_set_cursor();
}

void vga_write(const char *s, size_t len)
{
	if (!vga_buf)
		return;
	for (size_t i = 0; i < len; i++) {
		char c = s[i];

		if (c == '\n') {
			col = 0;
			row++;
		} else if (c == '\r') {
			col = 0;
		} else {
			if (col == vga_width) {
				col = 0;
				row++;
			}
			if (row == vga_height)
				vga_scroll();
			vga_buf[row * vga_stride + col++] = (u16)((VGA_ATTR << 8) | (u8)c);
		}
		if (row == vga_height)
			vga_scroll();
	}
	vga_set_cursor();
}

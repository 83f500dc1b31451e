/*
 * The framebuffer console's text shadow. A jump moves the wanted text up in
 * RAM only; the next sync redraws the cells that now differ from the screen
 * (a blank cell over a blank one costs nothing), so scrolling never reads
 * video memory, which is slow to read on real hardware (uncached or
 * write-combining).
 */
#include "fbcon_text.h"

#include "lib/string.h"

void fbcon_text_init(struct fbcon_text *t, u32 cols, u32 rows)
{
	t->cols = cols < FBCON_TEXT_MAX_COLS ? cols : FBCON_TEXT_MAX_COLS;
	t->rows = rows < FBCON_TEXT_MAX_ROWS ? rows : FBCON_TEXT_MAX_ROWS;
	t->row = t->col = 0;
	t->scrolls = 0;
	memset(t->cells, FBCON_TEXT_BLANK, sizeof(t->cells));
	memset(t->shown, FBCON_TEXT_BLANK, sizeof(t->shown));
	memset(t->cells_len, 0, sizeof(t->cells_len));
	memset(t->shown_len, 0, sizeof(t->shown_len));
	t->dirty_lo = t->rows;
	t->dirty_hi = 0;
}

static void mark_dirty(struct fbcon_text *t, u32 r)
{
	if (r < t->dirty_lo)
		t->dirty_lo = r;
	if (r + 1 > t->dirty_hi)
		t->dirty_hi = r + 1;
}

/* The wanted text jumps up half the screen; the screen is left as it is. */
static void jump(struct fbcon_text *t)
{
	u32 step = t->rows / 2 ? t->rows / 2 : 1;
	u32 keep = t->rows - step;

	memmove(t->cells[0], t->cells[step], (size_t)keep * FBCON_TEXT_MAX_COLS);
	memmove(t->cells_len, t->cells_len + step, (size_t)keep * sizeof(t->cells_len[0]));
	memset(t->cells[keep], FBCON_TEXT_BLANK, (size_t)step * FBCON_TEXT_MAX_COLS);
	memset(t->cells_len + keep, 0, (size_t)step * sizeof(t->cells_len[0]));
	t->row = keep;
	t->scrolls++;
	t->dirty_lo = 0;
	t->dirty_hi = t->rows;
}

static void put(struct fbcon_text *t, u8 c)
{
	if (c == '\n') {
		t->col = 0;
		t->row++;
	} else if (c == '\r') {
		t->col = 0;
	} else if (c == '\b') {
		if (t->col)
			t->col--;
	} else {
		if (t->col == t->cols) {
			t->col = 0;
			t->row++;
		}
		if (t->row == t->rows)
			jump(t);
		if (c == '\t') {
			u32 next = t->col + 8 - t->col % 8;

			t->col = next < t->cols ? next : t->cols;
			return;
		}
		t->cells[t->row][t->col++] = c < 0x20 ? '?' : c;
		if (t->col > t->cells_len[t->row])
			t->cells_len[t->row] = t->col;
		mark_dirty(t, t->row);
	}
	if (t->row == t->rows)
		jump(t);
}

void fbcon_text_write(struct fbcon_text *t, const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		put(t, (u8)s[i]);
}

void fbcon_text_sync(struct fbcon_text *t, fbcon_draw_fn draw)
{
	for (u32 r = t->dirty_lo; r < t->dirty_hi; r++) {
		const u8 *want = t->cells[r];
		u8 *shown = t->shown[r];
		u32 end = t->cells_len[r] > t->shown_len[r] ? t->cells_len[r] : t->shown_len[r];

		for (u32 c = 0; c < end;) {
			u32 n = 0;

			while (c + n < end && want[c + n] != shown[c + n])
				n++;
			if (n) {
				draw(r, c, n, want + c, shown + c);
				memcpy(shown + c, want + c, n);
				c += n;
			} else {
				c++;
			}
		}
		t->shown_len[r] = t->cells_len[r];
	}
	t->dirty_lo = t->rows;
	t->dirty_hi = 0;
}

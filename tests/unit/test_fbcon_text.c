/*
 * Host tests of the framebuffer console's text shadow (arch/x86_64/fbcon_text):
 * a sync leaves a fake screen equal to the text, draws only cells that
 * differ (nothing twice, blanks over blanks never), tells the drawer what
 * the screen shows, and a jump scroll moves the text without the screen
 * being read; line ends, wrapping, tabs and backspace; random writes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fbcon_text.h"
#include "unit.h"

static struct fbcon_text text;
static u8 screen[FBCON_TEXT_MAX_ROWS][FBCON_TEXT_MAX_COLS];
static unsigned cells_drawn;

static void fake_draw(u32 row, u32 col, u32 n, const u8 *want, const u8 *was)
{
	ck_assert_uint_lt(row, text.rows);
	ck_assert_uint_le(col + n, text.cols);
	ck_assert_uint_gt(n, 0);
	for (u32 i = 0; i < n; i++) {
		ck_assert_uint_eq(was[i], screen[row][col + i]); /* the shadow knows the screen */
		ck_assert_uint_ne(want[i], was[i]);		 /* only changes are drawn */
		screen[row][col + i] = want[i];
	}
	cells_drawn += n;
}

static void setup_grid(u32 cols, u32 rows)
{
	fbcon_text_init(&text, cols, rows);
	memset(screen, FBCON_TEXT_BLANK, sizeof(screen));
	cells_drawn = 0;
}

static void put(const char *s)
{
	fbcon_text_write(&text, s, strlen(s));
}

/* Row r of the fake screen, trailing blanks cut. */
static const char *screen_row(u32 r)
{
	static char buf[FBCON_TEXT_MAX_COLS + 1];
	u32 n = text.cols;

	memcpy(buf, screen[r], n);
	while (n && buf[n - 1] == FBCON_TEXT_BLANK)
		n--;
	buf[n] = '\0';
	return buf;
}

static void assert_screen_is_text(void)
{
	for (u32 r = 0; r < text.rows; r++)
		ck_assert_mem_eq(screen[r], text.cells[r], text.cols);
}

START_TEST(test_draws_only_what_changed)
{
	setup_grid(20, 4);
	put("ab c\n");
	ck_assert_uint_eq(cells_drawn, 0); /* writing draws nothing by itself */
	fbcon_text_sync(&text, fake_draw);
	ck_assert_str_eq(screen_row(0), "ab c");
	ck_assert_uint_eq(cells_drawn, 3); /* the blank between is already blank */
	fbcon_text_sync(&text, fake_draw);
	ck_assert_uint_eq(cells_drawn, 3);
	put("\rxb");
	ck_assert_uint_eq(text.row, 1);
	put("\n\b\b");
	fbcon_text_sync(&text, fake_draw);
	ck_assert_uint_eq(cells_drawn, 5);
	ck_assert_str_eq(screen_row(1), "xb");
	assert_screen_is_text();
}
END_TEST

START_TEST(test_jump_redraws_differences_only)
{
	char line[32];
	unsigned before;

	setup_grid(10, 6);
	for (int i = 0; i < 6; i++) {
		snprintf(line, sizeof(line), "line%d\n", i);
		put(line);
		fbcon_text_sync(&text, fake_draw);
	}
	/* The sixth line end jumped: three rows kept, the cursor below them. */
	ck_assert_uint_eq(text.scrolls, 1);
	ck_assert_uint_eq(text.row, 3);
	ck_assert_str_eq(screen_row(0), "line3");
	ck_assert_str_eq(screen_row(2), "line5");
	ck_assert_str_eq(screen_row(3), "");
	assert_screen_is_text();
	/*
	 * line0-line4 drawn (5 cells each); line5 jumped away before a sync drew it
	 * on row 5; then each kept row differs in its digit only, and rows 3 and 4
	 * are erased (row 5 was blank and stays so).
	 */
	ck_assert_uint_eq(cells_drawn, 5 * 5 + 3 * 1 + 2 * 5);
	before = cells_drawn;
	put("line6");
	fbcon_text_sync(&text, fake_draw);
	ck_assert_uint_eq(cells_drawn - before, 5);
	ck_assert_str_eq(screen_row(3), "line6");
}
END_TEST

START_TEST(test_wrap_tab_and_control_bytes)
{
	setup_grid(8, 3);
	put("abcdefghij");
	ck_assert_uint_eq(text.row, 1);
	ck_assert_uint_eq(text.col, 2);
	put("\tX\x01");
	fbcon_text_sync(&text, fake_draw);
	ck_assert_str_eq(screen_row(0), "abcdefgh");
	ck_assert_str_eq(screen_row(1), "ij");
	ck_assert_str_eq(screen_row(2), "X?");
	ck_assert_uint_eq(text.scrolls, 0);
	/*
	 * A tab stops at the last column; one there wraps first (a jump of one
	 * row on this 3-row grid), and so does the character after it.
	 */
	put("\t\tY");
	fbcon_text_sync(&text, fake_draw);
	ck_assert_uint_eq(text.scrolls, 2);
	ck_assert_str_eq(screen_row(0), "X?");
	ck_assert_str_eq(screen_row(1), "");
	ck_assert_str_eq(screen_row(2), "Y");
	assert_screen_is_text();
}
END_TEST

START_TEST(test_clamped_to_maxima)
{
	setup_grid(FBCON_TEXT_MAX_COLS + 7, FBCON_TEXT_MAX_ROWS + 3);
	ck_assert_uint_eq(text.cols, FBCON_TEXT_MAX_COLS);
	ck_assert_uint_eq(text.rows, FBCON_TEXT_MAX_ROWS);
}
END_TEST

/* Random text, random sync points: the screen always ends equal to the text. */
START_TEST(test_random_writes)
{
	static const char alphabet[] = "ab  \n\r\b\t\x7f";
	char buf[64];

	srand(19);
	for (int grid = 0; grid < 20; grid++) {
		setup_grid(1 + rand() % 30, 1 + rand() % 12);
		for (int w = 0; w < 200; w++) {
			size_t n = (size_t)(rand() % (int)sizeof(buf));

			for (size_t i = 0; i < n; i++)
				buf[i] = alphabet[rand() % (int)(sizeof(alphabet) - 1)];
			fbcon_text_write(&text, buf, n);
			if (rand() % 3 == 0) {
				fbcon_text_sync(&text, fake_draw);
				assert_screen_is_text();
			}
		}
		fbcon_text_sync(&text, fake_draw);
		assert_screen_is_text();
		ck_assert_uint_lt(text.row, text.rows);
	}
}
END_TEST

Suite *fbcon_text_suite(void)
{
	Suite *s = suite_create("fbcon_text");
	TCase *tc = tcase_create("fbcon_text");

	tcase_add_test(tc, test_draws_only_what_changed);
	tcase_add_test(tc, test_jump_redraws_differences_only);
	tcase_add_test(tc, test_wrap_tab_and_control_bytes);
	tcase_add_test(tc, test_clamped_to_maxima);
	tcase_add_test(tc, test_random_writes);
	suite_add_tcase(s, tc);
	return s;
}

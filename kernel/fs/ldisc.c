/* Canonical line editing for the console (see ldisc.h). */
#include "fs/ldisc.h"

#include "lib/errno.h"

#define LDISC_PUSH 0x100 /* Ctrl-D's line end: ends the line, reads as no byte */

#define CTRL(c) ((c)&0x1f)
#define CH_INTR CTRL('C')
#define CH_EOF	CTRL('D')
#define CH_KILL CTRL('U')
#define CH_BS	0x08
#define CH_DEL	0x7f

void ldisc_init(struct ldisc *ld)
{
	ld->read_tail = ld->canon_head = ld->head = 0;
}

static u32 used(const struct ldisc *ld)
{
	return ld->head - ld->read_tail;
}

static void put(struct ldisc *ld, u16 v)
{
	ld->ring[ld->head++ % LDISC_RING] = v;
}

static u16 last_typed(const struct ldisc *ld)
{
	return ld->ring[(ld->head - 1) % LDISC_RING];
}

/* Removes the last typed byte and erases it on screen (two columns for a ^X). */
static void erase_one(struct ldisc *ld, ldisc_echo_fn echo)
{
	u16 v = last_typed(ld);

	ld->head--;
	echo("\b \b", 3);
	if (v < 0x20 && v != '\t')
		echo("\b \b", 3);
}

/* Ends the typed line with v ('\n' or LDISC_PUSH); the last slot is kept for this. */
static int finish_line(struct ldisc *ld, u16 v)
{
	if (used(ld) >= LDISC_RING)
		return 0;
	put(ld, v);
	ld->canon_head = ld->head;
	return LDISC_READY;
}

int ldisc_input(struct ldisc *ld, char ch, ldisc_echo_fn echo)
{
	u8 c = (u8)ch;
	char ctl[2];

	if (c == '\r')
		c = '\n'; /* ICRNL */
	switch (c) {
	case '\n':
		echo("\n", 1);
		return finish_line(ld, '\n');
	case CH_EOF:
		return finish_line(ld, LDISC_PUSH);
	case CH_INTR:
		/* ISIG: typed and unread input is flushed, as Linux does without NOFLSH. */
		ld->head = ld->canon_head = ld->read_tail;
		echo("^C\n", 3);
		return LDISC_INTR;
	case CH_BS:
	case CH_DEL:
		if (ld->head != ld->canon_head)
			erase_one(ld, echo);
		return 0;
	case CH_KILL:
		while (ld->head != ld->canon_head)
			erase_one(ld, echo);
		return 0;
	default:
		break;
	}
	/* Keep one slot for the line's end; a full ring drops the byte (Linux beeps). */
	if (used(ld) >= LDISC_RING - 1)
		return 0;
	put(ld, c);
	if (c < 0x20 && c != '\t') { /* ECHOCTL */
		ctl[0] = '^';
		ctl[1] = (char)(c + '@');
		echo(ctl, 2);
	} else {
		ctl[0] = (char)c;
		echo(ctl, 1);
	}
	return 0;
}

bool ldisc_readable(const struct ldisc *ld)
{
	return ld->canon_head != ld->read_tail;
}

long ldisc_read(struct ldisc *ld, char *buf, size_t n)
{
	size_t got = 0;

	if (!ldisc_readable(ld))
		return -EAGAIN;
	while (got < n && ld->read_tail != ld->canon_head) {
		u16 v = ld->ring[ld->read_tail % LDISC_RING];

		ld->read_tail++;
		if (v == LDISC_PUSH)
			break;
		buf[got++] = (char)v;
		if (v == '\n')
			break;
	}
	return (long)got;
}

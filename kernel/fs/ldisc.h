/*
 * The console's line discipline: canonical input as Linux's N_TTY does it
 * with its default termios (ICRNL, ECHO, ECHOE, ECHOCTL, ICANON, ISIG).
 * Typed bytes collect in a ring; a line becomes readable when it ends
 * ('\n', or Enter's '\r') or is pushed by Ctrl-D; backspace and Ctrl-U
 * edit the unfinished line; Ctrl-C drops the input and is reported to the
 * caller. A pure state machine: the console device feeds it and does the
 * locking, echoing and waking.
 */
#ifndef FULCRUM_FS_LDISC_H
#define FULCRUM_FS_LDISC_H

#include "lib/types.h"

#define LDISC_RING 4096 /* entries: bytes of finished lines and the line being typed */

/* ldisc_input() results. */
#define LDISC_READY 0x1 /* a line (or an end of file) became readable */
#define LDISC_INTR  0x2 /* Ctrl-C: the caller may signal the foreground program */

struct ldisc {
	u16 ring[LDISC_RING]; /* a byte, or LDISC_PUSH: a line end that reads as nothing */
	u32 read_tail;	      /* next entry to read */
	u32 canon_head;	      /* end of the finished lines */
	u32 head;	      /* end of the line being typed */
};

void ldisc_init(struct ldisc *ld);

/* Where echo goes: called with each piece of echo text as it is produced. */
typedef void (*ldisc_echo_fn)(const char *s, size_t n);

/* Takes one input byte, echoing through echo. Returns LDISC_READY / LDISC_INTR bits. */
int ldisc_input(struct ldisc *ld, char c, ldisc_echo_fn echo);

/* A finished line (or an end of file) is waiting. */
bool ldisc_readable(const struct ldisc *ld);

/*
 * Reads from the first finished line: up to n bytes, stopping after its
 * '\n'. 0 means an end of file (Ctrl-D on an empty line); -EAGAIN when
 * nothing is readable.
 */
long ldisc_read(struct ldisc *ld, char *buf, size_t n);

#endif
